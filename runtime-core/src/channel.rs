//! A GPFIFO channel: the GPFIFO ring and the pushbuffer ring in DMA memory mapped into the
//! context's address space, the USERD doorbell through BAR1, and u64 fences.
//!
//! Submit sequence (docs/hardware.md): write the pushbuffer words, write the GPFIFO entry, a release
//! barrier, then GP_PUT in USERD. Pushbuffer space is reclaimed per segment once PFIFO's
//! GP_GET has passed the segment's GPFIFO entry (PFIFO fetches a whole segment before it
//! advances GP_GET).
//!
//! Fences: each channel releases increasing u64 sequence numbers into a 16-byte semaphore
//! slot. The semaphore payload is 32 bits, so the runtime rebuilds the u64 from the last
//! completed value and the wrapping difference — valid while fewer than 2^31 fences are
//! outstanding, which `Channel::submit` enforces. Fence values are never 4096-wrapping ids.

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::{Activity, DmaBuffer, Platform};
use crate::vm::VaSpace;
use alloc::collections::VecDeque;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{Ordering, fence};
use fifo::{Pushbuf, Ring};
use hw::class::addr40;
use hw::class::{self, SemOp, SemaphoreD, host, subch};
use hw::cmd::GpEntry;
use hw::inst::*;
use hw::mmu::PAGE_SIZE;
use hw::regs::Target;

/// A semaphore release to wait for without holding the context's lock: the 32-bit payload
/// at `off` in DMA memory reaching `target` (compared wrapping: fewer than 2^31 releases
/// are ever outstanding), written by channel `chid`. The memory stays alive with it.
pub(crate) struct Release {
    pub(crate) chid: u32,
    pub(crate) mem: alloc::sync::Arc<fifo::SharedMem>,
    pub(crate) off: usize,
    pub(crate) target: u32,
}

impl Release {
    /// Whether the release has landed.
    pub(crate) fn landed(&self) -> bool {
        self.mem.load_u32(self.off, Ordering::Acquire).is_ok_and(|v| v.wrapping_sub(self.target) as i32 >= 0)
    }

    /// Wait until the release lands, or the channel's error (see [`Gpu::wait_for`]).
    pub(crate) fn wait<P: Platform>(&self, gpu: &Device<P>) -> Result<()> {
        gpu.wait_for(self.chid, || self.landed())
    }
}

/// A fence: the sequence number a channel releases when everything before it is done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fence(pub u64);

/// Stop a channel and free what it holds (the binding goes first, so that the channel is
/// stopped before its memory is released). Waits for its work unless it has faulted.
pub(crate) fn teardown<P: Platform>(gpu: &Device<P>, vm: &mut VaSpace, mut ch: Channel) -> Result<()> {
    let mut result = Ok(());
    if gpu.channel_error(ch.chid).is_none() {
        let last = ch.last_fence();
        result = ch.wait(gpu, last);
    }
    // Host functions the channel can no longer reach (it faulted) learn why now.
    gpu.run_host_work(Some((ch.chid, CuError::ContextIsDestroyed)));
    let mut held = core::mem::take(&mut ch.held);
    if let Some(pos) = held.iter().position(|h| matches!(h, Held::Bound(_))) {
        let b = held.remove(pos);
        held.push(b);
    }
    release(gpu, vm, &mut held);
    result
}

/// Resources acquired while building a channel, released in reverse on failure or teardown.
pub(crate) enum Held {
    Chid(u32),
    Vram(u64, u64),
    Dma(DmaBuffer),
    Va(u64, u64),
    Bound(u32),
}

pub(crate) fn release<P: Platform>(gpu: &Device<P>, vm: &mut VaSpace, held: &mut Vec<Held>) {
    let mut unmapped = false;
    while let Some(h) = held.pop() {
        match h {
            Held::Bound(c) => {
                let _ = gpu.channel_unbind(c);
            }
            Held::Va(va, len) => {
                let _ = vm.unmap(gpu, va, len);
                vm.free_va(va, len);
                unmapped = true;
            }
            Held::Dma(b) => gpu.platform.dma_free(&b),
            Held::Vram(a, l) => gpu.vram_free(a, l),
            Held::Chid(c) => gpu.chid_free(c),
        }
    }
    if unmapped && vm.pd != 0 {
        let _ = gpu.tlb_flush(vm.pd);
    }
}

