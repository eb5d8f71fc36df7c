//! Contexts and memory: a context owns a GPU virtual address space, one channel with the
//! copy class bound, two DMA staging buffers, and its allocations. Copies go through the
//! copy engine (host data is staged in DMA memory with COPY_FROM_USER, double-buffered);
//! memsets use the copy engine's remap unit with a constant component, as NVIDIA's driver
//! does. Every operation checks the context's sticky error first (CUDA semantics).

use crate::channel::{Channel, Cmd, Fence, Release, map_dma, release};
use crate::device::Device;
use crate::error::{CuError, Result};
use crate::gpu::{CtxHandle, Gpu};
use crate::platform::{DmaBuffer, Level, Platform};
use crate::rlog;
use crate::vm::VaSpace;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use hw::class::addr40;
use hw::class::{CopySemaphore, LaunchDma, Layout, RemapComponents, RemapSrc, TransferType, copy, subch};
use hw::mmu::{PAGE_SIZE, VA_BITS};
use hw::regs::Target;
use lock_api::Mutex;

/// Where device pointers start (above 4 GiB, so truncation to 32 bits is caught).
pub const VA_BASE: u64 = 0x2_0000_0000;
/// The largest piece one copy-engine launch moves.
const LAUNCH_MAX: u64 = 1 << 30;

/// Sizes of a context's rings and buffers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextConfig {
    /// GPFIFO entries (power of two, 2..=65536).
    pub gpfifo_entries: u32,
    /// Pushbuffer bytes.
    pub pushbuffer_bytes: u32,
    /// Bytes of each of the two staging buffers for host copies.
    pub staging_bytes: u32,
    /// The first fence value the channel releases (tests start near 2^32).
    pub first_fence: u64,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self { gpfifo_entries: 1024, pushbuffer_bytes: 256 << 10, staging_bytes: 2 << 20, first_fence: 1 }
    }
}

/// The value of a memset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemsetValue {
    /// cuMemsetD8.
    U8(u8),
    /// cuMemsetD16.
    U16(u16),
    /// cuMemsetD32.
    U32(u32),
}

impl MemsetValue {
    fn size(self) -> u64 {
        match self {
            Self::U8(_) => 1,
            Self::U16(_) => 2,
            Self::U32(_) => 4,
        }
    }
    fn bits(self) -> u32 {
        match self {
            Self::U8(v) => v as u32,
            Self::U16(v) => v as u32,
            Self::U32(v) => v,
        }
    }
}

/// What backs an allocation.
enum Backing {
    /// Video memory at this physical address.
    Vram(u64),
    /// Pinned host memory (mapped with system-memory PTEs).
    Host(DmaBuffer),
}

/// Who an allocation belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// The program (cuMemAlloc, cuMemHostAlloc): cuMemFree and cuMemGetAddressRange see it.
    User,
    /// The runtime (module segments, parameter buffers): freed only by whatever created it.
    Runtime,
}

struct Alloc {
    size: u64,
    bytes: u64,
    backing: Backing,
    owner: Owner,
}

struct Staging {
    buf: DmaBuffer,
    va: u64,
}

pub(crate) struct Inner {
    pub(crate) vm: VaSpace,
    pub(crate) ch: Option<Channel>,
    allocs: BTreeMap<u64, Alloc>,
    pub(crate) modules: BTreeMap<u64, crate::module::Loaded>,
    pub(crate) next_module: u64,
    /// Streams other than the legacy default stream (which is `ch`).
    pub(crate) streams: BTreeMap<u64, crate::stream::Stream>,
    pub(crate) next_stream: u64,
    pub(crate) events: crate::stream::Events,
    /// The sanitizers' table and report buffer (checked contexts).
    pub(crate) check: Option<crate::check::CheckArea>,
    destroyed: bool,
}

/// A context (see the module documentation).
pub struct Context<P: Platform> {
    inner: Mutex<P::RawMutex, Inner>,
    /// The two staging buffers of blocking host copies: a copy holds them (not `inner`)
    /// while it waits.
    staging: Mutex<P::RawMutex, Vec<Staging>>,
}

