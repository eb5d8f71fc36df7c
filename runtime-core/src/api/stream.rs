//! Stream and event calls (the context layer's `stream` module describes how streams and
//! events work on the device). Waits happen without the context's lock.

use super::{CtxHandle, Gpu};
pub use crate::context::stream::StreamHandle;
use crate::error::{CuError, Result};
use crate::platform::Platform;

/// An event of a context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventHandle(pub u64);

impl<P: Platform> Gpu<P> {
    /// Create a stream (cuStreamCreateWithPriority): a new channel of the context.
    /// `priority` is CUDA's number, clamped to
    /// [`crate::limits::STREAM_PRIORITY_GREATEST`]..=0; more urgent streams get a higher
    /// channel priority in PFIFO's scheduler.
    pub fn stream_create(&self, h: CtxHandle, non_blocking: bool, priority: i32) -> Result<StreamHandle> {
        self.with_ctx(h, |gpu, c| c.stream_create(gpu, non_blocking, priority).map(StreamHandle))
    }

    /// Destroy a stream (cuStreamDestroy): its queued work completes first (waited for
    /// without the context's lock). The default stream is not destroyed.
    pub fn stream_destroy(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        let w = self.with_ctx(h, |_, c| {
            if s == StreamHandle::DEFAULT { Err(CuError::InvalidHandle) } else { c.stream_release(s.0) }
        })?;
        let waited = w.wait(self);
        self.with_ctx(h, |gpu, c| c.stream_remove(gpu, s.0)).and(waited)
    }

    /// Wait for the work queued on stream `s` (cuStreamSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn stream_synchronize(&self, h: CtxHandle, s: StreamHandle) -> Result<()> {
        self.with_ctx(h, |_, c| c.stream_release(s.0))?.wait(self)
    }

    /// Whether stream `s` has finished its queued work (cuStreamQuery).
    pub fn stream_query(&self, h: CtxHandle, s: StreamHandle) -> Result<bool> {
        self.with_ctx(h, |gpu, c| c.stream_idle(gpu, s.0))
    }

    /// The channel id of stream `s` (tools and tests).
    pub fn stream_channel(&self, h: CtxHandle, s: StreamHandle) -> Result<u32> {
        self.with_ctx(h, |_, c| Ok(c.chan(s.0)?.chid))
    }

    /// Make stream `s` wait for event `e`'s last record (cuStreamWaitEvent): a semaphore
    /// acquire the GPU executes; the host does not wait. An event never recorded is no wait.
    pub fn stream_wait_event(&self, h: CtxHandle, s: StreamHandle, e: EventHandle) -> Result<()> {
        self.with_ctx(h, |gpu, c| c.stream_wait_event(gpu, s.0, e.0))
    }

    /// Create an event (cuEventCreate); `timing` false is CU_EVENT_DISABLE_TIMING.
    pub fn event_create(&self, h: CtxHandle, timing: bool) -> Result<EventHandle> {
        self.with_ctx(h, |gpu, c| c.event_create(gpu, timing).map(EventHandle))
    }

    /// Destroy an event (cuEventDestroy). A record still pending completes on its own; the
    /// slot is reused only after it has.
    pub fn event_destroy(&self, h: CtxHandle, e: EventHandle) -> Result<()> {
        self.with_ctx(h, |gpu, c| c.event_destroy(gpu, e.0))
    }

    /// Record event `e` on stream `s` (cuEventRecord).
    pub fn event_record(&self, h: CtxHandle, e: EventHandle, s: StreamHandle) -> Result<()> {
        self.with_ctx(h, |gpu, c| c.event_record(gpu, e.0, s.0))
    }

    /// Whether event `e`'s last record has completed (cuEventQuery; an event never recorded
    /// has).
    pub fn event_query(&self, h: CtxHandle, e: EventHandle) -> Result<bool> {
        self.with_ctx(h, |gpu, c| c.event_done(gpu, e.0))
    }

    /// Wait for event `e`'s last record (cuEventSynchronize).
    /// Waits without the context's lock: other threads' calls on the context go on.
    pub fn event_synchronize(&self, h: CtxHandle, e: EventHandle) -> Result<()> {
        let w = self.with_ctx(h, |_, c| c.event_release(e.0))?;
        w.map_or(Ok(()), |w| w.wait(self))
    }

    /// Milliseconds of GPU time between two completed records (cuEventElapsedTime):
    /// CUDA_ERROR_NOT_READY while either is pending, CUDA_ERROR_INVALID_HANDLE for an event
    /// never recorded or created without timing.
    pub fn event_elapsed_ms(&self, h: CtxHandle, start: EventHandle, end: EventHandle) -> Result<f32> {
        self.with_ctx(h, |gpu, c| c.event_elapsed_ms(gpu, start.0, end.0))
    }
}
