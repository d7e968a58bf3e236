//! Stream callbacks (ABI section 12), with the crate's `callbacks` feature.
//!
//! The host never runs guest code on another thread: it runs every stream
//! callback ([`launch_host_func`], [`launch_callback`]) through the export
//! `aclwasm_dispatch_callback`, which this module defines, on the module's
//! own thread, inside one of its host calls. The host refuses to load a
//! module that launches callbacks without it: enable the feature
//! (`aclwasm = { ..., features = ["callbacks"] }`).

use core::ffi::c_void;

use crate::error::{check, Result};
use crate::sys;

/// A stream callback, as natively: `void (*)(void *)`.
pub type Callback = unsafe extern "C" fn(*mut c_void);

/// Runs callback `f` with `user` for the host. A call through a function
/// pointer is `call_indirect`: an index that is not a function of this
/// type traps the guest.
///
/// # Safety
/// Only the host calls it, with what the guest launched.
#[export_name = "aclwasm_dispatch_callback"]
pub unsafe extern "C" fn aclwasm_dispatch_callback(f: Option<Callback>, user: *mut c_void) {
    if let Some(f) = f {
        f(user)
    }
}

/// aclrtLaunchHostFunc: queues `f(user)` on stream (0: the default
/// stream); it runs once the work before it is done, and later work on
/// the stream waits for it.
///
/// # Safety
/// `user` must stay valid until the callback has run.
pub unsafe fn launch_host_func(stream: u32, f: Callback, user: *mut c_void) -> Result<()> {
    check("aclrtLaunchHostFunc", sys::aclrtLaunchHostFunc(stream, Some(f), user))
}

/// aclrtLaunchCallback: queues `f(user)` on a stream bound with
/// [`subscribe_report`]; [`process_report`] (or a blocking wait) runs it.
/// `block`: ACL_CALLBACK_BLOCK, later work waits for it.
///
/// # Safety
/// `user` must stay valid until the callback has run.
pub unsafe fn launch_callback(f: Callback, user: *mut c_void, block: bool, stream: u32) -> Result<()> {
    check("aclrtLaunchCallback", sys::aclrtLaunchCallback(Some(f), user, block as i32, stream))
}

/// aclrtSubscribeReport: binds stream to the (one) guest thread.
pub fn subscribe_report(thread_id: u64, stream: u32) -> Result<()> {
    check("aclrtSubscribeReport", unsafe { sys::aclrtSubscribeReport(thread_id, stream) })
}

/// aclrtProcessReport: runs the callbacks due, waiting up to `timeout_ms`
/// (-1: no limit) for one.
pub fn process_report(timeout_ms: i32) -> Result<()> {
    check("aclrtProcessReport", unsafe { sys::aclrtProcessReport(timeout_ms) })
}

/// aclrtUnSubscribeReport: unbinds stream from the thread it was bound to.
pub fn unsubscribe_report(thread_id: u64, stream: u32) -> Result<()> {
    check("aclrtUnSubscribeReport", unsafe { sys::aclrtUnSubscribeReport(thread_id, stream) })
}
