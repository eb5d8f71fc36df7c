//! Errors with a position: what was expected and what was found.

use alloc::string::String;
use core::fmt;

/// A PTX error: a syntax error, or PTX that uses something rgdev does not support. Either
/// way the module does not load: CUDA_ERROR_INVALID_PTX, or CUDA_ERROR_NOT_SUPPORTED for an
/// instruction of the PTX ISA that rgdev does not implement ([`PtxError::unsupported`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PtxError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
    /// What went wrong.
    pub msg: String,
    /// Valid PTX that rgdev does not implement (an instruction named in the message), not
    /// malformed PTX.
    pub unsupported: bool,
}

impl fmt::Display for PtxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.msg)
    }
}

impl core::error::Error for PtxError {}

/// Result alias.
pub type Result<T> = core::result::Result<T, PtxError>;

/// A position in the source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl Pos {
    /// An error at this position.
    pub fn err(self, msg: impl Into<String>) -> PtxError {
        PtxError { line: self.line, col: self.col, msg: msg.into(), unsupported: false }
    }

    /// An error at this position for valid PTX that rgdev does not implement.
    pub fn unsupported(self, msg: impl Into<String>) -> PtxError {
        PtxError { unsupported: true, ..self.err(msg) }
    }
}
