//! # backend-kmod — rgdev as a kernel-side library
//!
//! The kernel platform for `runtime-core`:
//! - MALLOC: [`KernelHeap`], a `linked_list_allocator` heap over a fixed arena behind a
//!   spin lock, installed as the global allocator by the image.
//! - LOCK: `spin::Mutex` (through `lock_api`).
//! - PRINTF: defmt, with the runtime's levels mapped onto defmt's.
//! - YIELD: steps the device (the only clock mode in the kernel build: deterministic).
//! - The device: no hardware is present, so the simulated GPU from `fake-pci` is linked
//!   in and reached through a spin-locked bus, exactly as the user backend does.
#![no_std]
#![deny(missing_docs)]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};
use core::fmt::{self, Write};
use core::ptr::{self, NonNull};
use fake_pci::machine::Machine;
use fake_pci::system::SystemConfig;
use fake_pci::{DeviceConfig, FakeGpu, RunState};
use linked_list_allocator::Heap;
use runtime_core::platform::{Activity, DmaBuffer, Level, Platform};
use runtime_core::{CuError, Result};

/// The kernel heap: a first-fit linked-list allocator over an arena, behind a spin lock.
pub struct KernelHeap(spin::Mutex<Heap>);

impl KernelHeap {
    /// An empty heap; call [`KernelHeap::init`] before the first allocation.
    pub const fn empty() -> Self {
        Self(spin::Mutex::new(Heap::empty()))
    }

    /// Hand the heap its arena.
    pub fn init(&self, arena: &'static mut [core::mem::MaybeUninit<u8>]) {
        self.0.lock().init_from_slice(arena);
    }

    /// (used, free) bytes.
    pub fn usage(&self) -> (usize, usize) {
        let h = self.0.lock();
        (h.used(), h.free())
    }
}

// SAFETY: allocation and deallocation are serialized by the spin lock; the pointers
// handed out come from `Heap`, which only returns blocks inside its arena that fit the
// layout, and `dealloc` receives only pointers this allocator returned (GlobalAlloc's
// contract on the caller).
unsafe impl GlobalAlloc for KernelHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.0.lock().allocate_first_fit(layout).map_or(ptr::null_mut(), |p| p.as_ptr())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if let Some(p) = NonNull::new(ptr) {
            // SAFETY: `p` was returned by `alloc` with this `layout` (GlobalAlloc contract).
            unsafe { self.0.lock().deallocate(p, layout) }
        }
    }
}

use hw::pci::{BAR0_BUS, BAR1_BUS};
const QUANTUM: u64 = 1 << 22;

/// Unified addressing in the kernel build: a window of the image's own memory that no host
/// allocation uses, from which device pointers come and where pinned host memory is placed
/// at its device address (`Platform::unified_va`, `Platform::dma_alloc_at`), so that
/// managed memory has one pointer for the host and the GPUs. The window must lie where a
/// context's address space has room: above the shared and local windows (48 MiB) and
/// below the 32-bit window (256 MiB).
pub struct UnifiedRange {
    va: runtime_core::range::SharedVa,
    lo: u64,
    hi: u64,
}

impl UnifiedRange {
    /// The lowest and highest addresses a window may use.
    pub const BOUNDS: (u64, u64) = (48 << 20, runtime_core::vm::LOW_VA_BASE);

    /// The range over `region` (whole pages, inside [`UnifiedRange::BOUNDS`]), which
    /// nothing else may touch from now on; None if it does not fit.
    pub fn new(region: &'static mut [core::mem::MaybeUninit<u8>]) -> Option<alloc::sync::Arc<Self>> {
        let (lo, len) = (region.as_mut_ptr() as u64, region.len() as u64);
        let hi = lo.checked_add(len)?;
        let fits = lo.is_multiple_of(4096) && len.is_multiple_of(4096) && len > 0;
        if !fits || lo < Self::BOUNDS.0 || hi > Self::BOUNDS.1 {
            return None;
        }
        let alloc = runtime_core::range::RangeAllocator::new(lo, len);
        Some(alloc::sync::Arc::new(Self { va: alloc::sync::Arc::new(spin::Mutex::new(alloc)), lo, hi }))
    }
}

/// The simulated GPUs of an image: one, or a system's, which its machine
/// (`fake_pci::machine::Machine`: the links, stepped together) runs.
struct Board {
    gpus: alloc::vec::Vec<spin::Mutex<FakeGpu>>,
    machine: Option<Machine>,
}

