//! `RGDEV_CHECK`: the sanitizers for a C program (`rgdev run --check TOOL`). The variable
//! names the checks, comma-separated (`memcheck`, `racecheck`, `initcheck`, `synccheck`,
//! or `all`). Findings are printed to stderr when the program synchronizes (a context,
//! stream or event synchronization, a synchronous device-to-host copy, a context's
//! destruction) and at exit, compute-sanitizer style, ending with an error summary.

use backend_user::{CheckMode, CtxHandle, UserDev};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static ON: AtomicBool = AtomicBool::new(false);
static ERRORS: AtomicU64 = AtomicU64::new(0);

/// The checks `RGDEV_CHECK` asks for (none when unset), or the name it does not know.
pub(crate) fn mode_from_env() -> Result<CheckMode, String> {
    let Ok(v) = std::env::var("RGDEV_CHECK") else { return Ok(CheckMode::new()) };
    let mut m = CheckMode::new();
    for name in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        m = match name {
            "memcheck" => m.with_memcheck(true),
            "racecheck" => m.with_racecheck(true),
            "initcheck" => m.with_initcheck(true),
            "synccheck" => m.with_synccheck(true),
            "all" => m.with_memcheck(true).with_racecheck(true).with_initcheck(true).with_synccheck(true),
            other => return Err(other.to_string()),
        };
    }
    Ok(m)
}

/// Announce the checks (once, at cuInit) and print the summary at exit.
pub(crate) fn start(m: CheckMode) {
    if u32::from(m) == 0 {
        return;
    }
    let names: Vec<&str> = [
        (m.memcheck(), "memcheck"),
        (m.racecheck(), "racecheck"),
        (m.initcheck(), "initcheck"),
        (m.synccheck(), "synccheck"),
    ]
    .into_iter()
    .filter_map(|(on, n)| on.then_some(n))
    .collect();
    eprintln!("========= RGDEV-SANITIZER ({})", names.join(", "));
    ON.store(true, Ordering::Release);
    crate::raw::at_exit(summary);
}

/// Print context `h`'s findings so far.
pub(crate) fn flush(gpu: &UserDev, h: CtxHandle) {
    if !ON.load(Ordering::Acquire) {
        return;
    }
    let Ok((reports, dropped)) = gpu.check_reports(h) else { return };
    for r in &reports {
        eprintln!("{r}\n=========");
        ERRORS.fetch_add(r.record.count.max(1) as u64, Ordering::Relaxed);
    }
    if dropped > 0 {
        eprintln!("========= {dropped} more findings did not fit the report buffer\n=========");
        ERRORS.fetch_add(dropped as u64, Ordering::Relaxed);
    }
}

/// Whether the sanitizers are on.
pub(crate) fn on() -> bool {
    ON.load(Ordering::Acquire)
}

extern "C" fn summary() {
    if let Ok(st) = crate::state::state() {
        let gpus: Vec<_> = st.devices().map(|d| d.gpu().clone()).collect();
        drop(st);
        for gpu in gpus {
            for h in gpu.contexts() {
                let _ = gpu.ctx_synchronize(h);
                flush(&gpu, h);
            }
        }
    }
    let n = ERRORS.load(Ordering::Relaxed);
    eprintln!("========= ERROR SUMMARY: {n} error{}", if n == 1 { "" } else { "s" });
}
