//! The driver's pushbuffer writer.
//!
//! Commands are built in a fixed-capacity buffer ([`Pushbuf<N>`], a `heapless::Vec`) and
//! then copied into the channel's DMA pushbuffer by the runtime. Every method is written
//! as a whole or not at all: when the buffer is full the call returns
//! [`PushError::Full`] and the buffer is left as it was. Runs longer than a header's
//! 13-bit count are split into several headers with the same meaning.

use hw::cmd::{MethodHeader, Opcode};

/// Why a method could not be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PushError {
    /// Not enough room left in the buffer.
    Full,
    /// Subchannel above 7.
    BadSubchannel,
    /// Method offset not 4-byte aligned or above the 14-bit range.
    BadMethod,
    /// Immediate data does not fit in 13 bits.
    ImmediateTooLarge,
    /// A method with no data words.
    Empty,
}

/// A fixed-capacity pushbuffer segment of at most `N` words.
#[derive(Clone, Debug, Default)]
pub struct Pushbuf<const N: usize> {
    words: heapless::Vec<u32, N>,
}

impl<const N: usize> Pushbuf<N> {
    /// An empty buffer.
    pub const fn new() -> Self {
        Self { words: heapless::Vec::new() }
    }
    /// The words written so far.
    pub fn words(&self) -> &[u32] {
        &self.words
    }
    /// Number of words written.
    pub fn len(&self) -> usize {
        self.words.len()
    }
    /// Whether nothing was written.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
    /// Words still free.
    pub fn remaining(&self) -> usize {
        N - self.words.len()
    }
    /// Forget everything written.
    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// INCR: `data[i]` goes to method `method + 4 * i`.
    pub fn incr(&mut self, subch: u8, method: u32, data: &[u32]) -> Result<(), PushError> {
        let last = (data.len() as u64).saturating_sub(1) * 4 + method as u64;
        if last > MethodHeader::MAX_METHOD as u64 {
            return Err(PushError::BadMethod);
        }
        self.transaction(|pb| {
            let mut m = method;
            for chunk in data.chunks(MethodHeader::MAX_COUNT as usize) {
                pb.header(Opcode::IncMethod, subch, m, chunk.len() as u32)?;
                pb.extend(chunk)?;
                m += 4 * chunk.len() as u32;
            }
            if data.is_empty() { Err(PushError::Empty) } else { Ok(()) }
        })
    }

    /// NONINCR: every word goes to `method` (uploads of arrays through one data port).
    pub fn nonincr(&mut self, subch: u8, method: u32, data: &[u32]) -> Result<(), PushError> {
        self.transaction(|pb| {
            for chunk in data.chunks(MethodHeader::MAX_COUNT as usize) {
                pb.header(Opcode::NonIncMethod, subch, method, chunk.len() as u32)?;
                pb.extend(chunk)?;
            }
            if data.is_empty() { Err(PushError::Empty) } else { Ok(()) }
        })
    }

    /// INCR_ONCE: `data[0]` to `method`, the rest to `method + 4`.
    pub fn incr_once(&mut self, subch: u8, method: u32, data: &[u32]) -> Result<(), PushError> {
        self.transaction(|pb| {
            let max = MethodHeader::MAX_COUNT as usize;
            let (first, rest) = data.split_at(data.len().min(max));
            if first.is_empty() {
                return Err(PushError::Empty);
            }
            pb.header(Opcode::OneInc, subch, method, first.len() as u32)?;
            pb.extend(first)?;
            for chunk in rest.chunks(max) {
                pb.header(Opcode::NonIncMethod, subch, method + 4, chunk.len() as u32)?;
                pb.extend(chunk)?;
            }
            Ok(())
        })
    }

    /// IMMD: a 13-bit value carried in the header itself.
    pub fn immd(&mut self, subch: u8, method: u32, value: u32) -> Result<(), PushError> {
        if value > MethodHeader::MAX_COUNT {
            return Err(PushError::ImmediateTooLarge);
        }
        self.transaction(|pb| pb.header(Opcode::ImmdDataMethod, subch, method, value))
    }

