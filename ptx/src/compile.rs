//! PTX to the device ISA.
//!
//! - State spaces: kernel parameters live in constant bank 0 (at the offsets of
//!   [`Kernel::params`]), module `.const` variables in bank 1, `.global` variables in a
//!   data segment the runtime places in VRAM (instructions that need its address carry a
//!   [`Reloc`]), `.shared` variables at static offsets of the block's shared memory with
//!   `extern .shared` arrays after them, `.local` variables in a per-thread frame.
//! - Control flow: every `ret`/`exit` becomes a branch to the function's single exit
//!   block; each conditional branch carries its reconvergence point, the immediate
//!   post-dominator of its basic block.
//! - Registers: each PTX register gets its own device register (up to 240; linear-scan
//!   allocation and spilling are the next step). A few registers above that are scratch
//!   for immediates, special registers and vector accesses.
//!
//! Anything outside the supported subset is an error naming the construct.

use crate::ast::{self, Func, Init, Operand, StateSpace, Stmt};
use crate::error::{Pos, PtxError, Result};
use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;
use hw::isa::*;

/// Scratch registers after a kernel's own: 4 for vector accesses, then 10 for
/// immediates, special registers and expansions.
const SCRATCH_REGS: u32 = 14;
/// Registers PTX values may occupy (the rest of the 255 are scratch).
pub const MAX_REGS: u32 = 255 - SCRATCH_REGS;

/// Which segment a relocated immediate points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    /// The `.global` data segment.
    Global,
}

/// Add the base address of a segment to the immediate of instruction `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Instruction index.
    pub at: u32,
    /// The segment.
    pub segment: Segment,
}

/// A kernel parameter's place in constant bank 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// Byte offset.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// What the runtime needs to launch a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Name.
    pub name: String,
    /// First instruction (index into [`Program::code`]).
    pub pc: u32,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// Bytes of constant bank 0 the parameters occupy.
    pub param_bytes: u32,
    /// Registers per thread.
    pub regs: u32,
    /// Static shared memory per block.
    pub shared_bytes: u32,
    /// Local memory per thread.
    pub local_bytes: u32,
    /// Whether the kernel uses `extern .shared` memory sized at launch.
    pub dynamic_shared: bool,
    /// `.maxntid`/`.reqntid`, if given.
    pub max_threads: Option<u32>,
    /// Bytes of spill stores and loads the register allocator inserted (static counts).
    pub spill: (u32, u32),
}

/// A module-scope variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Name.
    pub name: String,
    /// `.global` or `.const`.
    pub space: StateSpace,
    /// Offset in its segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
}

/// A compiled module.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// All code.
    pub code: Vec<Instr>,
    /// Entry points.
    pub kernels: Vec<Kernel>,
    /// `.global` and `.const` variables.
    pub symbols: Vec<Symbol>,
    /// Size of the `.global` segment.
    pub global_size: u32,
    /// Initial bytes of the `.global` segment (up to its last initialized variable; the
    /// rest of the segment starts zeroed).
    pub global_init: Vec<u8>,
    /// Size of the `.const` segment (constant bank 1).
    pub const_size: u32,
    /// Initial bytes of the `.const` segment.
    pub const_init: Vec<u8>,
    /// Relocations to apply to [`Program::code`].
    pub relocs: Vec<Reloc>,
    /// The PTX line each instruction of [`Program::code`] came from (0: none), for
    /// diagnostics such as the sanitizers' reports.
    pub lines: Vec<u32>,
}

fn scalar_size(ty: &str) -> Option<u32> {
    Some(match ty {
        "b8" | "u8" | "s8" | "pred" => 1,
        "b16" | "u16" | "s16" | "f16" => 2,
        "b32" | "u32" | "s32" | "f32" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        _ => return None,
    })
}

fn isa_ty(ty: &str) -> Option<Ty> {
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
        _ => return None,
    })
}

/// Largest variable the compiler accepts.
const MAX_VAR: u64 = 1 << 28;
/// Largest state space (segment, shared, local or parameter layout).
const MAX_SPACE: u64 = 1 << 30;

fn var_size(v: &ast::Var) -> Result<(u32, u32)> {
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

/// Place `size` bytes aligned to `align` after `top` in a state space: (offset, new top).
fn place(top: u32, size: u32, align: u32, pos: Pos) -> Result<(u32, u32)> {
    let off = (top as u64).div_ceil(align.max(1) as u64) * align.max(1) as u64;
    let end = off + size as u64;
    if end > MAX_SPACE {
        return Err(pos.err(format!("a state space larger than {} MiB", MAX_SPACE >> 20)));
    }
    Ok((off as u32, end as u32))
}

fn init_bytes(v: &ast::Var, size: u32) -> Result<Vec<u8>> {
    let elem = scalar_size(&v.ty).unwrap_or(1) as usize;
    let mut out = vec![0u8; size as usize];
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
            Init::Sym(ref s) => {
                return Err(v.pos.err(format!("initializing `{}` with the address of `{s}` is not supported", v.name)));
            }
        };
        out[at..at + elem].copy_from_slice(&bits.to_le_bytes()[..elem]);
    }
    Ok(out)
}

/// Where a symbol lives and its address there.
#[derive(Clone, Copy, Debug)]
enum Place {
    Global(u32),
    Const(u32),
    Shared(u32),
    Local(u32),
    Param(u32),
}

/// Bytes of the constant bank that holds a module's `.const` data (ptxas's limit too).
pub const CONST_BANK_BYTES: u32 = 64 * 1024;

