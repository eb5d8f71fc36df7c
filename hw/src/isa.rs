//! The rgdev device ISA: what `ptx` compiles to and the compute engine executes.
//!
//! NVIDIA's SASS is undocumented, so rgdev defines its own fixed-width binary ISA, close
//! in spirit to SASS (see `docs/isa.md`). Every instruction is 16 bytes: a 64-bit control
//! word ([`Word0`]) and a 64-bit immediate. Registers are 64 bits wide and `RZ` (255) reads
//! as zero and discards writes. A thread has up to [`MAX_GPRS`] general registers
//! (`R0..R247`); a kernel's register count is in 32-bit units, as NVIDIA counts them: a
//! 64-bit value takes an even-aligned pair `R2k`, `R2k+1` (the value lives in `R2k`; the
//! partner stays unused). `R248..R254` are the predicate registers `P0..P6`
//! ([`PRED_BASE`]): every thread has them, whatever its register count, and they do not
//! count towards it. Any register, general or predicate, can guard an instruction (bit 0).
//! Branches carry their reconvergence point explicitly: the immediate word of `BRA` holds
//! the target and the post-dominator where diverged lanes meet again.
//!
//! The device decodes instructions from memory it does not trust: every enum field is read
//! with its `_or_err` getter and garbage becomes an illegal-instruction trap.

use modular_bitfield::prelude::*;

mod bulk;
mod cluster;
mod convert;
mod flags;
pub mod mbarrier;
pub mod mma;
mod sequence;
mod sreg;
mod texmods;
pub use bulk::*;
pub use cluster::*;
pub use convert::*;
pub use flags::*;
pub use sequence::*;
pub use sreg::*;
pub use texmods::*;

/// Bytes per instruction.
pub const INSTR_BYTES: u64 = 16;
/// The zero register.
pub const RZ: u8 = 255;
/// Guard value meaning "always execute".
pub const ALWAYS: u8 = RZ;
/// [`Op::Bar`]'s m bit for a warp barrier (`bar.warp.sync membermask`).
pub const BAR_WARP: u16 = 4;
/// [`Op::Bar`]'s m bit for a named barrier with a thread count (`bar.sync id, count`,
/// `bar.arrive id, count`): the barrier's number in m bits 8:5 ([`BAR_ID_SHIFT`]); without
/// [`BAR_NAMED_WAIT`] the warp arrives (counting as 32 threads) with the count in `a`, with
/// it the warp waits for the phase it arrived in to complete.
pub const BAR_NAMED: u16 = 8;
/// [`Op::Bar`]'s m bit: a named barrier's wait.
pub const BAR_NAMED_WAIT: u16 = 16;
/// Where a named barrier's number starts in [`Op::Bar`]'s m.
pub const BAR_ID_SHIFT: u16 = 5;
/// Named barriers a block has.
pub const NAMED_BARRIERS: usize = 16;
/// Lanes per warp.
pub const WARP_SIZE: u32 = 32;
/// General registers a thread may have (`R0..R247`).
pub const MAX_GPRS: u32 = 248;
/// The first predicate register: `P0..P6` are `R248..R254`.
pub const PRED_BASE: u8 = 248;
/// Predicate registers per thread.
pub const PREDS: u8 = 7;

