//! What `rgdev run --stats-json FILE`, `--summary` and `--trace FILE.json` write: the
//! device's records of kernels and copies, with kernel names (and resources, context and
//! stream) resolved through the functions and streams the program made, as statistics JSON
//! that describes its run (schema, version, configuration, command line, host time), as
//! nvprof-style summary tables (or CSV), and as a Chrome trace (Perfetto, chrome://tracing).
//!
//! Records are kept per GPU of the system: a channel id is a GPU's, so every key is
//! (ordinal, channel); each kernel and copy carries its GPU (`device` in the files), and
//! the trace has a process per GPU.

pub mod host; // the host side: API calls, NVTX ranges, the unified-memory service's events
mod summary;
mod trace;

use crate::Device;
use crate::{CopyStats, DeviceConfig, KernelStats, OccupancySample};
use fake_pci::config::CopyPath;
use runtime_core::LaunchId;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::path::PathBuf;

/// Environment variable: write per-kernel statistics as JSON to this file at exit.
pub const STATS_JSON: &str = "RGDEV_STATS_JSON";
/// Environment variable: write the statistics as CSV (a row per kernel and per copy) to
/// this file, as the JSON file is written.
pub const STATS_CSV: &str = "RGDEV_STATS_CSV";
/// Environment variable: write a Chrome trace to this file at exit.
pub const TRACE: &str = "RGDEV_TRACE";
/// Environment variable: write the MMIO trace (mmiotrace-like text, every register access
/// from the probe on) to this file at exit.
pub const MMIO_TRACE: &str = "RGDEV_MMIO_TRACE";
/// Environment variable: what the MMIO trace keeps (`fake_pci::TraceFilter::parse`).
pub const MMIO_FILTER: &str = "RGDEV_MMIO_FILTER";
/// Environment variable: `0` keeps BAR1 and PRAMIN runs word by word in the MMIO trace.
pub const MMIO_FOLD: &str = "RGDEV_MMIO_FOLD";
/// At most this many MMIO trace records are kept (the rest are counted and reported).
pub const MMIO_LIMIT: usize = 1 << 21;
/// Environment variable: print summary tables at exit (`1`, or `csv` for CSV).
pub const SUMMARY: &str = "RGDEV_SUMMARY";
/// The version of the statistics file's layout (docs/rgdev-tool.md has the schema).
pub const SCHEMA_VERSION: u32 = 2;

/// What a kernel's function is: registers per thread, static shared and local bytes.
#[derive(Clone, Copy, Debug, Default)]
pub struct FuncFacts {
    /// Registers per thread.
    pub regs: u32,
    /// Static shared memory per block.
    pub shared: u32,
    /// Local memory per thread.
    pub local: u32,
}

/// Records gathered from the device, with names.
#[derive(Default)]
pub struct Profile {
    /// Kernel names by GPU and launch (channel, program address, entry).
    names: HashMap<(u32, LaunchId), String>,
    /// The same names by GPU, program address and entry alone: a kernel looked up on one
    /// channel (the context's default stream) runs on others too, its streams, at the same
    /// addresses.
    by_code: HashMap<(u32, u64, u32), String>,
    /// Function facts by GPU, program address and entry.
    funcs: HashMap<(u32, u64, u32), FuncFacts>,
    /// Context and stream handle of each channel seen, by GPU and channel (a stream's
    /// own, or a context's default stream, 0).
    streams: HashMap<(u32, u32), (u64, u64)>,
    /// When the library started (host time: reported, never deciding a result).
    started: Option<std::time::Instant>,
    /// Print summary tables at exit: Some(csv).
    pub summary: Option<bool>,
    /// When the statistics file was last written.
    written: Option<std::time::Instant>,
    kernels: Vec<(String, KernelStats)>,
    copies: Vec<CopyStats>,
    /// Whether each copy moved a page of managed memory (the runtime's migration channel).
    copy_migration: Vec<bool>,
    /// What the fault service moved for each fault, by GPU and channel: (PTIMER ns, pages to
    /// the GPU, pages to the host), in time order.
    moved: BTreeMap<(u32, u32), Vec<MovedAt>>,
    /// Each kernel's and copy's GPU (parallel to `kernels` and `copies`).
    kernel_gpu: Vec<u32>,
    copy_gpu: Vec<u32>,
    /// Each kernel's and copy's number among its channel id's jobs of its engine (the
    /// order the runtime submitted them in, which `apitrace` joins calls to).
    kernel_job: Vec<u64>,
    copy_job: Vec<u64>,
    /// Jobs seen so far per GPU and channel id: (launches, copies).
    jobs_seen: HashMap<(u32, u32), (u64, u64)>,
    /// SM occupancy samples, with their GPU.
    occupancy: Vec<(u32, OccupancySample)>,
    /// Where the statistics go.
    pub json: Option<PathBuf>,
    /// Where the trace goes.
    pub trace: Option<PathBuf>,
    /// Where the CSV statistics go.
    pub csv: Option<PathBuf>,
    /// Where the MMIO trace goes.
    pub mmio: Option<PathBuf>,
    /// The system's unified-memory service, whose migrations the statistics report.
    uvm: Option<std::sync::Arc<crate::UserUvm>>,
}

