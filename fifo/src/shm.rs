//! DMA-able memory shared by the CPU (driver) and the device.
//!
//! A real driver hands the GPU pinned host pages and the two sides synchronize through
//! the doorbell and semaphores. In rgdev the device may run on its own thread, so shared
//! memory is an array of `AtomicU64` and every access is atomic: bulk data uses relaxed
//! accesses ordered by the doorbell (a BAR write under the device lock), and fence and
//! semaphore words use acquire/release. Partial-word writes use compare-and-swap so that a
//! concurrent reader of the neighbouring bytes never sees a torn value.

use alloc::boxed::Box;
use alloc::vec::Vec;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, Ordering};

/// An access fell outside the memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfRange;

/// Shared, zero-initialized memory of a fixed size.
pub struct SharedMem {
    words: Words,
    len: usize,
    /// What gives memory from [`SharedMem::mapped`] back, run when the value is dropped.
    release: Option<Release>,
}

/// A release action of [`SharedMem::mapped`].
pub type Release = Box<dyn FnOnce() + Send>;

impl Drop for SharedMem {
    fn drop(&mut self) {
        if let Some(r) = self.release.take() {
            r();
        }
    }
}

impl core::fmt::Debug for SharedMem {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SharedMem({} bytes)", self.len)
    }
}

/// Where the words of a [`SharedMem`] live.
enum Words {
    /// Memory of its own.
    Owned(Box<[AtomicU64]>),
    /// A program's memory ([`SharedMem::borrowed`]): `n` words at `ptr`.
    Borrowed { ptr: NonNull<AtomicU64>, n: usize },
}

// SAFETY: a SharedMem is only ever accessed through atomics, so sharing it between the
// driver's and the device's threads is sound for owned words as for borrowed ones, whose
// validity `SharedMem::borrowed`'s caller guarantees for as long as they are accessed.
// The release action is Send and only ever runs in `drop`, with exclusive access.
#[allow(unsafe_code)]
unsafe impl Send for SharedMem {}
// SAFETY: as for Send.
#[allow(unsafe_code)]
unsafe impl Sync for SharedMem {}

impl SharedMem {
    /// A program's memory, `len` bytes at `ptr`, seen as shared memory: host memory a
    /// program registers with the device (cuMemHostRegister). Dropping the value leaves
    /// the memory alone.
    ///
    /// # Safety
    /// `ptr` is 8-byte aligned, `len` a multiple of 8, and the `len` bytes at `ptr` stay
    /// allocated, readable and writable until the last access through the returned value
    /// (the runtime stops the device's accesses before it returns from unregistering).
    /// The program's own accesses to those bytes are ordered with the device's by the
    /// runtime's synchronization only, as for any memory a device shares.
    #[allow(unsafe_code)]
    pub unsafe fn borrowed(ptr: NonNull<u8>, len: usize) -> Self {
        debug_assert!(ptr.as_ptr().addr().is_multiple_of(8) && len.is_multiple_of(8));
        Self { words: Words::Borrowed { ptr: ptr.cast(), n: len / 8 }, len, release: None }
    }

    /// Memory a platform maps for this value alone, `len` bytes at `ptr`, which `release`
    /// gives back when the value is dropped (pinned host memory at a fixed address under
    /// unified addressing: the last reference gone, its address range can be reused).
    ///
    /// # Safety
    /// As for [`SharedMem::borrowed`], the bytes stay valid until `release` runs, and
    /// nothing but this value accesses them through another path that outlives it.
    #[allow(unsafe_code)]
    pub unsafe fn mapped(ptr: NonNull<u8>, len: usize, release: Release) -> Self {
        // SAFETY: the caller's guarantee covers `borrowed`'s.
        let mut m = unsafe { Self::borrowed(ptr, len) };
        m.release = Some(release);
        m
    }

    /// The words.
    fn words(&self) -> &[AtomicU64] {
        match &self.words {
            Words::Owned(b) => b,
            // SAFETY: `borrowed`'s contract: `n` aligned words at `ptr`, valid for as long
            // as `self` is accessed; an AtomicU64 has the size and alignment of a u64.
            #[allow(unsafe_code)]
            Words::Borrowed { ptr, n } => unsafe { core::slice::from_raw_parts(ptr.as_ptr(), *n) },
        }
    }