/// Compile a parsed module.
pub fn compile(m: &ast::Module) -> Result<Program> {
    let mut prog = Program {
        code: Vec::new(),
        kernels: Vec::new(),
        symbols: Vec::new(),
        global_size: 0,
        global_init: Vec::new(),
        const_size: 0,
        const_init: Vec::new(),
        relocs: Vec::new(),
        lines: Vec::new(),
    };
    let mut places: BTreeMap<String, Place> = BTreeMap::new();
    let mut module_shared: Vec<&ast::Var> = Vec::new();
    for v in &m.vars {
        let (size, align) = var_size(v)?;
        match v.space {
            StateSpace::Global | StateSpace::Const => {
                let global = v.space == StateSpace::Global;
                let (top, image) = if global {
                    (&mut prog.global_size, &mut prog.global_init)
                } else {
                    (&mut prog.const_size, &mut prog.const_init)
                };
                let (off, end) = place(*top, size, align, v.pos)?;
                if !global && end > CONST_BANK_BYTES {
                    return Err(v.pos.err(format!(
                        "`.const` data would take {end} bytes with `{}`: a module has one 64 KiB constant bank",
                        v.name
                    )));
                }
                *top = end;
                if !v.init.is_empty() {
                    image.resize(off as usize, 0);
                    image.extend(init_bytes(v, size)?);
                }
                prog.symbols.push(Symbol { name: v.name.clone(), space: v.space, offset: off, size });
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
    // Non-inlined functions: a static frame each (parameters, return values, locals) in
    // per-thread local memory, and a register range of their own.
    check_recursion(m)?;
    let mut frames: BTreeMap<String, Frame> = BTreeMap::new();
    let mut local_top = 0u32;
    for f in m.funcs.iter().filter(|f| !f.entry) {
        let mut fr = Frame { base: 0, params: Vec::new(), rets: Vec::new(), pc: 0 };
        let mut top = local_top;
        for (list, out) in [(&f.params, &mut fr.params), (&f.rets, &mut fr.rets)] {
            for p in list.iter() {
                let (size, align) = var_size(p)?;
                let (off, end) = place(top, size, align.max(4), p.pos)?;
                top = end;
                out.push((off, size));
            }
        }
        fr.base = local_top;
        local_top = place(top, 0, 8, f.pos)?.1;
        frames.insert(f.name.clone(), fr);
    }
    let mut reg_base = 0u32;
    let mut call_fixups: Vec<CallFixup> = Vec::new();
    for f in m.funcs.iter().filter(|f| !f.entry) {
        let Some(body) = &f.body else { continue };
        let named = names_in(body);
        let mut kplaces = BTreeMap::new();
        let fr = &frames[&f.name];
        for (p, &(off, _)) in f.params.iter().zip(&fr.params).chain(f.rets.iter().zip(&fr.rets)) {
            kplaces.insert(p.name.clone(), Place::Local(off));
        }
        let mut shared_top = 0u32;
        for v in module_shared.iter().filter(|v| named.contains(&v.name) && v.count != Some(0)) {
            let (size, align) = var_size(v)?;
            let (off, end) = place(shared_top, size, align, v.pos)?;
            shared_top = end;
            kplaces.insert(v.name.clone(), Place::Shared(off));
        }
        let mut kc = Kc::new(&mut prog, &places, kplaces, &frames, shared_top, false, &[]);
        kc.func = true;
        kc.reg_base = reg_base;
        kc.local_top = local_top;
        let (info, fixups) = kc.function(f, body)?;
        if let Some(fr) = frames.get_mut(&f.name) {
            fr.pc = info.pc;
        }
        reg_base += info.regs;
        local_top = local_top.max(info.local_bytes);
        call_fixups.extend(fixups);
    }
    for f in &m.funcs {
        if !f.entry {
            continue;
        }
        let Some(body) = &f.body else {
            return Err(f.pos.err(format!("kernel `{}` has no body", f.name)));
        };
        // Module-scope shared variables belong to the kernels that name them.
        let named = names_in(body);
        let (mut shared_top, mut dynamic_shared, mut dyn_names) = (0u32, false, Vec::new());
        let mut kplaces = BTreeMap::new();
        for v in module_shared.iter().filter(|v| named.contains(&v.name)) {
            let (size, align) = var_size(v)?;
            if v.count == Some(0) {
                dynamic_shared = true;
                dyn_names.push((v.name.clone(), align));
            } else {
                let (off, end) = place(shared_top, size, align, v.pos)?;
                shared_top = end;
                kplaces.insert(v.name.clone(), Place::Shared(off));
            }
        }
        let mut kc = Kc::new(&mut prog, &places, kplaces, &frames, shared_top, dynamic_shared, &dyn_names);
        kc.reg_base = reg_base;
        kc.local_top = local_top;
        let (k, fixups) = kc.kernel(f, body)?;
        call_fixups.extend(fixups);
        prog.kernels.push(k);
    }
    let defined: alloc::collections::BTreeSet<&str> =
        m.funcs.iter().filter(|f| f.body.is_some()).map(|f| f.name.as_str()).collect();
    for (at, callee, pos) in call_fixups {
        let fr = frames.get(&callee).ok_or_else(|| pos.err(format!("call to unknown function `{callee}`")))?;
        if !defined.contains(callee.as_str()) {
            return Err(pos.err(format!(
                "`{callee}` is declared but not defined in this module (no linking of separate modules)"
            )));
        }
        prog.code[at as usize].imm = fr.pc as u64;
    }
    Ok(prog)
}

/// A `CALL` whose target is patched once every function has its address.
type CallFixup = (u32, String, Pos);

/// A `.func`'s static frame in local memory and its entry point.
#[derive(Clone, Debug, Default)]
struct Frame {
    base: u32,
    params: Vec<(u32, u32)>,
    rets: Vec<(u32, u32)>,
    pc: u32,
}

/// Frames are static, so a function may not (even indirectly) call itself.
fn check_recursion(m: &ast::Module) -> Result<()> {
    let callees = |f: &Func| -> Vec<String> {
        let mut out = Vec::new();
        for s in f.body.iter().flatten() {
            if let Stmt::Instr(i) = s
                && i.op == "call"
                && let Some(n) =
                    i.args.iter().find_map(|a| if let Operand::Name(n) = a { Some(n.clone()) } else { None })
            {
                out.push(n);
            }
        }
        out
    };
    let graph: BTreeMap<&str, Vec<String>> = m.funcs.iter().map(|f| (f.name.as_str(), callees(f))).collect();
    // Depth-first search with an explicit stack (a call chain of any depth costs no host
    // stack): a callee already on the current path closes a cycle.
    let mut on_path = alloc::collections::BTreeSet::new();
    let mut done = alloc::collections::BTreeSet::new();
    for f in &m.funcs {
        let root = f.name.as_str();
        if done.contains(root) {
            continue;
        }
        let mut stack: Vec<(&str, usize)> = alloc::vec![(root, 0)];
        on_path.insert(root);
        while let Some((n, next)) = stack.last_mut() {
            let callees = graph.get(*n).map_or(&[][..], |v| v.as_slice());
            let Some(c) = callees.get(*next) else {
                on_path.remove(*n);
                done.insert(*n);
                stack.pop();
                continue;
            };
            *next += 1;
            let Some((&k, _)) = graph.get_key_value(c.as_str()) else { continue };
            if on_path.contains(k) {
                return Err(f.pos.err(format!("recursive call of `{k}`: recursion is not supported")));
            }
            if !done.contains(k) {
                on_path.insert(k);
                stack.push((k, 0));
            }
        }
    }
    Ok(())
}

/// A copy whose destination is an alias of its source (emits nothing).
fn is_alias_copy(i: &ast::Instr, alias: &BTreeMap<String, String>) -> bool {
    matches!(i.args.first(), Some(Operand::Name(d)) if alias.contains_key(d)) && copy_operands(i).is_some()
}

/// `(dst, src)` of an unguarded register-to-register copy: `mov` of a 32- or 64-bit
/// register, or `cvta.to.global` (an identity in rgdev's flat address space).
fn copy_operands(i: &ast::Instr) -> Option<(&str, &str)> {
    let plain = (i.op == "mov"
        && i.mods.len() == 1
        && matches!(i.mods[0].as_str(), "u32" | "s32" | "b32" | "u64" | "s64" | "b64" | "f32" | "f64"))
        || (i.op == "cvta" && i.has("to") && i.has("global"));
    match (plain, i.guard.is_none(), i.args.as_slice()) {
        (true, true, [Operand::Name(d), Operand::Name(s)]) if d.starts_with('%') && s.starts_with('%') => Some((d, s)),
        _ => None,
    }
}

/// Copy propagation: when the destination and the source of a copy are each defined
/// exactly once in the body, every use of the destination sees the source's only value,
/// so the destination can name the source's register and the copy disappears. Counting a
/// definition for every instruction whose first operand names a register over-counts,
/// which only makes the rule more careful.
fn copies(body: &[Stmt], regs: &BTreeMap<String, (u8, String)>) -> BTreeMap<String, String> {
    let mut defs: BTreeMap<&str, u32> = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            let mut firsts: Vec<&Operand> = Vec::new();
            match i.args.first() {
                Some(Operand::Vector(v)) => firsts.extend(v.iter()),
                Some(o) => firsts.push(o),
                None => {}
            }
            if i.args.len() > 1 && i.op == "setp" {
                firsts.push(&i.args[1]); // the `p|q` second destination
            }
            for o in firsts {
                if let Operand::Name(n) = o {
                    *defs.entry(n.as_str()).or_default() += 1;
                }
            }
        }
    }
    let mut alias = BTreeMap::new();
    for s in body {
        if let Stmt::Instr(i) = s
            && let Some((d, src)) = copy_operands(i)
            && defs.get(d) == Some(&1)
            && defs.get(src) == Some(&1)
            && regs.contains_key(d)
            && regs.contains_key(src)
        {
            // Follow chains of copies to the original.
            let mut root = src.to_string();
            while let Some(r) = alias.get(&root) {
                root = String::clone(r);
            }
            alias.insert(d.to_string(), root);
        }
    }
    alias
}

/// Every name a function body mentions in its operands.
fn names_in(body: &[Stmt]) -> alloc::collections::BTreeSet<String> {
    fn walk(o: &Operand, out: &mut alloc::collections::BTreeSet<String>) {
        match o {
            Operand::Name(n) => {
                out.insert(n.clone());
            }
            Operand::Addr(b, _) | Operand::Not(b) => walk(b, out),
            Operand::Vector(v) | Operand::List(v) => v.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = alloc::collections::BTreeSet::new();
    for s in body {
        if let Stmt::Instr(i) = s {
            i.args.iter().for_each(|a| walk(a, &mut out));
        }
    }
    out
}

#[derive(Clone, Copy, Debug)]
enum Src {
    Reg(u8),
    Imm(u64, bool),
}

struct Kc<'a> {
    prog: &'a mut Program,
    /// Module-scope symbols (shared by every function: borrowed, never copied).
    module: &'a BTreeMap<String, Place>,
    /// This function's own symbols (parameters, shared, locals), looked up first.
    places: BTreeMap<String, Place>,
    regs: BTreeMap<String, (u8, String)>,
    labels: BTreeMap<String, u32>,
    fixups: Vec<(u32, String, Pos)>,
    shared_top: u32,
    local_top: u32,
    dynamic_shared: bool,
    dyn_shared: Vec<(String, u32)>,
    scratch: u8,
    scratch_vec: u8,
    scratch_end: u8,
    guard: Option<(bool, u8)>,
    start: u32,
    pos: Pos,
    frames: &'a BTreeMap<String, Frame>,
    func: bool,
    reg_base: u32,
    /// Call sites of the body: (statement index, callee, argument names, return names).
    calls: Vec<(usize, String, Vec<String>, Vec<String>)>,
    stmt: usize,
    call_fixups: Vec<CallFixup>,
    /// Registers that are copies of another (see [`copies`]).
    alias: BTreeMap<String, String>,
}

impl<'a> Kc<'a> {
    fn new(
        prog: &'a mut Program,
        module: &'a BTreeMap<String, Place>,
        places: BTreeMap<String, Place>,
        frames: &'a BTreeMap<String, Frame>,
        shared_top: u32,
        dynamic_shared: bool,
        dyn_shared: &[(String, u32)],
    ) -> Self {
        let start = prog.code.len() as u32;
        Self {
            prog,
            module,
            places,
            regs: BTreeMap::new(),
            labels: BTreeMap::new(),
            fixups: Vec::new(),
            shared_top,
            local_top: 0,
            dynamic_shared,
            dyn_shared: dyn_shared.to_vec(),
            scratch: 0,
            scratch_vec: 0,
            scratch_end: 0,
            guard: None,
            start,
            pos: Pos::default(),
            frames,
            func: false,
            reg_base: 0,
            calls: Vec::new(),
            stmt: 0,
            call_fixups: Vec::new(),
            alias: BTreeMap::new(),
        }
    }

    fn err(&self, msg: impl Into<String>) -> PtxError {
        self.pos.err(msg)
    }

    fn function(self, f: &Func, body: &[Stmt]) -> Result<(Kernel, Vec<CallFixup>)> {
        self.kernel(f, body)
    }

    fn kernel(mut self, f: &Func, body: &[Stmt]) -> Result<(Kernel, Vec<CallFixup>)> {
        // Kernel parameters live in constant bank 0 (a function's are already in its frame).
        let mut params = Vec::new();
        let mut top = 0u32;
        if !self.func {
            for p in &f.params {
                let (size, align) = var_size(p)?;
                let (off, end) = place(top, size, align, p.pos)?;
                top = end;
                params.push(Param { offset: off, size });
                self.places.insert(p.name.clone(), Place::Param(off));
            }
        }
        // Call sites.
        for (k, s) in body.iter().enumerate() {
            if let Stmt::Instr(i) = s
                && i.op == "call"
            {
                let list = |o: Option<&Operand>| -> Vec<String> {
                    match o {
                        Some(Operand::List(v)) => v
                            .iter()
                            .filter_map(|x| if let Operand::Name(n) = x { Some(n.clone()) } else { None })
                            .collect(),
                        _ => Vec::new(),
                    }
                };
                let (rets, name_at) = if matches!(i.args.first(), Some(Operand::List(_))) {
                    (list(i.args.first()), 1)
                } else {
                    (Vec::new(), 0)
                };
                let Some(Operand::Name(callee)) = i.args.get(name_at) else {
                    return Err(i.pos.err("`call` needs a function name (indirect calls are not supported)"));
                };
                self.calls.push((k, callee.clone(), list(i.args.get(name_at + 1)), rets));
            }
        }
        // Registers: one number each, unless there are too many: then registers with
        // disjoint lifetimes share numbers and the excess is spilled (see `spill`).
        let declared: usize = body.iter().map(|s| if let Stmt::Reg(_, n) = s { n.len() } else { 0 }).sum();
        let fitted =
            if declared > MAX_REGS as usize { Some(crate::spill::fit(body, MAX_REGS as usize)?) } else { None };
        let body: &[Stmt] = match &fitted {
            Some(ft) => &ft.body,
            None => body,
        };
        let mut nregs = 0u32;
        if let Some(ft) = &fitted {
            for (name, &c) in &ft.colors {
                self.regs.insert(name.clone(), (c, String::new()));
            }
            nregs = ft.used;
        }
        for s in body {
            match s {
                Stmt::Reg(ty, names) if fitted.is_none() => {
                    for n in names {
                        self.regs.insert(n.clone(), (nregs as u8, ty.clone()));
                        nregs += 1;
                    }
                }
                Stmt::Var(v) => {
                    let (size, align) = var_size(v)?;
                    match v.space {
                        StateSpace::Shared if v.count == Some(0) => {
                            self.dynamic_shared = true;
                            self.dyn_shared.push((v.name.clone(), align));
                        }
                        StateSpace::Shared => {
                            let (off, end) = place(self.shared_top, size, align, v.pos)?;
                            self.shared_top = end;
                            self.places.insert(v.name.clone(), Place::Shared(off));
                        }
                        StateSpace::Local => {
                            let (off, end) = place(self.local_top, size, align, v.pos)?;
                            self.local_top = end;
                            self.places.insert(v.name.clone(), Place::Local(off));
                        }
                        StateSpace::Param => {} // a call site's parameter: resolved at its call
                        _ => return Err(v.pos.err(format!("`{}` cannot be declared in a function", v.name))),
                    }
                }
                _ => {}
            }
        }
        // Copy propagation lengthens live ranges, so it only runs on uncolored registers.
        if fitted.is_none() {
            self.alias = copies(body, &self.regs);
        }
        self.scratch_vec = nregs as u8;
        self.scratch_end = (nregs + SCRATCH_REGS) as u8;
        // Dynamic shared memory starts after all static shared memory.
        let mut dyn_base = self.shared_top;
        for &(_, a) in &self.dyn_shared {
            dyn_base = place(dyn_base, 0, a.max(16), f.pos)?.0;
        }
        for (name, _) in core::mem::take(&mut self.dyn_shared) {
            self.places.insert(name, Place::Shared(dyn_base));
        }
        // Code.
        for (k, s) in body.iter().enumerate() {
            self.stmt = k;
            match s {
                Stmt::Label(l, pos) if self.labels.insert(l.clone(), self.here()).is_some() => {
                    return Err(pos.err(format!("label `{l}` defined twice")));
                }
                Stmt::Instr(i) if is_alias_copy(i, &self.alias) => {}
                Stmt::Instr(i) => {
                    self.pos = i.pos;
                    self.scratch = self.scratch_vec + 4;
                    self.guard = match &i.guard {
                        Some((neg, r)) => Some((*neg, self.reg(r)?)),
                        None => None,
                    };
                    self.instr(i)?;
                }
                _ => {}
            }
        }
        let exit = self.here();
        self.labels.insert("\u{0}exit".into(), exit);
        self.guard = None;
        self.push(Instr::new(if self.func { Op::Ret } else { Op::Exit }, Ty::U32));
        self.resolve(exit)?;
        let used = self.allocate(nregs);
        let top_reg = self.reg_base + used + SCRATCH_REGS;
        if top_reg > 255 {
            return Err(f.pos.err(format!(
                "`{}` needs {top_reg} registers with the functions it may call: more than 255 (spilling is not supported yet)",
                f.name
            )));
        }
        let fixups = core::mem::take(&mut self.call_fixups);
        let k = Kernel {
            name: f.name.clone(),
            pc: self.start,
            params,
            param_bytes: top,
            regs: if self.func { used + SCRATCH_REGS } else { top_reg },
            shared_bytes: self.shared_top,
            local_bytes: self.local_top,
            dynamic_shared: self.dynamic_shared,
            max_threads: f.max_threads,
            spill: fitted.as_ref().map_or((0, 0), |ft| (ft.spill_stores, ft.spill_loads)),
        };
        Ok((k, fixups))
    }

    fn here(&self) -> u32 {
        self.prog.code.len() as u32
    }

    fn push(&mut self, mut i: Instr) -> u32 {
        if let Some((neg, g)) = self.guard {
            i.w0.set_guard(g);
            i.w0.set_guard_neg(neg);
        }
        self.prog.code.push(i);
        self.prog.lines.push(self.pos.line);
        self.here() - 1
    }

    fn reg(&self, name: &str) -> Result<u8> {
        let name = self.alias.get(name).map_or(name, |a| a.as_str());
        self.regs.get(name).map(|r| r.0).ok_or_else(|| self.err(format!("unknown register `{name}`")))
    }

    fn scratch(&mut self) -> Result<u8> {
        if self.scratch >= self.scratch_end {
            return Err(self.err("instruction too complex (out of scratch registers)"));
        }
        self.scratch += 1;
        Ok(self.scratch - 1)
    }

    fn sreg(name: &str) -> Option<Sreg> {
        use Sreg::*;
        Some(match name {
            "%tid.x" => TidX,
            "%tid.y" => TidY,
            "%tid.z" => TidZ,
            "%ntid.x" => NtidX,
            "%ntid.y" => NtidY,
            "%ntid.z" => NtidZ,
            "%ctaid.x" => CtaidX,
            "%ctaid.y" => CtaidY,
            "%ctaid.z" => CtaidZ,
            "%nctaid.x" => NctaidX,
            "%nctaid.y" => NctaidY,
            "%nctaid.z" => NctaidZ,
            "%laneid" => LaneId,
            "%warpid" => WarpId,
            "%nwarpid" => NwarpId,
            "%smid" => SmId,
            "%clock" => Clock,
            "%clock64" => Clock64,
            "%globaltimer" => GlobalTimer,
            "%lanemask_lt" => LanemaskLt,
            "%lanemask_le" => LanemaskLe,
            "%lanemask_gt" => LanemaskGt,
            "%lanemask_ge" => LanemaskGe,
            "%lanemask_eq" => LanemaskEq,
            _ => return None,
        })
    }

    /// Where symbol `name` lives: the function's own symbols first, then the module's.
    fn place(&self, name: &str) -> Option<&Place> {
        self.places.get(name).or_else(|| self.module.get(name))
    }

    /// The address of a symbol in its own space, and whether it needs a relocation.
    fn symbol(&self, name: &str) -> Result<(Place, u64, bool)> {
        let p = *self.place(name).ok_or_else(|| self.err(format!("unknown symbol `{name}`")))?;
        Ok(match p {
            Place::Global(o) => (p, o as u64, true),
            Place::Const(o) | Place::Shared(o) | Place::Local(o) | Place::Param(o) => (p, o as u64, false),
        })
    }

    fn src(&mut self, op: &Operand, ty: Ty) -> Result<Src> {
        Ok(match op {
            Operand::Name(n) if self.regs.contains_key(n) => Src::Reg(self.reg(n)?),
            Operand::Name(n) => {
                if let Some(s) = Self::sreg(n) {
                    let r = self.scratch()?;
                    let mut i = Instr::new(Op::S2r, Ty::U32);
                    i.w0.set_dst(r);
                    i.imm = s as u64;
                    self.push(i);
                    Src::Reg(r)
                } else if n.starts_with('%') {
                    return Err(self.err(format!("unknown register `{n}`")));
                } else {
                    let (_, addr, reloc) = self.symbol(n)?;
                    Src::Imm(addr, reloc)
                }
            }
            Operand::Int(v) => Src::Imm(*v, false),
            Operand::Float(f) => Src::Imm(
                match ty {
                    Ty::F32 => (*f as f32).to_bits() as u64,
                    Ty::F64 => f.to_bits(),
                    _ => *f as i64 as u64,
                },
                false,
            ),
            Operand::F32(b) => {
                Src::Imm(if ty == Ty::F64 { (f32::from_bits(*b) as f64).to_bits() } else { *b as u64 }, false)
            }
            Operand::F64(b) => {
                Src::Imm(if ty == Ty::F32 { (f64::from_bits(*b) as f32).to_bits() as u64 } else { *b }, false)
            }
            Operand::Not(inner) => {
                let s = self.src(inner, Ty::Pred)?;
                let r = self.scratch()?;
                self.emit(Op::Xor, Ty::Pred, r, [Some(s), Some(Src::Imm(1, false)), None], 0)?;
                Src::Reg(r)
            }
            _ => return Err(self.err("unsupported operand")),
        })
    }

    fn dst(&self, op: &Operand) -> Result<u8> {
        match op {
            Operand::Name(n) if n == "_" => Ok(RZ),
            Operand::Name(n) => self.reg(n),
            _ => Err(self.err("expected a destination register")),
        }
    }

    /// Emit `op` with up to three sources; one immediate rides in the instruction, others
    /// are first moved to scratch registers.
    fn emit(&mut self, op: Op, ty: Ty, dst: u8, srcs: [Option<Src>; 3], m: u16) -> Result<u32> {
        let mut regs = [RZ; 3];
        let mut imm: Option<(usize, u64, bool)> = None;
        for (k, s) in srcs.iter().enumerate() {
            match *s {
                None => {}
                Some(Src::Reg(r)) => regs[k] = r,
                Some(Src::Imm(v, rel)) if imm.is_none() => imm = Some((k, v, rel)),
                Some(Src::Imm(v, rel)) => {
                    let r = self.scratch()?;
                    self.mov_imm(r, v, rel);
                    regs[k] = r;
                }
            }
        }
        let mut i = Instr::new(op, ty);
        i.w0.set_dst(dst);
        i.w0.set_a(regs[0]);
        i.w0.set_b(regs[1]);
        i.w0.set_c(regs[2]);
        i.w0.set_m(m);
        let mut reloc = false;
        if let Some((k, v, rel)) = imm {
            i.w0.set_imm([Imm::A, Imm::B, Imm::C][k]);
            i.imm = v;
            reloc = rel;
        }
        let at = self.push(i);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        Ok(at)
    }

    fn mov_imm(&mut self, dst: u8, v: u64, reloc: bool) {
        let mut i = Instr::new(Op::Mov, Ty::U64);
        i.w0.set_dst(dst);
        i.w0.set_imm(Imm::A);
        i.imm = v;
        let at = self.push(i);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
    }

    fn types(&self, i: &ast::Instr) -> Vec<Ty> {
        i.mods.iter().filter_map(|m| isa_ty(m)).collect()
    }

    fn ty(&self, i: &ast::Instr) -> Result<Ty> {
        if i.mods.iter().any(|m| m == "f16" || m == "f16x2" || m == "bf16") {
            return Err(self.err(format!("`{}.{}`: half-precision types are not supported", i.op, i.mods.join("."))));
        }
        self.types(i).last().copied().ok_or_else(|| self.err(format!("`{}` needs a type", i.op)))
    }

    fn arg<'b>(&self, i: &'b ast::Instr, k: usize) -> Result<&'b Operand> {
        i.args.get(k).ok_or_else(|| self.err(format!("`{}` needs at least {} operands", i.op, k + 1)))
    }

    fn instr(&mut self, i: &ast::Instr) -> Result<()> {
        let op = i.op.as_str();
        match op {
            "mov" => self.mov(i),
            "ld" | "ldu" => self.ld(i),
            "st" => self.st(i),
            "add" | "sub" | "mul" | "div" | "rem" | "min" | "max" | "and" | "or" | "xor" | "shl" | "shr" => {
                if i.has("cc") {
                    return Err(self.err(format!("`{op}.cc` (carry chains) is not supported")));
                }
                let ty = self.ty(i)?;
                let isa = match op {
                    "add" => Op::Add,
                    "sub" => Op::Sub,
                    "mul" => Op::Mul,
                    "div" => Op::Div,
                    "rem" => Op::Rem,
                    "min" => Op::Min,
                    "max" => Op::Max,
                    "and" => Op::And,
                    "or" => Op::Or,
                    "xor" => Op::Xor,
                    "shl" => Op::Shl,
                    _ => Op::Shr,
                };
                let m = self.mul_mode(i) as u16 | self.round(i) << 2;
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let bty = if matches!(op, "shl" | "shr") { Ty::U32 } else { ty };
                let b = self.src(self.arg(i, 2)?, bty)?;
                self.emit(isa, ty, d, [Some(a), Some(b), None], m).map(|_| ())
            }
            "mad" | "fma" => {
                if i.has("cc") {
                    return Err(self.err("`mad.cc` (carry chains) is not supported"));
                }
                let ty = self.ty(i)?;
                let m = self.mul_mode(i) as u16 | self.round(i) << 2;
                let d = self.dst(self.arg(i, 0)?)?;
                let wide = self.mul_mode(i) == MulMode::Wide;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let b = self.src(self.arg(i, 2)?, ty)?;
                let cty = if wide { wider(ty) } else { ty };
                let c = self.src(self.arg(i, 3)?, cty)?;
                self.emit(Op::Mad, ty, d, [Some(a), Some(b), Some(c)], m).map(|_| ())
            }
            "neg" | "abs" | "not" | "popc" | "clz" | "brev" | "sqrt" | "rcp" | "rsqrt" | "sin" | "cos" | "ex2"
            | "lg2" => {
                let ty = self.ty(i)?;
                let isa = match op {
                    "neg" => Op::Neg,
                    "abs" => Op::Abs,
                    "not" => Op::Not,
                    "popc" => Op::Popc,
                    "clz" => Op::Clz,
                    "brev" => Op::Brev,
                    "sqrt" => Op::Sqrt,
                    "rcp" => Op::Rcp,
                    "rsqrt" => Op::Rsqrt,
                    "sin" => Op::Sin,
                    "cos" => Op::Cos,
                    "ex2" => Op::Ex2,
                    _ => Op::Lg2,
                };
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                self.emit(isa, ty, d, [Some(a), None, None], self.round(i) << 2).map(|_| ())
            }
            "setp" => self.setp(i),
            "selp" | "slct" => {
                let tys = self.types(i);
                let ty = *tys.first().ok_or_else(|| self.err("`selp` needs a type"))?;
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let b = self.src(self.arg(i, 2)?, ty)?;
                if op == "selp" {
                    let c = self.src(self.arg(i, 3)?, Ty::Pred)?;
                    self.emit(Op::Selp, ty, d, [Some(a), Some(b), Some(c)], 0).map(|_| ())
                } else {
                    let cty = *tys.get(1).unwrap_or(&Ty::S32);
                    let c = self.src(self.arg(i, 3)?, cty)?;
                    self.emit(Op::Slct, ty, d, [Some(a), Some(b), Some(c)], cty as u16).map(|_| ())
                }
            }
            "cvt" => {
                let tys = self.types(i);
                if tys.len() != 2 {
                    return Err(self.err("`cvt` needs a destination and a source type"));
                }
                if i.mods.iter().any(|m| m == "f16" || m == "bf16") {
                    return Err(self.err("`cvt` with half-precision types is not supported"));
                }
                let round = match i
                    .mods
                    .iter()
                    .find(|m| matches!(m.as_str(), "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi"))
                    .map(|s| s.as_str())
                {
                    Some("rn" | "rni") => Round::Rn,
                    Some("rz" | "rzi") => Round::Rz,
                    Some("rm" | "rmi") => Round::Rm,
                    Some("rp" | "rpi") => Round::Rp,
                    _ => Round::Default,
                };
                // `.rni` etc. round a float to an integral float value.
                let integral = i.mods.iter().any(|m| matches!(m.as_str(), "rni" | "rzi" | "rmi" | "rpi"));
                let m = CvtMods { round, sat: i.has("sat"), src: tys[1], integral }.encode();
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, tys[1])?;
                self.emit(Op::Cvt, tys[0], d, [Some(a), None, None], m).map(|_| ())
            }
            "cvta" => {
                let to = i.has("to");
                let space = if i.has("global") {
                    Space::Global
                } else if i.has("shared") {
                    Space::Shared
                } else if i.has("local") {
                    Space::Local
                } else {
                    return Err(self.err(format!("`cvta.{}` is not supported", i.mods.join("."))));
                };
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, Ty::U64)?;
                if space == Space::Global {
                    return self.emit(Op::Mov, Ty::U64, d, [Some(a), None, None], 0).map(|_| ());
                }
                self.emit(Op::Cvta, Ty::U64, d, [Some(a), None, None], CvtaMods { space: space as u16, to }.encode())
                    .map(|_| ())
            }
            "bra" | "brx" => {
                if op == "brx" {
                    return Err(self.err("`brx.idx` (indirect branches) is not supported"));
                }
                let Operand::Name(l) = self.arg(i, 0)? else { return Err(self.err("`bra` needs a label")) };
                self.branch(l.clone())
            }
            "ret" | "exit" => self.branch("\u{0}exit".into()),
            "bar" | "barrier" => {
                if i.has("arrive") || i.has("red") {
                    return Err(self.err(format!("`{op}.{}` is not supported", i.mods.join("."))));
                }
                let id = match i.args.first() {
                    Some(Operand::Int(v)) => *v,
                    None => 0,
                    _ => return Err(self.err("`bar.sync` with a register barrier id is not supported")),
                };
                if i.args.len() > 1 {
                    return Err(self.err("`bar.sync` with a thread count is not supported"));
                }
                let mut b = Instr::new(Op::Bar, Ty::U32);
                b.imm = id;
                self.push(b);
                Ok(())
            }
            "membar" | "fence" => {
                self.push(Instr::new(Op::Membar, Ty::U32));
                Ok(())
            }
            "atom" | "red" => self.atom(i),
            "shfl" => self.shfl(i),
            "vote" => self.vote(i),
            "activemask" => {
                let d = self.dst(self.arg(i, 0)?)?;
                let mut s = Instr::new(Op::S2r, Ty::U32);
                s.w0.set_dst(d);
                s.imm = Sreg::ActiveMask as u64;
                self.push(s);
                Ok(())
            }
            "bfe" | "prmt" | "shf" => {
                let ty = self.ty(i)?;
                let isa = match op {
                    "bfe" => Op::Bfe,
                    "prmt" => Op::Prmt,
                    _ => Op::Shf,
                };
                if op == "prmt"
                    && i.mods.iter().any(|m| matches!(m.as_str(), "f4e" | "b4e" | "rc8" | "ecl" | "ecr" | "rc16"))
                {
                    return Err(self.err("`prmt` modes are not supported"));
                }
                let m = if op == "shf" { i.has("r") as u16 | (i.has("clamp") as u16) << 1 } else { 0 };
                let d = self.dst(self.arg(i, 0)?)?;
                let a = self.src(self.arg(i, 1)?, ty)?;
                let b = self.src(self.arg(i, 2)?, Ty::U32)?;
                let c = self.src(self.arg(i, 3)?, Ty::U32)?;
                self.emit(isa, ty, d, [Some(a), Some(b), Some(c)], m).map(|_| ())
            }
            "trap" => {
                self.push(Instr::new(Op::Trap, Ty::U32));
                Ok(())
            }
            "call" => {
                if self.guard.is_some() {
                    return Err(self.err("predicated `call` is not supported"));
                }
                let callee = self
                    .calls
                    .iter()
                    .find(|c| c.0 == self.stmt)
                    .map(|c| c.1.clone())
                    .ok_or_else(|| self.err("bad `call`"))?;
                if !self.frames.contains_key(&callee) {
                    return Err(self.err(format!("call to unknown function `{callee}`")));
                }
                let at = self.push(Instr::new(Op::Call, Ty::U32));
                self.call_fixups.push((at, callee, self.pos));
                Ok(())
            }
            _ => Err(self.err(format!(
                "unsupported instruction `{}{}{}`",
                op,
                if i.mods.is_empty() { "" } else { "." },
                i.mods.join(".")
            ))),
        }
    }

    fn mul_mode(&self, i: &ast::Instr) -> MulMode {
        if i.has("wide") {
            MulMode::Wide
        } else if i.has("hi") {
            MulMode::Hi
        } else {
            MulMode::Lo
        }
    }

    fn round(&self, i: &ast::Instr) -> u16 {
        let r = if i.has("rz") {
            Round::Rz
        } else if i.has("rm") {
            Round::Rm
        } else if i.has("rp") {
            Round::Rp
        } else if i.has("rn") {
            Round::Rn
        } else {
            Round::Default
        };
        r as u16
    }

    fn branch(&mut self, label: String) -> Result<()> {
        let at = self.push(Instr::new(Op::Bra, Ty::U32));
        self.fixups.push((at, label, self.pos));
        Ok(())
    }

    fn mov(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let w = ty.bytes() * 8;
        match (self.arg(i, 0)?, self.arg(i, 1)?) {
            (Operand::Vector(parts), src) => {
                // Unpack: part k = bits [k*w/n, (k+1)*w/n) of the source.
                let s = self.src(src, ty)?;
                let pw = w / parts.len() as u32;
                let pty = uty(pw);
                for (k, p) in parts.iter().enumerate() {
                    let d = self.dst(p)?;
                    if d == RZ {
                        continue;
                    }
                    let sh = self.scratch()?;
                    self.emit(Op::Shr, Ty::U64, sh, [Some(s), Some(Src::Imm(k as u64 * pw as u64, false)), None], 0)?;
                    self.emit(Op::Mov, pty, d, [Some(Src::Reg(sh)), None, None], 0)?;
                }
                Ok(())
            }
            (d, Operand::Vector(parts)) => {
                let d = self.dst(d)?;
                let pw = w / parts.len() as u32;
                let acc = self.scratch()?;
                self.mov_imm(acc, 0, false);
                for (k, p) in parts.iter().enumerate() {
                    let s = self.src(p, uty(pw))?;
                    let t = self.scratch()?;
                    let mask = if pw == 64 { u64::MAX } else { (1u64 << pw) - 1 };
                    self.emit(Op::And, Ty::U64, t, [Some(s), Some(Src::Imm(mask, false)), None], 0)?;
                    self.emit(
                        Op::Shl,
                        Ty::U64,
                        t,
                        [Some(Src::Reg(t)), Some(Src::Imm(k as u64 * pw as u64, false)), None],
                        0,
                    )?;
                    self.emit(Op::Or, Ty::U64, acc, [Some(Src::Reg(acc)), Some(Src::Reg(t)), None], 0)?;
                }
                self.emit(Op::Mov, ty, d, [Some(Src::Reg(acc)), None, None], 0).map(|_| ())
            }
            (d, s) => {
                let d = self.dst(d)?;
                if let Operand::Name(n) = s
                    && let Some(sr) = Self::sreg(n)
                {
                    let mut x = Instr::new(Op::S2r, ty);
                    x.w0.set_dst(d);
                    x.imm = sr as u64;
                    self.push(x);
                    return Ok(());
                }
                let s = self.src(s, ty)?;
                self.emit(Op::Mov, ty, d, [Some(s), None, None], 0).map(|_| ())
            }
        }
    }

    /// State space, bank and the address (base register, offset, relocation) of `[..]`.
    fn address(&mut self, i: &ast::Instr, op: &Operand) -> Result<(Space, u32, u8, u64, bool)> {
        let Operand::Addr(base, off) = op else { return Err(self.err(format!("`{}` needs an address `[...]`", i.op))) };
        let mut space = if i.has("global") {
            Space::Global
        } else if i.has("shared") {
            Space::Shared
        } else if i.has("local") {
            Space::Local
        } else if i.has("const") {
            Space::ConstBank
        } else if i.has("param") {
            Space::Const
        } else {
            Space::Generic
        };
        let bank = if space == Space::ConstBank { 1 } else { 0 };
        let (reg, addr, reloc) = match &**base {
            Operand::Name(n) if self.regs.contains_key(n) => (self.reg(n)?, *off as u64, false),
            Operand::Name(n) if space == Space::Const && self.place(n).is_none() => {
                // A call site's parameter or return value: the callee's frame.
                let slot = self.call_slot(n, i.op == "st")?;
                space = Space::Local;
                (RZ, (slot as u64).wrapping_add(*off as u64), false)
            }
            Operand::Name(n) => {
                let (place, a, reloc) = self.symbol(n)?;
                if matches!(place, Place::Local(_)) && space == Space::Const {
                    space = Space::Local; // a function's own parameter or return value
                }
                // A bare symbol names its own space even under a generic access.
                if space == Space::Generic {
                    space = match place {
                        Place::Global(_) => Space::Global,
                        Place::Shared(_) => Space::Shared,
                        Place::Local(_) => Space::Local,
                        Place::Const(_) => Space::ConstBank,
                        Place::Param(_) => Space::Const,
                    };
                }
                (RZ, a.wrapping_add(*off as u64), reloc)
            }
            Operand::Int(v) => (RZ, v.wrapping_add(*off as u64), false),
            _ => return Err(self.err("bad address")),
        };
        let bank = if space == Space::ConstBank { 1 } else { bank };
        Ok((space, bank, reg, addr, reloc))
    }

    /// Frame offset of call-site parameter `name`: stores go to the next call that passes
    /// it, loads of a return value come from the last call that returned it.
    fn call_slot(&self, name: &str, store: bool) -> Result<u32> {
        let here = self.stmt;
        let found = if store {
            self.calls
                .iter()
                .filter(|c| c.0 >= here)
                .find_map(|c| c.2.iter().position(|a| a == name).map(|k| (c.1.clone(), k, false)))
        } else {
            self.calls
                .iter()
                .rev()
                .filter(|c| c.0 <= here)
                .find_map(|c| c.3.iter().position(|a| a == name).map(|k| (c.1.clone(), k, true)))
        };
        let (callee, k, ret) = found.ok_or_else(|| self.err(format!("unknown symbol `{name}`")))?;
        let fr = self.frames.get(&callee).ok_or_else(|| self.err(format!("call to unknown function `{callee}`")))?;
        let slot = if ret { fr.rets.get(k) } else { fr.params.get(k) };
        slot.map(|s| s.0).ok_or_else(|| self.err(format!("too many arguments in the call of `{callee}`")))
    }

    fn vec_of(&self, i: &ast::Instr) -> u32 {
        if i.has("v4") {
            4
        } else if i.has("v2") {
            2
        } else {
            1
        }
    }

    fn ld(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let n = self.vec_of(i);
        let (space, bank, reg, addr, reloc) = self.address(i, self.arg(i, 1)?)?;
        let mut x = Instr::new(Op::Ld, ty);
        x.w0.set_a(reg);
        x.w0.set_m(MemMods::encode(space, n, bank));
        x.imm = addr;
        let dsts: Vec<u8> = match self.arg(i, 0)? {
            Operand::Vector(v) => v.iter().map(|o| self.dst(o)).collect::<Result<_>>()?,
            o => vec![self.dst(o)?],
        };
        if dsts.len() as u32 != n {
            return Err(self.err("vector width and operand count differ"));
        }
        let sv = self.scratch_vec;
        x.w0.set_dst(if n == 1 { dsts[0] } else { sv });
        let at = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        if n > 1 {
            for (k, d) in dsts.into_iter().enumerate() {
                if d != RZ {
                    self.emit(Op::Mov, Ty::U64, d, [Some(Src::Reg(sv + k as u8)), None, None], 0)?;
                }
            }
        }
        Ok(())
    }

    fn st(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let n = self.vec_of(i);
        let (space, bank, reg, addr, reloc) = self.address(i, self.arg(i, 0)?)?;
        if matches!(space, Space::Const | Space::ConstBank) {
            return Err(self.err("stores to the constant or parameter space are not supported"));
        }
        let vals: Vec<&Operand> = match self.arg(i, 1)? {
            Operand::Vector(v) => v.iter().collect(),
            o => vec![o],
        };
        if vals.len() as u32 != n {
            return Err(self.err("vector width and operand count differ"));
        }
        let b = if n == 1 {
            match self.src(vals[0], ty)? {
                Src::Reg(r) => r,
                Src::Imm(v, rel) => {
                    let r = self.scratch()?;
                    self.mov_imm(r, v, rel);
                    r
                }
            }
        } else {
            let sv = self.scratch_vec;
            for (k, v) in vals.into_iter().enumerate() {
                let s = self.src(v, ty)?;
                self.emit(Op::Mov, Ty::U64, sv + k as u8, [Some(s), None, None], 0)?;
            }
            sv
        };
        let mut x = Instr::new(Op::St, ty);
        x.w0.set_a(reg);
        x.w0.set_b(b);
        x.w0.set_m(MemMods::encode(space, n, bank));
        x.imm = addr;
        let at = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        Ok(())
    }

    fn setp(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let cmp = match i.mods.first().map(|s| s.as_str()) {
            Some("eq") => Cmp::Eq,
            Some("ne") => Cmp::Ne,
            Some("lt" | "lo") => Cmp::Lt,
            Some("le" | "ls") => Cmp::Le,
            Some("gt" | "hi") => Cmp::Gt,
            Some("ge" | "hs") => Cmp::Ge,
            Some("equ") => Cmp::Equ,
            Some("neu") => Cmp::Neu,
            Some("ltu") => Cmp::Ltu,
            Some("leu") => Cmp::Leu,
            Some("gtu") => Cmp::Gtu,
            Some("geu") => Cmp::Geu,
            Some("num") => Cmp::Num,
            Some("nan") => Cmp::Nan,
            _ => return Err(self.err("`setp` needs a comparison")),
        };
        let combine = if i.has("and") {
            Some(Op::And)
        } else if i.has("or") {
            Some(Op::Or)
        } else if i.has("xor") {
            Some(Op::Xor)
        } else {
            None
        };
        let nsrc = if combine.is_some() { 3 } else { 2 };
        let two = i.args.len() == nsrc + 2;
        let (p, q) = (self.dst(self.arg(i, 0)?)?, if two { Some(self.dst(self.arg(i, 1)?)?) } else { None });
        let first = if two { 2 } else { 1 };
        let a = self.src(self.arg(i, first)?, ty)?;
        let b = self.src(self.arg(i, first + 1)?, ty)?;
        let c = match combine {
            Some(_) => Some(self.src(self.arg(i, first + 2)?, Ty::Pred)?),
            None => None,
        };
        let t = if combine.is_some() || q.is_some() { self.scratch()? } else { p };
        self.emit(Op::Setp, ty, t, [Some(a), Some(b), None], cmp as u16)?;
        if let Some(q) = q {
            let nt = self.scratch()?;
            self.emit(Op::Xor, Ty::Pred, nt, [Some(Src::Reg(t)), Some(Src::Imm(1, false)), None], 0)?;
            match (combine, c) {
                (Some(op), Some(c)) => {
                    self.emit(op, Ty::Pred, q, [Some(Src::Reg(nt)), Some(c), None], 0)?;
                }
                _ => {
                    self.emit(Op::Mov, Ty::Pred, q, [Some(Src::Reg(nt)), None, None], 0)?;
                }
            }
        }
        match (combine, c) {
            (Some(op), Some(c)) => self.emit(op, Ty::Pred, p, [Some(Src::Reg(t)), Some(c), None], 0).map(|_| ()),
            _ if t != p => self.emit(Op::Mov, Ty::Pred, p, [Some(Src::Reg(t)), None, None], 0).map(|_| ()),
            _ => Ok(()),
        }
    }

    fn atom(&mut self, i: &ast::Instr) -> Result<()> {
        let ty = self.ty(i)?;
        let red = i.op == "red";
        let aop = [
            ("add", AtomOp::Add),
            ("min", AtomOp::Min),
            ("max", AtomOp::Max),
            ("inc", AtomOp::Inc),
            ("dec", AtomOp::Dec),
            ("and", AtomOp::And),
            ("or", AtomOp::Or),
            ("xor", AtomOp::Xor),
            ("exch", AtomOp::Exch),
            ("cas", AtomOp::Cas),
        ]
        .iter()
        .find(|(n, _)| i.has(n))
        .map(|&(_, o)| o)
        .ok_or_else(|| self.err(format!("`{}.{}`: unsupported atomic operation", i.op, i.mods.join("."))))?;
        let base = if red { 0 } else { 1 };
        let d = if red { RZ } else { self.dst(self.arg(i, 0)?)? };
        let (space, _, reg, addr, reloc) = self.address(i, self.arg(i, base)?)?;
        if !matches!(space, Space::Global | Space::Shared | Space::Generic) {
            return Err(self.err("atomics are supported on global, shared and generic addresses"));
        }
        let b = self.src(self.arg(i, base + 1)?, ty)?;
        let b = self.in_reg(b)?;
        let c = if aop == AtomOp::Cas {
            let cs = self.src(self.arg(i, base + 2)?, ty)?;
            self.in_reg(cs)?
        } else {
            RZ
        };
        let mut x = Instr::new(Op::Atom, ty);
        x.w0.set_dst(d);
        x.w0.set_a(reg);
        x.w0.set_b(b);
        x.w0.set_c(c);
        x.w0.set_m(AtomMods::encode(space, aop));
        x.imm = addr;
        let at = self.push(x);
        if reloc {
            self.prog.relocs.push(Reloc { at, segment: Segment::Global });
        }
        Ok(())
    }

    fn in_reg(&mut self, s: Src) -> Result<u8> {
        Ok(match s {
            Src::Reg(r) => r,
            Src::Imm(v, rel) => {
                let r = self.scratch()?;
                self.mov_imm(r, v, rel);
                r
            }
        })
    }

    fn shfl(&mut self, i: &ast::Instr) -> Result<()> {
        let mode = if i.has("up") {
            ShflMode::Up
        } else if i.has("down") {
            ShflMode::Down
        } else if i.has("bfly") {
            ShflMode::Bfly
        } else if i.has("idx") {
            ShflMode::Idx
        } else {
            return Err(self.err("`shfl` needs a mode"));
        };
        let sync = i.has("sync");
        let n = i.args.len();
        let with_pred = n == if sync { 6 } else { 5 };
        if with_pred {
            return Err(self.err("`shfl` with a predicate output is not supported"));
        }
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, Ty::U32)?;
        let b = self.src(self.arg(i, 2)?, Ty::U32)?;
        let c = self.src(self.arg(i, 3)?, Ty::U32)?;
        let a = self.in_reg(a)?;
        self.emit(Op::Shfl, Ty::U32, d, [Some(Src::Reg(a)), Some(b), Some(c)], mode as u16).map(|_| ())
    }

    fn vote(&mut self, i: &ast::Instr) -> Result<()> {
        let mode = if i.has("all") {
            VoteMode::All
        } else if i.has("any") {
            VoteMode::Any
        } else if i.has("uni") {
            VoteMode::Uni
        } else if i.has("ballot") {
            VoteMode::Ballot
        } else {
            return Err(self.err("`vote` needs a mode"));
        };
        let d = self.dst(self.arg(i, 0)?)?;
        let a = self.src(self.arg(i, 1)?, Ty::Pred)?;
        let ty = if mode == VoteMode::Ballot { Ty::U32 } else { Ty::Pred };
        self.emit(Op::Vote, ty, d, [Some(a), None, None], mode as u16).map(|_| ())
    }

    /// Resolve branch targets and reconvergence points for the code from `self.start`.
    fn resolve(&mut self, exit: u32) -> Result<()> {
        for (at, label, pos) in core::mem::take(&mut self.fixups) {
            let t = *self.labels.get(&label).ok_or_else(|| pos.err(format!("unknown label `{label}`")))?;
            self.prog.code[at as usize].imm = BranchTarget::new().with_target(t).with_reconverge(t).into();
        }
        let (start, end) = (self.start as usize, self.prog.code.len());
        let code: Vec<Instr> = self.prog.code[start..end].to_vec();
        let (starts, succ) = cfg(&code, start);
        let nb = starts.len();
        let exit_node = nb; // virtual exit
        // Post-dominator sets (bitsets over blocks and the virtual exit).
        let words = (nb + 1).div_ceil(64);
        let full = vec![u64::MAX; words];
        let mut pd: Vec<Vec<u64>> = vec![full; nb + 1];
        pd[exit_node] = vec![0; words];
        pd[exit_node][exit_node / 64] |= 1 << (exit_node % 64);
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                let mut s = vec![u64::MAX; words];
                for &x in &succ[b] {
                    for w in 0..words {
                        s[w] &= pd[x][w];
                    }
                }
                if succ[b].is_empty() {
                    s = vec![0; words];
                }
                s[b / 64] |= 1 << (b % 64);
                if s != pd[b] {
                    pd[b] = s;
                    changed = true;
                }
            }
        }
        let count = |s: &Vec<u64>| s.iter().map(|w| w.count_ones()).sum::<u32>();
        let ipdom = |b: usize| -> usize {
            (0..=nb)
                .filter(|&d| d != b && pd[b][d / 64] >> (d % 64) & 1 == 1)
                .max_by_key(|&d| count(&pd[d]))
                .unwrap_or(exit_node)
        };
        for b in 0..nb {
            let last = if b + 1 < nb { starts[b + 1] - 1 } else { code.len() - 1 };
            let ins = code[last];
            if ins.w0.op() == Op::Bra && ins.w0.guard() != ALWAYS {
                let d = ipdom(b);
                let rpc = if d == exit_node { exit } else { (starts[d] + start) as u32 };
                let t = BranchTarget::from(ins.imm).with_reconverge(rpc);
                self.prog.code[start + last].imm = t.into();
            }
        }
        Ok(())
    }
}

