//! Initcheck's shadow of memory: which bytes were ever written. It lives beside the memory
//! it shadows (VRAM, a peer's VRAM), so that every write path marks it; the sanitizer
//! (`check.rs`) reads it.

use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec;

/// Initcheck's shadow of VRAM: one bit per byte, set once written (64 KiB chunks, made
/// on first write; an absent chunk was never written).
#[derive(Default)]
pub struct Shadow {
    chunks: BTreeMap<u64, Box<[u64]>>,
}

const CHUNK_SHIFT: u32 = 16;
const CHUNK_WORDS: usize = (1 << CHUNK_SHIFT) / 64;

impl Shadow {
    fn bits(addr: u64, len: u64, mut f: impl FnMut(u64, usize, u64)) {
        let mut a = addr;
        let end = addr.saturating_add(len);
        while a < end {
            let chunk = a >> CHUNK_SHIFT;
            let off = a & ((1 << CHUNK_SHIFT) - 1);
            let word = (off / 64) as usize;
            let bit = off % 64;
            let n = (64 - bit).min(end - a);
            let mask = if n == 64 { u64::MAX } else { ((1u64 << n) - 1) << bit };
            f(chunk, word, mask);
            a += n;
        }
    }

    /// Mark `[addr, addr + len)` written.
    pub fn mark(&mut self, addr: u64, len: u64) {
        let chunks = &mut self.chunks;
        Self::bits(addr, len, |c, w, m| {
            chunks.entry(c).or_insert_with(|| vec![0u64; CHUNK_WORDS].into_boxed_slice())[w] |= m;
        });
    }

    /// Mark `[addr, addr + len)` never written (a fresh allocation).
    pub fn clear(&mut self, addr: u64, len: u64) {
        let chunks = &mut self.chunks;
        Self::bits(addr, len, |c, w, m| {
            if let Some(ch) = chunks.get_mut(&c) {
                ch[w] &= !m;
            }
        });
    }

    /// Whether every byte of `[addr, addr + len)` was written.
    pub fn written(&self, addr: u64, len: u64) -> bool {
        let mut all = true;
        Self::bits(addr, len, |c, w, m| {
            all &= self.chunks.get(&c).is_some_and(|ch| ch[w] & m == m);
        });
        all
    }
}

#[cfg(test)]
mod tests {
    use super::Shadow;

    #[test]
    fn shadow_marks_clears_and_answers_per_byte() {
        let mut s = Shadow::default();
        assert!(!s.written(0, 1));
        s.mark(60, 10); // crosses a word
        assert!(s.written(60, 10) && !s.written(59, 2) && !s.written(69, 2));
        s.mark((1 << 16) - 2, 4); // crosses a chunk
        assert!(s.written((1 << 16) - 2, 4));
        s.clear(62, 2);
        assert!(s.written(60, 2) && !s.written(62, 1) && s.written(64, 6));
    }
}