impl<P: Platform> Context<P> {
    pub(crate) fn new(gpu: &Device<P>, cfg: &ContextConfig, mode: crate::check::CheckMode) -> Result<Self> {
        if cfg.staging_bytes < PAGE_SIZE as u32 {
            return Err(CuError::InvalidValue);
        }
        let mut vm = VaSpace::new(gpu, VA_BASE, (1 << VA_BITS) - VA_BASE)?;
        let mut held = Vec::new();
        let built = (|| {
            let mut staging = Vec::new();
            for _ in 0..2 {
                let (buf, va) = map_dma(gpu, &mut vm, &mut held, cfg.staging_bytes as usize)?;
                staging.push(Staging { buf, va });
            }
            let check = if u32::from(mode) != 0 {
                let area = crate::check::CheckArea::new(gpu, &mut vm, &mut held, mode)?;
                gpu.tlb_flush(vm.pd)?;
                Some(area)
            } else {
                None
            };
            let ch = Channel::new(gpu, &mut vm, cfg.gpfifo_entries, cfg.pushbuffer_bytes, cfg.first_fence, 0)?;
            Ok((staging, check, ch))
        })();
        match built {
            Ok((staging, check, mut ch)) => {
                ch.held.splice(0..0, held);
                Ok(Self {
                    staging: Mutex::new(staging),
                    inner: Mutex::new(Inner {
                        vm,
                        ch: Some(ch),
                        allocs: BTreeMap::new(),
                        modules: BTreeMap::new(),
                        next_module: 1,
                        streams: BTreeMap::new(),
                        next_stream: 1,
                        events: crate::stream::Events::default(),
                        check,
                        destroyed: false,
                    }),
                })
            }
            Err(e) => {
                release(gpu, &mut vm, &mut held);
                vm.destroy(gpu);
                Err(e)
            }
        }
    }

    /// Destroy the context: drain its channels, then free everything it holds. Succeeds
    /// once it has started (CUDA's cuCtxDestroy is how a program leaves a context whose
    /// work failed): errors of the context's own work are logged, not returned.
    pub(crate) fn destroy(&self, gpu: &Device<P>) -> Result<()> {
        let mut g = self.inner.lock();
        let inner = &mut *g;
        if inner.destroyed {
            return Err(CuError::InvalidContext);
        }
        inner.destroyed = true;
        // Drain every channel before anything is unmapped: queued work (an event record on
        // the default stream, a copy on another stream) still writes into this context's
        // memory. A faulted channel is stopped and has nothing left to drain.
        let chans = inner.streams.values_mut().map(|st| &mut st.ch).chain(inner.ch.as_mut());
        for ch in chans {
            if gpu.channel_error(ch.chid).is_none()
                && let Err(e) = ch.wait(gpu, ch.last_fence())
            {
                rlog!(&gpu.platform, Level::Warn, "context destroy: channel {} ended with {e:?}", ch.chid);
            }
        }
        let mut chans: Vec<Channel> = core::mem::take(&mut inner.streams).into_values().map(|st| st.ch).collect();
        inner.events.release(gpu, &mut inner.vm);
        chans.extend(inner.ch.take());
        for ch in chans {
            // Drained or stopped: the teardown's own wait has nothing left to wait for.
            let _ = crate::channel::teardown(gpu, &mut inner.vm, ch);
        }
        for (_, a) in core::mem::take(&mut inner.allocs) {
            match a.backing {
                Backing::Vram(phys) => gpu.vram_free(phys, a.bytes),
                Backing::Host(buf) => gpu.platform.dma_free(&buf),
            }
        }
        inner.vm.destroy(gpu);
        Ok(())
    }
}

impl<P: Platform> Context<P> {
    /// The sanitizers' findings since the last call (see [`Gpu::check_reports`]).
    pub(crate) fn check_reports(&self) -> Result<(Vec<crate::check::CheckReport>, u32)> {
        let inner = self.inner.lock();
        if inner.destroyed {
            return Err(CuError::InvalidContext);
        }
        let Some(area) = &inner.check else { return Ok((Vec::new(), 0)) };
        let (records, dropped) = area.take();
        let reports = records
            .into_iter()
            .map(|record| {
                let (kernel, line, other_line) =
                    inner.modules.values().find_map(|m| m.describe(&record)).unwrap_or_default();
                crate::check::CheckReport { record, kernel, line, other_line }
            })
            .collect();
        Ok((reports, dropped))
    }
}

impl Inner {
    pub(crate) fn live(&mut self) -> Result<&mut Channel> {
        if self.destroyed {
            return Err(CuError::InvalidContext);
        }
        self.ch.as_mut().ok_or(CuError::InvalidContext)
    }