impl Profile {
    /// From the environment; records occupancy on every GPU when a trace is wanted. `uvm`:
    /// the system's unified-memory service, if it has one.
    pub fn from_env(gpus: &[Device], uvm: Option<std::sync::Arc<crate::UserUvm>>) -> Self {
        let path = |k| std::env::var_os(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        let summary = std::env::var(SUMMARY).ok().filter(|v| !v.is_empty() && v != "0").map(|v| v == "csv");
        let started = Some(std::time::Instant::now());
        let p = Self {
            json: path(STATS_JSON),
            csv: path(STATS_CSV),
            trace: path(TRACE),
            mmio: path(MMIO_TRACE),
            summary,
            started,
            uvm,
            ..Self::default()
        };
        if p.trace.is_some() {
            for b in gpus {
                b.trace_occupancy(true);
            }
        }
        p
    }

    /// A count of the unified-memory service's (0 without one).
    fn uvm_count(&self, c: impl Fn(&runtime_core::uvm::Counts) -> &std::sync::atomic::AtomicU64) -> u64 {
        self.uvm.as_ref().map_or(0, |u| c(u.counts()).load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Whether anything is written at exit.
    pub fn wanted(&self) -> bool {
        self.json.is_some()
            || self.csv.is_some()
            || self.trace.is_some()
            || self.summary.is_some()
            || self.mmio.is_some()
    }

    /// Remember the name and facts of a kernel the program looked up in context `ctx`,
    /// and that the channel it was looked up on is that context's default stream.
    pub fn name(&mut self, id: LaunchId, name: &str, facts: FuncFacts, ctx: u64) {
        let g = runtime_core::ordinal_of(ctx);
        self.names.insert((g, id), name.to_string());
        self.by_code.insert((g, id.code, id.entry), name.to_string());
        self.funcs.insert((g, id.code, id.entry), facts);
        self.streams.entry((g, id.chid)).or_insert((ctx, 0));
    }

    /// Remember that channel `chid` (of context `ctx`'s GPU) is stream `stream` of `ctx`.
    pub fn stream(&mut self, chid: u32, ctx: u64, stream: u64) {
        self.streams.insert((runtime_core::ordinal_of(ctx), chid), (ctx, stream));
    }

    /// Kernel `i`'s function facts.
    fn facts(&self, i: usize) -> Option<FuncFacts> {
        let k = &self.kernels[i].1;
        self.funcs.get(&(self.kernel_gpu[i], k.code, k.entry)).copied()
    }

    /// The context and stream of channel `chid` of GPU `g`.
    fn stream_of(&self, g: u32, chid: u32) -> Option<(u64, u64)> {
        self.streams.get(&(g, chid)).copied()
    }

    /// Which API call started each kernel and each copy (indices into `h.calls`), by the
    /// jobs each call counted on its channels (see `apitrace`).
    fn join(&self, h: &host::HostRecords) -> Joined {
        let kernels: HashMap<(u32, u32, u64), usize> =
            (self.kernels.iter().zip(&self.kernel_gpu).zip(&self.kernel_job))
                .enumerate()
                .map(|(i, (((_, k), &g), &n))| ((g, k.chid, n), i))
                .collect();
        let copies: HashMap<(u32, u32, u64), usize> = (self.copies.iter().zip(&self.copy_gpu).zip(&self.copy_job))
            .enumerate()
            .map(|(i, ((c, &g), &n))| ((g, c.chid, n), i))
            .collect();
        let (mut kc, mut cc) = (HashMap::new(), HashMap::new());
        for (ci, c) in h.calls.iter().enumerate() {
            for j in &c.jobs {
                for n in j.launches.clone() {
                    if let Some(&i) = kernels.get(&(j.gpu, j.chid, n)) {
                        kc.insert(i, ci);
                    }
                }
                for n in j.copies.clone() {
                    if let Some(&i) = copies.get(&(j.gpu, j.chid, n)) {
                        cc.insert(i, ci);
                    }
                }
            }
        }
        (kc, cc)
    }

    /// Copy `i`'s memory kinds (source, destination): what the call that made it said,
    /// else what the device saw (system memory is the runtime's pinned staging).
    fn copy_kinds(&self, i: usize, by: &HashMap<usize, usize>, h: &host::HostRecords) -> (&'static str, &'static str) {
        use fake_pci::copy::CopyKind;
        let c = &self.copies[i];
        if c.kind != CopyKind::Memset
            && let Some(k) = by.get(&i).and_then(|&ci| h.calls[ci].kinds)
        {
            return k;
        }
        match c.kind {
            CopyKind::HtoD => ("pinned", "device"),
            CopyKind::DtoH => ("device", "pinned"),
            CopyKind::DtoD => ("device", "device"),
            CopyKind::HtoH => ("pinned", "pinned"),
            CopyKind::Memset if c.path == CopyPath::Pcie => ("", "pinned"),
            CopyKind::Memset => ("", "device"),
            CopyKind::PtoP => ("device", "device"),
        }
    }

    /// Take the GPUs' records (before a module or context goes away, so that names
    /// resolve to what they were when the kernels ran), GPU by GPU.
    pub fn collect(&mut self, gpus: &[Device]) {
        if !self.wanted() {
            return;
        }
        for m in self.uvm.as_ref().map(|u| u.take_moved()).unwrap_or_default() {
            self.moved.entry((m.gpu, m.chid)).or_default().push((m.ns, m.to_gpu, m.to_host));
        }
        for (g, b) in gpus.iter().enumerate() {
            let g = g as u32;
            let migrations = b.gpu().migration_channel();
            let mut ks = b.take_kernel_stats();
            ks.sort_by_key(|k| k.seq);
            for k in ks {
                let n = &mut self.jobs_seen.entry((g, k.chid)).or_default().0;
                self.kernel_job.push(*n);
                *n += 1;
                let id = LaunchId { chid: k.chid, code: k.code, entry: k.entry };
                let name = (self.names.get(&(g, id)).or_else(|| self.by_code.get(&(g, k.code, k.entry))).cloned())
                    .unwrap_or_else(|| format!("kernel@{:#x}+{}", k.code, k.entry));
                self.kernels.push((name, k));
                self.kernel_gpu.push(g);
            }
            let mut cs = b.take_copy_stats();
            cs.sort_by_key(|c| c.seq);
            for c in cs {
                let n = &mut self.jobs_seen.entry((g, c.chid)).or_default().1;
                self.copy_job.push(*n);
                *n += 1;
                self.copy_migration.push(migrations == Some(c.chid));
                self.copies.push(c);
                self.copy_gpu.push(g);
            }
            self.occupancy.extend(b.take_occupancy_samples().into_iter().map(|s| (g, s)));
        }
    }

    /// Whether the statistics file is due a rewrite after a synchronization: it is written
    /// as the run goes (at the first synchronization, then at most once a second of host
    /// time: when a file is written never changes what is in it), so a run that crashes or
    /// is killed keeps the kernels and copies that finished before its last write.
    pub fn checkpoint_due(&self) -> bool {
        (self.json.is_some() || self.csv.is_some())
            && self.written.is_none_or(|t| t.elapsed() >= std::time::Duration::from_secs(1))
    }

    /// Write the statistics file (whole, through a temporary file renamed over it, so a
    /// reader never sees half of one).
    pub fn write_json(&mut self, gpus: &[Device]) {
        let outputs = [
            (&self.json, "json.partial", self.json.as_ref().map(|_| self.stats_json(gpus).to_string())),
            (&self.csv, "csv.partial", self.csv.as_ref().map(|_| self.stats_csv(gpus))),
        ];
        for (path, ext, text) in outputs {
            let (Some(p), Some(text)) = (path, text) else { continue };
            let tmp = p.with_extension(ext);
            if let Err(e) = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, p)) {
                eprintln!("rgdev: {}: {e}", p.display());
            }
        }
        self.written = Some(std::time::Instant::now());
    }

    /// The statistics as CSV: a row per kernel and per copy, in the order they ran
    /// (`type` kernel or copy; for a copy, `name` is its kind).
    pub fn stats_csv(&self, gpus: &[Device]) -> String {
        use std::fmt::Write;
        let mut out = String::from(
            "type,name,context,stream,channel,grid,block,registers,shared_bytes,start_cycle,end_cycle,cycles,time_ns,\
             warp_instructions,ipc,l2_hit_rate,dram_read_bytes,dram_write_bytes,bytes,path,src_kind,dst_kind,device\n",
        );
        let q =
            |s: &str| if s.contains([',', '"']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() };
        let dims = |d: [u32; 3]| format!("{}x{}x{}", d[0], d[1], d[2]);
        for (i, (name, k)) in self.kernels.iter().enumerate() {
            let g = self.kernel_gpu[i];
            let cfg = gpus[g as usize].config();
            let f = self.facts(i).unwrap_or_default();
            let (ctx, s) = self
                .stream_of(g, k.chid)
                .map_or((String::new(), String::new()), |(c, s)| (format!("{c:#x}"), format!("{s:#x}")));
            let _ = writeln!(
                out,
                "kernel,{},{ctx},{s},{},{},{},{},{},{},{},{},{},{},{:.4},{:.4},{},{},,,,,{g}",
                q(name),
                k.chid,
                dims(k.grid),
                dims(k.block),
                f.regs,
                f.shared,
                k.start_cycle,
                k.end_cycle,
                k.cycles(),
                cfg.cycles_to_ns(k.cycles()),
                k.warp_instructions,
                k.ipc(),
                k.l2_hit_rate(),
                k.dram_read_bytes,
                k.dram_write_bytes,
            );
        }
        let h = host::records();
        let (_, by_copy) = self.join(&h);
        for (i, c) in self.copies.iter().enumerate() {
            let g = self.copy_gpu[i];
            let cfg = gpus[g as usize].config();
            let (ctx, s) = self
                .stream_of(g, c.chid)
                .map_or((String::new(), String::new()), |(x, s)| (format!("{x:#x}"), format!("{s:#x}")));
            let cycles = c.end_cycle - c.start_cycle;
            let (src, dst) = self.copy_kinds(i, &by_copy, &h);
            let _ = writeln!(
                out,
                "copy,{},{ctx},{s},{},,,,,{},{},{cycles},{},,,,,,{},{},{src},{dst},{g}",
                c.kind.name(),
                c.chid,
                c.start_cycle,
                c.end_cycle,
                cfg.cycles_to_ns(cycles),
                c.bytes,
                path_name(c.path),
            );
        }
        out
    }

    /// Write the files asked for, and print the summary if asked; errors go to stderr.
    pub fn write(&mut self, gpus: &[Device]) {
        self.collect(gpus);
        if let Some(csv) = self.summary {
            eprint!("{}", self.summary_text(gpus, csv));
        }
        self.write_json(gpus);
        if let Some(p) = &self.trace
            && let Err(e) = std::fs::write(p, self.chrome_trace(gpus).to_string())
        {
            eprintln!("rgdev: {}: {e}", p.display());
        }
        if let Some(p) = &self.mmio {
            let dropped = gpus.iter().map(|b| b.mmio_trace_dropped()).sum::<u64>();
            let written = std::fs::File::create(p).and_then(|f| write_mmio(gpus, &mut std::io::BufWriter::new(f)));
            match written {
                Err(e) => eprintln!("rgdev: {}: {e}", p.display()),
                Ok(_) if dropped > 0 => eprintln!(
                    "rgdev: {}: the first {MMIO_LIMIT} records; {dropped} more accesses were not kept (narrow it with --mmio-filter)",
                    p.display()
                ),
                Ok(_) => {}
            }
        }
    }

    /// One object per kernel and per copy.
    pub fn stats_json(&self, gpus: &[Device]) -> Value {
        let h = host::records();
        let (by_kernel, by_copy) = self.join(&h);
        let call = |by: &HashMap<usize, usize>, i: usize| by.get(&i).map(|&ci| h.calls[ci].name);
        let cfg = gpus[0].config();
        let kernels: Vec<Value> = self
            .kernels
            .iter()
            .enumerate()
            .map(|(i, (name, k))| {
                let g = self.kernel_gpu[i];
                let cfg = gpus[g as usize].config();
                let f = self.facts(i);
                // What the fault service moved while the kernel ran, for its channel.
                let moved = self.moved.get(&(g, k.chid)).map_or((0, 0), |v| {
                    // Stamped with the GPU's PTIMER: the kernel's span in nanoseconds.
                    let from = v.partition_point(|m| m.0 < cfg.cycles_to_ns(k.start_cycle));
                    let to = v.partition_point(|m| m.0 <= cfg.cycles_to_ns(k.end_cycle));
                    v[from..to].iter().fold((0, 0), |(a, b), m| (a + m.1, b + m.2))
                });
                let (ctx, stream) = self.stream_of(g, k.chid).map_or((None, None), |(c, s)| (Some(c), Some(s)));
                let mut v = json!({
                    "name": name,
                    "device": g,
                    "api": call(&by_kernel, i),
                    "seq": k.seq,
                    "channel": k.chid,
                    "context": ctx.map(|c| format!("{c:#x}")),
                    "stream": stream.map(|s| format!("{s:#x}")),
                    "registers": f.map(|f| f.regs),
                    "shared_bytes": f.map(|f| f.shared),
                    "local_bytes": f.map(|f| f.local),
                    "grid": k.grid,
                    "block": k.block,
                    "blocks": [k.blocks.0, k.blocks.1],
                    "system_fences": k.system_fences,
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
                    "replayable_faults": k.replayable_faults,
                    "peer_read_bytes": k.peer_read_bytes,
                    "peer_write_bytes": k.peer_write_bytes,
                    "bank_conflict_cycles": k.bank_conflict_cycles,
                    "failed": k.failed,
                });
                // Unified memory: the pages its faults moved, and their bytes.
                v["migrations_to_gpu"] = json!(moved.0);
                v["migrations_to_host"] = json!(moved.1);
                v["migrated_bytes"] = json!((moved.0 + moved.1) * runtime_core::uvm::PAGE);
                v
            })
            .collect();
        let copies: Vec<Value> = self
            .copies
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let g = self.copy_gpu[i];
                let cfg = gpus[g as usize].config();
                let stream = self.stream_of(g, c.chid).map(|(_, s)| format!("{s:#x}"));
                let (src, dst) = self.copy_kinds(i, &by_copy, &h);
                json!({
                    "device": g,
                    "src_kind": (!src.is_empty()).then_some(src),
                    "dst_kind": dst,
                    "api": call(&by_copy, i),
                    "migration": self.copy_migration[i],
                    "seq": c.seq,
                    "channel": c.chid,
                    "stream": stream,
                    "bytes": c.bytes,
                    "kind": c.kind.name(),
                    "path": path_name(c.path),
                    "start_cycle": c.start_cycle,
                    "end_cycle": c.end_cycle,
                    "cycles": c.end_cycle - c.start_cycle,
                    "time_ns": cfg.cycles_to_ns(c.end_cycle - c.start_cycle),
                    "failed": c.failed,
                })
            })
            .collect();
        let config: Value = toml::from_str::<toml::Table>(&crate::preset::to_toml(cfg))
            .ok()
            .and_then(|t| serde_json::to_value(t).ok())
            .unwrap_or(Value::Null);
        let wall = self.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        let cycles = self
            .kernels
            .iter()
            .map(|(_, k)| k.end_cycle)
            .chain(self.copies.iter().map(|c| c.end_cycle))
            .max()
            .unwrap_or(0);
        json!({
            "schema_version": SCHEMA_VERSION,
            "version": { "rgdev": env!("CARGO_PKG_VERSION"), "commit": option_env!("RGDEV_COMMIT").unwrap_or("unknown") },
            "command_line": std::env::args().collect::<Vec<_>>(),
            "host": { "wall_seconds": wall, "simulated_cycles": cycles, "simulated_cycles_per_second": if wall > 0.0 { cycles as f64 / wall } else { 0.0 } },
            "device": { "preset": cfg.name, "mode": format!("{:?}", cfg.mode).to_lowercase(), "clock_mhz": cfg.board.clock_mhz, "sms": cfg.board.sms },
            "devices": gpus.iter().map(|b| json!({ "preset": b.config().name, "pci_bus_id": b.pci_bus_id() })).collect::<Vec<_>>(),
            "config": config,
            "unified_memory": {
                "migrations_to_gpu": self.uvm_count(|c| &c.to_gpu),
                "migrations_to_host": self.uvm_count(|c| &c.to_host),
                "evictions": self.uvm_count(|c| &c.evictions),
                "page_bytes": runtime_core::uvm::PAGE,
            },
            "kernels": kernels,
            "copies": copies,
        })
    }
}

