//! Stream and event calls (the context layer's `stream` module describes how streams and
//! events work on the device). Waits happen without the context's lock.

use super::{CtxHandle, Gpu, Object, object};
pub use crate::context::stream::StreamHandle;
use crate::error::{CuError, Result};
use crate::platform::Platform;

/// An event of a context (an object handle: see the API layer's documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventHandle(pub u64);

object_handle!(EventHandle, "event");

impl Object for StreamHandle {
    fn named(self) -> Option<u64> {
        (self != StreamHandle::DEFAULT).then_some(self.0)
    }
}

impl StreamHandle {
    /// The stream's context; the default stream ([`StreamHandle::DEFAULT`]) names none
    /// (it is every context's).
    pub fn ctx(self) -> CtxHandle {
        super::owner(self.0)
    }
}

impl<P: Platform> Gpu<P> {
    /// Create a stream (cuStreamCreateWithPriority): a new channel of the context.
    /// `priority` is CUDA's number, clamped to
    /// [`crate::limits::STREAM_PRIORITY_GREATEST`]..=0; more urgent streams get a higher
    /// channel priority in PFIFO's scheduler.
    pub fn stream_create(&self, h: CtxHandle, non_blocking: bool, priority: i32) -> Result<StreamHandle> {
        let (s, chid) = self.with_ctx(h, |gpu, c| {
            let id = c.stream_create(gpu, non_blocking, priority)?;
            Ok((StreamHandle(object(h, id)), c.chan(id)?.chid))
        })?;
        self.own_channel(chid, Some(h));
        Ok(s)
    }

    /// Destroy a stream (cuStreamDestroy): its queued work completes first (waited for
    /// without the context's lock). The default stream is not destroyed.
    pub fn stream_destroy(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        if s == StreamHandle::DEFAULT {
            return Err(CuError::InvalidHandle);
        }
        let w = self.with_objs(h, &[s.named()], |_, c| c.stream_release(s.local()))?;
        let waited = w.wait(&self.dev);
        self.with_objs(h, &[s.named()], |gpu, c| c.stream_remove(gpu, s.local())).and(waited)
    }