/// Opcodes.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 8]
pub enum Op {
    /// No operation.
    Nop = 0,
    /// `dst = a` (or the immediate).
    Mov,
    /// `dst = special register` (index in the immediate, [`Sreg`]).
    S2r,
    /// `dst = a + b`.
    Add,
    /// `dst = a - b`.
    Sub,
    /// `dst = a * b` (m: [`MulMode`]).
    Mul,
    /// `dst = a * b + c` (m: [`MulMode`]; floats: fused).
    Mad,
    /// `dst = a / b` (integer division by zero gives all ones, as PTX leaves it undefined).
    Div,
    /// `dst = a % b`.
    Rem,
    /// `dst = min(a, b)`.
    Min,
    /// `dst = max(a, b)`.
    Max,
    /// `dst = |a|`.
    Abs,
    /// `dst = -a`.
    Neg,
    /// `dst = a & b`.
    And,
    /// `dst = a | b`.
    Or,
    /// `dst = a ^ b`.
    Xor,
    /// `dst = !a`.
    Not,
    /// `dst = a << b`.
    Shl,
    /// `dst = a >> b` (arithmetic for signed types).
    Shr,
    /// `dst = c ? a : b` (c is a predicate register).
    Selp,
    /// `dst = (c >= 0) ? a : b` (c compared in the type's sign).
    Slct,
    /// `dst = (a cmp b)` as 0/1 (m: [`Cmp`]).
    Setp,
    /// Convert `a` from the source type (m: [`CvtMods`]) to the instruction type.
    Cvt,
    /// Population count.
    Popc,
    /// Count leading zeros.
    Clz,
    /// Bit reverse.
    Brev,
    /// Bit field extract: `a`, position `b`, length `c`.
    Bfe,
    /// Byte permute (`prmt.b32`): bytes of {b, a} selected by c.
    Prmt,
    /// Funnel shift (m: 0 left, 1 right; clamp mode in bit 1).
    Shf,
    /// `dst = sqrt(a)`.
    Sqrt,
    /// `dst = 1 / a`.
    Rcp,
    /// `dst = 1 / sqrt(a)`.
    Rsqrt,
    /// `dst = sin(a)` (approximate).
    Sin,
    /// `dst = cos(a)` (approximate).
    Cos,
    /// `dst = 2^a` (approximate).
    Ex2,
    /// `dst = log2(a)` (approximate).
    Lg2,
    /// Load `dst.. = [a + imm]` (m: [`MemMods`]).
    Ld,
    /// Store `[a + imm] = b..` (m: [`MemMods`]).
    St,
    /// Atomic read-modify-write: `dst = old; [a + imm] = old op b` (m: [`AtomMods`]).
    Atom,
    /// Branch (imm: [`BranchTarget`]).
    Bra,
    /// Call the function at the immediate (an instruction index).
    Call,
    /// Return from a call.
    Ret,
    /// End the thread.
    Exit,
    /// Block barrier (imm: barrier id; m bits 1:0 a reduction of predicate `a`, see
    /// `bar.red`), or with m bit 2 ([`BAR_WARP`]) a warp barrier: the lanes in mask `a`
    /// (`bar.warp.sync`, `__syncwarp`) meet there, or with m bit 3 ([`BAR_NAMED`]) a named
    /// barrier's arrival or wait.
    Bar,
    /// Memory barrier (a no-op for the functional model, which is sequentially consistent).
    Membar,
    /// Warp shuffle: `dst = a` of the source lane given by `b` and mode m ([`ShflMode`]), `c` the clamp.
    Shfl,
    /// Warp vote on predicate `a` (m: [`VoteMode`]).
    Vote,
    /// Convert a generic address to a state space window address, or back (m: [`CvtaMods`]).
    Cvta,
    /// Trap: stop the grid with an error (m = 0: a `trap` instruction; m = 1: an invalid
    /// program counter, see `TrapReason::InvalidPc`).
    Trap,
    /// Texture fetch: `dst..dst+3` = the texel of texture b at the coordinates in `a..`
    /// (consecutive registers: the array layer first for array textures, then x, y, z),
    /// with an explicit level of detail in c when asked (m: [`TexMods`]; ty: the texel
    /// type f32, s32 or u32). The texture is a bindless handle in register b, or with the
    /// immediate in slot b a texture slot of the module (`.texref` number).
    Tex,
    /// Texture gather (`tld4`): `dst..dst+3` = component `TexMods::comp` of the four
    /// texels bilinear filtering would read, operands as [`Op::Tex`].
    Tld4,
    /// Texture query: `dst` = attribute m ([`TexQuery`]) of texture b (as [`Op::Tex`]).
    Txq,
    /// Surface load: `dst..` = the element at the coordinates in `a..` (x in bytes) of
    /// surface b (a handle, or the immediate: a `.surfref` number); m: [`SurfMods`], ty
    /// the element type (u8, u16, u32 or u64).
    Suld,
    /// Surface store: the element at the coordinates in `a..` of surface c (a handle, or
    /// the immediate) = `b..`; m: [`SurfMods`].
    Sust,
    /// Device `printf` and `assert` ([`crate::printf`]): each lane appends a record to the
    /// printf FIFO from the parameters of its call frame at local-memory offset imm. m 0:
    /// `vprintf(u64 format, u64 args)` at imm and imm + 8, `dst` = the number of arguments
    /// (-1 for a NULL format); m 1: `__assertfail(u64 message, u64 file, u32 line, u64
    /// function)` at imm, imm + 8, imm + 16, imm + 24 (the compiler follows it with a trap).
    Printf,
    /// Device heap ([`crate::heap`]): each lane's call of m 0 `malloc(u64 size)`, `dst` =
    /// the pointer (0 when none is left), or m 1 `free(u64 ptr)`, its argument at
    /// local-memory offset imm of its call frame.
    Heap,
    /// Warp reduction (`redux.sync`): `dst` = the reduction m ([`redux_op`]) of `a` over the
    /// active lanes of each lane's member mask `b` (u32 or s32).
    Redux,
    /// Warp match (`match.sync`): `dst` = m 0 (`.any`) the mask of the active lanes of each
    /// lane's member mask `b` whose `a` equals its own; m 1 (`.all`) that mask when all of
    /// them are equal, else 0 (u32 or u64 values).
    Match,
    /// Tensor core: a warp's matrix multiply-accumulate, staged through the SM's per-warp
    /// operand buffer (m and the immediate: [`mma`]).
    Mma,
    /// `dst = tanh(a)` (approximate, f32: `tanh.approx.f32`).
    Tanh,
    /// A bulk copy (`cp.async.bulk`): c bytes from address b to address a, each a multiple
    /// of 16, in the spaces m names ([`BulkMods`]); done when it issues.
    Bulk,
    /// A thread block cluster's operation (m: [`ClusterOp`]): its barrier, and the shared
    /// memory addresses of its blocks.
    Cluster,
}

