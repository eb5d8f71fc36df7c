//! Data layout: PTX types to sizes and device types, variables' sizes and alignments,
//! placing them in a state space, their initializers as bytes, and the module-scope
//! variables laid out.

use super::{DataReloc, Init, Pos, Program, Result, Segment, StateSpace, Symbol, ast};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::Ty;

pub(crate) fn scalar_size(ty: &str) -> Option<u32> {
    Some(match ty {
        "b8" | "u8" | "s8" | "pred" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        _ => return None,
    })
}

pub(crate) fn isa_ty(ty: &str) -> Option<Ty> {
    Some(match ty {
        "u8" | "b8" => Ty::U8,
        "s8" => Ty::S8,
        "u16" | "b16" => Ty::U16,
        "s16" => Ty::S16,
        "u32" | "b32" => Ty::U32,
        "s32" => Ty::S32,
        "u64" | "b64" => Ty::U64,
        "s64" => Ty::S64,
        "f32" => Ty::F32,
        "f64" => Ty::F64,
        "pred" => Ty::Pred,
        "f16" => Ty::F16,
        "bf16" => Ty::Bf16,
        "f16x2" => Ty::F16x2,
        "bf16x2" => Ty::Bf16x2,
        _ => return None,
    })
}

/// Largest variable the compiler accepts.
pub(crate) const MAX_VAR: u64 = 1 << 28;
/// Largest state space (segment, shared, local or parameter layout).
pub(crate) const MAX_SPACE: u64 = 1 << 30;

pub(crate) fn var_size(v: &ast::Var) -> Result<(u32, u32)> {
    let elem = scalar_size(&v.ty).ok_or_else(|| v.pos.err(format!("unsupported type `.{}`", v.ty)))? * v.vec;
    let n = v.count.unwrap_or(1);
    let size = (elem as u64)
        .checked_mul(n)
        .filter(|&s| s <= MAX_VAR)
        .ok_or_else(|| v.pos.err(format!("`{}` is larger than {} MiB", v.name, MAX_VAR >> 20)))?;
    if v.align != 0 && (!v.align.is_power_of_two() || v.align > 1 << 16) {
        return Err(v.pos.err(format!("bad alignment {} of `{}`", v.align, v.name)));
    }
    Ok((size as u32, v.align.max(elem).max(1)))
}

/// The initial bytes of each initialized module-scope `.global` variable of PTX module
/// `src`, by name, without compiling the module: what a runtime needs to give a
/// variable whose storage is on the host (a `__managed__` variable's host shadow) the value
/// the device code declares.
pub fn initial_values(src: &str) -> Result<Vec<(String, Vec<u8>)>> {
    let mut m = crate::parse(src)?;
    if crate::indirect::needed(&m) {
        m = crate::indirect::lower(&m)?;
    }
    // Variables holding another's address are left out: that address is the device's.
    let initialized = m.vars.iter().filter(|v| v.space == StateSpace::Global && !v.init.is_empty());
    initialized
        .filter(|v| scalar_size(&v.ty).is_some() && !v.init.iter().any(|i| matches!(i, Init::Sym(..))))
        .map(|v| Ok((v.name.clone(), init_bytes(v, var_size(v)?.0, &BTreeMap::new())?.0)))
        .collect()
}

/// Place `size` bytes aligned to `align` after `top` in a state space: (offset, new top).
pub(crate) fn place(top: u32, size: u32, align: u32, pos: Pos) -> Result<(u32, u32)> {
    let off = (top as u64).div_ceil(align.max(1) as u64) * align.max(1) as u64;
    let end = off + size as u64;
    if end > MAX_SPACE {
        return Err(pos.err(format!("a state space larger than {} MiB", MAX_SPACE >> 20)));
    }
    Ok((off as u32, end as u32))
}

/// The array clang (15 and later) writes into relocatable device code to keep the
/// external variables a module uses alive (`@llvm.compiler.used` in PTX form): the
/// addresses of those variables, which no code reads.
pub(crate) const CLANG_USED_EXTERNAL: &str = "__clang_gpu_used_external";

/// Where a variable's initial bytes hold another variable's address: (byte offset in the
/// variable, width, the segment it points into); the bytes hold the offset there.
pub(crate) type InitAddr = (u32, u8, Segment);

