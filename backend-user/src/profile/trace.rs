//! The Perfetto (Chrome trace) view of a run: each GPU's kernels, copies, migrations and
//! SM occupancy, and the host's threads with their API calls, NVTX ranges and flows.

use super::host;
use super::{COPY_TID, HOST_PID, Joined, MIGRATION_TID, Profile, UVM_TID, dur, path_name, size, us};
use crate::Device;
use serde_json::{Value, json};

impl Profile {
    /// The host's tracks: a track per host thread with its API calls and NVTX ranges and
    /// marks, and a flow from each call to the kernels and copies it started. Host records
    /// carry GPU 0's clock, which every GPU of the system shares.
    fn host_events(&self, gpus: &[Device], h: &host::HostRecords, joined: &Joined, ev: &mut Vec<Value>) {
        let cfg = gpus[0].config();
        let (us, dur) = (|c| us(cfg, c), |a, b| dur(cfg, a, b));
        if h.calls.is_empty() && h.ranges.is_empty() && h.uvm.is_empty() {
            return;
        }
        if !h.uvm.is_empty() {
            let name = "unified memory (fault service, migrations)";
            ev.push(json!({"name": "thread_name", "ph": "M", "pid": HOST_PID, "tid": UVM_TID, "args": {"name": name}}));
            for (at, what) in &h.uvm {
                ev.push(json!({"name": what, "cat": "uvm", "ph": "i", "s": "t", "pid": HOST_PID, "tid": UVM_TID, "ts": us(*at)}));
            }
        }
        ev.push(json!({"name": "process_name", "ph": "M", "pid": HOST_PID, "args": {"name": "host (CUDA API, NVTX)"}}));
        ev.push(json!({"name": "process_sort_index", "ph": "M", "pid": HOST_PID, "args": {"sort_index": -1}}));
        let mut tids: Vec<u32> = h.calls.iter().map(|c| c.tid).chain(h.ranges.iter().map(|r| r.tid)).collect();
        tids.sort_unstable();
        tids.dedup();
        for t in tids {
            let name = host::thread_name(h, t);
            ev.push(json!({"name": "thread_name", "ph": "M", "pid": HOST_PID, "tid": t, "args": {"name": name}}));
        }
        let end = self.kernels.iter().map(|(_, k)| k.end_cycle).chain(self.copies.iter().map(|c| c.end_cycle));
        let last = end.chain(h.calls.iter().map(|c| c.end)).max().unwrap_or(0);
        for (i, r) in h.ranges.iter().enumerate() {
            let (ts, e) = (us(r.start), us(r.end.unwrap_or(last)));
            let d = dur(r.start, r.end.unwrap_or(last));
            let args = json!({"open_at_exit": r.end.is_none()});
            if r.mark {
                ev.push(json!({"name": r.name, "cat": "nvtx", "ph": "i", "s": "t", "pid": HOST_PID, "tid": r.tid, "ts": ts}));
            } else if r.by_id {
                // Start/end ranges may overlap anything: async slices of their own.
                let id = format!("nvtx{}", i + 1);
                ev.push(json!({"name": r.name, "cat": "nvtx", "ph": "b", "id": id, "pid": HOST_PID, "tid": r.tid, "ts": ts, "args": args}));
                ev.push(
                    json!({"name": r.name, "cat": "nvtx", "ph": "e", "id": id, "pid": HOST_PID, "tid": r.tid, "ts": e}),
                );
            } else {
                ev.push(json!({"name": r.name, "cat": "nvtx", "ph": "X", "pid": HOST_PID, "tid": r.tid, "ts": ts, "dur": d, "args": args}));
            }
        }
        // Each call's kernels and copies (GPU, track, start), in the order of the records.
        let (by_kernel, by_copy) = joined;
        let mut started: Vec<Vec<(u32, u32, u64, &str)>> = vec![Vec::new(); h.calls.len()];
        for (&i, &ci) in by_kernel {
            let k = &self.kernels[i].1;
            started[ci].push((self.kernel_gpu[i], k.chid, k.start_cycle, "kernel"));
        }
        for (&i, &ci) in by_copy {
            started[ci].push((self.copy_gpu[i], COPY_TID, self.copies[i].start_cycle, "copy"));
        }
        let mut flow = 0u64;
        for (c, started) in h.calls.iter().zip(started.iter_mut()) {
            started.sort_unstable();
            ev.push(json!({
                "name": c.name, "cat": "api", "ph": "X", "pid": HOST_PID, "tid": c.tid,
                "ts": us(c.start), "dur": dur(c.start, c.end),
                "args": {"status": c.status, "jobs": started.len()},
            }));
            for &(g, tid, at, what) in started.iter() {
                flow += 1;
                let at = super::us(gpus[g as usize].config(), at);
                ev.push(json!({"name": what, "cat": "flow", "ph": "s", "id": flow, "pid": HOST_PID, "tid": c.tid, "ts": us(c.start)}));
                ev.push(json!({"name": what, "cat": "flow", "ph": "f", "bp": "e", "id": flow, "pid": gpu_pid(g), "tid": tid, "ts": at}));
            }
        }
    }

