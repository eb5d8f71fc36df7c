//! The driver's side of replayable faults (the device's NV_PFB_REPLAY_* and its fault
//! buffer, `hw::replay`): a fault buffer in DMA memory, contexts created replayable
//! (INST_PD_LO `replayable`), and the service that waiting threads run: read the records
//! the device wrote, hand them to the handler the runtime's user installed (it makes the
//! pages present: maps memory, migrates pages), then replay the parked accesses, or cancel
//! them when the handler cannot serve them (their grids fail with the fault).
//!
//! The service runs only from the wait loops that hold no context's lock
//! (`Device::wait_for`), so a handler may call the runtime.

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::{DmaBuffer, Platform};
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicBool, Ordering};
use hw::regs::*;
use hw::replay::{ENTRY_BYTES, Entry};
use lock_api::Mutex;

/// What serves replayable faults: true when every page is now present (replay), false to
/// cancel the parked accesses.
pub type Handler = Arc<dyn Fn(&[Entry]) -> bool + Send + Sync>;

/// What holds the service off on the calling thread: true while that thread holds what the
/// handler needs (the handler's own lock, around a wait for a migration).
pub type Hold = alloc::boxed::Box<dyn Fn() -> bool + Send + Sync>;

/// The fault buffer and its handler.
pub(crate) struct Service {
    buf: DmaBuffer,
    entries: u32,
    handler: Handler,
}

/// Per device: the service once enabled, and whether contexts are created replayable.
pub(crate) struct Replay<P: Platform> {
    service: Mutex<P::RawMutex, Option<Service>>,
    pub(crate) on: AtomicBool,
    /// A service is running (a handler that waits for the device does not serve again
    /// from inside its own wait).
    busy: AtomicBool,
    /// See [`Hold`]: the parked accesses wait for a later service.
    pub(crate) hold: spin::Once<Hold>,
}

impl<P: Platform> Replay<P> {
    pub(crate) fn new() -> Self {
        let (on, busy) = (AtomicBool::new(false), AtomicBool::new(false));
        Self { service: Mutex::new(None), on, busy, hold: spin::Once::new() }
    }
}

impl<P: Platform> Device<P> {
    /// Enable replayable faults: a fault buffer of `entries` records, `handler` to serve
    /// them; contexts created from now on are replayable.
    pub(crate) fn replay_enable(&self, entries: u32, handler: Handler) -> Result<()> {
        if !(2..=0xFFFF).contains(&entries) {
            return Err(CuError::InvalidValue);
        }
        let buf = self.platform.dma_alloc(entries as usize * ENTRY_BYTES)?;
        self.wr(NV_PFB_REPLAY_BUFFER_LO, 0, buf.bus as u32);
        self.wr(NV_PFB_REPLAY_BUFFER_HI, 0, (buf.bus >> 32) as u32);
        self.wr(NV_PFB_REPLAY_GET, 0, 0);
        self.wr(
            NV_PFB_REPLAY_BUFFER_SIZE,
            0,
            PfbReplayBufferSize::new().with_entries(entries as u16).with_enable(true),
        );
        self.wr(NV_PFB_REPLAY_INTR_EN, 0, PfbReplayIntr::new().with_fault(true).with_overflow(true));
        if let Some(old) = self.replay.service.lock().replace(Service { buf, entries, handler }) {
            self.platform.dma_free(&old.buf);
        }
        self.replay.on.store(true, Ordering::Release);
        Ok(())
    }

    /// Serve the replayable faults the device recorded; true if there were any (the
    /// parked accesses were replayed or cancelled: the device has work again).
    pub(crate) fn service_replays(&self) -> bool {
        if !self.replay.on.load(Ordering::Acquire) || self.replay.hold.get().is_some_and(|held| held()) {
            return false;
        }
        let raw = self.rd(NV_PFB_REPLAY_INTR, 0);
        let intr = PfbReplayIntr::from(raw);
        if !(intr.fault() || intr.overflow()) || raw == BAD_READ {
            return false;
        }
        if self.replay.busy.swap(true, Ordering::AcqRel) {
            // Another thread serves them (or this one, from a wait inside its handler):
            // the parked work goes on once it is done.
            return true;
        }
        struct Done<'a>(&'a AtomicBool);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _done = Done(&self.replay.busy);
        self.serve(intr)
    }

    /// [`Device::service_replays`] once it is this thread's to run.
    fn serve(&self, intr: PfbReplayIntr) -> bool {
        let (records, handler) = {
            let s = self.replay.service.lock();
            let Some(s) = s.as_ref() else { return false };
            let put = self.rd(NV_PFB_REPLAY_PUT, 0) % s.entries;
            let mut get = self.rd(NV_PFB_REPLAY_GET, 0) % s.entries;
            let mut records = Vec::new();
            let mut raw = [0u8; ENTRY_BYTES];
            while get != put {
                let at = get as usize * ENTRY_BYTES;
                if s.buf.mem.read(at, &mut raw).is_ok()
                    && let Some(e) = Entry::decode(&raw)
                {
                    records.push(e);
                }
                // The slot is software's again: clear its valid word.
                let _ = s.buf.mem.write(at + ENTRY_BYTES - 4, &[0; 4]);
                get = (get + 1) % s.entries;
            }
            self.wr(NV_PFB_REPLAY_GET, 0, get);
            self.wr(NV_PFB_REPLAY_INTR, 0, intr);
            (records, s.handler.clone())
        };
        // Records the buffer had no room for come back when their warps retry.
        let ok = handler(&records);
        self.wr(NV_PFB_REPLAY, 0, PfbReplay::new().with_replay(ok).with_cancel(!ok));
        true
    }
}