    /// Allocate and map `bytes` of VRAM for `owner`; returns the device pointer.
    pub(crate) fn alloc_vram<P: Platform>(&mut self, gpu: &Device<P>, bytes: u64, owner: Owner) -> Result<u64> {
        let rounded = bytes.checked_next_multiple_of(PAGE_SIZE).ok_or(CuError::OutOfMemory)?;
        let phys = gpu.vram_alloc(rounded, PAGE_SIZE)?;
        let va = match self.vm.alloc_va(rounded) {
            Ok(va) => va,
            Err(e) => {
                gpu.vram_free(phys, rounded);
                return Err(e);
            }
        };
        if let Err(e) = self.vm.map(gpu, va, phys, rounded, Target::Vram).and_then(|_| gpu.tlb_flush(self.vm.pd)) {
            let _ = self.vm.unmap(gpu, va, rounded);
            self.vm.free_va(va, rounded);
            gpu.vram_free(phys, rounded);
            return Err(e);
        }
        self.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Vram(phys), owner });
        if self.check.as_ref().is_some_and(|c| c.mode.initcheck()) {
            // Fresh memory holds nothing written yet, whatever the last owner wrote.
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_LO, 0, phys as u32);
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_HI, 0, (phys >> 32) as u32);
            gpu.wr(hw::regs::NV_PFB_CHECK_CLEAR_SIZE, 0, rounded as u32);
        }
        self.table_changed();
        Ok(va)
    }

    /// Rewrite the sanitizers' allocation table (checked contexts).
    fn table_changed(&self) {
        if let Some(c) = &self.check {
            c.write_table(self.allocs.iter().map(|(&base, a)| (base, a.size)));
        }
    }

    /// Unmap and free the allocation at `ptr` (the caller has waited for the work using it).
    pub(crate) fn free_now<P: Platform>(&mut self, gpu: &Device<P>, ptr: u64) -> Result<()> {
        let a = self.allocs.remove(&ptr).ok_or(CuError::InvalidValue)?;
        self.table_changed();
        self.vm.unmap(gpu, ptr, a.bytes)?;
        gpu.tlb_flush(self.vm.pd)?;
        self.vm.free_va(ptr, a.bytes);
        match a.backing {
            Backing::Vram(phys) => gpu.vram_free(phys, a.bytes),
            Backing::Host(buf) => gpu.platform.dma_free(&buf),
        }
        Ok(())
    }

    /// The channel of stream `s` (0: the legacy default stream).
    pub(crate) fn chan(&mut self, s: u64) -> Result<&mut Channel> {
        if s == 0 {
            return self.live();
        }
        if self.destroyed {
            return Err(CuError::InvalidContext);
        }
        self.streams.get_mut(&s).map(|st| &mut st.ch).ok_or(CuError::InvalidHandle)
    }

    /// The channel of stream `s`, after queueing the legacy default stream's implicit
    /// synchronization as GPU semaphore acquires (the host does not wait): work on the
    /// default stream waits for the blocking streams' earlier work, and work on a blocking
    /// stream waits for the default stream's.
    pub(crate) fn ordered<P: Platform>(&mut self, gpu: &Device<P>, s: u64) -> Result<&mut Channel> {
        let mut deps: Vec<(u64, u32)> = Vec::new();
        if s == 0 {
            for st in self.streams.values_mut().filter(|st| !st.non_blocking) {
                let last = st.ch.last_fence().0;
                if st.ch.completed() < last {
                    deps.push((st.ch.fence_va(), last as u32));
                }
            }
        } else {
            let blocking = !self.streams.get(&s).ok_or(CuError::InvalidHandle)?.non_blocking;
            let d = self.live()?;
            let last = d.last_fence().0;
            if blocking && d.completed() < last {
                deps.push((d.fence_va(), last as u32));
            }
        }
        let ch = self.chan(s)?;
        if !deps.is_empty() {
            let mut cmd = fifo::Pushbuf::<1024>::new();
            for (va, payload) in deps {
                crate::stream::acquire(&mut cmd, va, payload)?;
            }
            ch.submit(gpu, cmd.words())?;
        }
        Ok(ch)
    }

    /// What waiting for the work of every stream of the context needs (to wait without
    /// the context's lock).
    pub(crate) fn releases(&mut self) -> Result<Vec<Release>> {
        let mut w = Vec::new();
        for st in self.streams.values() {
            w.push(st.ch.release_of(st.ch.last_fence())?);
        }
        let ch = self.live()?;
        w.push(ch.release_of(ch.last_fence())?);
        Ok(w)
    }

    /// A new channel in the context's address space (a stream).
    pub(crate) fn new_channel<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        entries: u32,
        pb_bytes: u32,
        priority: u8,
    ) -> Result<Channel> {
        Channel::new(gpu, &mut self.vm, entries, pb_bytes, 1, priority)
    }

    /// Stop and free a stream's channel.
    pub(crate) fn teardown_channel<P: Platform>(&mut self, gpu: &Device<P>, ch: Channel) -> Result<()> {
        crate::channel::teardown(gpu, &mut self.vm, ch)
    }

    /// Check that `[ptr, ptr + len)` lies inside one allocation (device or pinned host).
    pub(crate) fn check_range(&self, ptr: u64, len: u64) -> Result<()> {
        self.check(ptr, len)
    }

    /// Check that `[ptr, ptr + len)` lies inside one allocation.
    fn check(&self, ptr: u64, len: u64) -> Result<()> {
        let (&base, a) = self.allocs.range(..=ptr).next_back().ok_or(CuError::InvalidValue)?;
        let end = ptr.checked_add(len).ok_or(CuError::InvalidValue)?;
        if end > base + a.size { Err(CuError::InvalidValue) } else { Ok(()) }
    }
}

