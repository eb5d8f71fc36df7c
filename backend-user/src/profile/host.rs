//! The host side of the trace (`rgdev run --trace`): each host thread's API calls in
//! simulated time, with the jobs each started on its stream's channel (launches and
//! copy-engine jobs, counted by the runtime as it submits them, so a call joins the
//! device's records of exactly its work), NVTX ranges and marks, and what the
//! unified-memory service did. The C ABI records its entry points here (`apitrace.rs` in
//! libcuda.so.1).
//!
//! Host code takes no simulated time: a call's span is the simulated time that passed
//! while it waited (a synchronous copy, a synchronization), zero for one that only queued
//! work. Nothing is recorded unless [`start`] was called.

use crate::Device;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// Whether calls are recorded (a trace or statistics file is being written).
static ON: AtomicBool = AtomicBool::new(false);
/// The device whose clock stamps the records.
static DEV: OnceLock<Device> = OnceLock::new();
/// The last time read (when the device was busy on another thread).
static LAST: AtomicU64 = AtomicU64::new(0);
static NEXT_TID: AtomicU32 = AtomicU32::new(1);
/// What was recorded.
static HOST: Mutex<HostRecords> = Mutex::new(HostRecords::new());

thread_local! {
    /// This host thread's number in the trace: 1 for the first thread that called the API.
    static TID: u32 = NEXT_TID.fetch_add(1, Ordering::Relaxed);
    /// The memory kinds of the copy the current call makes (see [`note_kinds`]).
    static KINDS: std::cell::Cell<Option<(&'static str, &'static str)>> = const { std::cell::Cell::new(None) };
}

/// The jobs a call started: channel `chid`'s (of GPU `gpu`) launches and copy-engine jobs
/// in these ranges of its submission order.
#[derive(Clone, Debug)]
pub struct Jobs {
    /// The GPU's ordinal.
    pub gpu: u32,
    /// Channel id.
    pub chid: u32,
    /// Launch numbers on the channel.
    pub launches: Range<u64>,
    /// Copy-engine job numbers on the channel.
    pub copies: Range<u64>,
}

/// One API call.
#[derive(Clone, Debug)]
pub struct ApiCall {
    /// Entry point.
    pub name: &'static str,
    /// Host thread (see `TID`).
    pub tid: u32,
    /// Simulated cycles at entry and return.
    pub start: u64,
    /// See `start`.
    pub end: u64,
    /// What it returned (a CUresult).
    pub status: i32,
    /// The jobs it started on its stream's channel and its context's default stream's.
    pub jobs: Vec<Jobs>,
    /// For a copy: the kinds of memory of its source and destination.
    pub kinds: Option<(&'static str, &'static str)>,
}

/// An NVTX range (pushed and popped, or started and ended) or mark (`end == start`,
/// `mark`).
#[derive(Clone, Debug)]
pub struct NvtxRange {
    /// Host thread.
    pub tid: u32,
    /// Its message.
    pub name: String,
    /// Simulated cycles.
    pub start: u64,
    /// None while open.
    pub end: Option<u64>,
    /// A mark rather than a range.
    pub mark: bool,
    /// Started and ended by id (may end on another thread, may overlap others) rather
    /// than pushed and popped.
    pub by_id: bool,
}

/// Everything recorded on the host side.
#[derive(Debug, Default)]
pub struct HostRecords {
    /// API calls in the order they returned.
    pub calls: Vec<ApiCall>,
    /// NVTX ranges and marks in the order they began.
    pub ranges: Vec<NvtxRange>,
    /// Names given to threads (nvtxNameOsThread).
    pub thread_names: Vec<(u32, String)>,
    /// What the unified-memory fault service did, with the cycle it did it at: a
    /// service's faults and page migrations, write-backs, prefetches.
    pub uvm: Vec<(u64, String)>,
    /// Open pushed ranges per thread (indices into `ranges`).
    stacks: Vec<(u32, Vec<usize>)>,
}

impl HostRecords {
    /// Nothing recorded yet.
    pub const fn new() -> Self {
        Self { calls: Vec::new(), ranges: Vec::new(), thread_names: Vec::new(), uvm: Vec::new(), stacks: Vec::new() }
    }