/// Basic blocks of `code` (which starts at instruction `start` of the module): the first
/// instruction of each block and each block's successors (`starts.len()` is the exit).
fn cfg(code: &[Instr], start: usize) -> (Vec<usize>, Vec<Vec<usize>>) {
    let rel = |x: u32| (x as usize).saturating_sub(start).min(code.len().saturating_sub(1));
    let mut leader = vec![false; code.len() + 1];
    leader[0] = true;
    for (k, ins) in code.iter().enumerate() {
        match ins.w0.op() {
            Op::Bra => {
                leader[rel(BranchTarget::from(ins.imm).target())] = true;
                leader[k + 1] = true;
            }
            Op::Exit | Op::Ret | Op::Trap => leader[k + 1] = true,
            _ => {}
        }
    }
    let starts: Vec<usize> = (0..code.len()).filter(|&k| leader[k]).collect();
    let block_of = |k: usize| starts.partition_point(|&s| s <= k) - 1;
    let nb = starts.len();
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nb];
    for b in 0..nb {
        let last = if b + 1 < nb { starts[b + 1] - 1 } else { code.len() - 1 };
        let ins = &code[last];
        match ins.w0.op() {
            Op::Bra => {
                succ[b].push(block_of(rel(BranchTarget::from(ins.imm).target())));
                if ins.w0.guard() != ALWAYS && last + 1 < code.len() {
                    succ[b].push(block_of(last + 1));
                }
            }
            Op::Exit | Op::Ret | Op::Trap => succ[b].push(nb),
            _ if last + 1 < code.len() => succ[b].push(block_of(last + 1)),
            _ => succ[b].push(nb),
        }
    }
    (starts, succ)
}

