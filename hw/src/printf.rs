//! Device-side `printf` and `assert` (a model extension in how the device writes them;
//! what CUDA programs see is CUDA's): kernels call `vprintf(format, args)` and
//! `__assertfail(message, file, line, function, char_size)`, which the PTX compiler turns
//! into [`crate::isa::Op::Printf`]. The compute engine appends one record per calling
//! thread to the channel's printf FIFO at PRINTF_ADDRESS (PRINTF_SIZE bytes); the runtime
//! reads and prints the records at synchronization points, as CUDA flushes its FIFO.
//!
//! NVIDIA's device code copies the argument buffer into a device-memory FIFO and the
//! driver formats it; here the engine interprets the format to copy exactly the bytes
//! each conversion takes (and the strings `%s` points at), so the driver needs no reads
//! of device memory.
//!
//! The FIFO: a header of [`HEADER`] bytes (u32 bytes of records written, u32 capacity
//! in bytes of records, u32 records dropped for want of room, u32 reserved), then
//! records, each a multiple of 8 bytes:
//!
//! - u32 length of the whole record, u16 kind ([`KIND_PRINTF`], [`KIND_ASSERT`]), u16
//!   the number of arguments;
//! - printf: the format as a string, then per argument a u32 tag ([`ArgTag`]), a u32 0,
//!   and 8 bytes of value, or for [`ArgTag::Str`] a string;
//! - assert: u32 x 3 block index, u32 x 3 thread index, u32 line, u32 0, then the message,
//!   file and function as strings;
//! - a string: u32 byte length, u32 0, the bytes (no NUL), zero-padded to 8.
//!
//! The argument buffer clang and nvcc build for `vprintf` holds each argument at the
//! next multiple of its size: `int`-sized conversions 4 bytes, `l`/`ll`/`j`/`z`/`t`
//! integers, pointers (`%s`, `%p`) and floating point (always promoted to `double`) 8.

/// Bytes of the FIFO header.
pub const HEADER: usize = 16;
/// Record kind: a `printf` call.
pub const KIND_PRINTF: u16 = 0;
/// Record kind: a failed `assert`.
pub const KIND_ASSERT: u16 = 1;
/// Longest format or `%s` string copied into a record (longer ones are cut).
pub const MAX_STRING: usize = 4096;
/// Most conversions of one format that take arguments (CUDA's limit is 32).
pub const MAX_ARGS: usize = 32;
/// CUDA's default FIFO size (cudaLimitPrintfFifoSize).
pub const DEFAULT_FIFO_BYTES: u32 = 1 << 20;

/// What a record holds for one argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ArgTag {
    /// A 4-byte integer (zero-extended to 8 bytes in the record).
    Int32 = 0,
    /// An 8-byte integer.
    Int64 = 1,
    /// A double.
    Double = 2,
    /// The string a `%s` argument points at.
    Str = 3,
    /// A `%s` argument that is NULL.
    NullStr = 4,
    /// A pointer (`%p`).
    Ptr = 5,
}

impl ArgTag {
    /// The tag of a record's u32.
    pub fn from_u32(v: u32) -> Option<Self> {
        use ArgTag::*;
        [Int32, Int64, Double, Str, NullStr, Ptr].get(v as usize).copied()
    }
}

/// Length modifiers of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Length {
    /// None.
    Default,
    /// `hh`.
    Char,
    /// `h`.
    Short,
    /// `l`.
    Long,
    /// `ll`.
    LongLong,
    /// `j`, `z`, `t` (64-bit on the device).
    Size,
    /// `L` (long double: a double on the device).
    LongDouble,
}

/// Flags of a conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// `-`: left-justify.
    pub minus: bool,
    /// `+`: always a sign.
    pub plus: bool,
    /// ` `: a space for a missing sign.
    pub space: bool,
    /// `#`: the alternate form.
    pub hash: bool,
    /// `0`: pad with zeros.
    pub zero: bool,
}

/// One conversion specification of a format: `%[flags][width][.precision][length]conv`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Flags.
    pub flags: Flags,
    /// Minimum field width.
    pub width: Option<u32>,
    /// Precision.
    pub precision: Option<u32>,
    /// Length modifier.
    pub length: Length,
    /// The conversion character (`d`, `s`, `%`, ...).
    pub conv: u8,
    /// Bytes of the format the specification spans, from its `%`.
    pub len: usize,
}