/// [`Op::Printf`] modes.
pub mod printf_mode {
    /// `vprintf`.
    pub const VPRINTF: u16 = 0;
    /// `__assertfail`.
    pub const ASSERT: u16 = 1;
}

/// Operand types.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 4]
pub enum Ty {
    /// Unsigned 8-bit.
    U8 = 0,
    /// Signed 8-bit.
    S8,
    /// Unsigned 16-bit.
    U16,
    /// Signed 16-bit.
    S16,
    /// Unsigned 32-bit (also `.b32`).
    U32,
    /// Signed 32-bit.
    S32,
    /// Unsigned 64-bit (also `.b64`).
    U64,
    /// Signed 64-bit.
    S64,
    /// IEEE single.
    F32,
    /// IEEE double.
    F64,
    /// A predicate (0 or 1).
    Pred,
    /// IEEE binary16 (`.f16`), in a register's low 16 bits.
    F16,
    /// bfloat16 (`.bf16`: float's exponent, 7 fraction bits), in the low 16 bits.
    Bf16,
    /// A pair of binary16 (`.f16x2`) in the low 32 bits; element 0 in bits 15:0.
    F16x2,
    /// A pair of bfloat16 (`.bf16x2`), laid out as [`Ty::F16x2`].
    Bf16x2,
}

impl Ty {
    /// Width in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Ty::U8 | Ty::S8 | Ty::Pred => 1,
            Ty::U16 | Ty::S16 | Ty::F16 | Ty::Bf16 => 2,
            Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::Bf16x2 => 4,
            Ty::U64 | Ty::S64 | Ty::F64 => 8,
        }
    }
    /// Signed integer type.
    pub fn signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }
    /// Single or double precision (the types with directed rounding and the `f32`/`f64`
    /// ALU paths; half precision is [`Ty::half`]).
    pub fn float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    /// A half-precision type, scalar or pair (`.f16`, `.bf16`, `.f16x2`, `.bf16x2`).
    pub fn half(self) -> bool {
        matches!(self, Ty::F16 | Ty::Bf16 | Ty::F16x2 | Ty::Bf16x2)
    }
}

/// Which operand slot holds the immediate of word 1.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 2]
pub enum Imm {
    /// No immediate operand.
    None = 0,
    /// Operand a.
    A,
    /// Operand b.
    B,
    /// Operand c.
    C,
}