    fn stack(&mut self, tid: u32) -> &mut Vec<usize> {
        let i = match self.stacks.iter().position(|(t, _)| *t == tid) {
            Some(i) => i,
            None => {
                self.stacks.push((tid, Vec::new()));
                self.stacks.len() - 1
            }
        };
        &mut self.stacks[i].1
    }
}

/// Record from now on, stamping with `dev`'s clock.
pub fn start(dev: &Device) {
    let _ = DEV.set(dev.clone());
    ON.store(true, Ordering::Release);
}

/// Whether records are being kept.
pub fn on() -> bool {
    ON.load(Ordering::Acquire)
}

/// What was recorded, locked.
pub fn records() -> MutexGuard<'static, HostRecords> {
    HOST.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The device's clock now (the last reading while another thread holds the device).
pub fn now() -> u64 {
    match DEV.get().and_then(Device::try_cycles) {
        Some(c) => {
            LAST.fetch_max(c, Ordering::Relaxed);
            c
        }
        None => LAST.load(Ordering::Relaxed),
    }
}

/// This host thread's number in the trace.
pub fn tid() -> u32 {
    TID.with(|t| *t)
}

/// Say what memory the current call copies from and to, for the copies it starts; `kinds`
/// is only run while records are kept.
pub fn note_kinds(kinds: impl FnOnce() -> (&'static str, &'static str)) {
    if on() {
        KINDS.with(|k| k.set(Some(kinds())));
    }
}

/// Forget the kinds noted so far (a call begins).
pub fn clear_kinds() {
    KINDS.with(|k| k.set(None));
}

/// The kinds the current call noted ([`note_kinds`]), taken.
pub fn take_kinds() -> Option<(&'static str, &'static str)> {
    KINDS.with(std::cell::Cell::take)
}

/// Record what the unified-memory service did (`what`), now, while records are kept.
pub fn uvm_event(what: impl FnOnce() -> String) {
    if on() {
        let at = now();
        records().uvm.push((at, what()));
    }
}

use hw::export::nvtx as op;

/// NVTX operation `op` (`hw::export::nvtx`) with message `text` or range `id`, on this
/// thread, now: the answer NVTX's API gives (a push's depth, a range's id; -2, NVTX's
/// "no tool", while no records are kept; -1 for an unknown operation or a pop with nothing
/// pushed).
pub fn nvtx(op: u32, text: impl FnOnce() -> String, id: u64) -> i64 {
    if !on() {
        return -2;
    }
    let (t, at) = (tid(), now());
    let mut h = records();
    match op {
        op::PUSH => {
            h.ranges.push(NvtxRange { tid: t, name: text(), start: at, end: None, mark: false, by_id: false });
            let i = h.ranges.len() - 1;
            let s = h.stack(t);
            s.push(i);
            s.len() as i64 - 1
        }
        op::POP => {
            let s = h.stack(t);
            let depth = s.len() as i64 - 1;
            match s.pop() {
                Some(i) => {
                    h.ranges[i].end = Some(at);
                    depth
                }
                None => -1,
            }
        }
        op::MARK => {
            h.ranges.push(NvtxRange { tid: t, name: text(), start: at, end: Some(at), mark: true, by_id: false });
            0
        }
        op::START => {
            h.ranges.push(NvtxRange { tid: t, name: text(), start: at, end: None, mark: false, by_id: true });
            h.ranges.len() as i64 // ids are indices + 1
        }
        op::END => {
            if let Some(r) = id.checked_sub(1).and_then(|i| h.ranges.get_mut(i as usize))
                && r.by_id
                && r.end.is_none()
            {
                r.end = Some(at);
            }
            0
        }
        op::NAME_THREAD => {
            let name = text();
            h.thread_names.retain(|(x, _)| *x != t);
            h.thread_names.push((t, name));
            0
        }
        _ => -1,
    }
}

/// Names of host threads (thread 1 is the first that called the API).
pub fn thread_name(h: &HostRecords, tid: u32) -> String {
    match h.thread_names.iter().find(|(t, _)| *t == tid) {
        Some((_, n)) => format!("{n} (host thread {tid})"),
        None => format!("host thread {tid}"),
    }
}