/// Registers an instruction reads and writes (fields, vectors expanded; RZ and
/// immediate slots left out). A guarded write also reads (the old value may survive).
fn uses_defs(i: &Instr) -> (Vec<u8>, Vec<u8>) {
    let w = i.w0;
    let op = w.op();
    let imm = w.imm();
    let vec = if matches!(op, Op::Ld | Op::St) { MemMods::vec(w.m()) as u8 } else { 1 };
    let mut uses = Vec::new();
    let mut defs = Vec::new();
    let add = |v: &mut Vec<u8>, r: u8, n: u8| {
        if r != RZ {
            for k in 0..n {
                v.push(r.saturating_add(k));
            }
        }
    };
    add(&mut uses, w.guard(), 1);
    if imm != Imm::A {
        add(&mut uses, w.a(), 1);
    }
    if imm != Imm::B {
        add(&mut uses, w.b(), if op == Op::St { vec } else { 1 });
    }
    if imm != Imm::C {
        add(&mut uses, w.c(), 1);
    }
    if op != Op::St {
        add(&mut defs, w.dst(), if op == Op::Ld { vec } else { 1 });
        if w.guard() != ALWAYS {
            add(&mut uses, w.dst(), if op == Op::Ld { vec } else { 1 });
        }
    }
    (uses, defs)
}