/// The kernel platform with the simulated GPU attached: GPU `me` of its board.
pub struct KmodPlatform {
    board: alloc::sync::Arc<Board>,
    me: usize,
    unified: Option<alloc::sync::Arc<UnifiedRange>>,
}

impl KmodPlatform {
    /// Build the board and assign its BARs (the firmware's job). At most `backing` bytes of
    /// its VRAM are backed by the heap: writes beyond fault with NoBacking and the runtime
    /// reports CUDA_ERROR_OUT_OF_MEMORY, so the heap itself never runs dry behind VRAM.
    pub fn new(cfg: DeviceConfig, backing: u64) -> Self {
        Self::at(cfg, backing, BAR0_BUS, BAR1_BUS)
    }

    /// [`KmodPlatform::new`] with the BARs at `bar0` and `bar1`.
    pub fn at(cfg: DeviceConfig, backing: u64, bar0: u64, bar1: u64) -> Self {
        let board = Board { gpus: alloc::vec![spin::Mutex::new(Self::board(cfg, backing, bar0, bar1))], machine: None };
        Self { board: alloc::sync::Arc::new(board), me: 0, unified: None }
    }

    /// The platforms of the GPUs of `system`, by ordinal, each at its place on the buses
    /// (`SystemConfig::placement`) with `backing` bytes of VRAM backed: one machine runs
    /// them all, whichever one the runtime waits on, and lends a GPU the VRAM of the peers
    /// its peer table names over the system's links.
    pub fn system(system: &SystemConfig, backing: u64) -> alloc::vec::Vec<Self> {
        let gpus = (0..system.len())
            .map(|i| {
                let place = system.placement(i);
                spin::Mutex::new(Self::board(system.gpus[i].clone(), backing, place.bar0, place.bar1))
            })
            .collect();
        let board = alloc::sync::Arc::new(Board { gpus, machine: Some(Machine::new(system)) });
        (0..system.len()).map(|me| Self { board: board.clone(), me, unified: None }).collect()
    }

    fn board(cfg: DeviceConfig, backing: u64, bar0: u64, bar1: u64) -> FakeGpu {
        let mut gpu = FakeGpu::new(cfg);
        gpu.set_vram_backing_limit(backing);
        gpu.assign_bars(bar0, bar1);
        gpu
    }

    /// This platform with unified addressing over `range` (shared by every GPU of a system).
    pub fn with_unified(mut self, range: alloc::sync::Arc<UnifiedRange>) -> Self {
        self.unified = Some(range);
        self
    }

    /// This platform's GPU, locked.
    fn gpu(&self) -> spin::MutexGuard<'_, FakeGpu> {
        self.board.gpus[self.me].lock()
    }

    /// Device cycles so far.
    pub fn device_cycles(&self) -> u64 {
        self.gpu().cycles()
    }

    /// Bytes this GPU read from and wrote to its peers so far.
    pub fn peer_traffic(&self) -> (u64, u64) {
        self.gpu().peer_traffic()
    }
}

struct Line(heapless::String<192>);

impl Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if self.0.push(c).is_err() {
                break; // truncate long messages
            }
        }
        Ok(())
    }
}

impl Platform for KmodPlatform {
    type RawMutex = spin::Mutex<()>;

    fn log(&self, level: Level, args: fmt::Arguments<'_>) {
        let mut l = Line(heapless::String::new());
        let _ = l.write_fmt(args);
        let s = l.0.as_str();
        match level {
            Level::Error => defmt::error!("{=str}", s),
            Level::Warn => defmt::warn!("{=str}", s),
            Level::Info => defmt::info!("{=str}", s),
            Level::Debug => defmt::debug!("{=str}", s),
        }
    }

    fn yield_now(&self) -> Activity {
        let state = match &self.board.machine {
            Some(m) => m.run(&self.board.gpus[..], self.me, QUANTUM),
            None => self.gpu().run(QUANTUM),
        };
        match state {
            RunState::Idle => Activity::Idle,
            RunState::Busy => Activity::Progress,
        }
    }

    fn dma_alloc(&self, len: usize) -> Result<DmaBuffer> {
        let (mem, bus) = self.gpu().dma_alloc(len).map_err(|_| CuError::OutOfMemory)?;
        Ok(DmaBuffer { mem, bus })
    }

    fn dma_free(&self, buf: &DmaBuffer) {
        self.gpu().unmap_dma(buf.bus);
    }

