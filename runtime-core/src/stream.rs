//! Streams and events.
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

use crate::channel::{Channel, Fence, Held, map_dma, release};
use crate::context::Inner;
use crate::error::{CuError, Result};
use crate::gpu::{CtxHandle, Gpu};
use crate::platform::{DmaBuffer, Platform};
use crate::vm::VaSpace;
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
}

/// An event of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventHandle(pub u64);

/// Stream priorities as CUDA numbers them: `GREATEST` (most urgent) to `LEAST` (0).
pub const STREAM_PRIORITY_GREATEST: i32 = -3;
/// The least urgent (and default) stream priority.
pub const STREAM_PRIORITY_LEAST: i32 = 0;

/// Ring sizes of a stream's channel.
const STREAM_GPFIFO: u32 = 256;
const STREAM_PUSHBUFFER: u32 = 64 << 10;

pub(crate) struct Stream {
    pub(crate) ch: Channel,
    pub(crate) non_blocking: bool,
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
    next: u64,
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
    fn alloc<P: Platform>(&mut self, gpu: &Gpu<P>, vm: &mut VaSpace) -> Result<u32> {
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

    pub(crate) fn release<P: Platform>(&mut self, gpu: &crate::device::Device<P>, vm: &mut VaSpace) {
        release(gpu, vm, &mut self.held);
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

impl<P: Platform> Gpu<P> {
    /// Create a stream (cuStreamCreateWithPriority): a new channel of the context.
    /// `priority` is CUDA's number, clamped to [`STREAM_PRIORITY_GREATEST`]..=0; more urgent
    /// streams get a higher channel priority in PFIFO's scheduler.
    pub fn stream_create(&self, h: CtxHandle, non_blocking: bool, priority: i32) -> Result<StreamHandle> {
        self.with_ctx(h, |gpu, c| {
            let level = (-priority.clamp(STREAM_PRIORITY_GREATEST, STREAM_PRIORITY_LEAST)) as u8;
            let params = c.alloc_vram(gpu, crate::module::PARAM_BYTES as u64, crate::context::Owner::Runtime)?;
            let ch = match c.new_channel(gpu, STREAM_GPFIFO, STREAM_PUSHBUFFER, level) {
                Ok(ch) => ch,
                Err(e) => {
                    let _ = c.free_now(gpu, params);
                    return Err(e);
                }
            };
            let id = c.next_stream;
            c.next_stream += 1;
            c.streams.insert(id, Stream { ch, non_blocking, params });
            Ok(StreamHandle(id))
        })
    }

    /// Destroy a stream (cuStreamDestroy): its queued work completes first (waited for
    /// without the context's lock).
    pub fn stream_destroy(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        let w = self.with_ctx(h, |_, c| {
            let st = c.streams.get(&s.0).ok_or(CuError::InvalidHandle)?;
            st.ch.release_of(st.ch.last_fence())
        })?;
        let waited = w.wait(self);
        self.with_ctx(h, |gpu, c| {
            let st = c.streams.remove(&s.0).ok_or(CuError::InvalidHandle)?;
            let r = c.teardown_channel(gpu, st.ch);
            c.free_now(gpu, st.params)?;
            r
        })
        .and(waited)
    }

    /// Wait for the work queued on stream `s` (cuStreamSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn stream_synchronize(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        self.with_ctx(h, |_, c| {
            let ch = c.chan(s.0)?;
            ch.release_of(ch.last_fence())
        })?
        .wait(self)
    }

    /// Whether stream `s` has finished its queued work (cuStreamQuery).
    pub fn stream_query(&self, h: CtxHandle, s: StreamHandle) -> Result<bool> {
        self.with_ctx(h, |gpu, c| {
            gpu.service_interrupts();
            let ch = c.chan(s.0)?;
            Ok(ch.completed() >= ch.last_fence().0)
        })
    }

    /// Copy `bytes` between two device pointers of the context on stream `s`
    /// (cuMemcpyAsync with device or mapped pinned host memory on either side). Returns at
    /// once with the fence of the stream's channel.
    pub fn memcpy_async(&self, h: CtxHandle, s: StreamHandle, dst: u64, src: u64, bytes: u64) -> Result<Fence> {
        self.with_ctx(h, |gpu, c| {
            if bytes == 0 {
                return Ok(c.chan(s.0)?.last_fence());
            }
            c.check_range(src, bytes)?;
            c.check_range(dst, bytes)?;
            let ch = c.ordered(gpu, s.0)?;
            crate::context::copy_range(gpu, ch, dst, src, bytes)
        })
    }

    /// Create an event (cuEventCreate); `timing` false is CU_EVENT_DISABLE_TIMING.
    pub fn event_create(&self, h: CtxHandle, timing: bool) -> Result<EventHandle> {
        self.with_ctx(h, |gpu, c| {
            let Inner { events: ev, vm, .. } = c;
            let slot = ev.alloc(gpu, vm)?;
            ev.next += 1;
            ev.list.insert(ev.next, Event { slot, timing, recorded: None });
            Ok(EventHandle(ev.next))
        })
    }

    /// Destroy an event (cuEventDestroy). A record still pending completes on its own; the
    /// slot is reused only after it has.
    pub fn event_destroy(&self, h: CtxHandle, e: EventHandle) -> Result<()> {
        self.with_ctx(h, |gpu, c| {
            let ev = c.events.list.remove(&e.0).ok_or(CuError::InvalidHandle)?;
            if let Some((s, chid, seq)) = ev.recorded {
                let events = &c.events;
                if c.streams.contains_key(&s) || s == 0 {
                    gpu.wait_for(chid, || events.payload(ev.slot).wrapping_sub(seq) as i32 >= 0)?;
                }
            }
            c.events.free.push(ev.slot);
            Ok(())
        })
    }

