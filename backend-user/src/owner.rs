//! The clock's owner: one thread of the process that runs the host functions no thread
//! waits for (cuLaunchHostFunc, cuStreamAddCallback). In the stepped clock the device
//! advances only while a host thread waits, polls or submits, so a program that queues a
//! callback and then blocks until it runs (on a host barrier, as cuda-samples'
//! simpleCallback does) would wait forever. The owner looks at each device every
//! [`TICK`]: when host functions are queued, no thread is inside a wait or a submission,
//! none began one for a whole tick, and every thread that used the device is blocked in
//! the operating system, it serves them (`Device::serve_host_work`: the device runs as it
//! would for a thread waiting for them, the functions run on the owner's thread).
//!
//! Where in simulated time the host functions run does not depend on the owner: it runs
//! the same loop a waiting thread runs. What the owner cannot make deterministic is a
//! program that submits more work from another thread while the owner serves (as with
//! any two host threads, one waiting while the other submits); a program that queues its
//! work and then blocks gets the same cycles every run.

use crate::UserGpu;
use crate::threads::Threads;
use parking_lot::Mutex;
use runtime_core::Watch;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the owner looks (host time: it decides only when host functions run for a
/// program that has stopped using the device, never where in simulated time).
pub const TICK: Duration = Duration::from_millis(5);

/// A device the owner looks after.
struct Watched {
    watch: Arc<Watch>,
    threads: Arc<Threads>,
    gpu: Weak<UserGpu>,
    /// The device's activity count when the owner last looked, while host functions were
    /// queued.
    seen: Option<u64>,
}

static WATCHED: Mutex<Vec<Watched>> = Mutex::new(Vec::new());

/// Look after `gpu` from now on (until it is dropped).
pub(crate) fn watch(gpu: &Arc<UserGpu>) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    WATCHED.lock().push(Watched {
        watch: gpu.watch().clone(),
        threads: gpu.platform().threads().clone(),
        gpu: Arc::downgrade(gpu),
        seen: None,
    });
    STARTED.call_once(|| {
        // Without the thread, host functions still run on waiting threads, as before.
        let _ = std::thread::Builder::new().name("rgdev-clock".into()).spawn(run);
    });
}

fn run() {
    crate::threads::not_noted();
    loop {
        std::thread::sleep(TICK);
        let due: Vec<Weak<UserGpu>> = {
            let mut w = WATCHED.lock();
            w.retain(|d| d.gpu.strong_count() > 0);
            w.iter_mut().filter_map(|d| d.due().then(|| d.gpu.clone())).collect()
        };
        for gpu in due {
            if let Some(g) = gpu.upgrade() {
                g.serve_host_work();
            }
        }
    }
}

impl Watched {
    /// Whether the device's queued host functions are the owner's to run now.
    fn due(&mut self) -> bool {
        let w = &self.watch;
        if w.queued() == 0 || w.stepping() != 0 {
            self.seen = None;
            return false;
        }
        let now = w.activity();
        if self.seen.replace(now) != Some(now) {
            return false; // a thread used the device since the last look
        }
        // Not while a thread computes: it may be about to wait or to submit.
        self.threads.all_blocked()
    }
}
