//! Modifier bits and mode tables of single instructions: the float flags (`.ftz`, `.sat`,
//! `.NaN`/`.relu`, `.xorsign.abs`), `REDUX`'s operations, `PRMT`'s modes and `VOTE`'s
//! member-mask bit.

/// Modifier bit of `.f32` and `.f16` arithmetic, comparisons and math (`ADD`..`MAX`, `MAD`,
/// `SETP`, the unary float ops): `.ftz`, subnormal inputs and results flushed to zero of
/// the same sign.
pub const FLOAT_FTZ: u16 = 1 << 5;
/// Modifier bit of float `ADD`, `SUB`, `MUL`, `MAD`: `.sat`, the result clamped to [0, 1]
/// (NaN becomes +0).
pub const FLOAT_SAT: u16 = 1 << 6;
/// Modifier bit of half-precision `MIN`/`MAX`: `.NaN`, a NaN operand gives the canonical
/// NaN (else the other operand); of half-precision `MAD`: `.relu`, a negative result
/// becomes +0 (NaN stays the canonical NaN).
pub const FLOAT_NAN_RELU: u16 = 1 << 7;
/// Modifier bit of half-precision `MIN`/`MAX`: `.xorsign.abs`, the minimum or maximum of
/// the magnitudes with the sign the exclusive or of the operands' signs.
pub const FLOAT_XORSIGN: u16 = 1 << 8;

/// [`Op::Redux`](super::Op::Redux) operations (m).
pub mod redux_op {
    /// Sum (wrapping).
    pub const ADD: u16 = 0;
    /// Minimum (signed for s32).
    pub const MIN: u16 = 1;
    /// Maximum.
    pub const MAX: u16 = 2;
    /// Bitwise and.
    pub const AND: u16 = 3;
    /// Bitwise or.
    pub const OR: u16 = 4;
    /// Bitwise exclusive or.
    pub const XOR: u16 = 5;
}

/// `PRMT` modes (m): 0 the generic byte selectors, then PTX's `.f4e`, `.b4e`, `.rc8`, `.ecl`,
/// `.ecr`, `.rc16`, each choosing d's bytes by c bits 1:0 alone.
pub const PRMT_MODES: [&str; 7] = ["", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"];

/// `VOTE` modifier bit: operand b holds the member mask of `vote.sync`; only the active
/// lanes in it vote (the mode is in bits 1:0).
pub const VOTE_MEMBER_MASK: u16 = 1 << 2;