/// Map DMA memory into `vm` (system-memory PTEs pointing at the bus address).
pub(crate) fn map_dma<P: Platform>(
    gpu: &Device<P>,
    vm: &mut VaSpace,
    held: &mut Vec<Held>,
    bytes: usize,
) -> Result<(DmaBuffer, u64)> {
    let buf = gpu.platform.dma_alloc(bytes)?;
    held.push(Held::Dma(buf.clone()));
    if buf.bus % PAGE_SIZE != 0 || buf.len() < bytes {
        return Err(CuError::MapFailed);
    }
    let va = vm.alloc_va(buf.len() as u64)?;
    held.push(Held::Va(va, buf.len() as u64));
    vm.map(gpu, va, buf.bus, buf.len() as u64, Target::SysCoherent, false)?;
    Ok((buf, va))
}

/// A channel and its rings.
pub struct Channel {
    /// Channel id.
    pub chid: u32,
    gp: DmaBuffer,
    gp_ring: Ring,
    gp_put: u32,
    gp_get: u32,
    pb: DmaBuffer,
    pb_va: u64,
    pb_words: u32,
    pb_put: u32,
    pb_get: u32,
    segs: VecDeque<u32>,
    fence: DmaBuffer,
    fence_va: u64,
    next_seq: u64,
    completed: u64,
    /// The last value host functions of this channel release (see [`Channel::host_semaphore`]).
    host_seq: u32,
    userd_bar1: u64,
    pub(crate) held: Vec<Held>,
}

/// Words of one command (methods plus a fence).
pub(crate) type Cmd = Pushbuf<64>;

impl Channel {
    /// Build a channel in `vm`: instance block and RAMFC, rings, fence slot, binding, and
    /// the copy and compute classes on subchannels COPY0 and COMPUTE.
    pub(crate) fn new<P: Platform>(
        gpu: &Device<P>,
        vm: &mut VaSpace,
        entries: u32,
        pb_bytes: u32,
        first_fence: u64,
        priority: u8,
    ) -> Result<Self> {
        let mut held = Vec::new();
        match Self::build(gpu, vm, &mut held, entries, pb_bytes, first_fence, priority) {
            Ok(mut ch) => {
                ch.held = held;
                let mut cmd = Cmd::new();
                cmd.method(subch::COPY0, host::SET_OBJECT, class::FERMI_DMA_COPY_A)
                    .and_then(|_| cmd.method(subch::COMPUTE, host::SET_OBJECT, class::FERMI_COMPUTE_A))
                    .map_err(|_| CuError::Unknown)?;
                let f = ch.fence(&mut cmd)?;
                ch.submit(gpu, cmd.words())?;
                ch.wait(gpu, f)?;
                Ok(ch)
            }
            Err(e) => {
                release(gpu, vm, &mut held);
                Err(e)
            }
        }
    }

    fn build<P: Platform>(
        gpu: &Device<P>,
        vm: &mut VaSpace,
        held: &mut Vec<Held>,
        entries: u32,
        pb_bytes: u32,
        first_fence: u64,
        priority: u8,
    ) -> Result<Self> {
        if !entries.is_power_of_two() || !(2..=1 << 16).contains(&entries) || pb_bytes < 1024 || first_fence == 0 {
            return Err(CuError::InvalidValue);
        }
        let chid = gpu.chid_alloc()?;
        held.push(Held::Chid(chid));
        let inst = gpu.vram_alloc(INST_SIZE, INST_SIZE)?;
        held.push(Held::Vram(inst, INST_SIZE));
        gpu.pramin_zero(inst, INST_SIZE)?;

        let (gp, gp_va) = map_dma(gpu, vm, held, entries as usize * 8)?;
        let (pb, pb_va) = map_dma(gpu, vm, held, pb_bytes as usize)?;
        let (fence_buf, fence_va) = map_dma(gpu, vm, held, PAGE_SIZE as usize)?;
        gpu.tlb_flush(vm.pd)?;
        fence_buf.mem.store_u32(0, (first_fence - 1) as u32, Ordering::Release).map_err(|_| CuError::Unknown)?;

        let (userd_vram, userd_bar1) = gpu.userd(chid);
        gpu.pramin_zero(userd_vram, USERD_SIZE as u64)?;
        let gp_hi =
            RamfcGpfifoHi::new().with_va_hi((gp_va >> 32) as u8).with_log2_entries(entries.trailing_zeros() as u8);
        gpu.pramin_write(
            inst + RAMFC_USERD_LO as u64,
            [userd_vram as u32, (userd_vram >> 32) as u32, RAMFC_SIGNATURE_VALUE],
        )?;
        gpu.pramin_write(inst + RAMFC_GPFIFO_LO as u64, [gp_va as u32, gp_hi.into()])?;
        if priority != 0 {
            gpu.pramin_write(inst + RAMFC_SCHED as u64, [RamfcSched::new().with_priority(priority).into()])?;
        }
        gpu.write_inst_vm(inst, vm.pd, (1u64 << hw::mmu::VA_BITS) - 1)?;
        gpu.channel_bind(chid, inst)?;
        held.push(Held::Bound(chid));

        Ok(Self {
            chid,
            gp_ring: Ring::new(entries).ok_or(CuError::InvalidValue)?,
            gp,
            gp_put: 0,
            gp_get: 0,
            pb_words: (pb.len() / 4) as u32,
            pb,
            pb_va,
            pb_put: 0,
            pb_get: 0,
            segs: VecDeque::new(),
            fence: fence_buf,
            fence_va,
            next_seq: first_fence,
            completed: first_fence - 1,
            host_seq: 0,
            userd_bar1,
            held: Vec::new(),
        })
    }

