//! Timing shared by the benchmarks.

use std::time::{Duration, Instant};

/// The fastest of `reps` runs of `f` (the least disturbed by a noisy machine).
pub fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}
