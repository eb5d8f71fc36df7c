//! Host-side cost of the memory and fence path, as ratios against a baseline measured in
//! the same run (machines here are noisy): 64 MiB host->device and device->host copies
//! against a plain host memcpy of 64 MiB, and the host cost of one fence round trip
//! (submit + wait) in both clock modes. Run: `cargo bench -p backend-user --bench throughput`.

use backend_user::{ClockMode, Device, DeviceOptions};
#[path = "common/mod.rs"]
mod common;

use common::best;
use std::hint::black_box;
use std::time::{Duration, Instant};

const N: usize = 64 << 20;
const REPS: usize = 5;

fn gbs(d: Duration) -> f64 {
    N as f64 / d.as_secs_f64() / 1e9
}

fn fence_us(clock: ClockMode) -> (f64, f64) {
    let dev = Device::open_with(DeviceOptions { clock, ..Default::default() }).unwrap();
    let ctx = dev.create_context().unwrap();
    let rounds = 20_000;
    for _ in 0..1000 {
        let f = ctx.fence().unwrap();
        ctx.wait(f).unwrap();
    }
    let t = Instant::now();
    let s0 = dev.time_ns();
    for _ in 0..rounds {
        let f = ctx.fence().unwrap();
        ctx.wait(f).unwrap();
    }
    let host = t.elapsed().as_secs_f64() * 1e6 / rounds as f64;
    let sim = (dev.time_ns() - s0) as f64 / 1e3 / rounds as f64;
    (host, sim)
}

fn main() {
    let src: Vec<u8> = (0..N).map(|i| (i * 31 + 7) as u8).collect();
    let mut dst = vec![0u8; N];
    let memcpy = best(REPS, || {
        dst.copy_from_slice(black_box(&src));
        black_box(&dst);
    });

    let dev = Device::open().unwrap();
    let ctx = dev.create_context().unwrap();
    let mut buf = ctx.alloc::<u8>(N).unwrap();
    let t0 = dev.time_ns();
    let h2d = best(REPS, || buf.copy_from(&src).unwrap());
    let h2d_sim = (dev.time_ns() - t0) / REPS as u64;
    let t0 = dev.time_ns();
    let d2h = best(REPS, || buf.copy_to(&mut dst).unwrap());
    let d2h_sim = (dev.time_ns() - t0) / REPS as u64;
    assert!(dst == src, "the copies must be exact");

    let (stepped_host, stepped_sim) = fence_us(ClockMode::Stepped);
    let (threaded_host, _) = fence_us(ClockMode::Threaded);

    println!("rgdev memory and fence path ({} MiB copies, best of {REPS})", N >> 20);
    println!("| measurement | host time | throughput | vs host memcpy | simulated |");
    println!("|---|---|---|---|---|");
    println!(
        "| host memcpy 64 MiB (baseline) | {:.2} ms | {:.2} GB/s | 1.00x | - |",
        memcpy.as_secs_f64() * 1e3,
        gbs(memcpy)
    );
    for (what, d, sim) in [("host->device", h2d, h2d_sim), ("device->host", d2h, d2h_sim)] {
        let (ms, ratio) = (d.as_secs_f64() * 1e3, d.as_secs_f64() / memcpy.as_secs_f64());
        println!(
            "| {what} 64 MiB | {ms:.2} ms | {:.2} GB/s | {ratio:.1}x slower | {:.2} ms |",
            gbs(d),
            sim as f64 / 1e6
        );
    }
    println!("| fence round trip, stepped clock | {stepped_host:.2} us | - | - | {stepped_sim:.3} us |");
    println!("| fence round trip, device thread | {threaded_host:.2} us | - | - | - |");
}
