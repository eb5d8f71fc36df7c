//! Waiting for the device: the loop every wait runs (interrupts, parked accesses made
//! present, host functions whose turn has come, the system's other GPUs), and the host
//! functions streams wait for (cuLaunchHostFunc, cuStreamAddCallback). While a host
//! function runs on one thread, no other thread's wait advances the device.
//!
//! A host function also runs when no thread waits: the platform's clock owner (a thread
//! of the user-space platform) reads the device's [`Watch`], and when host functions are
//! queued, no thread has waited, polled or submitted for a while and the threads that use
//! the device are all blocked, it runs [`Device::serve_host_work`]: the same loop, until
//! the host functions queued then have run (cuda-samples' simpleCallback waits for its
//! callbacks on a host barrier).

use crate::device::Device;
use crate::error::{CuError, Result};
use crate::platform::{Activity, Level, Platform};
use crate::rlog;
use alloc::boxed::Box;
use alloc::vec::Vec;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A host function a channel waits for (cuLaunchHostFunc, cuStreamAddCallback): the
/// channel's pushbuffer holds a semaphore acquire that `run` releases after the function.
pub(crate) struct HostWork {
    /// The channel that waits.
    pub(crate) chid: u32,
    /// Its place in the device's queue (set when queued: see [`Device::serve_host_work`]).
    pub(crate) seq: u64,
    /// Whether the work queued before it is done.
    pub(crate) ready: Box<dyn Fn() -> bool + Send>,
    /// The function, given the channel's error if it faulted instead; then the release.
    pub(crate) run: Box<dyn FnOnce(Option<CuError>) + Send>,
}

/// What a device's clock owner reads without holding the device: host functions queued,
/// how often threads began to wait, poll or submit, and how many are inside a wait now.
/// Nothing here decides a result: it tells the owner when no thread will run the host
/// functions (see [`Device::serve_host_work`]).
#[derive(Debug, Default)]
pub struct Watch {
    queued: AtomicU32,
    activity: AtomicU64,
    stepping: AtomicU32,
}

impl Watch {
    /// Host functions queued and not yet taken to run.
    pub fn queued(&self) -> u32 {
        self.queued.load(Ordering::Acquire)
    }

    /// Waits, polls and submissions begun so far (a count that moves while threads use
    /// the device).
    pub fn activity(&self) -> u64 {
        self.activity.load(Ordering::Acquire)
    }

    /// Threads inside a wait or a submission now (they run host functions whose turn
    /// comes).
    pub fn stepping(&self) -> u32 {
        self.stepping.load(Ordering::Acquire)
    }
}

/// A thread inside a wait, a poll or a submission, counted in the device's [`Watch`] while
/// it lives.
pub(crate) struct Stepping<'a>(&'a Watch);

impl Drop for Stepping<'_> {
    fn drop(&mut self) {
        self.0.stepping.fetch_sub(1, Ordering::AcqRel);
    }
}

impl<P: Platform> Device<P> {
    /// Queue host work (see [`HostWork`]).
    pub(crate) fn host_work_push(&self, mut w: HostWork) {
        let mut q = self.host_work.lock();
        w.seq = self.host_seq.fetch_add(1, Ordering::AcqRel);
        q.push(w);
        self.watch.queued.fetch_add(1, Ordering::AcqRel);
    }

    /// What the clock's owner watches (see [`Watch`]).
    pub fn watch(&self) -> &alloc::sync::Arc<Watch> {
        &self.watch
    }