    fn unified_va(&self) -> Option<runtime_core::range::SharedVa> {
        self.unified.as_ref().map(|u| u.va.clone())
    }

    fn dma_alloc_at(&self, va: u64, len: usize) -> Result<DmaBuffer> {
        let u = self.unified.as_ref().ok_or(CuError::NotSupported)?;
        let end = va.checked_add(len as u64).ok_or(CuError::InvalidValue)?;
        if va < u.lo || end > u.hi || len == 0 || !va.is_multiple_of(4096) || !len.is_multiple_of(4096) {
            return Err(CuError::InvalidValue);
        }
        let ptr = NonNull::new(va as *mut u8).ok_or(CuError::InvalidValue)?;
        let range = u.va.clone();
        let release: fifo::shm::Release = alloc::boxed::Box::new(move || range.lock().free(va, len as u64));
        // SAFETY: `[va, va + len)` lies in the region `UnifiedRange::new` took for good (a
        // `&'static mut`, touched by nothing else), page-aligned; the caller took exactly
        // this range from the range's allocator, so no other memory covers it until
        // `release` gives it back, after the last reference to this memory is gone.
        let mem = unsafe {
            ptr::write_bytes(ptr.as_ptr(), 0, len);
            fifo::SharedMem::mapped(ptr, len, release)
        };
        let mem = alloc::sync::Arc::new(mem);
        let bus = self.gpu().dma_map(mem.clone()).map_err(|_| CuError::OutOfMemory)?;
        Ok(DmaBuffer { mem, bus })
    }

    fn cfg_read32(&self, off: u16) -> u32 {
        self.gpu().cfg_read32(off)
    }

    fn cfg_write32(&self, off: u16, value: u32) {
        self.gpu().cfg_write32(off, value)
    }

    fn mmio_read32(&self, addr: u64) -> u32 {
        self.gpu().mmio_read32(addr)
    }

    fn mmio_write32(&self, addr: u64, value: u32) {
        let _ = self.gpu().mmio_write32(addr, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::MaybeUninit;

    #[test]
    fn the_heap_allocates_frees_and_coalesces_inside_its_arena() {
        static HEAP: KernelHeap = KernelHeap::empty();
        let arena: &'static mut [MaybeUninit<u8>] =
            alloc::boxed::Box::leak(alloc::vec![MaybeUninit::uninit(); 1 << 16].into_boxed_slice());
        let (lo, hi) = (arena.as_ptr() as usize, arena.as_ptr() as usize + arena.len());
        HEAP.init(arena);
        let l = Layout::from_size_align(1000, 64).unwrap();
        // SAFETY: layouts are non-zero; every pointer is freed once with its layout.
        unsafe {
            let ptrs: alloc::vec::Vec<*mut u8> = (0..40).map(|_| HEAP.alloc(l)).collect();
            assert!(
                ptrs.iter()
                    .all(|&p| !p.is_null() && (p as usize).is_multiple_of(64) && (lo..hi).contains(&(p as usize)))
            );
            assert!(HEAP.alloc(Layout::from_size_align(1 << 20, 8).unwrap()).is_null(), "beyond the arena");
            for &p in &ptrs {
                HEAP.dealloc(p, l);
            }
            assert_eq!(HEAP.usage().0, 0);
            let big = HEAP.alloc(Layout::from_size_align(60_000, 8).unwrap());
            assert!(!big.is_null(), "freed blocks coalesced");
            HEAP.dealloc(big, Layout::from_size_align(60_000, 8).unwrap());
        }
    }

    #[test]
    fn the_kernel_platform_drives_the_runtime() {
        let cfg = DeviceConfig::default().with(|c| c.board.vram_size = 64 << 20);
        let gpu = runtime_core::Gpu::probe(KmodPlatform::new(cfg, 64 << 20)).unwrap();
        let ctx = gpu.ctx_create().unwrap();
        let p = gpu.mem_alloc(ctx, 8192).unwrap();
        let data: alloc::vec::Vec<u8> = (0..8192u32).map(|i| (i * 7) as u8).collect();
        gpu.memcpy_htod(ctx, p, &data).unwrap();
        let mut back = alloc::vec![0u8; 8192];
        gpu.memcpy_dtoh(ctx, &mut back, p).unwrap();
        assert_eq!(back, data);
        assert!(gpu.platform().device_cycles() > 0);
        // Logging goes through defmt (a no-op logger on the host).
        gpu.platform().log(Level::Error, format_args!("test message {}", 1));
    }
}