    /// The Chrome trace event format: per GPU, a process with a track per channel (its
    /// kernels) and one for the copy engine, and a process with a counter per SM (resident
    /// warps); and the host's threads (API calls, NVTX ranges, flows to the work they
    /// started). GPU `g`'s processes are `gpu_pid(g)` and the one after it.
    pub fn chrome_trace(&self, gpus: &[Device]) -> Value {
        let h = host::records();
        let joined = self.join(&h);
        let mut ev = Vec::new();
        let several = gpus.len() > 1;
        for (g, b) in gpus.iter().enumerate() {
            let (g, pid) = (g as u32, gpu_pid(g as u32));
            let name = if several {
                format!("rgdev GPU {g}: {} ({})", b.config().name, b.pci_bus_id())
            } else {
                format!("rgdev {}", b.config().name)
            };
            let occupancy = if several {
                format!("GPU {g} SM occupancy (resident warps)")
            } else {
                "SM occupancy (resident warps)".to_string()
            };
            ev.push(json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": name}}));
            ev.push(json!({"name": "process_name", "ph": "M", "pid": pid + 1, "args": {"name": occupancy}}));
            let mut channels: Vec<u32> = self
                .kernels
                .iter()
                .zip(&self.kernel_gpu)
                .filter(|(_, kg)| **kg == g)
                .map(|((_, k), _)| k.chid)
                .collect();
            channels.sort_unstable();
            channels.dedup();
            for ch in channels {
                // A track per stream: its context and stream handles (the default stream 0x0).
                let name = match self.stream_of(g, ch) {
                    Some((ctx, 0)) => format!("context {ctx:#x} default stream (channel {ch})"),
                    Some((ctx, s)) => format!("context {ctx:#x} stream {s:#x} (channel {ch})"),
                    None => format!("channel {ch} (kernels)"),
                };
                ev.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": ch, "args": {"name": name}}));
            }
            ev.push(
                json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": COPY_TID, "args": {"name": "copy engine"}}),
            );
            ev.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": MIGRATION_TID, "args": {"name": "copy engine: page migrations"}}));
        }
        for (i, (name, k)) in self.kernels.iter().enumerate() {
            let g = self.kernel_gpu[i];
            let cfg = gpus[g as usize].config();
            ev.push(json!({
                "name": name, "cat": "kernel", "ph": "X", "pid": gpu_pid(g), "tid": k.chid,
                "ts": us(cfg, k.start_cycle), "dur": dur(cfg, k.start_cycle, k.end_cycle),
                "args": {"grid": k.grid, "block": k.block, "cycles": k.cycles(), "warp_instructions": k.warp_instructions, "ipc": k.ipc(), "peer_bytes": k.peer_read_bytes + k.peer_write_bytes, "replayable_faults": k.replayable_faults},
            }));
        }
        for (i, c) in self.copies.iter().enumerate() {
            let g = self.copy_gpu[i];
            let cfg = gpus[g as usize].config();
            let stream = self.stream_of(g, c.chid).map(|(_, s)| format!("{s:#x}"));
            let (src, dst) = self.copy_kinds(i, &joined.1, &h);
            let (cat, tid) = if self.copy_migration[i] { ("migration", MIGRATION_TID) } else { ("copy", COPY_TID) };
            ev.push(json!({
                "name": format!("{} {} ({})", c.kind.name(), size(c.bytes), path_name(c.path)), "cat": cat, "ph": "X", "pid": gpu_pid(g), "tid": tid,
                "ts": us(cfg, c.start_cycle), "dur": dur(cfg, c.start_cycle, c.end_cycle),
                "args": {"channel": c.chid, "stream": stream, "bytes": c.bytes, "kind": c.kind.name(), "path": path_name(c.path), "src_kind": src, "dst_kind": dst},
            }));
        }
        for (g, s) in &self.occupancy {
            let cfg = gpus[*g as usize].config();
            ev.push(json!({"name": format!("SM {:02}", s.sm), "ph": "C", "pid": gpu_pid(*g) + 1, "ts": us(cfg, s.cycle), "args": {"warps": s.warps}}));
        }
        self.host_events(gpus, &h, &joined, &mut ev);
        let cfg = gpus[0].config();
        json!({"traceEvents": ev, "displayTimeUnit": "ns", "otherData": {"preset": cfg.name, "gpus": gpus.len(), "clock_mhz": cfg.board.clock_mhz, "sms": cfg.board.sms, "max_warps_per_sm": cfg.sm.max_threads / 32}})
    }
}

/// GPU `g`'s process in the trace (its SM occupancy is the next one): 1 for GPU 0, as
/// with one GPU.
fn gpu_pid(g: u32) -> u32 {
    1 + 2 * g
}