    /// `len` zeroed bytes.
    pub fn new(len: usize) -> Self {
        let words: Vec<AtomicU64> = (0..len.div_ceil(8)).map(|_| AtomicU64::new(0)).collect();
        Self { words: Words::Owned(words.into_boxed_slice()), len, release: None }
    }

    /// `len` zeroed bytes, or `None` when the allocator cannot provide them (a kernel-side
    /// heap that is full), instead of aborting.
    pub fn try_new(len: usize) -> Option<Self> {
        let mut words: Vec<AtomicU64> = Vec::new();
        words.try_reserve_exact(len.div_ceil(8)).ok()?;
        words.extend((0..len.div_ceil(8)).map(|_| AtomicU64::new(0)));
        Some(Self { words: Words::Owned(words.into_boxed_slice()), len, release: None })
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the memory is zero-sized.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first byte, for a C ABI that hands this memory to a program as an ordinary host
    /// pointer (cuMemAllocHost). The memory is 8-byte aligned and lives as long as `self`.
    /// A program's plain accesses through it are ordered with the device's only by the
    /// runtime's synchronization (a launch's doorbell, a fence wait), as on real hardware.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.words().as_ptr() as *mut u8
    }

    fn check(&self, off: usize, n: usize) -> Result<(), OutOfRange> {
        match off.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(OutOfRange),
        }
    }

    /// Copy `dst.len()` bytes at `off` into `dst`.
    pub fn read(&self, off: usize, dst: &mut [u8]) -> Result<(), OutOfRange> {
        self.check(off, dst.len())?;
        let len = dst.len();
        let head = ((8 - off % 8) % 8).min(len);
        let (h, rest) = dst.split_at_mut(head);
        self.read_partial(off, h);
        let w0 = (off + head) / 8;
        let mut body = rest.chunks_exact_mut(8);
        for (w, c) in self.words()[w0..].iter().zip(&mut body) {
            c.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
        }
        let tail = body.into_remainder();
        let t_off = off + len - tail.len();
        self.read_partial(t_off, tail);
        Ok(())
    }

    /// Bytes within one word.
    fn read_partial(&self, off: usize, dst: &mut [u8]) {
        if dst.is_empty() {
            return;
        }
        let w = self.words()[off / 8].load(Ordering::Relaxed).to_le_bytes();
        let b = off % 8;
        dst.copy_from_slice(&w[b..b + dst.len()]);
    }

    /// Copy `src` to `off`.
    pub fn write(&self, off: usize, src: &[u8]) -> Result<(), OutOfRange> {
        self.check(off, src.len())?;
        let head = ((8 - off % 8) % 8).min(src.len());
        let (h, rest) = src.split_at(head);
        self.write_partial(off, h);
        let w0 = (off + head) / 8;
        let mut body = rest.chunks_exact(8);
        for (w, c) in self.words()[w0..].iter().zip(&mut body) {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            w.store(u64::from_le_bytes(b), Ordering::Relaxed);
        }
        let tail = body.remainder();
        self.write_partial(off + src.len() - tail.len(), tail);
        Ok(())
    }

    /// Bytes within one word, merged atomically with their neighbours.
    fn write_partial(&self, off: usize, src: &[u8]) {
        if src.is_empty() {
            return;
        }
        let b = off % 8;
        let mut bytes = [0u8; 8];
        bytes[b..b + src.len()].copy_from_slice(src);
        let mask = (u64::MAX >> (64 - 8 * src.len() as u32)) << (8 * b as u32);
        self.merge(off / 8, mask, u64::from_le_bytes(bytes), Ordering::Relaxed);
    }

    /// Set `n` bytes at `off` to `byte`.
    pub fn fill(&self, off: usize, n: usize, byte: u8) -> Result<(), OutOfRange> {
        self.check(off, n)?;
        let chunk = [byte; 256];
        let mut done = 0;
        while done < n {
            let k = (n - done).min(chunk.len());
            self.write(off + done, &chunk[..k])?;
            done += k;
        }
        Ok(())
    }

    fn merge(&self, wi: usize, mask: u64, val: u64, order: Ordering) {
        let w = &self.words()[wi];
        let mut cur = w.load(Ordering::Relaxed);
        loop {
            let new = (cur & !mask) | (val & mask);
            match w.compare_exchange_weak(cur, new, order, Ordering::Relaxed) {
                Ok(_) => return,
                Err(c) => cur = c,
            }
        }
    }

    /// Atomic 32-bit load at a 4-byte aligned `off`.
    pub fn load_u32(&self, off: usize, order: Ordering) -> Result<u32, OutOfRange> {
        if !off.is_multiple_of(4) {
            return Err(OutOfRange);
        }
        self.check(off, 4)?;
        Ok((self.words()[off / 8].load(order) >> (8 * (off % 8))) as u32)
    }

    /// Atomic 32-bit store at a 4-byte aligned `off`.
    pub fn store_u32(&self, off: usize, v: u32, order: Ordering) -> Result<(), OutOfRange> {
        if !off.is_multiple_of(4) {
            return Err(OutOfRange);
        }
        self.check(off, 4)?;
        let shift = 8 * (off % 8) as u32;
        self.merge(off / 8, 0xFFFF_FFFFu64 << shift, (v as u64) << shift, order);
        Ok(())
    }

    /// Atomic 64-bit load at an 8-byte aligned `off`.
    pub fn load_u64(&self, off: usize, order: Ordering) -> Result<u64, OutOfRange> {
        if !off.is_multiple_of(8) {
            return Err(OutOfRange);
        }
        self.check(off, 8)?;
        Ok(self.words()[off / 8].load(order))
    }

    /// Atomic 64-bit store at an 8-byte aligned `off`.
    pub fn store_u64(&self, off: usize, v: u64, order: Ordering) -> Result<(), OutOfRange> {
        if !off.is_multiple_of(8) {
            return Err(OutOfRange);
        }
        self.check(off, 8)?;
        self.words()[off / 8].store(v, order);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)]
    fn borrowed_memory_is_the_owners_and_outlives_the_view() {
        let mut owner = alloc::vec![0u64; 16];
        let base = NonNull::new(owner.as_mut_ptr().cast::<u8>()).unwrap();
        // SAFETY: `owner` is 8-aligned, 128 bytes, and outlives `view`.
        let view = unsafe { SharedMem::borrowed(base, 128) };
        view.write(3, b"rgdev").unwrap();
        view.store_u64(64, 0x1122_3344_5566_7788, Ordering::Release).unwrap();
        let mut back = [0u8; 5];
        view.read(3, &mut back).unwrap();
        assert_eq!(&back, b"rgdev");
        assert_eq!(view.read(126, &mut [0u8; 4]), Err(OutOfRange));
        drop(view);
        // The owner's memory holds what the view wrote, and dropping the view freed nothing.
        assert_eq!(owner[8], 0x1122_3344_5566_7788);
        assert_eq!(&owner[0].to_le_bytes()[3..8], b"rgdev");
    }

    #[test]
    fn unaligned_round_trips_at_every_offset_and_length() {
        let m = SharedMem::new(67);
        for off in 0..20 {
            for len in 0..30 {
                let src: Vec<u8> = (0..len).map(|i| (i * 7 + off + 1) as u8).collect();
                m.fill(0, 67, 0xEE).unwrap();
                m.write(off, &src).unwrap();
                let mut all = [0u8; 67];
                m.read(0, &mut all).unwrap();
                assert_eq!(&all[off..off + len], &src[..]);
                assert!(all[..off].iter().all(|&b| b == 0xEE));
                assert!(all[off + len..].iter().all(|&b| b == 0xEE));
            }
        }
    }

    #[test]
    fn bounds_are_checked() {
        let m = SharedMem::new(16);
        assert_eq!(m.write(15, &[1, 2]), Err(OutOfRange));
        assert_eq!(m.read(usize::MAX, &mut [0]), Err(OutOfRange));
        assert_eq!(m.load_u32(14, Ordering::Relaxed), Err(OutOfRange));
        assert_eq!(m.load_u32(2, Ordering::Relaxed), Err(OutOfRange));
        assert_eq!(m.store_u64(4, 0, Ordering::Relaxed), Err(OutOfRange));
        assert!(m.write(16, &[]).is_ok());
    }

    #[test]
    fn word_accessors_are_little_endian() {
        let m = SharedMem::new(16);
        m.store_u32(4, 0xAABB_CCDD, Ordering::Release).unwrap();
        m.store_u32(0, 0x1122_3344, Ordering::Release).unwrap();
        assert_eq!(m.load_u64(0, Ordering::Acquire).unwrap(), 0xAABB_CCDD_1122_3344);
        let mut b = [0u8; 2];
        m.read(3, &mut b).unwrap();
        assert_eq!(b, [0x11, 0xDD]);
    }
}
