//! A context's streams and events.
//!
//! A stream is a channel of its context: it shares the context's address space and page
//! directory, and has its own GPFIFO, pushbuffer, fence slot and kernel-parameter buffer.
//! Stream 0 is the legacy default stream (the context's first channel). Work on the
//! default stream waits for the earlier work of every blocking stream, and work on a
//! blocking stream waits for the default stream's; CU_STREAM_NON_BLOCKING streams do
//! neither. Those waits are semaphore acquires on the other channels' fence slots,
//! executed by the GPU: the host never blocks on them.
//!
//! An event is a 16-byte semaphore slot in DMA memory mapped into the context. Recording
//! queues a release of the next sequence number on the stream's channel: the release waits
//! for the channel's earlier work and writes the payload and, unless the event was created
//! with CU_EVENT_DISABLE_TIMING (a 4-byte release), the GPU timestamp. `cuStreamWaitEvent`
//! queues an acquire of that value on another stream: again executed by the GPU.

use super::Inner;
use super::memory::Owner;
use crate::channel::{Channel, Held, Release, map_dma, release};
use crate::device::{Device, HostWork};
use crate::error::{CuError, Result};
use crate::limits::{CB0_BYTES, STREAM_PRIORITY_GREATEST, STREAM_PRIORITY_LEAST};
use crate::platform::{DmaBuffer, Platform};
use crate::vm::VaSpace;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use fifo::Pushbuf;
use hw::class::addr40;
use hw::class::{SemOp, SemaphoreD, host};
use hw::mmu::PAGE_SIZE;

/// A stream of a context; [`StreamHandle::DEFAULT`] is the legacy default stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamHandle(pub u64);

impl StreamHandle {
    /// The legacy default stream (CUDA's NULL stream).
    pub const DEFAULT: Self = Self(0);

    /// The stream's id in its context (0: the default stream); the API layer has checked
    /// that the handle is of the context.
    pub(crate) fn local(self) -> u64 {
        super::local_id(self.0)
    }
}

/// Ring sizes of a stream's channel.
const STREAM_GPFIFO: u32 = 256;
const STREAM_PUSHBUFFER: u32 = 64 << 10;

/// A stream other than the legacy default stream.
pub(crate) struct Stream {
    pub(crate) ch: Channel,
    pub(crate) non_blocking: bool,
    /// CUDA's priority number it was created with (clamped).
    pub(crate) priority: i32,
    /// This channel's kernel-parameter buffer (device pointer).
    pub(crate) params: u64,
}

/// Events: 16-byte slots in DMA pages mapped into the context.
#[derive(Default)]
pub(crate) struct Events {
    pages: Vec<(DmaBuffer, u64)>,
    free: Vec<u32>,
    /// Slots of earlier records, reusable once their release has landed: (slot, seq).
    retired: Vec<(u32, u32)>,
    /// The last sequence number released by any record of the context. Numbers only grow
    /// (wrapping), and a slot is reused only after its release landed, so every slot's
    /// payload only grows too: an acquire still pending on an older record of a reused
    /// slot is satisfied by the newer one.
    counter: u32,
    list: BTreeMap<u64, Event>,
    /// Semaphore pages of other GPUs' channels this context's channels acquire on (the
    /// GPUs of a gang), by their memory: (memory, address here).
    foreign: Vec<(alloc::sync::Arc<fifo::SharedMem>, u64)>,
    held: Vec<Held>,
}

struct Event {
    slot: u32,
    timing: bool,
    /// The last record: (stream, channel, sequence number).
    recorded: Option<(u64, u32, u32)>,
}

const SLOTS_PER_PAGE: u32 = (PAGE_SIZE / 16) as u32;

impl Events {
    fn slot(&self, slot: u32) -> (&DmaBuffer, usize, u64) {
        let (buf, va) = &self.pages[(slot / SLOTS_PER_PAGE) as usize];
        let off = (slot % SLOTS_PER_PAGE) as usize * 16;
        (buf, off, va + off as u64)
    }

    fn payload(&self, slot: u32) -> u32 {
        let (buf, off, _) = self.slot(slot);
        buf.mem.load_u32(off, Ordering::Acquire).unwrap_or(0)
    }

    fn timestamp(&self, slot: u32) -> u64 {
        let (buf, off, _) = self.slot(slot);
        buf.mem.load_u64(off + 8, Ordering::Acquire).unwrap_or(0)
    }

    /// Whether the event's last record has been released (an event never recorded is).
    fn done(&self, e: &Event) -> bool {
        e.recorded.is_none_or(|(_, _, seq)| self.payload(e.slot).wrapping_sub(seq) as i32 >= 0)
    }