fn launch(transfer: bool, remap: bool) -> u32 {
    LaunchDma::new()
        .with_transfer(if transfer { TransferType::NonPipelined } else { TransferType::None })
        .with_semaphore(CopySemaphore::None)
        .with_src_layout(Layout::Pitch)
        .with_dst_layout(Layout::Pitch)
        .with_remap(remap)
        .into()
}

/// MEM_OP L2_FLUSH_DIRTY: the device writes back its L2's dirty lines (the channel waits).
pub(crate) fn l2_flush(cmd: &mut Cmd) -> Result<()> {
    let b = hw::class::MemOpB::new().with_operation(hw::class::MemOp::L2FlushDirty);
    cmd.incr(0, hw::class::host::MEM_OP_A, &[0, b.into()]).map(|_| ()).map_err(|_| CuError::Unknown)
}

/// Queue copies of `bytes` from `src` to `dst` (device pointers) on `ch`, each launch at
/// most LAUNCH_MAX bytes; returns the fence after the last.
pub(crate) fn copy_range<P: Platform>(
    gpu: &Device<P>,
    ch: &mut Channel,
    dst: u64,
    src: u64,
    bytes: u64,
) -> Result<Fence> {
    let mut off = 0;
    let mut last = ch.last_fence();
    while off < bytes {
        let n = (bytes - off).min(LAUNCH_MAX);
        let mut cmd = Cmd::new();
        copy_cmd(&mut cmd, src + off, dst + off, n)?;
        last = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        off += n;
    }
    Ok(last)
}

fn copy_cmd(cmd: &mut Cmd, src: u64, dst: u64, len: u64) -> Result<()> {
    let words = [addr40::hi(src), addr40::lo(src), addr40::hi(dst), addr40::lo(dst)];
    cmd.incr(subch::COPY0, copy::OFFSET_IN_UPPER, &words)
        .and_then(|_| cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[len as u32]))
        .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[launch(true, false)]))
        .map_err(|_| CuError::Unknown)
}

impl<P: Platform> Gpu<P> {
    pub(crate) fn with_ctx<T>(&self, h: CtxHandle, f: impl FnOnce(&Self, &mut Inner) -> Result<T>) -> Result<T> {
        let ctx = self.ctx(h)?;
        let mut inner = ctx.inner.lock();
        let ch = inner.live()?;
        if let Some(e) = self.channel_error(ch.chid) {
            return Err(e);
        }
        // A fault on any stream of the context is the context's sticky error (CUDA).
        if let Some(e) = inner.streams.values().find_map(|st| self.channel_error(st.ch.chid)) {
            return Err(e);
        }
        f(self, &mut inner)
    }

    /// Allocate `bytes` of device memory (cuMemAlloc). Returns the device pointer.
    pub fn mem_alloc(&self, h: CtxHandle, bytes: u64) -> Result<u64> {
        if bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        self.with_ctx(h, |gpu, c| c.alloc_vram(gpu, bytes, Owner::User))
    }

    /// Free device memory (cuMemFree). Work queued before it completes first.
    pub fn mem_free(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        self.free_alloc(h, ptr, false)
    }