/// The control word.
#[bitfield(bits = 64)]
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Word0 {
    /// Opcode.
    pub op: Op,
    /// Guard register ([`ALWAYS`] for none).
    pub guard: B8,
    /// Execute where the guard is false.
    pub guard_neg: bool,
    /// Operand type.
    pub ty: Ty,
    /// Destination register.
    pub dst: B8,
    /// Source a.
    pub a: B8,
    /// Source b.
    pub b: B8,
    /// Source c.
    pub c: B8,
    /// Which operand is the immediate.
    pub imm: Imm,
    /// Op-specific modifiers.
    pub m: B9,
}

/// A constant operand. When the register field of the immediate slot (a, b or c, as
/// [`Imm`] says) is not `RZ`, it is a `ConstRef`, and the operand is the constant at the
/// byte offset the immediate word holds instead of the immediate itself: `c[bank][imm]`
/// (kernel parameters are bank 0, module constants bank 1), or with `launch` the grid's
/// launch constants ([`LAUNCH_NTID`], [`LAUNCH_NCTAID`]). The value is `1 << size` bytes,
/// little-endian, zero- or sign-extended to 64 bits, exactly what an `LD` of that type
/// would put in a register; bytes beyond the bound bank read as zero. NVIDIA's SASS reads
/// `c[0x0][...]` operands the same way, so kernel parameters and the grid's shape take no
/// register. Bit 7 is reserved: a field with it set is `RZ` or an illegal instruction.
#[bitfield(bits = 8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConstRef {
    /// Constant bank (ignored with `launch`).
    pub bank: B3,
    /// Read the grid's launch constants instead of a bank.
    pub launch: bool,
    /// log2 of the width in bytes (1, 2, 4 or 8 bytes).
    pub size: B2,
    /// Sign-extend from the width.
    pub signed: bool,
    /// Reserved (zero).
    pub reserved: B1,
}

impl ConstRef {
    /// A reference to `bytes` (1, 2, 4 or 8) of bank `bank`.
    pub fn bank_value(bank: u8, bytes: u32, signed: bool) -> Self {
        Self::new().with_bank(bank & 7).with_size(bytes.trailing_zeros().min(3) as u8).with_signed(signed)
    }
    /// A reference to a 32-bit launch constant.
    pub fn launch_value() -> Self {
        Self::new().with_launch(true).with_size(2)
    }
    /// Decode the register field of the immediate slot when it is not `RZ` (`RZ` there
    /// means a plain immediate); `None` for a reserved encoding.
    pub fn of_field(field: u8) -> Option<Self> {
        (field & 0x80 == 0).then(|| Self::from_bytes([field]))
    }
    /// The register-field byte.
    pub fn field(self) -> u8 {
        self.into_bytes()[0]
    }
    /// Width in bytes.
    pub fn bytes(self) -> u32 {
        1 << self.size()
    }
}

/// Byte offset of `%ntid.x, y, z` (three `u32`) among the launch constants.
pub const LAUNCH_NTID: u64 = 0x0;
/// Byte offset of `%nctaid.x, y, z` (three `u32`) among the launch constants.
pub const LAUNCH_NCTAID: u64 = 0xc;
/// Byte offset of `%envreg0` .. `%envreg31` (32 `u32`) among the launch constants: the
/// driver-defined registers, as the compute class's ENVREG methods set them for the launch
/// (CUDA's cooperative launches give the grid workspace's address in `%envreg1:2`).
pub const LAUNCH_ENVREG: u64 = 0x18;
/// Bytes of each generic-address window (shared, local) from its base, the compute class's
/// SHARED_WINDOW and LOCAL_WINDOW.
pub const GENERIC_WINDOW_BYTES: u64 = 1 << 24;
/// Bytes of launch constants.
pub const LAUNCH_BYTES: u64 = 0x98;

/// `MUL`/`MAD` mode (m bits 1:0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum MulMode {
    /// Low half of the product (also the only mode for floats).
    Lo = 0,
    /// High half.
    Hi = 1,
    /// Full product of two values of the type, in the type of twice the width.
    Wide = 2,
}