    /// Wait for the work queued on stream `s` (cuStreamSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn stream_synchronize(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        let r = self.with_objs(h, &[s.named()], |_, c| c.stream_release(s.local())).and_then(|w| w.wait(&self.dev));
        self.printf_flush(h);
        r
    }

    /// Whether stream `s` has finished its queued work (cuStreamQuery). Host functions
    /// whose turn has come run first.
    pub fn stream_query(&self, h: CtxHandle, s: StreamHandle) -> Result<bool> {
        self.polled(|| self.with_objs(h, &[s.named()], |gpu, c| c.stream_idle(gpu, s.local())))
    }

    /// Whether every context of this GPU has finished its queued work, now (no poll).
    pub fn idle(&self) -> bool {
        self.dev.service_interrupts();
        self.contexts().into_iter().all(|h| self.with_ctx(h, |_, c| Ok(c.idle())).unwrap_or(true))
    }

    /// A query: `done()`, and if the work is pending, a poll of the device (the
    /// platform's `poll`: it runs a little in a stepped clock, so that a program polling in
    /// a loop progresses) and `done()` again. Host functions whose turn has come run first.
    fn polled(&self, done: impl Fn() -> Result<bool>) -> Result<bool> {
        let _stepping = self.dev.stepping();
        self.dev.run_host_work(None);
        if done()? {
            return Ok(true);
        }
        // A step (which stands still while another thread runs a host function).
        self.dev.advance(true);
        self.dev.service_interrupts();
        // A query holds no context's lock: a program polling while a kernel waits for a
        // replayable fault's service gets it served.
        self.dev.service_replays();
        self.dev.run_host_work(None);
        done()
    }

    /// Queue host function `run` on stream `s` (cuLaunchHostFunc, cuStreamAddCallback):
    /// it runs once the stream's earlier work is done, on a thread that waits for the
    /// device (the next synchronization, of any thread), with the device's time stopped
    /// while it runs, so its place in simulated time never depends on the host; work
    /// queued after it waits for it. If the stream faults first it gets the error instead
    /// (`Some`). Returns at once.
    pub fn launch_host_func(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        run: alloc::boxed::Box<dyn FnOnce(Option<CuError>) + Send>,
    ) -> Result<()> {
        self.with_objs(h, &[s.named()], |gpu, c| c.host_func(gpu, s.local(), run))
    }

    /// The channel id of stream `s` (tools and tests).
    pub fn stream_channel(&self, h: CtxHandle, s: StreamHandle) -> Result<u32> {
        self.with_objs(h, &[s.named()], |_, c| Ok(c.chan(s.local())?.chid))
    }

    /// Stream `s`'s channel id and the jobs submitted on that id so far (launches,
    /// copy-engine jobs; see `Device::jobs_submitted`): read before and after an API call,
    /// they say which of the device's records the call started.
    pub fn stream_jobs(&self, h: CtxHandle, s: StreamHandle) -> Result<(u32, (u64, u64))> {
        self.with_objs(h, &[s.named()], |gpu, c| {
            let chid = c.chan(s.local())?.chid;
            Ok((chid, gpu.jobs_submitted(chid)))
        })
    }

    /// Stream `s`'s flags (cuStreamGetFlags, cuStreamGetPriority): whether it is
    /// non-blocking, and its CUDA priority (clamped as at creation). The default stream
    /// is (false, 0).
    pub fn stream_flags(&self, h: CtxHandle, s: StreamHandle) -> Result<(bool, i32)> {
        self.with_objs(h, &[s.named()], |_, c| c.stream_flags(s.local()))
    }

    /// Make stream `s` wait for event `e`'s last record (cuStreamWaitEvent): a semaphore
    /// acquire the GPU executes; the host does not wait. An event never recorded is no wait.
    pub fn stream_wait_event(&self, h: CtxHandle, s: StreamHandle, e: EventHandle) -> Result<()> {
        self.with_objs(h, &[s.named(), e.named()], |gpu, c| c.stream_wait_event(gpu, s.local(), e.id()))
    }

    /// Make stream `s` of context `h` wait for event `e` of another context `eh`, of this
    /// GPU or of `other` (cuStreamWaitEvent across contexts and devices): the channel
    /// acquires the event's semaphore, whose memory is mapped into `h` at first use. An
    /// event never recorded is no wait. Where the recording channel faults before its
    /// record, the waiting stream's work waits on (a wait for it ends with the device's
    /// timeout), as one GPU cannot see another's context fail.
    pub fn stream_wait_event_of(
        &self,
        h: CtxHandle,
        s: StreamHandle,
        other: &Gpu<P>,
        eh: CtxHandle,
        e: EventHandle,
    ) -> Result<()> {
        let r = other.with_objs(eh, &[e.named()], |_, c| c.event_release(e.id()))?;
        self.with_objs(h, &[s.named()], |gpu, c| match &r {
            Some(r) => c.stream_wait_release(gpu, s.local(), r),
            None => c.chan(s.local()).map(drop),
        })
    }

    /// Create an event (cuEventCreate); `timing` false is CU_EVENT_DISABLE_TIMING.
    pub fn event_create(&self, h: CtxHandle, timing: bool) -> Result<EventHandle> {
        self.with_ctx(h, |gpu, c| Ok(EventHandle(object(h, c.event_create(gpu, timing)?))))
    }

    /// Destroy an event (cuEventDestroy). A record still pending completes on its own; the
    /// slot is reused only after it has.
    pub fn event_destroy(&self, h: CtxHandle, e: EventHandle) -> Result<()> {
        self.with_objs(h, &[e.named()], |gpu, c| c.event_destroy(gpu, e.id()))
    }

    /// Record event `e` on stream `s` (cuEventRecord).
    pub fn event_record(&self, h: CtxHandle, e: EventHandle, s: StreamHandle) -> Result<()> {
        self.with_objs(h, &[e.named(), s.named()], |gpu, c| c.event_record(gpu, e.id(), s.local()))
    }

    /// Whether event `e`'s last record has completed (cuEventQuery; an event never recorded
    /// has).
    pub fn event_query(&self, h: CtxHandle, e: EventHandle) -> Result<bool> {
        self.polled(|| self.with_objs(h, &[e.named()], |gpu, c| c.event_done(gpu, e.id())))
    }

    /// Wait for event `e`'s last record (cuEventSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn event_synchronize(&self, h: CtxHandle, e: EventHandle) -> Result<()> {
        let w = self.with_objs(h, &[e.named()], |_, c| c.event_release(e.id()));
        let r = w.and_then(|w| w.map_or(Ok(()), |w| w.wait(&self.dev)));
        self.printf_flush(h);
        r
    }

    /// Milliseconds of GPU time between two completed records (cuEventElapsedTime):
    /// CUDA_ERROR_NOT_READY while either is pending, CUDA_ERROR_INVALID_HANDLE for an event
    /// never recorded or created without timing.
    pub fn event_elapsed_ms(&self, h: CtxHandle, start: EventHandle, end: EventHandle) -> Result<f32> {
        self.with_objs(h, &[start.named(), end.named()], |gpu, c| c.event_elapsed_ms(gpu, start.id(), end.id()))
    }
}
