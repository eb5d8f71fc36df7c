//! Channels: ids, USERD, binding an instance block, the runlist, and each channel's error.

use super::{Device, GpuState};
use crate::error::{CuError, Result};
use crate::platform::Platform;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use hw::regs::*;

impl<P: Platform> Device<P> {
    pub(crate) fn chid_alloc(&self) -> Result<u32> {
        let mut st = self.state.lock();
        let free = !st.chids;
        if free == 0 {
            return Err(CuError::OutOfMemory);
        }
        let chid = free.trailing_zeros();
        st.chids |= 1 << chid;
        Ok(chid)
    }

    pub(crate) fn chid_free(&self, chid: u32) {
        self.state.lock().chids &= !(1u128 << chid);
    }

    /// Record where USERD lies (every channel's page, [`USERD_STRIDE`] apart): in VRAM, and
    /// where BAR1 maps it (the memory layer's BAR1 bring-up).
    pub(crate) fn set_userd(&mut self, vram: u64, bar1: u64) {
        self.userd_vram = vram;
        self.userd_bar1 = bar1;
    }

    /// USERD of `chid`: (VRAM address, BAR1 offset).
    pub(crate) fn userd(&self, chid: u32) -> (u64, u64) {
        let off = chid as u64 * USERD_STRIDE as u64;
        (self.userd_vram + off, self.userd_bar1 + off)
    }

    /// Bind `chid` to instance block `inst` and add it to the runlist.
    pub(crate) fn channel_bind(&self, chid: u32, inst: u64) -> Result<()> {
        self.chan_err[chid as usize].store(0, Ordering::Release);
        self.chan_inst[chid as usize].store(inst, Ordering::Release);
        let e = PfifoChanInst::new().with_inst((inst >> 12) as u32).with_target(Target::Vram).with_valid(true);
        self.wr(NV_PFIFO_CHAN_INST, chid, e);
        self.wr(NV_PFIFO_CHAN_STATE, chid, PfifoChanState::nouveau_enable());
        let mut st = self.state.lock();
        st.active.push(chid);
        self.runlist_update(&mut st)
    }

    /// Preempt `chid`, unbind it and remove it from the runlist.
    pub(crate) fn channel_unbind(&self, chid: u32) -> Result<()> {
        let mut st = self.state.lock();
        st.active.retain(|&c| c != chid);
        let r = self.runlist_update(&mut st);
        drop(st);
        self.wr(NV_PFIFO_PREEMPT, 0, PfifoPreempt::new().with_chid(chid as u8));
        let p = self.wait_reg(NV_PFIFO_PREEMPT, 0, PfifoPreempt::new().with_pending(true).into(), 0);
        self.wr(NV_PFIFO_CHAN_STATE, chid, PfifoChanState::new());
        self.wr(NV_PFIFO_CHAN_INST, chid, PfifoChanInst::new());
        self.chan_inst[chid as usize].store(0, Ordering::Release);
        r.and(p)
    }

    fn runlist_update(&self, st: &mut GpuState) -> Result<()> {
        st.flip ^= 1;
        let buf = st.runlist[st.flip];
        let words: Vec<u32> = st.active.iter().flat_map(|&chid| RunlistEntry { chid }.encode()).collect();
        self.pramin_write(buf, words)?;
        let base = PfifoRunlistBase::new().with_addr((buf >> 12) as u32).with_target(Target::Vram);
        self.wr(NV_PFIFO_RUNLIST_BASE, 0, base);
        self.wr(NV_PFIFO_RUNLIST_SUBMIT, 0, st.active.len() as u32);
        self.wait_reg(NV_PFIFO_RUNLIST_STATUS, 0, PfifoRunlistStatus::new().with_pending(true).into(), 0)
    }

    /// The sticky error of channel `chid`, if any.
    pub(crate) fn channel_error(&self, chid: u32) -> Option<CuError> {
        CuError::from_code(self.chan_err[chid as usize].load(Ordering::Acquire))
    }

    pub(super) fn set_channel_error(&self, chid: u32, e: CuError) {
        let _ = self.chan_err[chid as usize].compare_exchange(0, e.code(), Ordering::AcqRel, Ordering::Acquire);
    }
}