    /// A single method with one data word, using IMMD when the value fits.
    pub fn method(&mut self, subch: u8, method: u32, value: u32) -> Result<(), PushError> {
        if value <= MethodHeader::MAX_COUNT {
            self.immd(subch, method, value)
        } else {
            self.incr(subch, method, &[value])
        }
    }

    /// Append a raw word, unchecked. For tests that inject malformed pushbuffers.
    pub fn raw(&mut self, word: u32) -> Result<(), PushError> {
        self.words.push(word).map_err(|_| PushError::Full)
    }

    fn header(&mut self, op: Opcode, subch: u8, method: u32, count: u32) -> Result<(), PushError> {
        if subch > 7 {
            return Err(PushError::BadSubchannel);
        }
        if !method.is_multiple_of(4) || method > MethodHeader::MAX_METHOD {
            return Err(PushError::BadMethod);
        }
        self.raw(MethodHeader::encode(op, subch, method, count).into())
    }

    fn extend(&mut self, data: &[u32]) -> Result<(), PushError> {
        self.words.extend_from_slice(data).map_err(|_| PushError::Full)
    }

    fn transaction(&mut self, f: impl FnOnce(&mut Self) -> Result<(), PushError>) -> Result<(), PushError> {
        let mark = self.words.len();
        let r = f(self);
        if r.is_err() {
            self.words.truncate(mark);
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_each_opcode() {
        let mut pb = Pushbuf::<16>::new();
        pb.incr(3, 0x400, &[1, 2]).unwrap();
        pb.nonincr(1, 0x2390, &[7]).unwrap();
        pb.immd(3, 0x300, 0x186).unwrap();
        pb.incr_once(1, 0x238C, &[0, 9, 9]).unwrap();
        assert_eq!(
            pb.words(),
            &[
                0x2002_6100,
                1,
                2, // INCR, count 2, subch 3, 0x400
                0x6001_28E4,
                7,           // NONINCR subch 1 0x2390
                0x8186_60C0, // IMMD 0x186 subch 3 0x300
                0xA003_28E3,
                0,
                9,
                9 // INCR_ONCE subch 1 0x238C
            ]
        );
    }

    #[test]
    fn full_leaves_the_buffer_untouched() {
        let mut pb = Pushbuf::<4>::new();
        pb.incr(0, 0x10, &[1, 2]).unwrap();
        assert_eq!(pb.incr(0, 0x10, &[1]), Err(PushError::Full));
        assert_eq!(pb.len(), 3);
        pb.immd(0, 0x20, 1).unwrap();
        assert_eq!(pb.immd(0, 0x20, 1), Err(PushError::Full));
        assert_eq!(pb.remaining(), 0);
    }

    #[test]
    fn rejects_bad_arguments() {
        let mut pb = Pushbuf::<8>::new();
        assert_eq!(pb.incr(8, 0x10, &[1]), Err(PushError::BadSubchannel));
        assert_eq!(pb.incr(0, 0x11, &[1]), Err(PushError::BadMethod));
        assert_eq!(pb.incr(0, 0x4000, &[1]), Err(PushError::BadMethod));
        assert_eq!(pb.immd(0, 0x10, 0x2000), Err(PushError::ImmediateTooLarge));
        assert_eq!(pb.nonincr(0, 0x10, &[]), Err(PushError::Empty));
        assert!(pb.is_empty());
    }

    #[test]
    fn long_runs_split_into_several_headers() {
        let data: heapless::Vec<u32, 9000> = (0..9000).collect();
        let mut pb = Pushbuf::<9010>::new();
        pb.nonincr(2, 0x2390, &data).unwrap();
        assert_eq!(pb.len(), 9002);
        let second = MethodHeader::from(pb.words()[8192]);
        assert_eq!((second.method(), second.count()), (0x2390, 809));
        pb.clear();
        assert_eq!(pb.incr(2, 0x100, &data), Err(PushError::BadMethod));
        pb.incr(2, 0x3FF8, &[1, 2]).unwrap();
    }
}
