//! The C ABI's side of the trace (`rgdev run --trace`): each entry point's call recorded
//! in backend-user's `profile::host` with the jobs it started on its stream's channel and
//! its context's default stream's, and NVTX ranges and marks, which `libnvToolsExt.so.1`
//! reaches through the private export table (hw::export). Calls are recorded while any
//! statistics or trace file is written (copies take their memory kinds from the calls
//! that made them).

use crate::{CUresult, Handle, raw, stream};
use backend_user::profile::host::{self, ApiCall, Jobs};
use runtime_core::StreamHandle;
use std::ffi::c_char;
use std::panic::AssertUnwindSafe;

pub(crate) use host::{note_kinds, uvm_event};

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
    if !host::on() {
        return f();
    }
    let before = jobs(stream);
    let start = host::now();
    host::clear_kinds();
    let status = f();
    let kinds = host::take_kinds();
    let end = host::now();
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
    host::records().calls.push(ApiCall { name, tid: host::tid(), start, end, status, jobs, kinds });
    status
}

/// The NVTX entry point of the export table: `op` with message `msg` (NUL-terminated,
/// may be NULL) or range `id` (`profile::host::nvtx`).
pub(crate) extern "C" fn nvtx_event(op: u32, msg: *const c_char, id: u64) -> i64 {
    let text = || if msg.is_null() { String::new() } else { raw::str(msg).unwrap_or_default().to_string() };
    std::panic::catch_unwind(AssertUnwindSafe(|| host::nvtx(op, text, id))).unwrap_or(-1)
}