/// The MMIO traces of every GPU as one, in time order (all GPUs share one clock; at the
/// same cycle, by ordinal), each line of a system of several GPUs ending with its GPU.
fn write_mmio(gpus: &[Device], w: &mut impl std::io::Write) -> std::io::Result<usize> {
    let mut recs: Vec<(u64, usize, fake_pci::TraceRecord)> = Vec::new();
    for (g, b) in gpus.iter().enumerate() {
        recs.extend(b.mmio_trace_take().into_iter().map(|r| (r.cycle, g, r)));
    }
    recs.sort_by_key(|&(c, g, _)| (c, g));
    for (_, g, r) in &recs {
        if gpus.len() > 1 {
            writeln!(w, "{r} gpu{g}")?;
        } else {
            writeln!(w, "{r}")?;
        }
    }
    w.flush()?;
    Ok(recs.len())
}

/// The copy engine's track in the trace.
const COPY_TID: u32 = 100_000;
/// The unified-memory service's track (in the host's process).
const UVM_TID: u32 = 100_001;
/// Pages a fault moved: (the GPU's PTIMER in ns, to the GPU, to the host).
type MovedAt = (u64, u64, u64);

/// A GPU's track of the page migrations its copy engine made.
const MIGRATION_TID: u32 = 100_002;

/// Which API call started each kernel and each copy (see `Profile::join`).
type Joined = (HashMap<usize, usize>, HashMap<usize, usize>);

/// Cycle `c` as trace microseconds.
fn us(cfg: &DeviceConfig, c: u64) -> f64 {
    cfg.cycles_to_ns(c) as f64 / 1000.0
}

/// The microseconds from cycle `a` to cycle `b`, from the nanoseconds of both ends, so
/// that back-to-back work stays back to back and nested slices stay nested.
fn dur(cfg: &DeviceConfig, a: u64, b: u64) -> f64 {
    cfg.cycles_to_ns(b).saturating_sub(cfg.cycles_to_ns(a)) as f64 / 1000.0
}
/// The host's process in the trace.
const HOST_PID: u32 = 0;

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
        CopyPath::Peer => "peer link",
    }
}
