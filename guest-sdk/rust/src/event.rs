use crate::error::{check, Result};
use crate::stream::Stream;
use crate::sys;
use crate::types::EventRecordedStatus;

/// An event, destroyed (`aclrtDestroyEvent`) on drop.
#[derive(Debug)]
pub struct Event {
    handle: u32,
}

impl Event {
    /// Creates an event (`aclrtCreateEvent`).
    pub fn new() -> Result<Event> {
        let mut h = 0u32;
        check("aclrtCreateEvent", unsafe { sys::aclrtCreateEvent(&mut h) })?;
        Ok(Event { handle: h })
    }

    /// The raw handle.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// Takes ownership of a raw handle from `aclrtCreateEvent`.
    ///
    /// # Safety
    /// Nothing else may destroy the handle.
    pub unsafe fn from_raw(handle: u32) -> Event {
        Event { handle }
    }

    /// Gives up ownership: the event is no longer destroyed on drop.
    pub fn into_raw(self) -> u32 {
        let h = self.handle;
        core::mem::forget(self);
        h
    }

    /// Destroys the event now and reports the result (drop ignores it).
    pub fn destroy(self) -> Result<()> {
        let h = self.into_raw();
        check("aclrtDestroyEvent", unsafe { sys::aclrtDestroyEvent(h) })
    }

    /// Queues a record of the event on `stream` (`aclrtRecordEvent`); it
    /// completes, with a timestamp, when the stream reaches it.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        check("aclrtRecordEvent", unsafe { sys::aclrtRecordEvent(self.handle, stream.handle()) })
    }

    /// Queues a reset of the event on `stream` (`aclrtResetEvent`): once the
    /// stream reaches it the event reads as never recorded, and later waits
    /// wait for its next record.
    pub fn reset(&self, stream: &Stream) -> Result<()> {
        check("aclrtResetEvent", unsafe { sys::aclrtResetEvent(self.handle, stream.handle()) })
    }

    /// Waits for the most recent record to complete (`aclrtSynchronizeEvent`).
    pub fn synchronize(&self) -> Result<()> {
        check("aclrtSynchronizeEvent", unsafe { sys::aclrtSynchronizeEvent(self.handle) })
    }

    /// Whether the most recent record has completed (`aclrtQueryEventStatus`).
    pub fn query(&self) -> Result<EventRecordedStatus> {
        let mut s = 0u32;
        check("aclrtQueryEventStatus", unsafe { sys::aclrtQueryEventStatus(self.handle, &mut s) })?;
        Ok(EventRecordedStatus(s))
    }

    /// The milliseconds between two completed events (`aclrtEventElapsedTime`).
    pub fn elapsed_time(start: &Event, end: &Event) -> Result<f32> {
        let mut ms = 0f32;
        check("aclrtEventElapsedTime", unsafe { sys::aclrtEventElapsedTime(&mut ms, start.handle, end.handle) })?;
        Ok(ms)
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // A failure here (the device was reset) has nothing to release.
        let _ = unsafe { sys::aclrtDestroyEvent(self.handle) };
    }
}
