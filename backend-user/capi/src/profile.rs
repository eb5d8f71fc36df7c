//! What `rgdev run --stats-json FILE` and `--trace FILE.json` write: the device's records
//! of kernels and copies, with kernel names resolved through the functions the program
//! looked up, as statistics JSON and as a Chrome trace (Perfetto, chrome://tracing).

use backend_user::{CopyStats, Device, DeviceConfig, KernelStats, OccupancySample};
use fake_pci::config::CopyPath;
use runtime_core::LaunchId;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::PathBuf;

/// Environment variable: write per-kernel statistics as JSON to this file at exit.
pub const STATS_JSON: &str = "RGDEV_STATS_JSON";
/// Environment variable: write a Chrome trace to this file at exit.
pub const TRACE: &str = "RGDEV_TRACE";

/// Records gathered from the device, with names.
#[derive(Default)]
pub struct Profile {
    names: HashMap<LaunchId, String>,
    /// The same names by program address and entry alone: a kernel looked up on one
    /// channel (the context's default stream) runs on others too, its streams, at the same
    /// addresses (unique in the process under unified addressing).
    by_code: HashMap<(u64, u32), String>,
    kernels: Vec<(String, KernelStats)>,
    copies: Vec<CopyStats>,
    occupancy: Vec<OccupancySample>,
    /// Where the statistics go.
    pub json: Option<PathBuf>,
    /// Where the trace goes.
    pub trace: Option<PathBuf>,
}

impl Profile {
    /// From the environment; records occupancy on `dev` when a trace is wanted.
    pub fn from_env(dev: &Device) -> Self {
        let path = |k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let p = Self { json: path(STATS_JSON), trace: path(TRACE), ..Self::default() };
        if p.trace.is_some() {
            dev.sim().lock().trace_occupancy(true);
        }
        p
    }

    /// Whether anything is written at exit.
    pub fn wanted(&self) -> bool {
        self.json.is_some() || self.trace.is_some()
    }

    /// Remember the name of a kernel the program looked up.
    pub fn name(&mut self, id: LaunchId, name: &str) {
        self.names.insert(id, name.to_string());
        self.by_code.insert((id.code, id.entry), name.to_string());
    }

    /// Take the device's records (before a module or context goes away, so that names
    /// resolve to what they were when the kernels ran).
    pub fn collect(&mut self, dev: &Device) {
        if !self.wanted() {
            return;
        }
        let mut sim = dev.sim().lock();
        for k in sim.take_kernel_stats() {
            let id = LaunchId { chid: k.chid, code: k.code, entry: k.entry };
            let name = (self.names.get(&id).or_else(|| self.by_code.get(&(k.code, k.entry))).cloned())
                .unwrap_or_else(|| format!("kernel@{:#x}+{}", k.code, k.entry));
            self.kernels.push((name, k));
        }
        self.copies.extend(sim.take_copy_stats());
        self.occupancy.extend(sim.take_occupancy_samples());
    }

    /// Write the files asked for; errors go to stderr.
    pub fn write(&mut self, dev: &Device, cfg: &DeviceConfig) {
        self.collect(dev);
        if let Some(p) = &self.json
            && let Err(e) = std::fs::write(p, self.stats_json(cfg).to_string())
        {
            eprintln!("rgdev: {}: {e}", p.display());
        }
        if let Some(p) = &self.trace
            && let Err(e) = std::fs::write(p, self.chrome_trace(cfg).to_string())
        {
            eprintln!("rgdev: {}: {e}", p.display());
        }
    }