fn uty(bits: u32) -> Ty {
    match bits {
        8 => Ty::U8,
        16 => Ty::U16,
        32 => Ty::U32,
        _ => Ty::U64,
    }
}

impl Kc<'_> {
    /// Linear-scan register allocation of the kernel's PTX registers (virtual registers
    /// `0..nregs`; scratch registers above them follow the allocated ones). Liveness is a
    /// dataflow over the basic blocks; each register gets one interval covering every
    /// point where it is live. Returns how many registers the PTX values occupy.
    fn allocate(&mut self, nregs: u32) -> u32 {
        let n = nregs as usize;
        let start = self.start as usize;
        let code: Vec<Instr> = self.prog.code[start..].to_vec();
        let (starts, succ) = cfg(&code, start);
        let nb = starts.len();
        let words = n.div_ceil(64);
        let set = |v: &mut Vec<u64>, r: usize| v[r / 64] |= 1 << (r % 64);
        let has = |v: &Vec<u64>, r: usize| v[r / 64] >> (r % 64) & 1 == 1;
        let end_of = |b: usize| if b + 1 < nb { starts[b + 1] } else { code.len() };
        let mut used_first = vec![vec![0u64; words]; nb];
        let mut kill = vec![vec![0u64; words]; nb];
        for b in 0..nb {
            for i in &code[starts[b]..end_of(b)] {
                let (u, d) = uses_defs(i);
                for r in u.into_iter().map(|r| r as usize).filter(|&r| r < n) {
                    if !has(&kill[b], r) {
                        set(&mut used_first[b], r);
                    }
                }
                for r in d.into_iter().map(|r| r as usize).filter(|&r| r < n) {
                    set(&mut kill[b], r);
                }
            }
        }
        let mut live_in = vec![vec![0u64; words]; nb];
        let mut live_out = vec![vec![0u64; words]; nb];
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..nb).rev() {
                let mut out = vec![0u64; words];
                for &s in succ[b].iter().filter(|&&s| s < nb) {
                    for w in 0..words {
                        out[w] |= live_in[s][w];
                    }
                }
                let inn: Vec<u64> = (0..words).map(|w| used_first[b][w] | (out[w] & !kill[b][w])).collect();
                if inn != live_in[b] || out != live_out[b] {
                    live_in[b] = inn;
                    live_out[b] = out;
                    changed = true;
                }
            }
        }
        // Intervals in instruction positions.
        let mut iv: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut touch = |r: usize, p: usize| {
            iv[r] = Some(match iv[r] {
                None => (p, p),
                Some((a, z)) => (a.min(p), z.max(p)),
            });
        };
        for b in 0..nb {
            for r in 0..n {
                if has(&live_in[b], r) {
                    touch(r, starts[b]);
                }
                if has(&live_out[b], r) {
                    touch(r, end_of(b) - 1);
                }
            }
            for (k, i) in code[starts[b]..end_of(b)].iter().enumerate() {
                let (u, d) = uses_defs(i);
                for r in u.into_iter().chain(d).map(|r| r as usize).filter(|&r| r < n) {
                    touch(r, starts[b] + k);
                }
            }
        }
        let mut order: Vec<usize> = (0..n).filter(|&r| iv[r].is_some()).collect();
        order.sort_by_key(|&r| iv[r].map(|x| x.0));
        let mut map = vec![RZ; n];
        let mut free: Vec<u8> = (0..nregs as u8).rev().collect();
        let mut active: Vec<(usize, u8)> = Vec::new();
        let mut used = 0u32;
        for r in order {
            let (a, z) = iv[r].unwrap_or((0, 0));
            active.retain(|&(end, p)| {
                if end < a {
                    free.push(p);
                    false
                } else {
                    true
                }
            });
            free.sort_unstable_by(|x, y| y.cmp(x));
            let p = free.pop().unwrap_or(0);
            used = used.max(p as u32 + 1);
            map[r] = p;
            active.push((z, p));
        }
        let base = self.reg_base;
        let remap = |r: u8| -> u8 {
            if r == RZ {
                RZ
            } else if (r as u32) < nregs {
                (base + map[r as usize] as u32).min(254) as u8
            } else {
                (base + r as u32 - nregs + used).min(254) as u8
            }
        };
        for i in &mut self.prog.code[start..] {
            let w = &mut i.w0;
            let (g, d, a, b, c) = (w.guard(), w.dst(), w.a(), w.b(), w.c());
            w.set_guard(remap(g));
            w.set_dst(remap(d));
            w.set_a(remap(a));
            w.set_b(remap(b));
            w.set_c(remap(c));
        }
        used
    }
}