/// `SETP` comparison (m bits 4:0). The `U` forms are true when either operand is NaN.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 5]
pub enum Cmp {
    /// ==
    Eq = 0,
    /// !=
    Ne,
    /// <
    Lt,
    /// <=
    Le,
    /// >
    Gt,
    /// >=
    Ge,
    /// == or unordered
    Equ,
    /// != or unordered
    Neu,
    /// < or unordered
    Ltu,
    /// <= or unordered
    Leu,
    /// > or unordered
    Gtu,
    /// >= or unordered
    Geu,
    /// Neither is NaN.
    Num,
    /// Either is NaN.
    Nan,
}

impl Cmp {
    /// Decode the modifier bits.
    pub fn from_bits(m: u16) -> Option<Self> {
        Self::from_bytes((m & 0x1F) as u8).ok()
    }
}

/// State spaces of `LD`/`ST`/`ATOM` (m bits 2:0).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum Space {
    /// Generic: global unless in the shared or local window.
    Generic = 0,
    /// Global memory (through the MMU).
    Global,
    /// Per-block shared memory.
    Shared,
    /// Per-thread local memory.
    Local,
    /// Constant bank 0 (kernel parameters live here too).
    Const,
    /// Other constant banks: bank number in m bits 8:6 (module constants use bank 1).
    ConstBank,
}

impl Space {
    /// Decode the modifier bits.
    pub fn from_bits(m: u16) -> Option<Self> {
        Self::from_bytes((m & 7) as u8).ok()
    }
}

/// `LD`/`ST` modifiers: space (2:0), vector length log2 (4:3: 1, 2, 4; 3 is reserved and
/// decodes as an illegal instruction), and in bits 8:6 the constant bank (constant spaces)
/// or the cache operator ([`CacheOp`], every other space).
/// The element type is the instruction type; vectors use consecutive registers.
pub struct MemMods;
impl MemMods {
    /// Encode.
    pub fn encode(space: Space, vec: u32, bank: u32) -> u16 {
        space as u16 | (vec.trailing_zeros() as u16 & 3) << 3 | (bank as u16 & 7) << 6
    }
    /// Encode a non-constant access with cache operator `op`.
    pub fn encode_cached(space: Space, vec: u32, op: CacheOp) -> u16 {
        Self::encode(space, vec, op as u32)
    }
    /// Vector length.
    pub fn vec(m: u16) -> u32 {
        1 << ((m >> 3) & 3)
    }
    /// Constant bank.
    pub fn bank(m: u16) -> u32 {
        (m as u32 >> 6) & 7
    }
    /// The cache operator of a non-constant access (reserved values read as the default).
    pub fn cache(m: u16) -> CacheOp {
        CacheOp::from_bytes(((m >> 6) & 7) as u8).unwrap_or(CacheOp::Default)
    }
}

/// Cache operators of `LD`/`ST` (PTX ISA, "Cache Operators"; m bits 8:6 of [`MemMods`]).
/// They decide only where lines are kept, never what a load returns.
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum CacheOp {
    /// `.ca` loads and `.wb` stores: cache at every level (L1 and L2).
    Default = 0,
    /// `.cg`: cache in the L2 only, bypassing the L1 (also strong loads at GPU or system
    /// scope: `ld.volatile`, `ld.relaxed.gpu`, `ld.acquire.sys`, ...).
    Global,
    /// `.cs` (streaming) and `.lu` (last use): allocate evict-first, at every level.
    Streaming,
    /// `.cv`: do not cache, fetch again: the L1 is bypassed and the L2 (the point of
    /// coherence for device memory) looked up.
    Volatile,
}

