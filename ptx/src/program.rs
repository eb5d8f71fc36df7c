//! A compiled module: device code, kernels with their launch facts, module-scope symbols
//! and the relocations the runtime applies when it places the data segment. What the
//! compiler produces and the container stores.

use crate::ast::StateSpace;
use alloc::string::String;
use alloc::vec::Vec;
use hw::isa::*;

/// Which segment a relocated immediate points into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Segment {
    /// The `.global` data segment.
    Global,
    /// The `.const` segment (constant bank 1's buffer in device memory): `cvta.const`.
    Const,
}

/// Add the base address of a segment to the immediate of instruction `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reloc {
    /// Instruction index.
    pub at: u32,
    /// The segment.
    pub segment: Segment,
}

/// An address in a segment's initial bytes (a variable initialized with another's
/// address, `generic(x)+8`): the `width` bytes at `at` of segment `slot`'s image hold an
/// offset into segment `target`, to which the loader adds where `target` is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataReloc {
    /// The segment whose initial bytes hold the address.
    pub slot: Segment,
    /// Its byte offset there.
    pub at: u32,
    /// 4 or 8 bytes.
    pub width: u8,
    /// The segment the address points into.
    pub target: Segment,
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
    /// General registers per thread, in 32-bit units as ptxas counts them (a 64-bit value
    /// takes two), including those of the functions it may call and those NVIDIA's ABI
    /// reserves ([`crate::compile::abi_regs`]): what the part allocates per thread.
    pub regs: u32,
    /// Predicate registers (`P0..P6`) it uses: not counted in `regs`.
    pub pred_regs: u32,
    /// Static shared memory per block.
    pub shared_bytes: u32,
    /// Local memory per thread.
    pub local_bytes: u32,
    /// Whether the kernel uses `extern .shared` memory sized at launch.
    pub dynamic_shared: bool,
    /// `.maxntid`/`.reqntid`, if given.
    pub max_threads: Option<u32>,
    /// `.reqnctapercluster`: the thread block cluster shape it launches with, if given.
    pub cluster: Option<[u32; 3]>,
    /// `.explicitcluster`: a launch must give a cluster shape.
    pub explicit_cluster: bool,
    /// Bytes of spill stores and loads the register allocator inserted (static counts).
    pub spill: (u32, u32),
    /// Texture references (`.texref`) its code names.
    pub textures: u32,
    /// Surface references (`.surfref`) its code names.
    pub surfaces: u32,
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
    /// A managed variable (`.attribute(.managed)`): its bytes in the `.global` segment
    /// are only its initial value; the loader places it elsewhere
    /// ([`Program::code_bytes_placed`]).
    pub managed: bool,
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
    /// Relocations to apply to [`Program::global_init`] and [`Program::const_init`].
    pub data_relocs: Vec<DataReloc>,
    /// The PTX line each instruction of [`Program::code`] came from (0: none), for
    /// diagnostics such as the sanitizers' reports.
    pub lines: Vec<u32>,
    /// Module texture references (`.texref`, PTX 1.x `.tex`): a texture instruction
    /// naming one carries its index here as its texture slot.
    pub textures: Vec<String>,
    /// Module surface references (`.surfref`), indexed as surface slots likewise.
    pub surfaces: Vec<String>,
    /// Module sampler references (`.samplerref`), indexed as sampler slots likewise.
    pub samplers: Vec<String>,
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
        self.code_bytes_placed(global_base, 0, &[])
    }

    /// The code as bytes, with the `.global` segment at `global_base`, the `.const`
    /// segment's buffer at `const_base` (what `cvta.const` adds), and the `.global` symbols
    /// `placed` names (index into [`Program::symbols`], address) at addresses of their own:
    /// an address the code forms inside such a symbol, or one past its end where no other
    /// symbol starts, points into its placement instead.
    pub fn code_bytes_placed(&self, global_base: u64, const_base: u64, placed: &[(usize, u64)]) -> Vec<u8> {
        let mut code = self.code.clone();
        for r in &self.relocs {
            if let Some(i) = code.get_mut(r.at as usize) {
                match r.segment {
                    Segment::Global => i.imm = self.relocate(i.imm, global_base, placed),
                    Segment::Const => i.imm = i.imm.wrapping_add(const_base),
                }
            }
        }
        code.iter().flat_map(|i| i.to_bytes()).collect()
    }

    /// The initial bytes of the `.global` and `.const` segments with the segments placed
    /// as [`Program::code_bytes_placed`] says: every [`DataReloc`] applied.
    pub fn init_bytes_placed(&self, global_base: u64, const_base: u64, placed: &[(usize, u64)]) -> [Vec<u8>; 2] {
        let mut images = [self.global_init.clone(), self.const_init.clone()];
        for r in &self.data_relocs {
            let image = &mut images[usize::from(r.slot == Segment::Const)];
            let (at, w) = (r.at as usize, usize::from(r.width.clamp(1, 8)));
            let Some(bytes) = image.get_mut(at..at + w) else { continue };
            let mut v = [0u8; 8];
            v[..w].copy_from_slice(bytes);
            let off = u64::from_le_bytes(v);
            let addr = match r.target {
                Segment::Global => self.relocate(off, global_base, placed),
                Segment::Const => off.wrapping_add(const_base),
            };
            bytes.copy_from_slice(&addr.to_le_bytes()[..w]);
        }
        images
    }

    /// Where offset `off` of the `.global` segment lands (see [`Program::code_bytes_placed`]).
    fn relocate(&self, off: u64, global_base: u64, placed: &[(usize, u64)]) -> u64 {
        let start = |s: &Symbol| s.offset as u64;
        let end = |s: &Symbol| s.offset as u64 + s.size as u64;
        let inside = |s: &Symbol| s.space == StateSpace::Global && (start(s)..end(s)).contains(&off);
        let in_any = self.symbols.iter().any(inside);
        for &(k, addr) in placed {
            match self.symbols.get(k) {
                Some(s) if inside(s) || (!in_any && off == end(s)) => return addr.wrapping_add(off - start(s)),
                _ => {}
            }
        }
        off.wrapping_add(global_base)
    }
}
