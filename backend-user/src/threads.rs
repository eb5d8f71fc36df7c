//! The host threads that use a device, and whether they are all blocked: what the clock's
//! owner (`owner.rs`) asks before it runs host functions no thread waits for. Linux tells
//! a thread's state in `/proc/self/task/<tid>/stat`; elsewhere no thread is known, and the
//! owner goes by the device's quiet alone.

use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    /// This thread's id (0: not known yet; `u32::MAX`: not to be known).
    static TID: Cell<u32> = const { Cell::new(0) };
    /// The last set this thread was noted in (its number): noting again costs nothing.
    static NOTED_IN: Cell<u64> = const { Cell::new(0) };
}

/// The ids of the host threads that used a device (submitted, waited or polled).
#[derive(Debug)]
pub struct Threads {
    /// This set's number (sets are numbered from 1 in the order they are made).
    id: u64,
    tids: Mutex<Vec<u32>>,
}

impl Default for Threads {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self { id: NEXT.fetch_add(1, Ordering::Relaxed), tids: Mutex::default() }
    }
}

/// This thread's id, from `/proc/thread-self` (`PID/task/TID`); None where there is none.
fn current_tid() -> Option<u32> {
    TID.with(|t| {
        if t.get() == 0 {
            let id = std::fs::read_link("/proc/thread-self")
                .ok()
                .and_then(|p| p.file_name().and_then(|n| n.to_str()).and_then(|n| n.parse().ok()))
                .unwrap_or(u32::MAX);
            t.set(id);
        }
        (t.get() != u32::MAX).then(|| t.get())
    })
}

/// This thread is the clock's owner: it is never noted (it runs the host functions the
/// others wait for).
pub(crate) fn not_noted() {
    TID.with(|t| t.set(u32::MAX));
}

impl Threads {
    /// Note the calling thread as one that uses the device.
    pub fn note(&self) {
        let me = self.id;
        if NOTED_IN.with(|n| n.get()) == me {
            return;
        }
        if let Some(tid) = current_tid() {
            let mut t = self.tids.lock();
            if !t.contains(&tid) {
                t.push(tid);
            }
        }
        NOTED_IN.with(|n| n.set(me));
    }

    /// Whether every noted thread is blocked in the operating system (sleeping on a lock,
    /// a condition, a barrier, I/O) or gone, none running or ready to run. Threads that
    /// are gone are forgotten.
    pub fn all_blocked(&self) -> bool {
        let mut t = self.tids.lock();
        let mut blocked = true;
        t.retain(|tid| match std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")) {
            Err(_) => false,
            Ok(stat) => {
                // `tid (comm) S ...`: the state follows the last parenthesis.
                let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
                blocked &= !matches!(state, Some('R'));
                true
            }
        });
        blocked
    }
}

#[cfg(test)]
mod tests {
    use super::Threads;
    use std::sync::{Arc, Barrier};

    #[test]
    fn a_thread_blocked_on_a_barrier_is_blocked_and_a_running_one_is_not() {
        let t = Arc::new(Threads::default());
        let (b, stop) = (Arc::new(Barrier::new(2)), Arc::new(std::sync::atomic::AtomicBool::new(false)));
        let (t2, b2) = (t.clone(), b.clone());
        let h = std::thread::spawn(move || {
            t2.note();
            b2.wait(); // noted
            b2.wait(); // blocked here while the test looks
        });
        b.wait();
        std::thread::sleep(std::time::Duration::from_millis(50));
        if std::path::Path::new("/proc/thread-self").exists() {
            assert!(t.all_blocked(), "a thread waiting on a barrier");
        }
        b.wait();
        h.join().unwrap();
        assert!(t.all_blocked(), "a thread that is gone");
        assert!(t.tids.lock().is_empty(), "forgotten");
        let (t3, s3) = (t.clone(), stop.clone());
        let h = std::thread::spawn(move || {
            t3.note();
            while !s3.load(std::sync::atomic::Ordering::Relaxed) {
                std::hint::spin_loop();
            }
        });
        while t.tids.lock().is_empty() && std::path::Path::new("/proc/thread-self").exists() {
            std::thread::yield_now();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        if std::path::Path::new("/proc/thread-self").exists() {
            assert!(!t.all_blocked(), "a spinning thread");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        h.join().unwrap();
    }
}