    /// Record event `e` on stream `s` (cuEventRecord).
    pub fn event_record(&self, h: CtxHandle, e: EventHandle, s: StreamHandle) -> Result<()> {
        self.with_ctx(h, |gpu, c| {
            // Each record releases into a slot of its own, so records on different streams
            // that complete out of order never move a slot backwards; the previous record's
            // slot is reused once its release has landed.
            let (old, timing) = {
                let ev = c.events.list.get(&e.0).ok_or(CuError::InvalidHandle)?;
                (ev.recorded.map(|(_, _, q)| (ev.slot, q)), ev.timing)
            };
            let seq = c.events.counter.wrapping_add(1);
            let Inner { events, vm, .. } = &mut *c;
            let slot = match old {
                Some(_) => events.alloc(gpu, vm)?,
                None => c.events.list[&e.0].slot,
            };
            let (_, _, va) = c.events.slot(slot);
            let ch = c.ordered(gpu, s.0)?;
            let mut cmd = Pushbuf::<64>::new();
            let d = SemaphoreD::new().with_operation(SemOp::Release).with_release_size_4byte(!timing);
            cmd.incr(0, host::SEMAPHOREA, &[addr40::hi(va), addr40::lo(va), seq, d.into()])
                .and_then(|_| cmd.method(0, host::NON_STALL_INTERRUPT, 0))
                .map_err(|_| CuError::Unknown)?;
            ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())?;
            let chid = ch.chid;
            c.events.counter = seq;
            if let Some(r) = old {
                c.events.retired.push(r);
            }
            let ev = c.events.list.get_mut(&e.0).ok_or(CuError::InvalidHandle)?;
            ev.slot = slot;
            ev.recorded = Some((s.0, chid, seq));
            Ok(())
        })
    }

    /// Whether event `e`'s last record has completed (cuEventQuery; an event never recorded
    /// has).
    pub fn event_query(&self, h: CtxHandle, e: EventHandle) -> Result<bool> {
        self.with_ctx(h, |gpu, c| {
            gpu.service_interrupts();
            let ev = c.events.list.get(&e.0).ok_or(CuError::InvalidHandle)?;
            if let Some((_, chid, _)) = ev.recorded
                && !c.events.done(ev)
                && let Some(err) = gpu.channel_error(chid)
            {
                return Err(err);
            }
            Ok(c.events.done(ev))
        })
    }

    /// Wait for event `e`'s last record (cuEventSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn event_synchronize(&self, h: CtxHandle, e: EventHandle) -> Result<()> {
        let w = self.with_ctx(h, |_, c| {
            let ev = c.events.list.get(&e.0).ok_or(CuError::InvalidHandle)?;
            let Some((_, chid, seq)) = ev.recorded else { return Ok(None) };
            let (buf, off, _) = c.events.slot(ev.slot);
            Ok(Some(crate::channel::Release { chid, mem: buf.mem.clone(), off, target: seq }))
        })?;
        w.map_or(Ok(()), |w| w.wait(self))
    }

    /// Milliseconds of GPU time between two completed records (cuEventElapsedTime):
    /// CUDA_ERROR_NOT_READY while either is pending, CUDA_ERROR_INVALID_HANDLE for an event
    /// never recorded or created without timing.
    pub fn event_elapsed_ms(&self, h: CtxHandle, start: EventHandle, end: EventHandle) -> Result<f32> {
        self.with_ctx(h, |gpu, c| {
            gpu.service_interrupts();
            let ev = &c.events;
            let a = ev.list.get(&start.0).ok_or(CuError::InvalidHandle)?;
            let b = ev.list.get(&end.0).ok_or(CuError::InvalidHandle)?;
            if !a.timing || !b.timing || a.recorded.is_none() || b.recorded.is_none() {
                return Err(CuError::InvalidHandle);
            }
            if !ev.done(a) || !ev.done(b) {
                return Err(CuError::NotReady);
            }
            let (ta, tb) = (ev.timestamp(a.slot), ev.timestamp(b.slot));
            Ok((tb as i64 - ta as i64) as f32 / 1e6)
        })
    }

    /// Make stream `s` wait for event `e`'s last record (cuStreamWaitEvent): a semaphore
    /// acquire the GPU executes; the host does not wait. An event never recorded is no wait.
    pub fn stream_wait_event(&self, h: CtxHandle, s: StreamHandle, e: EventHandle) -> Result<()> {
        self.with_ctx(h, |gpu, c| {
            let ev = c.events.list.get(&e.0).ok_or(CuError::InvalidHandle)?;
            let Some((_, _, seq)) = ev.recorded else {
                c.chan(s.0)?;
                return Ok(());
            };
            let (_, _, va) = c.events.slot(ev.slot);
            let ch = c.ordered(gpu, s.0)?;
            let mut cmd = Pushbuf::<64>::new();
            acquire(&mut cmd, va, seq)?;
            ch.fence(&mut cmd)?;
            ch.submit(gpu, cmd.words())
        })
    }

    /// The channel id of stream `s` (tools and tests).
    pub fn stream_channel(&self, h: CtxHandle, s: StreamHandle) -> Result<u32> {
        self.with_ctx(h, |_, c| Ok(c.chan(s.0)?.chid))
    }
}
