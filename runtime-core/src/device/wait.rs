//! Waiting for the device: the loop every wait runs (interrupts, parked accesses made
//! present, host functions whose turn has come, the system's other GPUs), and the host
//! functions streams wait for (cuLaunchHostFunc, cuStreamAddCallback). While a host
//! function runs on one thread, no other thread's wait advances the device.

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::{Activity, Level, Platform};
use crate::rlog;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;

/// A host function a channel waits for (cuLaunchHostFunc, cuStreamAddCallback): the
/// channel's pushbuffer holds a semaphore acquire that `run` releases after the function.
pub(crate) struct HostWork {
    /// The channel that waits.
    pub(crate) chid: u32,
    /// Whether the work queued before it is done.
    pub(crate) ready: Box<dyn Fn() -> bool + Send>,
    /// The function, given the channel's error if it faulted instead; then the release.
    pub(crate) run: Box<dyn FnOnce(Option<CuError>) + Send>,
}

impl<P: Platform> Device<P> {
    /// Queue host work (see [`HostWork`]).
    pub(crate) fn host_work_push(&self, w: HostWork) {
        self.host_work.lock().push(w);
    }

    /// Run the host work whose channel's earlier work is done (or whose channel faulted:
    /// the function learns the error), in the order it was queued, on this thread, with
    /// no lock held and the device standing still (nothing advances it while this thread
    /// is busy here, in the stepped clock): where in simulated time a host function runs
    /// never depends on how long it takes. `only` limits it to one channel's work, which
    /// runs whatever its state (the channel is going away). Whether any ran.
    pub(crate) fn run_host_work(&self, only: Option<(u32, CuError)>) -> bool {
        let due: Vec<(HostWork, Option<CuError>)> = {
            let mut q = self.host_work.lock();
            if q.is_empty() {
                return false;
            }
            let mut due = Vec::new();
            let mut k = 0;
            while k < q.len() {
                let w = &q[k];
                let state = match only {
                    Some((chid, e)) if w.chid == chid => Some(self.channel_error(chid).or(Some(e))),
                    Some(_) => None,
                    None => match self.channel_error(w.chid) {
                        Some(e) => Some(Some(e)),
                        None if (w.ready)() => Some(None),
                        None => None,
                    },
                };
                match state {
                    Some(err) => due.push((q.remove(k), err)),
                    None => k += 1,
                }
            }
            // Counted as running before the queue's lock goes: no wait sees neither.
            self.host_running.fetch_add(due.len() as u32, Ordering::AcqRel);
            self.host_epoch.fetch_add(due.len() as u64, Ordering::AcqRel);
            due
        };
        let ran = !due.is_empty();
        for (w, err) in due {
            (w.run)(err);
            self.host_epoch.fetch_add(1, Ordering::AcqRel);
            self.host_running.fetch_sub(1, Ordering::AcqRel);
        }
        ran
    }

    /// Whether a host function is running now, on some thread (its release may be what a
    /// wait that finds the device idle is waiting for).
    pub(crate) fn host_work_running(&self) -> bool {
        self.host_running.load(Ordering::Acquire) != 0
    }

    /// How many host functions were taken or finished so far (see [`Device::host_moved`]).
    pub(crate) fn host_epoch(&self) -> u64 {
        self.host_epoch.load(Ordering::Acquire)
    }

    /// Whether a host function runs now, or one started or ended since `epoch`
    /// ([`Device::host_epoch`]): a wait that found the device idle goes on then, since the
    /// release it waits for may have come after the device looked.
    pub(crate) fn host_moved(&self, epoch: u64) -> bool {
        self.host_work_running() || self.host_epoch() != epoch
    }

    /// Serve the system's other GPUs, where the system has installed how (`Gpu::serve_also`
    /// in the API layer): true when that did something.
    pub(crate) fn serve_others(&self) -> bool {
        self.others.get().is_some_and(|f| f())
    }

    /// This GPU's interrupts, parked accesses and host work, served now (what a wait on
    /// another GPU of the system does for this one): true when something was done.
    pub(crate) fn serve_all(&self) -> bool {
        self.service_interrupts();
        let replayed = self.service_replays();
        self.run_host_work(None) | replayed
    }

    /// Wait until `done()` holds, servicing interrupts; fails with the channel's error if
    /// it faults (the device's watchdog, counted in simulated cycles, is such an error:
    /// CUDA_ERROR_LAUNCH_TIMEOUT, sticky), or with CUDA_ERROR_LAUNCH_TIMEOUT if the device
    /// is idle and can no longer get there. Host time never ends a wait: how long the host
    /// takes to simulate the work changes nothing about its result.
    pub(crate) fn wait_for(&self, chid: u32, mut done: impl FnMut() -> bool) -> Result<()> {
        loop {
            if done() {
                return Ok(());
            }
            self.service_interrupts();
            // Parked accesses made present go on.
            self.service_replays();
            // Before a fault ends the wait: host functions of faulted channels learn it.
            let ran = self.run_host_work(None);
            self.serve_others();
            if let Some(e) = self.channel_error(chid).or_else(|| self.linked.get().and_then(|l| l(chid))) {
                return Err(e);
            }
            if ran {
                continue;
            }
            if self.host_work_running() {
                // Another thread runs a host function: the device stands still until it
                // returns (its release may be what this waits for), however long it takes
                // the host, so that where in simulated time anything happens never
                // depends on it.
                core::hint::spin_loop();
                continue;
            }
            let epoch = self.host_epoch();
            match self.platform.yield_now() {
                Activity::Idle => {
                    if done() || self.run_host_work(None) || self.service_replays() || self.serve_others() {
                        continue;
                    }
                    self.service_interrupts();
                    if self.channel_error(chid).is_some() || self.linked.get().and_then(|l| l(chid)).is_some() {
                        continue; // reported above, after the host work it strands
                    }
                    if self.host_moved(epoch) {
                        continue; // another thread's host function: its release comes
                    }
                    rlog!(&self.platform, Level::Error, "channel {chid}: device idle but the wait can never complete");
                    return Err(CuError::LaunchTimeout);
                }
                Activity::Progress => {}
            }
        }
    }
}