/// The initial bytes of variable `v` (`size` bytes), and where they hold the address of a
/// variable in `places`.
pub(crate) fn init_bytes(
    v: &ast::Var,
    size: u32,
    places: &BTreeMap<String, Place>,
) -> Result<(Vec<u8>, Vec<InitAddr>)> {
    let elem = scalar_size(&v.ty).unwrap_or(1) as usize;
    let mut out = vec![0u8; size as usize];
    let mut addrs = Vec::new();
    if v.name == CLANG_USED_EXTERNAL {
        return Ok((out, addrs)); // never read: its address initializers are not laid out
    }
    for (i, init) in v.init.iter().enumerate() {
        let at = i * elem;
        if at + elem > out.len() {
            return Err(v.pos.err(format!("too many initializers for `{}`", v.name)));
        }
        let bits: u64 = match *init {
            Init::Int(x) => x,
            Init::Float(f) if v.ty == "f32" => (f as f32).to_bits() as u64,
            Init::Float(f) => f.to_bits(),
            Init::F32(b) if v.ty == "f64" => (f32::from_bits(b) as f64).to_bits(),
            Init::F32(b) => b as u64,
            Init::F64(b) if v.ty == "f32" => (f64::from_bits(b) as f32).to_bits() as u64,
            Init::F64(b) => b,
            Init::Sym(ref s, off) => {
                // A generic address: a `.global` variable's is its global address, a
                // `.const` one's the constant segment's buffer plus its offset.
                let (target, base) = match places.get(s) {
                    Some(&Place::Global(o)) => (Segment::Global, o),
                    Some(&Place::Const(o)) => (Segment::Const, o),
                    _ => {
                        let what = format!("initializing `{}` with the address of `{s}` is not supported", v.name);
                        return Err(v.pos.err(what));
                    }
                };
                if elem != 4 && elem != 8 {
                    return Err(v.pos.err(format!("`{}`: an address initializer fills a .b32 or .b64", v.name)));
                }
                addrs.push((at as u32, elem as u8, target));
                (base as u64).wrapping_add(off as u64)
            }
        };
        out[at..at + elem].copy_from_slice(&bits.to_le_bytes()[..elem]);
    }
    Ok((out, addrs))
}

/// Where a symbol lives and its address there.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Place {
    Global(u32),
    Const(u32),
    Shared(u32),
    Local(u32),
    Param(u32),
}

/// Bytes of the constant bank that holds a module's `.const` data (ptxas's limit too).
pub const CONST_BANK_BYTES: u32 = 64 * 1024;

/// Lay out the module-scope variables: `.global` and `.const` data in their segments (with
/// their symbols and initial bytes), handles (texture, surface and sampler references)
/// numbered in declaration order; `.shared` ones are returned for the kernels and
/// functions that name them to place.
pub(crate) fn module_vars<'m>(
    m: &'m ast::Module,
    prog: &mut Program,
) -> Result<(BTreeMap<String, Place>, Vec<&'m ast::Var>)> {
    let mut places: BTreeMap<String, Place> = BTreeMap::new();
    let mut module_shared: Vec<&ast::Var> = Vec::new();
    // Initializers may hold the address of any variable of the module: the images are
    // filled once every variable has its place.
    let mut initialized: Vec<(&ast::Var, u32, u32, bool)> = Vec::new();
    for v in &m.vars {
        // Texture, surface and sampler references: handles, numbered in declaration order.
        let handles = match v.ty.as_str() {
            "texref" => Some(&mut prog.textures),
            "surfref" => Some(&mut prog.surfaces),
            "samplerref" => Some(&mut prog.samplers),
            _ => None,
        };
        if let Some(list) = handles {
            if v.space != StateSpace::Global || v.count.is_some() {
                return Err(v.pos.err(format!("`{}`: a `.{}` is a scalar `.global`", v.name, v.ty)));
            }
            // The slots a launch can bind (hw::class::compute).
            let max = match v.ty.as_str() {
                "surfref" => hw::class::compute::SURF_SLOTS,
                "texref" => hw::class::compute::TEX_SLOTS,
                _ => hw::class::compute::SAMPLER_SLOTS,
            };
            if list.len() == max {
                return Err(v.pos.err(format!("`{}`: a module has at most {max} `.{}`s", v.name, v.ty)));
            }
            list.push(v.name.clone());
            continue;
        }
        let (size, align) = var_size(v)?;
        match v.space {
            StateSpace::Global | StateSpace::Const => {
                let global = v.space == StateSpace::Global;
                let top = if global { &mut prog.global_size } else { &mut prog.const_size };
                let (off, end) = place(*top, size, align, v.pos)?;
                if !global && end > CONST_BANK_BYTES {
                    return Err(v.pos.err(format!(
                        "`.const` data would take {end} bytes with `{}`: a module has one 64 KiB constant bank",
                        v.name
                    )));
                }
                *top = end;
                if !v.init.is_empty() {
                    initialized.push((v, off, size, global));
                }
                prog.symbols.push(Symbol {
                    name: v.name.clone(),
                    space: v.space,
                    offset: off,
                    size,
                    managed: v.managed,
                });
                let p = if global { Place::Global(off) } else { Place::Const(off) };
                places.insert(v.name.clone(), p);
            }
            StateSpace::Shared => {
                let _ = (size, align);
                module_shared.push(v);
            }
            _ => return Err(v.pos.err(format!("`{}` cannot be declared at module scope", v.name))),
        }
    }
    for (v, off, size, global) in initialized {
        let (bytes, addrs) = init_bytes(v, size, &places)?;
        let image = if global { &mut prog.global_init } else { &mut prog.const_init };
        image.resize(off as usize, 0);
        image.extend(bytes);
        let slot = if global { Segment::Global } else { Segment::Const };
        for (at, width, target) in addrs {
            prog.data_relocs.push(DataReloc { slot, at: off + at, width, target });
        }
    }
    Ok((places, module_shared))
}
