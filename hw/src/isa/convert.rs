//! Conversion modifiers: the rounding of conversions and float arithmetic, and `CVT`'s
//! modifier bits (with the extension its immediate word carries).

use super::Ty;
use modular_bitfield::prelude::*;

/// Rounding of conversions and float arithmetic (m bits 2:0 of [`CvtMods`], or of float ops).
#[derive(Specifier, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[bits = 3]
pub enum Round {
    /// Default: nearest-even for floats, truncation for float to integer.
    Default = 0,
    /// Round to nearest even.
    Rn,
    /// Toward zero.
    Rz,
    /// Toward minus infinity.
    Rm,
    /// Toward plus infinity.
    Rp,
}

impl Round {
    /// Decode the modifier bits.
    pub fn from_bits(m: u16) -> Option<Self> {
        Self::from_bytes((m & 7) as u8).ok()
    }
}

/// `CVT` modifiers: rounding (2:0), saturate (3), source type (7:4), integral rounding
/// (8: `cvt.rni`-style round to an integer value within a float type). When the source is
/// a register (no immediate operand), the immediate word extends them: `.relu` (bit 0: a
/// negative half result becomes +0, a NaN the canonical NaN), `.satfinite` (1: an infinite
/// half or tf32 result becomes the largest finite value of its sign), tf32 (2: an f32
/// rounded to TensorFloat-32's 10 fraction bits, the low 13 cleared; rounding Default is
/// `.rna`, to nearest with ties away from zero). `ftz` is implied by the model's treatment
/// of subnormals (kept, not flushed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CvtMods {
    /// Rounding mode.
    pub round: Round,
    /// Clamp to the destination's range (floats: to [0, 1]).
    pub sat: bool,
    /// Source type.
    pub src: Ty,
    /// Float to float rounding to an integral value (`.rni`, `.rzi`, ...).
    pub integral: bool,
    /// `.relu`.
    pub relu: bool,
    /// `.satfinite`.
    pub satfinite: bool,
    /// To TensorFloat-32 (`cvt.rna.tf32.f32`).
    pub tf32: bool,
}
impl CvtMods {
    /// Encode the m field.
    pub fn encode(self) -> u16 {
        self.round as u16 | (self.sat as u16) << 3 | (self.src as u16) << 4 | (self.integral as u16) << 8
    }
    /// Encode the extension the immediate word holds (0: none).
    pub fn extension(self) -> u64 {
        self.relu as u64 | (self.satfinite as u64) << 1 | (self.tf32 as u64) << 2
    }
    /// Add the extension `ext` (the immediate word of a `CVT` without an immediate operand).
    pub fn extended(self, ext: u64) -> Self {
        Self { relu: ext & 1 == 1, satfinite: ext >> 1 & 1 == 1, tf32: ext >> 2 & 1 == 1, ..self }
    }
    /// Plain modifiers: `round` from `src`, nothing else.
    pub fn new(round: Round, src: Ty) -> Self {
        Self { round, sat: false, src, integral: false, relu: false, satfinite: false, tf32: false }
    }
    /// Decode; `None` for a reserved rounding or type encoding.
    pub fn decode(m: u16) -> Option<Self> {
        Some(Self {
            round: Round::from_bits(m)?,
            sat: m >> 3 & 1 == 1,
            src: Ty::from_bytes(((m >> 4) & 0xF) as u8).ok()?,
            integral: m >> 8 & 1 == 1,
            relu: false,
            satfinite: false,
            tf32: false,
        })
    }
}