/// Atomic operations (m bits 6:3 of [`AtomMods`]).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 4]
pub enum AtomOp {
    /// Add.
    Add = 0,
    /// Minimum.
    Min,
    /// Maximum.
    Max,
    /// `(old >= b) ? 0 : old + 1`.
    Inc,
    /// `(old == 0 || old > b) ? b : old - 1`.
    Dec,
    /// And.
    And,
    /// Or.
    Or,
    /// Xor.
    Xor,
    /// Exchange.
    Exch,
    /// Compare and swap: `old == b ? c : old`.
    Cas,
    /// `mbarrier.arrive` (u64, [`mbarrier`]): b arrivals; the phase completes when none is
    /// pending.
    Arrive,
    /// `mbarrier.arrive_drop`: b arrivals that also leave the barrier's expected count.
    ArriveDrop,
    /// `mbarrier.expect_tx`: b more bytes of transactions expected of the current phase.
    ExpectTx,
    /// `mbarrier.complete_tx`: b bytes of transactions done.
    CompleteTx,
    /// `mbarrier.arrive.expect_tx`: b's high word bytes expected, then its low word arrivals.
    ArriveExpectTx,
}

/// `ATOM` modifiers: space (2:0), operation (6:3).
pub struct AtomMods;
impl AtomMods {
    /// Encode.
    pub fn encode(space: Space, op: AtomOp) -> u16 {
        space as u16 | (op as u16) << 3
    }
    /// The operation.
    pub fn op(m: u16) -> Option<AtomOp> {
        AtomOp::from_bytes(((m >> 3) & 0xF) as u8).ok()
    }
}

/// `SHFL` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum ShflMode {
    /// Source lane = b.
    Idx = 0,
    /// Source lane = lane - b.
    Up,
    /// Source lane = lane + b.
    Down,
    /// Source lane = lane ^ b.
    Bfly,
}

/// `VOTE` modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum VoteMode {
    /// All active lanes true.
    All = 0,
    /// Any active lane true.
    Any,
    /// All active lanes equal.
    Uni,
    /// Mask of active lanes with the predicate true.
    Ballot,
}

/// `CVTA` modifiers: space (2:0), direction bit 3 (1 = generic to space).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CvtaMods {
    /// The state space (2:0), raw: the device decides which spaces have windows.
    pub space: u16,
    /// Generic to space (else space to generic).
    pub to: bool,
}
impl CvtaMods {
    /// Encode.
    pub fn encode(self) -> u16 {
        (self.space & 7) | (self.to as u16) << 3
    }
    /// Decode.
    pub fn decode(m: u16) -> Self {
        Self { space: m & 7, to: m >> 3 & 1 == 1 }
    }
}

/// The register operands one instruction reads or writes as a group of consecutive
/// registers: (destination, a, b) element counts, from its opcode and modifiers (1 for
/// single registers); `None` for a modifier encoding that does not decode.
pub fn group_lengths(op: Op, m: u16) -> Option<(u32, u32, u32)> {
    let tex = || TexMods::from_bytes(m.to_le_bytes()).dim_or_err().ok();
    let surf = || {
        let s = SurfMods::from_bytes(m.to_le_bytes());
        Some((s.dim_or_err().ok()?, 1u32 << s.vec(), s.clamp_or_err().ok()?)).filter(|x| x.1 <= 4)
    };
    Some(match op {
        Op::Ld => (MemMods::vec(m), 1, 1),
        Op::St => (1, 1, MemMods::vec(m)),
        Op::Tex | Op::Tld4 => (4, tex()?.coords(), 1),
        Op::Suld => {
            let (dim, n, _) = surf()?;
            (n, dim.coords(), 1)
        }
        Op::Sust => {
            let (dim, n, _) = surf()?;
            (1, dim.coords(), n)
        }
        _ => (1, 1, 1),
    })
}

impl Op {
    /// An operation of the multi-function unit (NVIDIA's `MUFU`): square root, reciprocals,
    /// the sines, `ex2`, `lg2`, `tanh`.
    pub fn multi_function(self) -> bool {
        matches!(self, Op::Sqrt | Op::Rcp | Op::Rsqrt | Op::Sin | Op::Cos | Op::Ex2 | Op::Lg2 | Op::Tanh)
    }

    /// An access to memory through the load/store or texture path: it reads its register
    /// operands after it issues.
    pub fn accesses_memory(self) -> bool {
        matches!(self, Op::Ld | Op::St | Op::Atom | Op::Tex | Op::Tld4 | Op::Suld | Op::Sust | Op::Bulk)
    }
}

