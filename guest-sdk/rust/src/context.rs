use crate::error::{check, Result};
use crate::sys;

/// A context (ABI v1.1): a device plus its own default stream, the target
/// of the default stream ([`crate::Stream::default_stream`]) while it is
/// current. [`Context::new`] creates one and makes it current; dropping an
/// owned context destroys it (`aclrtDestroyContext`, after its streams'
/// queued work). [`set_device`](crate::set_device) makes the device's
/// default context current, which [`Context::current`] returns without
/// owning it (a default context cannot be destroyed).
#[derive(Debug)]
pub struct Context {
    handle: u32,
    owned: bool,
}

impl Context {
    /// Creates a context on `device_id` and makes it current
    /// (`aclrtCreateContext`).
    pub fn new(device_id: i32) -> Result<Context> {
        let mut h = 0u32;
        check("aclrtCreateContext", unsafe { sys::aclrtCreateContext(&mut h, device_id) })?;
        Ok(Context { handle: h, owned: true })
    }

    /// The current context (`aclrtGetCurrentContext`), not owned: dropping
    /// it destroys nothing.
    pub fn current() -> Result<Context> {
        let mut h = 0u32;
        check("aclrtGetCurrentContext", unsafe { sys::aclrtGetCurrentContext(&mut h) })?;
        Ok(Context { handle: h, owned: false })
    }

    /// Makes the context's device current and its default stream the target
    /// of the default stream (`aclrtSetCurrentContext`).
    pub fn set_current(&self) -> Result<()> {
        check("aclrtSetCurrentContext", unsafe { sys::aclrtSetCurrentContext(self.handle) })
    }

    /// The raw handle.
    pub fn handle(&self) -> u32 {
        self.handle
    }

    /// Whether dropping this value destroys the context.
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    /// Takes ownership of a raw handle from `aclrtCreateContext`.
    ///
    /// # Safety
    /// Nothing else may destroy the handle.
    pub unsafe fn from_raw(handle: u32) -> Context {
        Context { handle, owned: true }
    }

    /// Gives up ownership: the context is no longer destroyed on drop.
    pub fn into_raw(self) -> u32 {
        let h = self.handle;
        core::mem::forget(self);
        h
    }

    /// Destroys the context now and reports the result (drop ignores it).
    /// A context from [`Context::current`] is destroyed too: this is how a
    /// caller that knows it is not a default context destroys it.
    pub fn destroy(self) -> Result<()> {
        let h = self.into_raw();
        check("aclrtDestroyContext", unsafe { sys::aclrtDestroyContext(h) })
    }
}

impl PartialEq for Context {
    /// Two values name the same context.
    fn eq(&self, other: &Context) -> bool {
        self.handle == other.handle
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if self.owned {
            // A failure here (the device was reset) has nothing to release.
            let _ = unsafe { sys::aclrtDestroyContext(self.handle) };
        }
    }
}