impl Spec {
    /// What the conversion takes from the argument buffer: its tag and size in bytes;
    /// `None` for `%%` and for conversions CUDA does not support (`%n`, `*` widths), which
    /// take nothing and print as written.
    pub fn arg(&self) -> Option<(ArgTag, u32)> {
        match self.conv {
            b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'c' => match self.length {
                Length::Long | Length::LongLong | Length::Size => Some((ArgTag::Int64, 8)),
                _ => Some((ArgTag::Int32, 4)),
            },
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => Some((ArgTag::Double, 8)),
            b's' => Some((ArgTag::Str, 8)),
            b'p' => Some((ArgTag::Ptr, 8)),
            _ => None,
        }
    }
}

/// The conversion specification starting at `fmt[0]` (a `%`); `None` when it is cut off
/// or malformed (then printed as written).
pub fn spec(fmt: &[u8]) -> Option<Spec> {
    if fmt.first() != Some(&b'%') {
        return None;
    }
    let mut i = 1;
    let mut flags = Flags::default();
    while let Some(&c) = fmt.get(i) {
        match c {
            b'-' => flags.minus = true,
            b'+' => flags.plus = true,
            b' ' => flags.space = true,
            b'#' => flags.hash = true,
            b'0' => flags.zero = true,
            _ => break,
        }
        i += 1;
    }
    let number = |i: &mut usize| -> Option<u32> {
        let start = *i;
        let mut v: u32 = 0;
        while let Some(&c) = fmt.get(*i).filter(|c| c.is_ascii_digit()) {
            v = v.saturating_mul(10).saturating_add((c - b'0') as u32);
            *i += 1;
        }
        (*i > start).then_some(v.min(1 << 20))
    };
    let width = number(&mut i);
    let precision = if fmt.get(i) == Some(&b'.') {
        i += 1;
        Some(number(&mut i).unwrap_or(0))
    } else {
        None
    };
    let length = match (fmt.get(i), fmt.get(i + 1)) {
        (Some(b'h'), Some(b'h')) => {
            i += 2;
            Length::Char
        }
        (Some(b'h'), _) => {
            i += 1;
            Length::Short
        }
        (Some(b'l'), Some(b'l')) => {
            i += 2;
            Length::LongLong
        }
        (Some(b'l'), _) => {
            i += 1;
            Length::Long
        }
        (Some(b'j' | b'z' | b't'), _) => {
            i += 1;
            Length::Size
        }
        (Some(b'L'), _) => {
            i += 1;
            Length::LongDouble
        }
        _ => Length::Default,
    };
    let conv = *fmt.get(i)?;
    if !conv.is_ascii_alphabetic() && conv != b'%' {
        return None;
    }
    Some(Spec { flags, width, precision, length, conv, len: i + 1 })
}

/// Round `n` up to a multiple of 8.
pub const fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifications_and_what_they_take() {
        let s = spec(b"%-08.3lld rest").unwrap();
        assert_eq!((s.flags.minus, s.flags.zero, s.width, s.precision), (true, true, Some(8), Some(3)));
        assert_eq!((s.length, s.conv, s.len), (Length::LongLong, b'd', 9));
        assert_eq!(s.arg(), Some((ArgTag::Int64, 8)));
        assert_eq!(spec(b"%hhx").unwrap().arg(), Some((ArgTag::Int32, 4)));
        assert_eq!(spec(b"%.2f").unwrap().arg(), Some((ArgTag::Double, 8)));
        assert_eq!(spec(b"%s").unwrap().arg(), Some((ArgTag::Str, 8)));
        assert_eq!(spec(b"%zu").unwrap().arg(), Some((ArgTag::Int64, 8)));
        assert_eq!(spec(b"%%").unwrap().arg(), None);
        assert_eq!(spec(b"%*d"), None);
        assert_eq!(spec(b"%5"), None);
        assert_eq!(ArgTag::from_u32(5), Some(ArgTag::Ptr));
        assert_eq!(ArgTag::from_u32(6), None);
    }
}