/// The immediate of a `BRA`: target and reconvergence point, as instruction indices.
#[bitfield(bits = 64)]
#[repr(u64)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BranchTarget {
    /// Instruction index to jump to.
    pub target: B32,
    /// Instruction index where lanes that diverge here reconverge.
    pub reconverge: B32,
}

/// One instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instr {
    /// Control word.
    pub w0: Word0,
    /// Immediate word.
    pub imm: u64,
}

impl Instr {
    /// A new instruction.
    pub fn new(op: Op, ty: Ty) -> Self {
        Self {
            w0: Word0::new().with_op(op).with_ty(ty).with_guard(ALWAYS).with_dst(RZ).with_a(RZ).with_b(RZ).with_c(RZ),
            imm: 0,
        }
    }
    /// The 16 bytes of the instruction.
    pub fn to_bytes(self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&u64::from(self.w0).to_le_bytes());
        b[8..].copy_from_slice(&self.imm.to_le_bytes());
        b
    }
    /// Decode 16 bytes (field validity is checked by whoever executes it).
    pub fn from_bytes(b: &[u8; 16]) -> Self {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[..8]);
        let mut i = [0u8; 8];
        i.copy_from_slice(&b[8..]);
        Self { w0: Word0::from(u64::from_le_bytes(w)), imm: u64::from_le_bytes(i) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_round_trip_through_bytes() {
        let mut i = Instr::new(Op::Mad, Ty::S32);
        i.w0.set_dst(3);
        i.w0.set_a(4);
        i.w0.set_c(7);
        i.w0.set_imm(Imm::B);
        i.w0.set_m(MulMode::Wide as u16);
        i.imm = 0xFFFF_FFFF_FFFF_FFFC;
        let back = Instr::from_bytes(&i.to_bytes());
        assert_eq!(back, i);
        assert_eq!(back.w0.op_or_err().unwrap(), Op::Mad);
        assert_eq!(back.w0.guard(), ALWAYS);
    }

    #[test]
    fn garbage_opcodes_are_detected() {
        let w = Word0::from(0xFFu64);
        assert!(w.op_or_err().is_err());
        assert!(Word0::from(0xF << 17).ty_or_err().is_err());
    }

    #[test]
    fn modifier_helpers() {
        assert_eq!(MemMods::vec(MemMods::encode(Space::Global, 4, 0)), 4);
        assert_eq!(MemMods::bank(MemMods::encode(Space::ConstBank, 1, 3)), 3);
        let cg = MemMods::encode_cached(Space::Global, 2, CacheOp::Global);
        assert_eq!((MemMods::vec(cg), MemMods::cache(cg)), (2, CacheOp::Global));
        assert_eq!(MemMods::cache(MemMods::encode(Space::Global, 1, 7)), CacheOp::Default);
        assert_eq!(AtomMods::op(AtomMods::encode(Space::Shared, AtomOp::Cas)), Some(AtomOp::Cas));
        assert_eq!(Cmp::from_bits(Cmp::Geu as u16), Some(Cmp::Geu));
        assert_eq!(Sreg::from_index(Sreg::ActiveMask as u64), Some(Sreg::ActiveMask));
        assert_eq!(Sreg::from_index(Sreg::IsExplicitCluster as u64), Some(Sreg::IsExplicitCluster));
        assert_eq!(Sreg::from_index(40), None);
    }

    #[test]
    fn constant_operands_encode_in_a_register_field() {
        let c = ConstRef::bank_value(0, 8, false);
        assert_eq!((c.bank(), c.bytes(), c.signed(), c.launch()), (0, 8, false, false));
        assert_ne!(c.field(), RZ);
        assert_eq!(ConstRef::of_field(c.field()), Some(c));
        let s = ConstRef::bank_value(1, 4, true);
        assert_eq!(ConstRef::of_field(s.field()), Some(s));
        assert_eq!(ConstRef::of_field(ConstRef::launch_value().field()).unwrap().bytes(), 4);
        assert_eq!(ConstRef::of_field(RZ), None);
        assert_eq!(ConstRef::of_field(0x80), None);
        assert_eq!(Sreg::NctaidZ.launch_offset(), Some(LAUNCH_NCTAID + 8));
        assert_eq!(Sreg::TidX.launch_offset(), None);
    }
}