    /// One object per kernel and per copy.
    pub fn stats_json(&self, cfg: &DeviceConfig) -> Value {
        let kernels: Vec<Value> = self
            .kernels
            .iter()
            .map(|(name, k)| {
                json!({
                    "name": name,
                    "seq": k.seq,
                    "channel": k.chid,
                    "grid": k.grid,
                    "block": k.block,
                    "start_cycle": k.start_cycle,
                    "end_cycle": k.end_cycle,
                    "cycles": k.cycles(),
                    "time_ns": cfg.cycles_to_ns(k.cycles()),
                    "warp_instructions": k.warp_instructions,
                    "thread_instructions": k.thread_instructions,
                    "ipc": k.ipc(),
                    "blocks_per_sm": k.blocks_per_sm,
                    "achieved_occupancy": k.achieved_occupancy(),
                    "stalls": {
                        "dependency": k.stalls.dependency,
                        "pipe": k.stalls.pipe,
                        "control": k.stalls.control,
                        "barrier": k.stalls.barrier,
                    },
                    "l1_hits": k.l1_hits,
                    "l1_misses": k.l1_misses,
                    "l1_hit_rate": k.l1_hit_rate(),
                    "tex_hits": k.tex_hits,
                    "tex_misses": k.tex_misses,
                    "tex_hit_rate": k.tex_hit_rate(),
                    "l2_hits": k.l2_hits,
                    "l2_misses": k.l2_misses,
                    "l2_hit_rate": k.l2_hit_rate(),
                    "dram_read_bytes": k.dram_read_bytes,
                    "dram_write_bytes": k.dram_write_bytes,
                    "bank_conflict_cycles": k.bank_conflict_cycles,
                    "failed": k.failed,
                })
            })
            .collect();
        let copies: Vec<Value> = self
            .copies
            .iter()
            .map(|c| {
                json!({
                    "seq": c.seq,
                    "channel": c.chid,
                    "bytes": c.bytes,
                    "path": path_name(c.path),
                    "start_cycle": c.start_cycle,
                    "end_cycle": c.end_cycle,
                    "cycles": c.end_cycle - c.start_cycle,
                    "time_ns": cfg.cycles_to_ns(c.end_cycle - c.start_cycle),
                    "failed": c.failed,
                })
            })
            .collect();
        json!({
            "device": { "preset": cfg.name, "mode": format!("{:?}", cfg.mode).to_lowercase(), "clock_mhz": cfg.board.clock_mhz, "sms": cfg.board.sms },
            "kernels": kernels,
            "copies": copies,
        })
    }

    /// The Chrome trace event format: a track per channel (its kernels), the copy engine,
    /// and a counter per SM (resident warps).
    pub fn chrome_trace(&self, cfg: &DeviceConfig) -> Value {
        let us = |c: u64| cfg.cycles_to_ns(c) as f64 / 1000.0;
        let mut ev =
            vec![json!({"name": "process_name", "ph": "M", "pid": 1, "args": {"name": format!("rgdev {}", cfg.name)}})];
        ev.push(
            json!({"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "SM occupancy (resident warps)"}}),
        );
        let mut channels: Vec<u32> = self.kernels.iter().map(|(_, k)| k.chid).collect();
        channels.sort_unstable();
        channels.dedup();
        for ch in &channels {
            ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": ch, "args": {"name": format!("channel {ch} (kernels)")}}));
        }
        ev.push(json!({"name": "thread_name", "ph": "M", "pid": 1, "tid": COPY_TID, "args": {"name": "copy engine"}}));
        for (name, k) in &self.kernels {
            ev.push(json!({
                "name": name, "cat": "kernel", "ph": "X", "pid": 1, "tid": k.chid,
                "ts": us(k.start_cycle), "dur": us(k.cycles()),
                "args": {"grid": k.grid, "block": k.block, "cycles": k.cycles(), "warp_instructions": k.warp_instructions, "ipc": k.ipc()},
            }));
        }
        for c in &self.copies {
            ev.push(json!({
                "name": format!("{} {}", size(c.bytes), path_name(c.path)), "cat": "copy", "ph": "X", "pid": 1, "tid": COPY_TID,
                "ts": us(c.start_cycle), "dur": us(c.end_cycle - c.start_cycle),
                "args": {"channel": c.chid, "bytes": c.bytes},
            }));
        }
        for s in &self.occupancy {
            ev.push(json!({"name": format!("SM {:02}", s.sm), "ph": "C", "pid": 2, "ts": us(s.cycle), "args": {"warps": s.warps}}));
        }
        json!({"traceEvents": ev, "displayTimeUnit": "ns", "otherData": {"preset": cfg.name, "clock_mhz": cfg.board.clock_mhz, "sms": cfg.board.sms, "max_warps_per_sm": cfg.sm.max_threads / 32}})
    }
}

/// The copy engine's track in the trace.
const COPY_TID: u32 = 100_000;

fn size(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} B"),
    }
}

fn path_name(p: CopyPath) -> &'static str {
    match p {
        CopyPath::Pcie => "PCIe",
        CopyPath::VramToVram => "VRAM to VRAM",
        CopyPath::VramFill => "VRAM fill",
    }
}