    /// A slot: a free one, a retired one whose release has landed, or one of a new page
    /// mapped into `vm` (zeroed).
    fn alloc<P: Platform>(&mut self, gpu: &Device<P>, vm: &mut VaSpace) -> Result<u32> {
        let mut k = 0;
        while k < self.retired.len() {
            let (slot, seq) = self.retired[k];
            if self.payload(slot).wrapping_sub(seq) as i32 >= 0 {
                self.free.push(slot);
                self.retired.swap_remove(k);
            } else {
                k += 1;
            }
        }
        if self.free.is_empty() {
            let (buf, va) = map_dma(gpu, vm, &mut self.held, PAGE_SIZE as usize)?;
            gpu.tlb_flush(vm.pd)?;
            let first = self.pages.len() as u32 * SLOTS_PER_PAGE;
            self.pages.push((buf, va));
            self.free.extend((first..first + SLOTS_PER_PAGE).rev());
        }
        self.free.pop().ok_or(CuError::OutOfMemory)
    }

    /// The address in this context of `mem`, a semaphore page of another GPU's channel,
    /// mapped (system-memory PTEs, registered for this GPU's DMA) at its first use.
    fn foreign_va<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        vm: &mut VaSpace,
        mem: &alloc::sync::Arc<fifo::SharedMem>,
    ) -> Result<u64> {
        if let Some((_, va)) = self.foreign.iter().find(|(m, _)| alloc::sync::Arc::ptr_eq(m, mem)) {
            return Ok(*va);
        }
        let buf = gpu.platform.dma_register(mem.clone())?;
        self.held.push(Held::Dma(buf.clone()));
        let len = (buf.len() as u64).next_multiple_of(PAGE_SIZE);
        let va = vm.alloc_va(len)?;
        self.held.push(Held::Va(va, len));
        vm.map(gpu, va, buf.bus, len, hw::regs::Target::SysCoherent, false)?;
        gpu.tlb_flush(vm.pd)?;
        self.foreign.push((mem.clone(), va));
        Ok(va)
    }

    /// Unmap and free the slots' pages (the context is being destroyed).
    pub(crate) fn release<P: Platform>(&mut self, gpu: &Device<P>, vm: &mut VaSpace) {
        release(gpu, vm, &mut self.held);
        self.foreign.clear();
        self.pages.clear();
        self.free.clear();
        self.list.clear();
    }
}

/// Append a semaphore acquire (the value at `va` reaches `payload`, wrapping) to `cmd`.
pub(crate) fn acquire<const N: usize>(cmd: &mut Pushbuf<N>, va: u64, payload: u32) -> Result<()> {
    let d = SemaphoreD::new().with_operation(SemOp::AcqGeq);
    cmd.incr(0, host::SEMAPHOREA, &[addr40::hi(va), addr40::lo(va), payload, d.into()])
        .map(|_| ())
        .map_err(|_| CuError::Unknown)
}

impl Inner {
    /// Queue a fence on stream `s` (in the default stream's order) and return its release:
    /// what another GPU's channel acquires to follow the stream's work so far.
    pub(crate) fn mark<P: Platform>(&mut self, gpu: &Device<P>, s: u64) -> Result<(crate::channel::Fence, Release)> {
        let ch = self.ordered(gpu, s)?;
        let mut cmd = Pushbuf::<64>::new();
        let f = ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        Ok((f, ch.release_of(f)?))
    }

    /// Make stream `s` wait, on the GPU, for release `r` of another GPU's channel (see
    /// [`Inner::mark`]): an acquire of its semaphore, whose page is mapped here at first use.
    pub(crate) fn acquire_foreign<P: Platform>(&mut self, gpu: &Device<P>, s: u64, r: &Release) -> Result<()> {
        let va = self.events.foreign_va(gpu, &mut self.vm, &r.mem)?;
        let mut cmd = Pushbuf::<64>::new();
        acquire(&mut cmd, va + r.off as u64, r.target)?;
        self.chan(s)?.submit(gpu, cmd.words())
    }