    /// The semaphore a host function of this channel releases when it has run, and the
    /// value it releases: (GPU address, memory, offset, value). It lives in the fence page,
    /// after the 16-byte fence release; the values count up (compared wrapping).
    pub(crate) fn host_semaphore(&mut self) -> (u64, Arc<fifo::SharedMem>, usize, u32) {
        const OFF: usize = 32;
        self.host_seq = self.host_seq.wrapping_add(1);
        (self.fence_va + OFF as u64, self.fence.mem.clone(), OFF, self.host_seq)
    }

    /// Append a fence release (host semaphore, 16-byte with timestamp, after the engines
    /// go idle) and a non-stall interrupt to `cmd`.
    pub(crate) fn fence<const N: usize>(&mut self, cmd: &mut Pushbuf<N>) -> Result<Fence> {
        let seq = self.next_seq;
        let d = SemaphoreD::new().with_operation(SemOp::Release);
        let a = self.fence_va;
        cmd.incr(0, host::SEMAPHOREA, &[addr40::hi(a), addr40::lo(a), seq as u32, d.into()])
            .and_then(|_| cmd.method(0, host::NON_STALL_INTERRUPT, 0))
            .map_err(|_| CuError::Unknown)?;
        self.next_seq += 1;
        Ok(Fence(seq))
    }

    /// The highest fence the GPU has released.
    pub fn completed(&mut self) -> u64 {
        let lo = self.fence.mem.load_u32(0, Ordering::Acquire).unwrap_or(self.completed as u32);
        let delta = lo.wrapping_sub(self.completed as u32);
        if (delta as i32) > 0 {
            self.completed += delta as u64;
        }
        self.completed
    }

    /// The last fence handed out.
    pub fn last_fence(&self) -> Fence {
        Fence(self.next_seq - 1)
    }

    /// Virtual address of the fence slot (other channels of the context acquire on it).
    pub(crate) fn fence_va(&self) -> u64 {
        self.fence_va
    }

    /// The device timestamp (ns) of the most recent fence release.
    pub fn fence_timestamp(&self) -> u64 {
        self.fence.mem.load_u64(8, Ordering::Acquire).unwrap_or(0)
    }

    /// What waiting for fence `f` needs, to wait without the context's lock.
    pub(crate) fn release_of(&self, f: Fence) -> Result<Release> {
        if f.0 >= self.next_seq {
            return Err(CuError::InvalidValue);
        }
        Ok(Release { chid: self.chid, mem: self.fence.mem.clone(), off: 0, target: f.0 as u32 })
    }

    /// Wait until fence `f` has been released.
    pub(crate) fn wait<P: Platform>(&mut self, gpu: &Device<P>, f: Fence) -> Result<()> {
        if f.0 >= self.next_seq {
            return Err(CuError::InvalidValue);
        }
        let chid = self.chid;
        gpu.wait_for(chid, || self.completed() >= f.0)
    }

