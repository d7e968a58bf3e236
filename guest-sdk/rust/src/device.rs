use crate::codes::ACL_ERROR_INVALID_PARAM;
use crate::error::{check, AclError, Result};
use crate::sys;
use crate::types::RunMode;

/// Initializes the runtime (`aclInit(NULL)`). Optional: calls before it work.
/// A second call fails with `ACL_ERROR_REPEAT_INITIALIZE`.
pub fn init() -> Result<()> {
    check("aclInit", unsafe { sys::aclInit(core::ptr::null()) })
}

/// Initializes the runtime with a configuration file path (`aclInit(path)`).
/// Fails locally with `ACL_ERROR_INVALID_PARAM` if the path contains a NUL or
/// is longer than 1023 bytes.
pub fn init_with_config(path: &str) -> Result<()> {
    let mut buf = [0u8; 1024];
    if path.len() >= buf.len() || path.as_bytes().contains(&0) {
        return Err(AclError::local("aclInit", ACL_ERROR_INVALID_PARAM, "configPath contains a NUL or is longer than 1023 bytes"));
    }
    buf[..path.len()].copy_from_slice(path.as_bytes());
    check("aclInit", unsafe { sys::aclInit(buf.as_ptr()) })
}

/// Finalizes the runtime (`aclFinalize`).
pub fn finalize() -> Result<()> {
    check("aclFinalize", unsafe { sys::aclFinalize() })
}

/// The ACL version the host implements: (major, minor, patch).
pub fn version() -> Result<(i32, i32, i32)> {
    let (mut a, mut b, mut c) = (0i32, 0i32, 0i32);
    check("aclrtGetVersion", unsafe { sys::aclrtGetVersion(&mut a, &mut b, &mut c) })?;
    Ok((a, b, c))
}

/// Makes `device_id` the current device (`aclrtSetDevice`); required before
/// device work.
pub fn set_device(device_id: i32) -> Result<()> {
    check("aclrtSetDevice", unsafe { sys::aclrtSetDevice(device_id) })
}

/// Waits for the session's work on the device, then releases everything it
/// holds there (`aclrtResetDevice`). Owned buffers, streams and events of that
/// device become stale: dropping them afterwards reports nothing.
pub fn reset_device(device_id: i32) -> Result<()> {
    check("aclrtResetDevice", unsafe { sys::aclrtResetDevice(device_id) })
}

/// As [`reset_device`], but the session's queued work on the device is
/// cancelled, not awaited (`aclrtResetDeviceForce`).
pub fn reset_device_force(device_id: i32) -> Result<()> {
    check("aclrtResetDeviceForce", unsafe { sys::aclrtResetDeviceForce(device_id) })
}

/// Where the application runs (`aclrtGetRunMode`): [`RunMode::HOST`] for a
/// host-attached card and for the simulator.
pub fn run_mode() -> Result<RunMode> {
    let mut m = 0u32;
    check("aclrtGetRunMode", unsafe { sys::aclrtGetRunMode(&mut m) })?;
    Ok(RunMode(m))
}

/// The current device id (`aclrtGetDevice`).
pub fn device() -> Result<i32> {
    let mut d = 0i32;
    check("aclrtGetDevice", unsafe { sys::aclrtGetDevice(&mut d) })?;
    Ok(d)
}

/// How many devices the session sees (`aclrtGetDeviceCount`).
pub fn device_count() -> Result<u32> {
    let mut n = 0u32;
    check("aclrtGetDeviceCount", unsafe { sys::aclrtGetDeviceCount(&mut n) })?;
    Ok(n)
}

/// Waits for all of the session's work on the current device
/// (`aclrtSynchronizeDevice`).
pub fn synchronize_device() -> Result<()> {
    check("aclrtSynchronizeDevice", unsafe { sys::aclrtSynchronizeDevice() })
}

/// [`synchronize_device`] with a timeout in milliseconds (-1: forever);
/// `ACL_ERROR_RT_STREAM_SYNC_TIMEOUT` when it expires.
pub fn synchronize_device_with_timeout(timeout_ms: i32) -> Result<()> {
    check("aclrtSynchronizeDeviceWithTimeout", unsafe { sys::aclrtSynchronizeDeviceWithTimeout(timeout_ms) })
}

/// Whether `device_id` can access `peer_device_id`'s memory
/// (`aclrtDeviceCanAccessPeer`).
pub fn can_access_peer(device_id: i32, peer_device_id: i32) -> Result<bool> {
    let mut can = 0i32;
    check("aclrtDeviceCanAccessPeer", unsafe { sys::aclrtDeviceCanAccessPeer(&mut can, device_id, peer_device_id) })?;
    Ok(can != 0)
}

/// Lets the current device copy to and from `peer_device_id`
/// (`aclrtDeviceEnablePeerAccess` with flags 0).
pub fn enable_peer_access(peer_device_id: i32) -> Result<()> {
    check("aclrtDeviceEnablePeerAccess", unsafe { sys::aclrtDeviceEnablePeerAccess(peer_device_id, 0) })
}

/// Undoes [`enable_peer_access`] (`aclrtDeviceDisablePeerAccess`).
pub fn disable_peer_access(peer_device_id: i32) -> Result<()> {
    check("aclrtDeviceDisablePeerAccess", unsafe { sys::aclrtDeviceDisablePeerAccess(peer_device_id) })
}