    /// Make stream `s` wait for release `r` of another context's channel (an event's last
    /// record there, [`Inner::event_release`]: cuStreamWaitEvent across contexts and
    /// GPUs), ordered as [`Inner::stream_wait_event`] orders a wait.
    pub(crate) fn stream_wait_release<P: Platform>(&mut self, gpu: &Device<P>, s: u64, r: &Release) -> Result<()> {
        let va = self.events.foreign_va(gpu, &mut self.vm, &r.mem)?;
        let ch = self.ordered(gpu, s)?;
        let mut cmd = Pushbuf::<64>::new();
        acquire(&mut cmd, va + r.off as u64, r.target)?;
        ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())
    }

    /// Queue host function `run` on stream `s` (cuLaunchHostFunc, cuStreamAddCallback):
    /// the channel acquires a semaphore that `run` releases after the function, which a
    /// thread waiting for the device runs once the stream's earlier work is done (or
    /// with the channel's error if it faults; see `Device::run_host_work`). The caller goes
    /// on at once; what is queued after it waits for it.
    pub(crate) fn host_func<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        s: u64,
        run: Box<dyn FnOnce(Option<CuError>) + Send>,
    ) -> Result<()> {
        let ch = self.ordered(gpu, s)?;
        let ready = ch.release_of(ch.last_fence())?;
        let (va, mem, off, value) = ch.host_semaphore();
        let mut cmd = Pushbuf::<64>::new();
        acquire(&mut cmd, va, value)?;
        ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        let release = move |err| {
            run(err);
            let _ = mem.store_u32(off, value, Ordering::Release);
        };
        gpu.host_work_push(HostWork {
            chid: ch.chid,
            seq: 0,
            ready: Box::new(move || ready.landed()),
            run: Box::new(release),
        });
        Ok(())
    }

    /// A new stream: a channel of the context with its own parameter buffer, at channel
    /// priority `-priority` (CUDA's number clamped to its range); returns its id.
    pub(crate) fn stream_create<P: Platform>(
        &mut self,
        gpu: &Device<P>,
        non_blocking: bool,
        priority: i32,
    ) -> Result<u64> {
        let priority = priority.clamp(STREAM_PRIORITY_GREATEST, STREAM_PRIORITY_LEAST);
        let level = (-priority) as u8;
        let params = self.alloc_vram(gpu, CB0_BYTES as u64, Owner::Runtime)?;
        let ch = match Channel::new(gpu, &mut self.vm, STREAM_GPFIFO, STREAM_PUSHBUFFER, 1, level) {
            Ok(ch) => ch,
            Err(e) => {
                let _ = self.free_now(gpu, params);
                return Err(e);
            }
        };
        let id = match self.new_id() {
            Ok(id) => id,
            Err(e) => {
                let _ = crate::channel::teardown(gpu, &mut self.vm, ch);
                let _ = self.free_now(gpu, params);
                return Err(e);
            }
        };
        self.streams.insert(id, Stream { ch, non_blocking, priority, params });
        Ok(id)
    }

    /// Stream `s`'s flags: (non-blocking, CUDA priority); the default stream is (false, 0).
    pub(crate) fn stream_flags(&self, s: u64) -> Result<(bool, i32)> {
        if s == 0 {
            return Ok((false, 0));
        }
        self.streams.get(&s).map(|st| (st.non_blocking, st.priority)).ok_or(CuError::InvalidHandle)
    }

    /// What waiting for the work queued on stream `s` so far needs.
    pub(crate) fn stream_release(&mut self, s: u64) -> Result<Release> {
        let ch = self.chan(s)?;
        ch.release_of(ch.last_fence())
    }

    /// Remove stream `s` (not the default stream): stop its channel, free its parameter
    /// buffer.
    pub(crate) fn stream_remove<P: Platform>(&mut self, gpu: &Device<P>, s: u64) -> Result<()> {
        let st = self.streams.remove(&s).ok_or(CuError::InvalidHandle)?;
        let r = crate::channel::teardown(gpu, &mut self.vm, st.ch);
        self.free_now(gpu, st.params)?;
        r
    }

    /// Whether stream `s` has finished its queued work.
    pub(crate) fn stream_idle<P: Platform>(&mut self, gpu: &Device<P>, s: u64) -> Result<bool> {
        gpu.service_interrupts();
        let ch = self.chan(s)?;
        Ok(ch.completed() >= ch.last_fence().0)
    }

    /// Whether every stream of the context, the default one included, has finished its
    /// queued work (the caller serviced the device's interrupts).
    pub(crate) fn idle(&mut self) -> bool {
        let streams: Vec<u64> = core::iter::once(0).chain(self.streams.keys().copied()).collect();
        streams.into_iter().all(|s| self.chan(s).map_or(true, |ch| ch.completed() >= ch.last_fence().0))
    }

    /// A new event (`timing` false: CU_EVENT_DISABLE_TIMING); returns its id.
    pub(crate) fn event_create<P: Platform>(&mut self, gpu: &Device<P>, timing: bool) -> Result<u64> {
        let id = self.new_id()?;
        let Inner { events: ev, vm, .. } = self;
        let slot = ev.alloc(gpu, vm)?;
        ev.list.insert(id, Event { slot, timing, recorded: None });
        Ok(id)
    }

    /// Destroy event `e`. A record still pending completes on its own; the slot is reused
    /// only after it has.
    pub(crate) fn event_destroy<P: Platform>(&mut self, gpu: &Device<P>, e: u64) -> Result<()> {
        let ev = self.events.list.remove(&e).ok_or(CuError::InvalidHandle)?;
        if let Some((s, chid, seq)) = ev.recorded {
            let events = &self.events;
            if self.streams.contains_key(&s) || s == 0 {
                gpu.wait_for(chid, || events.payload(ev.slot).wrapping_sub(seq) as i32 >= 0)?;
            }
        }
        self.events.free.push(ev.slot);
        Ok(())
    }

    /// Record event `e` on stream `s`.
    pub(crate) fn event_record<P: Platform>(&mut self, gpu: &Device<P>, e: u64, s: u64) -> Result<()> {
        // Each record releases into a slot of its own, so records on different streams
        // that complete out of order never move a slot backwards; the previous record's
        // slot is reused once its release has landed.
        let (old, timing) = {
            let ev = self.events.list.get(&e).ok_or(CuError::InvalidHandle)?;
            (ev.recorded.map(|(_, _, q)| (ev.slot, q)), ev.timing)
        };
        let seq = self.events.counter.wrapping_add(1);
        let Inner { events, vm, .. } = &mut *self;
        let slot = match old {
            Some(_) => events.alloc(gpu, vm)?,
            None => self.events.list[&e].slot,
        };
        let (_, _, va) = self.events.slot(slot);
        let ch = self.ordered(gpu, s)?;
        let mut cmd = Pushbuf::<64>::new();
        let d = SemaphoreD::new().with_operation(SemOp::Release).with_release_size_4byte(!timing);
        cmd.incr(0, host::SEMAPHOREA, &[addr40::hi(va), addr40::lo(va), seq, d.into()])
            .and_then(|_| cmd.method(0, host::NON_STALL_INTERRUPT, 0))
            .map_err(|_| CuError::Unknown)?;
        ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())?;
        let chid = ch.chid;
        self.events.counter = seq;
        if let Some(r) = old {
            self.events.retired.push(r);
        }
        let ev = self.events.list.get_mut(&e).ok_or(CuError::InvalidHandle)?;
        ev.slot = slot;
        ev.recorded = Some((s, chid, seq));
        Ok(())
    }

    /// Whether event `e`'s last record has completed (an event never recorded has); the
    /// channel's error if it faulted before.
    pub(crate) fn event_done<P: Platform>(&mut self, gpu: &Device<P>, e: u64) -> Result<bool> {
        gpu.service_interrupts();
        let ev = self.events.list.get(&e).ok_or(CuError::InvalidHandle)?;
        if let Some((_, chid, _)) = ev.recorded
            && !self.events.done(ev)
            && let Some(err) = gpu.channel_error(chid)
        {
            return Err(err);
        }
        Ok(self.events.done(ev))
    }

    /// What waiting for event `e`'s last record needs (`None`: never recorded).
    pub(crate) fn event_release(&self, e: u64) -> Result<Option<Release>> {
        let ev = self.events.list.get(&e).ok_or(CuError::InvalidHandle)?;
        let Some((_, chid, seq)) = ev.recorded else { return Ok(None) };
        let (buf, off, _) = self.events.slot(ev.slot);
        Ok(Some(Release { chid, mem: buf.mem.clone(), off, target: seq }))
    }

    /// Milliseconds of GPU time between two completed records: CUDA_ERROR_NOT_READY while
    /// either is pending, CUDA_ERROR_INVALID_HANDLE for an event never recorded or created
    /// without timing.
    pub(crate) fn event_elapsed_ms<P: Platform>(&mut self, gpu: &Device<P>, start: u64, end: u64) -> Result<f32> {
        gpu.service_interrupts();
        let ev = &self.events;
        let a = ev.list.get(&start).ok_or(CuError::InvalidHandle)?;
        let b = ev.list.get(&end).ok_or(CuError::InvalidHandle)?;
        if !a.timing || !b.timing || a.recorded.is_none() || b.recorded.is_none() {
            return Err(CuError::InvalidHandle);
        }
        if !ev.done(a) || !ev.done(b) {
            return Err(CuError::NotReady);
        }
        let (ta, tb) = (ev.timestamp(a.slot), ev.timestamp(b.slot));
        Ok((tb as i64 - ta as i64) as f32 / 1e6)
    }

    /// Make stream `s` wait for event `e`'s last record: a semaphore acquire the GPU
    /// executes. An event never recorded is no wait.
    pub(crate) fn stream_wait_event<P: Platform>(&mut self, gpu: &Device<P>, s: u64, e: u64) -> Result<()> {
        let ev = self.events.list.get(&e).ok_or(CuError::InvalidHandle)?;
        let Some((_, _, seq)) = ev.recorded else {
            self.chan(s)?;
            return Ok(());
        };
        let (_, _, va) = self.events.slot(ev.slot);
        let ch = self.ordered(gpu, s)?;
        let mut cmd = Pushbuf::<64>::new();
        acquire(&mut cmd, va, seq)?;
        ch.fence(&mut cmd)?;
        ch.submit(gpu, cmd.words())
    }
}
