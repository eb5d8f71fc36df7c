//! The device's method-stream reader.
//!
//! A pushbuffer segment is a run of 32-bit words: headers followed by their data. The
//! reader turns it into (subchannel, method, data) triples. Pushbuffers are untrusted: a
//! reserved opcode or a header whose data runs past the end of the segment is a
//! [`DecodeError`] (the device turns it into a PBDMA error for that channel), never a panic.
//!
//! [`MethodStream`] keeps only positions, so the device can store it beside the fetched
//! words and resume after a stall; [`MethodReader`] is the same as an iterator.

use hw::cmd::{MethodHeader, Opcode};

/// One method call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Method {
    /// Subchannel 0..7.
    pub subchannel: u8,
    /// Method byte offset.
    pub method: u32,
    /// Data word.
    pub data: u32,
}

/// Malformed pushbuffer content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// A header with a reserved or unsupported opcode.
    BadOpcode {
        /// Word index in the segment.
        at: usize,
        /// The header word.
        word: u32,
    },
    /// A header announces more data words than the segment holds.
    Truncated {
        /// Word index of the header.
        at: usize,
        /// The header word.
        word: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Run {
    subchannel: u8,
    method: u32,
    remaining: u32,
    op: Opcode,
    first: bool,
}

/// Resumable decoding state over a segment that the caller keeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MethodStream {
    pos: usize,
    run: Option<Run>,
}

impl MethodStream {
    /// Start at the beginning of a segment.
    pub const fn new() -> Self {
        Self { pos: 0, run: None }
    }

    /// Words consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Whether the whole of `words` has been consumed.
    pub fn done(&self, words: &[u32]) -> bool {
        self.run.is_none() && self.pos >= words.len()
    }

    /// The next method of `words`, `None` at the end, or the decode error (after which the
    /// stream stays at the offending header).
    pub fn next(&mut self, words: &[u32]) -> Option<Result<Method, DecodeError>> {
        loop {
            if let Some(run) = self.run.as_mut() {
                let data = words[self.pos];
                self.pos += 1;
                let m = Method { subchannel: run.subchannel, method: run.method, data };
                run.remaining -= 1;
                match run.op {
                    Opcode::IncMethod => run.method += 4,
                    Opcode::OneInc if run.first => run.method += 4,
                    _ => {}
                }
                run.first = false;
                if run.remaining == 0 {
                    self.run = None;
                }
                return Some(Ok(m));
            }
            let at = self.pos;
            let word = *words.get(at)?;
            if word == 0 {
                self.pos += 1; // NOP
                continue;
            }
            let h = MethodHeader::from(word);
            let (subchannel, method, count) = (h.subchannel(), h.method(), h.count() as u32);
            match h.opcode() {
                Opcode::ImmdDataMethod => {
                    self.pos += 1;
                    return Some(Ok(Method { subchannel, method, data: count }));
                }
                op @ (Opcode::IncMethod | Opcode::NonIncMethod | Opcode::OneInc) => {
                    if words.len() - (at + 1) < count as usize {
                        return Some(Err(DecodeError::Truncated { at, word }));
                    }
                    self.pos += 1;
                    if count > 0 {
                        self.run = Some(Run { subchannel, method, remaining: count, op, first: true });
                    }
                }
                _ => return Some(Err(DecodeError::BadOpcode { at, word })),
            }
        }
    }
}

/// Iterator over the methods of a segment.
#[derive(Clone, Debug)]
pub struct MethodReader<'a> {
    words: &'a [u32],
    stream: MethodStream,
    failed: bool,
}

impl<'a> MethodReader<'a> {
    /// Read `words`.
    pub fn new(words: &'a [u32]) -> Self {
        Self { words, stream: MethodStream::new(), failed: false }
    }
}

impl Iterator for MethodReader<'_> {
    type Item = Result<Method, DecodeError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.stream.next(self.words);
        self.failed = matches!(r, Some(Err(_)));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Pushbuf;

    fn m(subchannel: u8, method: u32, data: u32) -> Result<Method, DecodeError> {
        Ok(Method { subchannel, method, data })
    }

    #[test]
    fn round_trips_the_writer() {
        let mut pb = Pushbuf::<32>::new();
        pb.incr(3, 0x400, &[1, 2, 3]).unwrap();
        pb.raw(0).unwrap();
        pb.nonincr(1, 0x2390, &[7, 8]).unwrap();
        pb.immd(2, 0x300, 5).unwrap();
        pb.incr_once(1, 0x238C, &[0, 9, 10]).unwrap();
        let got: heapless::Vec<_, 16> = MethodReader::new(pb.words()).collect();
        let want = [
            m(3, 0x400, 1),
            m(3, 0x404, 2),
            m(3, 0x408, 3),
            m(1, 0x2390, 7),
            m(1, 0x2390, 8),
            m(2, 0x300, 5),
            m(1, 0x238C, 0),
            m(1, 0x2390, 9),
            m(1, 0x2390, 10),
        ];
        assert_eq!(&got[..], &want[..]);
    }

    #[test]
    fn malformed_headers_are_errors() {
        for op in [2u32, 6, 7] {
            let w = [op << 29 | 1 << 16];
            assert_eq!(MethodReader::new(&w).next(), Some(Err(DecodeError::BadOpcode { at: 0, word: w[0] })));
        }
        let w = [5]; // opcode 0 with non-zero bits
        assert!(matches!(MethodReader::new(&w).next(), Some(Err(DecodeError::BadOpcode { .. }))));
        let w = [1 << 29 | 3 << 16 | 0x40, 1, 2];
        let r: heapless::Vec<_, 4> = MethodReader::new(&w).collect();
        assert_eq!(&r[..], &[Err(DecodeError::Truncated { at: 0, word: w[0] })]);
    }

    #[test]
    fn stream_resumes_where_it_stopped() {
        let mut pb = Pushbuf::<8>::new();
        pb.incr(1, 0x10, &[1, 2]).unwrap();
        let mut s = MethodStream::new();
        assert_eq!(s.next(pb.words()), Some(m(1, 0x10, 1)));
        let saved = s;
        assert_eq!(s.next(pb.words()), Some(m(1, 0x14, 2)));
        assert!(s.done(pb.words()));
        let mut again = saved;
        assert_eq!(again.next(pb.words()), Some(m(1, 0x14, 2)));
        assert_eq!(again.next(pb.words()), None);
    }

    #[test]
    fn arbitrary_words_never_panic() {
        let mut x = 0x1234_5678u32;
        for _ in 0..2000 {
            let mut w = [0u32; 16];
            for v in w.iter_mut() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *v = x;
            }
            for r in MethodReader::new(&w) {
                let _ = r;
            }
        }
    }
}