    /// Allocate `bytes` of pinned host memory mapped into the context's address space
    /// (cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP): kernels and copies reach it through
    /// the returned device pointer (system-memory PTEs), the host through the memory.
    pub fn mem_alloc_host(&self, h: CtxHandle, bytes: u64) -> Result<(u64, alloc::sync::Arc<fifo::SharedMem>)> {
        if bytes == 0 {
            return Err(CuError::InvalidValue);
        }
        let len = usize::try_from(bytes).map_err(|_| CuError::OutOfMemory)?;
        self.with_ctx(h, |gpu, c| {
            let buf = gpu.platform.dma_alloc(len)?;
            let rounded = buf.len() as u64;
            let va = match c.vm.alloc_va(rounded) {
                Ok(va) => va,
                Err(e) => {
                    gpu.platform.dma_free(&buf);
                    return Err(e);
                }
            };
            if let Err(e) =
                c.vm.map(gpu, va, buf.bus, rounded, Target::SysCoherent).and_then(|_| gpu.tlb_flush(c.vm.pd))
            {
                let _ = c.vm.unmap(gpu, va, rounded);
                c.vm.free_va(va, rounded);
                gpu.platform.dma_free(&buf);
                return Err(e);
            }
            let mem = buf.mem.clone();
            c.allocs.insert(va, Alloc { size: bytes, bytes: rounded, backing: Backing::Host(buf), owner: Owner::User });
            c.table_changed();
            Ok((va, mem))
        })
    }

    /// Free pinned host memory from [`Gpu::mem_alloc_host`] (cuMemFreeHost), after the
    /// work queued before it.
    pub fn mem_free_host(&self, h: CtxHandle, ptr: u64) -> Result<()> {
        self.free_alloc(h, ptr, true)
    }

    /// Free a user allocation after the context's queued work, waiting without the lock.
    fn free_alloc(&self, h: CtxHandle, ptr: u64, host: bool) -> Result<()> {
        let ours = |c: &Inner| match c.allocs.get(&ptr) {
            Some(a) if a.owner == Owner::User && matches!(a.backing, Backing::Host(_)) == host => Ok(()),
            _ => Err(CuError::InvalidValue),
        };
        let waits = self.with_ctx(h, |_, c| ours(c).and_then(|()| c.releases()))?;
        waits.iter().try_for_each(|w| w.wait(self))?;
        self.with_ctx(h, |gpu, c| ours(c).and_then(|()| c.free_now(gpu, ptr)))
    }

    /// The program's allocation containing `ptr`: (base, size) (cuMemGetAddressRange;
    /// memory the runtime holds for itself is not the program's).
    pub fn mem_range(&self, h: CtxHandle, ptr: u64) -> Result<(u64, u64)> {
        self.with_ctx(h, |_, c| {
            let (&base, a) = c.allocs.range(..=ptr).next_back().ok_or(CuError::NotFound)?;
            if ptr < base + a.size && a.owner == Owner::User { Ok((base, a.size)) } else { Err(CuError::NotFound) }
        })
    }

    /// Allocate `bytes` of VRAM that the runtime owns (module segments): copies reach it,
    /// cuMemFree does not.
    pub(crate) fn runtime_alloc(&self, h: CtxHandle, bytes: u64) -> Result<u64> {
        self.with_ctx(h, |gpu, c| c.alloc_vram(gpu, bytes, Owner::Runtime))
    }

    /// Free runtime-owned allocations after the context's queued work: every one of them
    /// is freed even if one fails (the first error is returned).
    pub(crate) fn runtime_free(&self, h: CtxHandle, ptrs: &[u64]) -> Result<()> {
        let waits = self.with_ctx(h, |_, c| c.releases())?;
        let waited = waits.iter().try_for_each(|w| w.wait(self));
        let freed = self.with_ctx(h, |gpu, c| {
            // Every one is freed, whatever happens to the others; the first error is kept.
            let mut first = Ok(());
            for &p in ptrs {
                let r = c.free_now(gpu, p);
                if first.is_ok() {
                    first = r;
                }
            }
            first
        });
        waited.and(freed)
    }