fn wider(t: Ty) -> Ty {
    match t {
        Ty::U16 => Ty::U32,
        Ty::S16 => Ty::S32,
        Ty::U32 => Ty::U64,
        Ty::S32 => Ty::S64,
        t => t,
    }
}

/// Parse and compile PTX text.
pub fn compile_ptx(src: &str) -> Result<Program> {
    let m = crate::parse(src)?;
    compile(&m)
}

impl Program {
    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }
    /// The symbol named `name`.
    pub fn symbol(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }
    /// The code as bytes, with the `.global` segment at `global_base`.
    pub fn code_bytes(&self, global_base: u64) -> Vec<u8> {
        let mut code = self.code.clone();
        for r in &self.relocs {
            if let Some(i) = code.get_mut(r.at as usize) {
                match r.segment {
                    Segment::Global => i.imm = i.imm.wrapping_add(global_base),
                }
            }
        }
        code.iter().flat_map(|i| i.to_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiles_vecadd_and_reduce() {
        let p = compile_ptx(include_str!("../../kernels/vecadd.ptx")).unwrap();
        let k = p.kernel("vecadd").unwrap();
        assert_eq!(
            k.params,
            [
                Param { offset: 0, size: 8 },
                Param { offset: 8, size: 8 },
                Param { offset: 16, size: 8 },
                Param { offset: 24, size: 4 }
            ]
        );
        assert_eq!(k.param_bytes, 28);
        assert_eq!(p.code.last().unwrap().w0.op(), Op::Exit);
        // `@%p1 bra LBB0_2` skips the body; both paths meet at LBB0_2 (the `ret`, now an
        // unconditional branch to the exit block).
        let bra = p.code.iter().find(|i| i.w0.op() == Op::Bra).unwrap();
        let t = BranchTarget::from(bra.imm);
        let n = p.code.len() as u32;
        assert_eq!((t.target(), t.reconverge()), (n - 2, n - 2));
        assert_eq!(BranchTarget::from(p.code[n as usize - 2].imm).target(), n - 1);
        let r = compile_ptx(include_str!("../../kernels/reduce.ptx")).unwrap();
        let k = r.kernel("reduce").unwrap();
        assert_eq!(k.shared_bytes, 1024);
        assert!(r.code.iter().any(|i| i.w0.op() == Op::Bar));
        assert!(r.code.iter().any(|i| i.w0.op() == Op::Atom));
    }

    #[test]
    fn unsupported_ptx_is_an_error_naming_it() {
        let hdr = ".version 6.0\n.target sm_70\n.address_size 64\n.entry k()\n{\n .reg .b32 %r<3>;\n";
        let e = compile_ptx(&format!("{hdr} mul24.lo.s32 %r1, %r1, %r1;\n}}\n")).unwrap_err();
        assert!(e.msg.contains("unsupported instruction `mul24.lo.s32`"), "{e}");
        assert_eq!(e.line, 7);
        let e = compile_ptx(&format!("{hdr} add.u32 %r1, %r9, 1;\n}}\n")).unwrap_err();
        assert!(e.msg.contains("unknown register `%r9`"));
        let e = compile_ptx(&format!("{hdr} bra L;\n}}\n")).unwrap_err();
        assert!(e.msg.contains("unknown label `L`"));
        let e = compile_ptx(&format!("{hdr} add.f16 %r1, %r1, %r1;\n}}\n")).unwrap_err();
        assert!(e.msg.contains("half-precision"));
    }

    #[test]
    fn oversized_or_malformed_layouts_are_errors_not_crashes() {
        // Found by cargo-fuzz: the product of array dimensions overflowed.
        let crash = "//\n// \n\t.shared . amE5len[1024][1024][1024][124][1024][1024][1024];\n";
        assert!(compile_ptx(&format!(".version 6.0\n{crash}")).is_err());
        let hdr = ".version 6.0\n.target sm_70\n.address_size 64\n";
        let e = compile_ptx(&format!("{hdr}.global .b8 huge[4000000000];\n")).unwrap_err();
        assert!(e.msg.contains("larger than"), "{e}");
        let e =
            compile_ptx(&format!("{hdr}.shared .align 3 .b8 x[4];\n.entry k()\n{{\n mov.u64 %rd1, x;\n ret;\n}}\n"))
                .unwrap_err();
        assert!(e.msg.contains("alignment"), "{e}");
        let many: String = (0..5).map(|k| format!(".global .b8 g{k}[268435456];\n")).collect();
        let e = compile_ptx(&format!("{hdr}{many}")).unwrap_err();
        assert!(e.msg.contains("state space larger"), "{e}");
        // The constant bank holds 64 KiB, as ptxas enforces; exactly that much fits.
        assert!(compile_ptx(&format!("{hdr}.const .b8 c[65536];\n")).is_ok());
        let e = compile_ptx(&format!("{hdr}.const .b8 a[65532];\n.const .align 8 .b8 b[8];\n")).unwrap_err();
        assert!(e.msg.contains("64 KiB constant bank") && e.line == 5, "{e}");
        assert!(
            compile_ptx(&format!("{hdr}.entry k() .maxntid 4294967295, 4294967295, 4294967295\n{{\n ret;\n}}\n"))
                .is_ok()
        );
    }

    #[test]
    fn module_data_and_relocations() {
        let src = ".version 6.0\n.target sm_70\n.address_size 64\n.global .align 4 .u32 g[2] = {7, 9};\n\
                   .const .align 4 .f32 c[2] = {1.5, 0f40000000};\n.entry k(.param .u64 p)\n{\n .reg .b32 %r<3>;\n .reg .b64 %rd<2>;\n\
                   ld.global.u32 %r1, [g+4];\n ld.const.u32 %r2, [c+4];\n mov.u64 %rd1, g;\n ret;\n}\n";
        let p = compile_ptx(src).unwrap();
        assert_eq!(p.global_init, [7, 0, 0, 0, 9, 0, 0, 0]);
        assert_eq!((p.global_size, p.const_size), (8, 8));
        assert_eq!(p.const_init[..4], 1.5f32.to_le_bytes());
        assert_eq!(p.const_init[4..8], 2.0f32.to_le_bytes());
        assert_eq!(p.relocs.len(), 2);
        let bytes = p.code_bytes(0x1000);
        let ld = Instr::from_bytes(bytes[p.relocs[0].at as usize * 16..][..16].try_into().unwrap());
        assert_eq!(ld.imm, 0x1004);
    }
}
