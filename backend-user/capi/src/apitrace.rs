//! The host side of the trace (`rgdev run --trace`): each host thread's Driver API calls
//! (the Runtime API's go through them) in simulated time, with the jobs each started on
//! its stream's channel (launches and copy-engine jobs, counted by the runtime as it
//! submits them, so a call joins the device's records of exactly its work), and NVTX
//! ranges and marks, which `libnvToolsExt.so.1` reaches through the private export table
//! (hw::export).
//!
//! Calls are recorded while any statistics or trace file is written (copies take their
//! memory kinds from the calls that made them).
//!
//! Host code takes no simulated time: a call's span is the simulated time that passed
//! while it waited (a synchronous copy, a synchronization), zero for one that only queued
//! work. Nothing is recorded unless an output asks for it.

use crate::{CUresult, Handle, raw, stream};
use backend_user::Device;
use runtime_core::StreamHandle;
use std::ffi::c_char;
use std::ops::Range;
use std::panic::AssertUnwindSafe;
use std::sync::Mutex;
use std::sync::MutexGuard;
use std::sync::OnceLock;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;
use std::sync::atomic::{AtomicBool, AtomicU32};

/// Whether calls are recorded (a trace is being written).
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
    /// The memory kinds of the copy the current call makes (see `note_kinds`).
    static KINDS: std::cell::Cell<Option<(&'static str, &'static str)>> = const { std::cell::Cell::new(None) };
}

/// Say what memory the current call copies from and to (`pointer::memory_kind`), for the
/// copies it starts; `kinds` is only run while calls are recorded.
pub(crate) fn note_kinds(kinds: impl FnOnce() -> (&'static str, &'static str)) {
    if on() {
        KINDS.with(|k| k.set(Some(kinds())));
    }
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
    /// What it returned.
    pub status: CUresult,
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
#[derive(Debug)]
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
    const fn new() -> Self {
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
pub(crate) fn start(dev: &Device) {
    let _ = DEV.set(dev.clone());
    ON.store(true, Ordering::Release);
}

fn on() -> bool {
    ON.load(Ordering::Acquire)
}

/// What was recorded, locked.
pub(crate) fn host() -> MutexGuard<'static, HostRecords> {
    HOST.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The device's clock now (the last reading while another thread holds the device).
fn now() -> u64 {
    match DEV.get().and_then(|d| d.sim().try_cycles()) {
        Some(c) => {
            LAST.fetch_max(c, Ordering::Relaxed);
            c
        }
        None => LAST.load(Ordering::Relaxed),
    }
}

fn tid() -> u32 {
    TID.with(|t| *t)
}

/// A channel and its (launches, copy-engine jobs) so far.
type ChannelJobs = (u32, (u64, u64));

/// The GPU of a stream, and its channel and its context's default stream's (where work on pageable memory
/// is staged), with their jobs so far (none for a handle that is not a stream).
fn jobs(stream: Option<Handle>) -> (u32, Vec<ChannelJobs>) {
    let Some(Ok((gpu, h, sh))) = stream.map(stream::stream_of) else { return (0, Vec::new()) };
    let mut v: Vec<_> = [sh, StreamHandle::DEFAULT].iter().filter_map(|&s| gpu.stream_jobs(h, s).ok()).collect();
    v.dedup_by_key(|j| j.0);
    (gpu.ordinal(), v)
}

/// Run entry point `name` (on `stream`, if it has one: NULL is the current context's
/// default stream), recording it when a trace is being written.
pub(crate) fn call(name: &'static str, stream: Option<Handle>, f: impl FnOnce() -> CUresult) -> CUresult {
    if !on() {
        return f();
    }
    let before = jobs(stream);
    let start = now();
    KINDS.with(|k| k.set(None));
    let status = f();
    let kinds = KINDS.with(std::cell::Cell::take);
    let end = now();
    let after = jobs(stream);
    // A stream that appeared with the call (or went with it) has no jobs to join.
    let ((gpu, before), (gpu_after, after)) = (before, after);
    let jobs = before
        .iter()
        .filter(|_| gpu == gpu_after)
        .filter_map(|&(c, (l0, c0))| {
            let &(_, (l1, c1)) = after.iter().find(|a| a.0 == c)?;
            Some(Jobs { gpu, chid: c, launches: l0..l1, copies: c0..c1 })
        })
        .collect();
    host().calls.push(ApiCall { name, tid: tid(), start, end, status, jobs, kinds });
    status
}

/// Record what the unified-memory service did (`what`), now, while a trace is written.
pub(crate) fn uvm_event(what: impl FnOnce() -> String) {
    if on() {
        let at = now();
        host().uvm.push((at, what()));
    }
}

use hw::export::nvtx as op;

/// The NVTX entry point of the export table: `op` with message `msg` (NUL-terminated,
/// may be NULL) or range `id`. Recorded only while a trace is being written; -2 (NVTX's
/// "no tool" answer) otherwise.
pub(crate) extern "C" fn nvtx_event(op: u32, msg: *const c_char, id: u64) -> i64 {
    let run = || {
        if !on() {
            return -2;
        }
        let text = || if msg.is_null() { String::new() } else { raw::str(msg).unwrap_or_default().to_string() };
        let (t, at) = (tid(), now());
        let mut h = host();
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
    };
    std::panic::catch_unwind(AssertUnwindSafe(run)).unwrap_or(-1)
}

/// Names of host threads (thread 1 is the first that called the API).
pub(crate) fn thread_name(h: &HostRecords, tid: u32) -> String {
    match h.thread_names.iter().find(|(t, _)| *t == tid) {
        Some((_, n)) => format!("{n} (host thread {tid})"),
        None => format!("host thread {tid}"),
    }
}