    /// Queue a copy of `len` bytes from `src` to `dst` on the context's legacy stream (an L2
    /// write-back first when `flush`); returns what to wait for.
    fn queue_copy(&self, h: CtxHandle, src: u64, dst: u64, len: u64, flush: bool) -> Result<Release> {
        self.with_ctx(h, |gpu, c| {
            let ch = c.live()?;
            let mut cmd = Cmd::new();
            if flush {
                // Kernels leave dirty lines in the L2: write them back before reading VRAM.
                l2_flush(&mut cmd)?;
            }
            copy_cmd(&mut cmd, src, dst, len)?;
            let f = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            ch.release_of(f)
        })
    }

    /// Copy host memory to the device (cuMemcpyHtoD); returns when `src` may be reused.
    /// The copy holds the context's staging buffers (host copies of a context take turns,
    /// as on CUDA's legacy stream), never the context's lock while it waits.
    pub fn memcpy_htod(&self, h: CtxHandle, dst: u64, src: &[u8]) -> Result<()> {
        let ctx = self.ctx(h)?;
        let bufs = ctx.staging.lock();
        self.with_ctx(h, |gpu, c| {
            c.check(dst, src.len() as u64).or(if src.is_empty() { Ok(()) } else { Err(CuError::InvalidValue) })?;
            c.ordered(gpu, 0).map(drop)
        })?;
        let chunk = bufs[0].buf.len();
        let mut pending: [Option<Release>; 2] = [None, None];
        for (i, part) in src.chunks(chunk).enumerate() {
            let s = &bufs[i % 2];
            if let Some(w) = pending[i % 2].take() {
                w.wait(self)?; // the buffer's previous part has been copied out of it
            }
            self.platform.copy_from_user(&s.buf.mem, 0, part)?;
            pending[i % 2] = Some(self.queue_copy(h, s.va, dst + (i * chunk) as u64, part.len() as u64, false)?);
        }
        pending.iter().flatten().try_for_each(|w| w.wait(self))
    }

    /// Copy device memory to the host (cuMemcpyDtoH); waits for earlier work on the context,
    /// holding the staging buffers but not the context's lock.
    pub fn memcpy_dtoh(&self, h: CtxHandle, dst: &mut [u8], src: u64) -> Result<()> {
        let ctx = self.ctx(h)?;
        let bufs = ctx.staging.lock();
        self.with_ctx(h, |gpu, c| {
            c.check(src, dst.len() as u64).or(if dst.is_empty() { Ok(()) } else { Err(CuError::InvalidValue) })?;
            c.ordered(gpu, 0).map(drop)
        })?;
        let chunk = bufs[0].buf.len();
        // Queue part i into staging buffer i % 2, then drain part i - 1.
        let mut pending: Option<(usize, &mut [u8], Release)> = None;
        for (i, part) in dst.chunks_mut(chunk).enumerate() {
            let w = self.queue_copy(h, src + (i * chunk) as u64, bufs[i % 2].va, part.len() as u64, i == 0)?;
            if let Some((j, out, w)) = pending.replace((i, part, w)) {
                w.wait(self)?;
                self.platform.copy_to_user(out, &bufs[j % 2].buf.mem, 0)?;
            }
        }
        if let Some((j, out, w)) = pending {
            w.wait(self)?;
            self.platform.copy_to_user(out, &bufs[j % 2].buf.mem, 0)?;
        }
        Ok(())
    }

    /// Copy between device allocations (cuMemcpyDtoD); returns when the copy is done,
    /// waiting without the context's lock.
    pub fn memcpy_dtod(&self, h: CtxHandle, dst: u64, src: u64, bytes: u64) -> Result<()> {
        let w = self.with_ctx(h, |gpu, c| {
            if bytes == 0 {
                return Ok(None);
            }
            c.check(src, bytes)?;
            c.check(dst, bytes)?;
            let ch = c.ordered(gpu, 0)?;
            let last = copy_range(gpu, ch, dst, src, bytes)?;
            ch.release_of(last).map(Some)
        })?;
        w.map_or(Ok(()), |w| w.wait(self))
    }

    /// Set `count` elements at `dst` to `value` (cuMemsetD8/D16/D32). Asynchronous: it is
    /// ordered before later work on the context; returns its fence.
    pub fn memset(&self, h: CtxHandle, dst: u64, value: MemsetValue, count: u64) -> Result<Fence> {
        self.memset_on(h, crate::stream::StreamHandle::DEFAULT, dst, value, count)
    }

