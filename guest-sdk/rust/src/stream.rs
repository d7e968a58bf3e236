use crate::error::{check, Result};
use crate::event::Event;
use crate::sys;
use crate::types::StreamStatus;

/// A stream: a FIFO of asynchronous operations on the current device,
/// destroyed (`aclrtDestroyStream`, after its queued work) on drop.
/// [`Stream::default_stream`] is the current device's default stream (handle
/// 0, never destroyed).
#[derive(Debug)]
pub struct Stream {
    handle: u32,
}

/// What a stream does after one of its operations fails
/// ([`Stream::set_failure_mode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StreamFailureMode(pub u64);

impl StreamFailureMode {
    /// `ACL_CONTINUE_ON_FAILURE` (the default): later operations run.
    pub const CONTINUE_ON_FAILURE: StreamFailureMode = StreamFailureMode(0);
    /// `ACL_STOP_ON_FAILURE`: later operations fail without effect until the
    /// stream is synchronized.
    pub const STOP_ON_FAILURE: StreamFailureMode = StreamFailureMode(1);
}

static DEFAULT_STREAM: Stream = Stream { handle: 0 };

impl Stream {
    /// Creates a stream on the current device (`aclrtCreateStream`).
    pub fn new() -> Result<Stream> {
        let mut h = 0u32;
        check("aclrtCreateStream", unsafe { sys::aclrtCreateStream(&mut h) })?;
        Ok(Stream { handle: h })
    }

    /// The current device's default stream (NULL natively).
    pub fn default_stream() -> &'static Stream {
        &DEFAULT_STREAM
    }

    /// The raw handle (0 for the default stream).
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// Takes ownership of a raw handle from `aclrtCreateStream`.
    ///
    /// # Safety
    /// Nothing else may destroy the handle.
    pub unsafe fn from_raw(handle: u32) -> Stream {
        Stream { handle }
    }

    /// Gives up ownership: the stream is no longer destroyed on drop.
    pub fn into_raw(self) -> u32 {
        let h = self.handle;
        core::mem::forget(self);
        h
    }

    /// Destroys the stream now and reports the result (drop ignores it).
    pub fn destroy(self) -> Result<()> {
        let h = self.into_raw();
        if h == 0 {
            return Ok(());
        }
        check("aclrtDestroyStream", unsafe { sys::aclrtDestroyStream(h) })
    }

    /// Waits for the stream's queued work; returns the first error it met
    /// (`aclrtSynchronizeStream`).
    pub fn synchronize(&self) -> Result<()> {
        check("aclrtSynchronizeStream", unsafe { sys::aclrtSynchronizeStream(self.handle) })
    }

    /// [`Stream::synchronize`] with a timeout in milliseconds (-1: forever);
    /// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT` when it expires.
    pub fn synchronize_with_timeout(&self, timeout_ms: i32) -> Result<()> {
        check("aclrtSynchronizeStreamWithTimeout", unsafe { sys::aclrtSynchronizeStreamWithTimeout(self.handle, timeout_ms) })
    }

    /// Whether the queued work is done (`aclrtStreamQuery`).
    pub fn query(&self) -> Result<StreamStatus> {
        let mut s = 0u32;
        check("aclrtStreamQuery", unsafe { sys::aclrtStreamQuery(self.handle, &mut s) })?;
        Ok(StreamStatus(s))
    }

    /// Sets what the stream does after one of its operations fails
    /// (`aclrtSetStreamFailureMode`): with
    /// [`StreamFailureMode::STOP_ON_FAILURE`] its later operations fail
    /// without effect until it is synchronized (which reports the error).
    /// A stream cannot go back to `CONTINUE_ON_FAILURE`.
    pub fn set_failure_mode(&self, mode: StreamFailureMode) -> Result<()> {
        check("aclrtSetStreamFailureMode", unsafe { sys::aclrtSetStreamFailureMode(self.handle, mode.0) })
    }

    /// Cancels the stream's queued work that has not started, then destroys
    /// it (`aclrtDestroyStreamForce`).
    pub fn destroy_force(self) -> Result<()> {
        let h = self.into_raw();
        check("aclrtDestroyStreamForce", unsafe { sys::aclrtDestroyStreamForce(h) })
    }

    /// Makes the stream wait for the event's most recent record
    /// (`aclrtStreamWaitEvent`).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        check("aclrtStreamWaitEvent", unsafe { sys::aclrtStreamWaitEvent(self.handle, event.handle()) })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if self.handle != 0 {
            // A failure here (the device was reset) has nothing to release.
            let _ = unsafe { sys::aclrtDestroyStream(self.handle) };
        }
    }
}