    fn reclaim<P: Platform>(&mut self, gpu: &Device<P>) -> Result<()> {
        let get = gpu.bar1_read(self.userd_bar1 + USERD_GP_GET as u64);
        if !self.gp_ring.check(get) || self.gp_ring.used(get, self.gp_put) > self.gp_ring.used(self.gp_get, self.gp_put)
        {
            return Err(gpu.channel_error(self.chid).unwrap_or(CuError::LaunchFailed));
        }
        for _ in 0..self.gp_ring.used(self.gp_get, get) {
            if let Some(end) = self.segs.pop_front() {
                self.pb_get = if end == self.pb_words { 0 } else { end };
            }
        }
        self.gp_get = get;
        Ok(())
    }

    fn pb_space(&self, n: u32) -> Option<u32> {
        let (put, get) = (self.pb_put, self.pb_get);
        if put >= get {
            let tail = self.pb_words - put - (get == 0) as u32;
            if n <= tail {
                return Some(put);
            }
            (get > 0 && n < get).then_some(0)
        } else {
            (n < get - put).then_some(put)
        }
    }

    /// Queue `words` as one pushbuffer segment and ring the doorbell.
    pub(crate) fn submit<P: Platform>(&mut self, gpu: &Device<P>, words: &[u32]) -> Result<()> {
        let n = words.len() as u32;
        if n == 0 || n >= self.pb_words || n > GpEntry::MAX_LENGTH {
            return Err(CuError::InvalidValue);
        }
        let _stepping = gpu.stepping();
        if self.next_seq - self.completed() >= 1 << 31 {
            let f = Fence(self.next_seq - (1 << 30));
            self.wait(gpu, f)?;
        }
        let at = loop {
            if let Some(e) = gpu.channel_error(self.chid) {
                return Err(e);
            }
            if !self.gp_ring.is_full(self.gp_get, self.gp_put)
                && let Some(at) = self.pb_space(n)
            {
                break at;
            }
            self.reclaim(gpu)?;
            if !self.gp_ring.is_full(self.gp_get, self.gp_put) && self.pb_space(n).is_some() {
                continue;
            }
            gpu.service_interrupts();
            // The rings may be full of work waiting for a host function, or for pages the
            // fault service makes present (it takes no context lock for those: this
            // thread holds its context's).
            if gpu.run_host_work(None) {
                continue;
            }
            // Then the device runs on (a service another thread runs may be waiting for it).
            let waiting = &gpu.chan_waiting[self.chid as usize % gpu.chan_waiting.len()];
            waiting.store(true, Ordering::Release);
            gpu.service_replays();
            // So do the other GPUs' (this channel's work may wait for theirs: the other
            // parts of a launch on one logical GPU).
            gpu.serve_others();
            waiting.store(false, Ordering::Release);
            let epoch = gpu.host_epoch();
            if gpu.advance(false) == Activity::Idle {
                self.reclaim(gpu)?;
                if (self.gp_ring.is_full(self.gp_get, self.gp_put) || self.pb_space(n).is_none())
                    && !gpu.host_moved(epoch)
                {
                    gpu.service_interrupts();
                    return Err(gpu.channel_error(self.chid).unwrap_or(CuError::LaunchTimeout));
                }
            }
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        self.pb.mem.write(at as usize * 4, &bytes).map_err(|_| CuError::Unknown)?;
        let entry = GpEntry::segment(self.pb_va + at as u64 * 4, n);
        self.gp
            .mem
            .store_u64(self.gp_put as usize * 8, entry.into(), Ordering::Relaxed)
            .map_err(|_| CuError::Unknown)?;
        self.segs.push_back(at + n);
        self.pb_put = if at + n == self.pb_words { 0 } else { at + n };
        self.gp_put = self.gp_ring.advance(self.gp_put, 1);
        // The pushbuffer and GPFIFO writes must be visible before the doorbell.
        fence(Ordering::Release);
        gpu.bar1_write(self.userd_bar1 + USERD_GP_PUT as u64, self.gp_put);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn fence_reconstruction_crosses_2_pow_32() {
        // Mirror of Channel::completed's arithmetic.
        let step = |completed: u64, lo: u32| {
            let d = lo.wrapping_sub(completed as u32);
            if (d as i32) > 0 { completed + d as u64 } else { completed }
        };
        let c = (1u64 << 32) - 3;
        assert_eq!(step(c, 2), (1 << 32) + 2);
        assert_eq!(step(c, (c - 1) as u32), c); // stale value never goes backwards
        assert_eq!(step(5 << 32, 7), (5 << 32) + 7);
    }
}