    /// [`Gpu::memset`] on stream `s` (cuMemsetD*Async); returns the fence of the stream's
    /// channel.
    pub fn memset_on(
        &self,
        h: CtxHandle,
        s: crate::stream::StreamHandle,
        dst: u64,
        value: MemsetValue,
        count: u64,
    ) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| {
            let size = value.size();
            if !dst.is_multiple_of(size) {
                return Err(CuError::InvalidValue);
            }
            let bytes = count.checked_mul(size).ok_or(CuError::InvalidValue)?;
            if count == 0 {
                return Ok(c.chan(s.0)?.last_fence());
            }
            c.check(dst, bytes)?;
            let ch = c.ordered(gpu, s.0)?;
            let remap = RemapComponents::new()
                .with_dst_x(RemapSrc::ConstA)
                .with_dst_y(RemapSrc::NoWrite)
                .with_dst_z(RemapSrc::NoWrite)
                .with_dst_w(RemapSrc::NoWrite)
                .with_component_size_minus_one((size - 1) as u8);
            let per = LAUNCH_MAX / size;
            let mut done = 0;
            let mut last = ch.last_fence();
            while done < count {
                let n = (count - done).min(per);
                let d = dst + done * size;
                let mut cmd = Cmd::new();
                cmd.incr(subch::COPY0, copy::SET_REMAP_CONST_A, &[value.bits()])
                    .and_then(|_| cmd.incr(subch::COPY0, copy::SET_REMAP_COMPONENTS, &[remap.into()]))
                    .and_then(|_| cmd.incr(subch::COPY0, copy::OFFSET_OUT_UPPER, &[addr40::hi(d), addr40::lo(d)]))
                    .and_then(|_| cmd.incr(subch::COPY0, copy::LINE_LENGTH_IN, &[n as u32]))
                    .and_then(|_| cmd.incr(subch::COPY0, copy::LAUNCH_DMA, &[launch(true, true)]))
                    .map_err(|_| CuError::Unknown)?;
                last = ch.fence(&mut cmd)?;
                ch.submit(gpu, cmd.words())?;
                done += n;
            }
            Ok(last)
        })
    }

    /// Wait for all work queued on the context (cuCtxSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn ctx_synchronize(&self, h: CtxHandle) -> Result<()> {
        let waits = self.with_ctx(h, |_, c| c.releases())?;
        waits.iter().try_for_each(|w| w.wait(self))
    }

    /// Queue a fence on the context's channel.
    pub fn fence_submit(&self, h: CtxHandle) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| {
            let ch = c.live()?;
            let mut cmd = Cmd::new();
            let f = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            Ok(f)
        })
    }

    /// Wait for fence `f` of the context.
    pub fn fence_wait(&self, h: CtxHandle, f: Fence) -> Result<()> {
        self.with_ctx(h, |_, c| c.live()?.release_of(f))?.wait(self)
    }

    /// Whether fence `f` has been released (without waiting).
    pub fn fence_done(&self, h: CtxHandle, f: Fence) -> Result<bool> {
        self.with_ctx(h, |_, c| Ok(c.live()?.completed() >= f.0))
    }

    /// Device timestamp (PTIMER ns) written with the most recent fence.
    pub fn fence_timestamp(&self, h: CtxHandle) -> Result<u64> {
        self.with_ctx(h, |_, c| Ok(c.live()?.fence_timestamp()))
    }

    /// The channel id of the context (for tests and tools).
    pub fn ctx_channel(&self, h: CtxHandle) -> Result<u32> {
        self.with_ctx(h, |_, c| Ok(c.live()?.chid))
    }

    /// Test entry point: submit raw pushbuffer words (at most 8000, not checked) on stream
    /// `s`, followed by a fence; returns the fence of the stream's channel.
    pub fn debug_submit_raw_on(&self, h: CtxHandle, s: crate::stream::StreamHandle, words: &[u32]) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| {
            let ch = c.ordered(gpu, s.0)?;
            let mut cmd = fifo::Pushbuf::<8192>::new();
            for &w in words {
                cmd.raw(w).map_err(|_| CuError::InvalidValue)?;
            }
            let f = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            Ok(f)
        })
    }

    /// Test entry point: submit raw pushbuffer words (possibly malformed) followed by a
    /// fence, and return the fence. The words are not checked.
    pub fn debug_submit_raw(&self, h: CtxHandle, words: &[u32]) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| {
            let ch = c.live()?;
            let mut cmd = Cmd::new();
            for &w in words {
                cmd.raw(w).map_err(|_| CuError::InvalidValue)?;
            }
            let f = ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            Ok(f)
        })
    }
}
