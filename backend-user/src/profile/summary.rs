//! The summary table of a run (`RGDEV_SUMMARY`, `rgdev run --summary`), as nvprof prints
//! it: time per kernel and per kind of copy, and per API call.

use super::Profile;
use super::host;
use crate::Device;

/// Count one call of `name` lasting `ns` in `rows`.
fn add_row(rows: &mut Vec<Row>, name: String, ns: u64) {
    match rows.iter_mut().find(|r| r.name == name) {
        Some(r) => {
            r.total += ns;
            r.calls += 1;
            r.min = r.min.min(ns);
            r.max = r.max.max(ns);
        }
        None => rows.push(Row { total: ns, calls: 1, min: ns, max: ns, name }),
    }
}

/// One row of the summary: total, calls, min, max (simulated ns) and the name.
struct Row {
    total: u64,
    calls: u64,
    min: u64,
    max: u64,
    name: String,
}

impl Profile {
    /// nvprof's "GPU activities" table (`nsys stats` reads alike): kernels by name and copies
    /// by kind, each with its share of the GPU's busy time, total, calls, average, minimum
    /// and maximum, in simulated time, the largest first; CSV (times in ns) when `csv`.
    pub fn summary_text(&self, gpus: &[Device], csv: bool) -> String {
        let cfg_of = |g: u32| gpus[g as usize].config();
        let mut gpu: Vec<Row> = Vec::new();
        for ((name, k), &g) in self.kernels.iter().zip(&self.kernel_gpu) {
            add_row(&mut gpu, name.clone(), cfg_of(g).cycles_to_ns(k.cycles()));
        }
        for ((c, &g), &migration) in self.copies.iter().zip(&self.copy_gpu).zip(&self.copy_migration) {
            let what = match c.kind.name() {
                "Memset" => "[CUDA memset]".to_string(),
                // nvprof's name for what the driver moves for managed memory.
                k if migration => format!("[Unified Memory Memcpy {k}]"),
                k => format!("[CUDA memcpy {k}]"),
            };
            add_row(&mut gpu, what, cfg_of(g).cycles_to_ns(c.end_cycle - c.start_cycle));
        }
        let cfg = cfg_of(0);
        // nvprof's "API calls": each Driver API entry point's calls, in simulated time (host
        // code takes none: a call lasts as long as it waited for the device).
        let mut api: Vec<Row> = Vec::new();
        {
            let h = host::records();
            for c in &h.calls {
                let ns = cfg.cycles_to_ns(c.end).saturating_sub(cfg.cycles_to_ns(c.start));
                add_row(&mut api, c.name.to_string(), ns);
            }
        }
        let mut out = String::new();
        use std::fmt::Write;
        if csv {
            let _ = writeln!(out, "Type,Time(%),Time (ns),Calls,Avg (ns),Min (ns),Max (ns),Name");
        } else {
            let what = match gpus.len() {
                1 => format!("{} preset", cfg.name),
                n => format!("{n} GPUs, {} preset", cfg.name),
            };
            let _ = writeln!(out, "==rgdev== Profiling result ({what}, simulated time):");
            let _ = writeln!(
                out,
                "{:>16} {:>8} {:>10} {:>8} {:>10} {:>10} {:>10}  Name",
                "Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max"
            );
        }
        for (label, mut rows) in [("GPU activities", gpu), ("API calls", api)] {
            rows.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.name.cmp(&b.name)));
            let all: u64 = rows.iter().map(|r| r.total).sum::<u64>().max(1);
            let pct = |r: &Row| 100.0 * r.total as f64 / all as f64;
            for (i, r) in rows.iter().enumerate() {
                if csv {
                    let name = r.name.replace('"', "\"\"");
                    let _ = writeln!(
                        out,
                        "{label},{:.2},{},{},{},{},{},\"{name}\"",
                        pct(r),
                        r.total,
                        r.calls,
                        r.total / r.calls,
                        r.min,
                        r.max
                    );
                    continue;
                }
                let kind = if i == 0 { format!("{label}:") } else { String::new() };
                let _ = writeln!(
                    out,
                    "{kind:>16} {:>7.2}% {:>10} {:>8} {:>10} {:>10} {:>10}  {}",
                    pct(r),
                    time(r.total),
                    r.calls,
                    time(r.total / r.calls),
                    time(r.min),
                    time(r.max),
                    r.name
                );
            }
            if rows.is_empty() && !csv && label == "GPU activities" {
                let _ = writeln!(out, "{:>16} (no kernels or copies)", "GPU activities:");
            }
        }
        out
    }
}

/// A duration as nvprof prints it: ns, us, ms or s with two decimals.
fn time(ns: u64) -> String {
    match ns {
        n if n < 1_000 => format!("{n}ns"),
        n if n < 1_000_000 => format!("{:.2}us", n as f64 / 1e3),
        n if n < 1_000_000_000 => format!("{:.2}ms", n as f64 / 1e6),
        n => format!("{:.2}s", n as f64 / 1e9),
    }
}