    /// Count this thread as using the device until the guard drops (see [`Watch`]).
    pub(crate) fn stepping(&self) -> Stepping<'_> {
        self.watch.activity.fetch_add(1, Ordering::AcqRel);
        self.watch.stepping.fetch_add(1, Ordering::AcqRel);
        Stepping(&self.watch)
    }

    /// Run the host functions queued now, as a thread waiting for all of them would: the
    /// device runs until each one's earlier work is done (or its channel faults) and the
    /// function has run, or until the device is idle and none can (one waits for work no
    /// one has queued yet). The clock owner's service (see the module's header); a program
    /// whose threads all block until a host function runs gets it run. Whether any was
    /// queued.
    pub fn serve_host_work(&self) -> bool {
        let end = self.host_seq.load(Ordering::Acquire);
        let pending = || self.host_work.lock().iter().any(|w| w.seq < end);
        if !pending() {
            return false;
        }
        let _ = self.wait_loop(None, || !pending());
        true
    }

    /// Run the host work whose channel's earlier work is done (or whose channel faulted:
    /// the function learns the error), in the order it was queued, on this thread, with
    /// no lock held and the device standing still (nothing advances it while this thread
    /// is busy here, in the stepped clock): where in simulated time a host function runs
    /// never depends on how long it takes. `only` limits it to one channel's work, which
    /// runs whatever its state (the channel is going away). Whether any ran.
    pub(crate) fn run_host_work(&self, only: Option<(u32, CuError)>) -> bool {
        let due = {
            let _clock = self.clock.lock();
            self.take_due(only)
        };
        self.run_due(due)
    }

    /// Take the host work that is due (see [`Device::run_host_work`]), counted as running
    /// before the queue's lock goes: no wait sees neither. The caller holds the clock.
    fn take_due(&self, only: Option<(u32, CuError)>) -> Vec<(HostWork, Option<CuError>)> {
        let mut q = self.host_work.lock();
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
        self.watch.queued.fetch_sub(due.len() as u32, Ordering::AcqRel);
        self.host_running.fetch_add(due.len() as u32, Ordering::AcqRel);
        self.host_epoch.fetch_add(due.len() as u64, Ordering::AcqRel);
        due
    }

    /// Run host work [`Device::take_due`] took, in order; whether there was any.
    fn run_due(&self, due: Vec<(HostWork, Option<CuError>)>) -> bool {
        let ran = !due.is_empty();
        for (w, err) in due {
            (w.run)(err);
            self.host_epoch.fetch_add(1, Ordering::AcqRel);
            self.host_running.fetch_sub(1, Ordering::AcqRel);
        }
        ran
    }

    /// Advance the device one step of the clock: the platform's `poll` (a little) or
    /// `yield_now` (a quantum). Every thread steps through here under the clock's lock, and
    /// a step first takes the host work whose turn has come (then runs it, after the lock,
    /// instead of stepping): however many threads wait, a host function's release comes at
    /// the first step after its turn, so where it lands in simulated time does not depend
    /// on which thread stepped. While a host function runs the device stands still.
    pub(crate) fn advance(&self, poll: bool) -> Activity {
        let due = {
            let _clock = self.clock.lock();
            let due = self.take_due(None);
            if due.is_empty() {
                if self.host_work_running() {
                    // Another thread runs a host function: the device stands still until
                    // it returns, however long it takes the host, so that where in
                    // simulated time anything happens never depends on it.
                    drop(_clock);
                    self.platform.relax();
                    return Activity::Progress;
                }
                return if poll {
                    self.platform.poll();
                    Activity::Progress
                } else {
                    self.platform.yield_now()
                };
            }
            due
        };
        self.run_due(due);
        Activity::Progress
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
    pub(crate) fn wait_for(&self, chid: u32, done: impl FnMut() -> bool) -> Result<()> {
        self.wait_loop(Some(chid), done)
    }

    /// [`Device::wait_for`], for channel `chid` or (None) for no channel: then no fault
    /// ends it, and a device idle before `done()` ends it quietly.
    fn wait_loop(&self, chid: Option<u32>, mut done: impl FnMut() -> bool) -> Result<()> {
        let _stepping = self.stepping();
        let failed =
            |c: Option<u32>| c.and_then(|c| self.channel_error(c).or_else(|| self.linked.get().and_then(|l| l(c))));
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
            if let Some(e) = failed(chid) {
                return Err(e);
            }
            if ran {
                continue;
            }
            // While another thread runs a host function the step stands still (see
            // `advance`): its release may be what this waits for.
            let epoch = self.host_epoch();
            match self.advance(false) {
                Activity::Idle => {
                    if done() || self.run_host_work(None) || self.service_replays() || self.serve_others() {
                        continue;
                    }
                    self.service_interrupts();
                    if failed(chid).is_some() {
                        continue; // reported above, after the host work it strands
                    }
                    if self.host_moved(epoch) {
                        continue; // another thread's host function: its release comes
                    }
                    if let Some(chid) = chid {
                        rlog!(
                            &self.platform,
                            Level::Error,
                            "channel {chid}: device idle but the wait can never complete"
                        );
                    }
                    return Err(CuError::LaunchTimeout);
                }
                Activity::Progress => {}
            }
        }
    }
}
