//! Sparse video memory: 64 KiB chunks allocated on first write; untouched memory reads as
//! zero and costs nothing, so a 4 GiB board costs only what a program touches.
//!
//! Backing is fallible: a chunk is allocated with `try_reserve` and within a budget the
//! platform may set ([`Vram::set_backing_limit`]), so exhausting host memory (a kernel-side
//! heap) is an error for the write that needed it ([`VramError::NoBacking`]), not a panic.

use alloc::boxed::Box;
use alloc::vec::Vec;

const CHUNK_SHIFT: u32 = 16;
const CHUNK: u64 = 1 << CHUNK_SHIFT;

/// Why a VRAM access failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VramError {
    /// The access goes beyond the end of VRAM.
    OutOfRange,
    /// A write needed a new chunk and the host could not back it.
    NoBacking,
}

/// Sparse VRAM.
pub struct Vram {
    size: u64,
    chunks: Vec<Option<Box<[u8]>>>,
    touched: usize,
    max_chunks: usize,
}

impl Vram {
    /// VRAM of `size` bytes.
    pub fn new(size: u64) -> Self {
        let n = size.div_ceil(CHUNK) as usize;
        let mut chunks = Vec::new();
        chunks.resize_with(n, || None);
        Self { size, chunks, touched: 0, max_chunks: usize::MAX }
    }

    /// Back at most `bytes` of VRAM with host memory (rounded down to whole chunks); writes
    /// that would need more fail with [`VramError::NoBacking`].
    pub fn set_backing_limit(&mut self, bytes: u64) {
        self.max_chunks = usize::try_from(bytes / CHUNK).unwrap_or(usize::MAX);
    }

    fn new_chunk(&mut self) -> Result<Box<[u8]>, VramError> {
        if self.touched >= self.max_chunks {
            return Err(VramError::NoBacking);
        }
        let mut v = Vec::new();
        v.try_reserve_exact(CHUNK as usize).map_err(|_| VramError::NoBacking)?;
        v.resize(CHUNK as usize, 0u8);
        self.touched += 1;
        Ok(v.into_boxed_slice())
    }

    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes of host memory spent on touched chunks.
    pub fn resident_bytes(&self) -> u64 {
        self.touched as u64 * CHUNK
    }

    fn check(&self, addr: u64, n: usize) -> Result<(), VramError> {
        match addr.checked_add(n as u64) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(VramError::OutOfRange),
        }
    }

    /// Split `[addr, addr + len)` at chunk boundaries: (chunk index, offset in chunk,
    /// offset in the caller's buffer, length).
    fn pieces(addr: u64, len: usize) -> impl Iterator<Item = (usize, usize, usize, usize)> {
        let mut done = 0usize;
        core::iter::from_fn(move || {
            if done >= len {
                return None;
            }
            let a = addr + done as u64;
            let (ci, off) = ((a >> CHUNK_SHIFT) as usize, (a & (CHUNK - 1)) as usize);
            let n = (CHUNK as usize - off).min(len - done);
            let piece = (ci, off, done, n);
            done += n;
            Some(piece)
        })
    }

    /// Read `buf.len()` bytes at `addr`.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), VramError> {
        self.check(addr, buf.len())?;
        for (ci, off, at, n) in Self::pieces(addr, buf.len()) {
            match &self.chunks[ci] {
                Some(c) => buf[at..at + n].copy_from_slice(&c[off..off + n]),
                None => buf[at..at + n].fill(0),
            }
        }
        Ok(())
    }

    /// Write `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), VramError> {
        self.check(addr, data.len())?;
        for (ci, off, at, n) in Self::pieces(addr, data.len()) {
            let src = &data[at..at + n];
            if self.chunks[ci].is_none() {
                if src.iter().all(|&b| b == 0) {
                    continue; // writing zeros to untouched memory changes nothing
                }
                self.chunks[ci] = Some(self.new_chunk()?);
            }
            if let Some(c) = &mut self.chunks[ci] {
                c[off..off + n].copy_from_slice(src);
            }
        }
        Ok(())
    }

    /// Read a little-endian u32.
    pub fn read_u32(&self, addr: u64) -> Result<u32, VramError> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    /// Write a little-endian u32.
    pub fn write_u32(&mut self, addr: u64, v: u32) -> Result<(), VramError> {
        self.write(addr, &v.to_le_bytes())
    }

    /// Read a little-endian u64.
    pub fn read_u64(&self, addr: u64) -> Result<u64, VramError> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sparse_and_exact() {
        let mut v = Vram::new(4 << 30);
        assert_eq!(v.read_u32((4 << 30) - 4), Ok(0));
        assert_eq!(v.read_u32((4 << 30) - 3), Err(VramError::OutOfRange));
        v.write(CHUNK - 2, &[1, 2, 3, 4]).unwrap();
        assert_eq!(v.resident_bytes(), 2 * CHUNK);
        let mut b = [0u8; 6];
        v.read(CHUNK - 3, &mut b).unwrap();
        assert_eq!(b, [0, 1, 2, 3, 4, 0]);
        v.write(10 * CHUNK, &[0; 100]).unwrap();
        assert_eq!(v.resident_bytes(), 2 * CHUNK);
        assert_eq!(v.write(u64::MAX, &[1]), Err(VramError::OutOfRange));
    }

    #[test]
    fn backing_is_bounded_and_fallible() {
        let mut v = Vram::new(1 << 20);
        v.set_backing_limit(2 * CHUNK + 100);
        v.write(0, &[1]).unwrap();
        v.write(3 * CHUNK, &[2]).unwrap();
        assert_eq!(v.write(5 * CHUNK, &[3]), Err(VramError::NoBacking));
        assert_eq!(v.write(5 * CHUNK, &[0; 8]), Ok(()), "zeros need no backing");
        v.write(CHUNK - 1, &[4]).unwrap(); // a touched chunk takes writes
        assert_eq!((v.resident_bytes(), v.read_u32(5 * CHUNK)), (2 * CHUNK, Ok(0)));
    }
}
