//! The bytes-in, bytes-out convention (docs/EMBEDDING.md): a host that calls
//! an export with `host.Instance.CallBytes` lends it an input and collects
//! its output through the imports of module `aclwasm`, and a plugin reads its
//! configuration values (a manifest's `config`, `host.Config.Vars`) by key.
//! The export takes no parameters and returns an `i32` status (0: success;
//! anything else reaches the host as a `*host.StatusError`).
//!
//! ```no_run
//! #[no_mangle]
//! pub extern "C" fn upper() -> i32 {
//!     let run = || -> aclwasm::Result<()> {
//!         let mut b = aclwasm::input()?;
//!         b.make_ascii_uppercase();
//!         aclwasm::output(&b)
//!     };
//!     match run() {
//!         Ok(()) => 0,
//!         Err(e) => e.code(),
//!     }
//! }
//! ```

use crate::codes::ACL_ERROR_INVALID_PARAM;
use crate::error::{check, AclError, Result};

/// The raw imports of module `aclwasm`, with their exact wire types. Each
/// returns a length, or 0 or an `aclError` code whose message
/// `aclGetRecentErrMsg` reports.
pub mod sys {
    #[link(wasm_import_module = "aclwasm")]
    extern "C" {
        /// The length of the call's input in bytes (0 outside a bytes call).
        ///
        /// Wire: `input_len() -> i32`
        #[link_name = "input_len"]
        pub fn input_len() -> i32;

        /// Copies the first `len` bytes of the input to `buf`: 100000 if
        /// `len` exceeds the input or `buf` is outside guest memory.
        ///
        /// Wire: `input_read(buf gptr, len i32) -> i32`
        #[link_name = "input_read"]
        pub fn input_read(buf: *mut u8, len: i32) -> i32;

        /// Appends `len` bytes at `buf` to the output: 100000 outside a
        /// bytes call or with `buf` outside guest memory, 207012 beyond the
        /// host's output limit.
        ///
        /// Wire: `output_write(buf gptr, len i32) -> i32`
        #[link_name = "output_write"]
        pub fn output_write(buf: *const u8, len: i32) -> i32;

        /// Copies at most `bufLen` bytes of the value of the key
        /// `[key, +keyLen)` to `buf` and returns the value's full length, or
        /// -1 if the key is not set.
        ///
        /// Wire: `config_read(key gptr, keyLen i32, buf gptr, bufLen i32) -> i32`
        #[link_name = "config_read"]
        pub fn config_read(key: *const u8, key_len: i32, buf: *mut u8, buf_len: i32) -> i32;

        /// Sets the message that says why the running call fails (the
        /// host reports it with the nonzero status); `len` 0 clears it.
        /// 100000 with `msg` outside guest memory.
        ///
        /// Wire: `error_set(msg gptr, len i32) -> i32`
        #[link_name = "error_set"]
        pub fn error_set(msg: *const u8, len: i32) -> i32;
    }
}

/// Lengths on the wire are i32; larger slices are refused before the call.
fn wire_len(func: &'static str, n: usize) -> Result<i32> {
    if n > i32::MAX as usize {
        return Err(AclError::local(func, ACL_ERROR_INVALID_PARAM, "length beyond 2^31-1 bytes"));
    }
    Ok(n as i32)
}

/// The length of the current bytes call's input (0 outside one).
pub fn input_len() -> usize {
    let n = unsafe { sys::input_len() };
    if n < 0 {
        0
    } else {
        n as usize
    }
}

/// Copies the first `buf.len()` bytes of the input into `buf` (which may be
/// shorter than the input, not longer): `ACL_ERROR_INVALID_PARAM` if `buf` is
/// longer than the input. Allocation-free, for `no_std` plugins.
pub fn read_input(buf: &mut [u8]) -> Result<()> {
    if buf.is_empty() {
        return Ok(());
    }
    let n = wire_len("aclwasm.input_read", buf.len())?;
    check("aclwasm.input_read", unsafe { sys::input_read(buf.as_mut_ptr(), n) })
}

/// Returns a copy of the current bytes call's input (empty outside one).
#[cfg(feature = "std")]
pub fn input() -> Result<std::vec::Vec<u8>> {
    let mut b = std::vec![0u8; input_len()];
    read_input(&mut b)?;
    Ok(b)
}

/// Appends `b` to the current bytes call's output. Fails with
/// `ACL_ERROR_INVALID_PARAM` outside a bytes call and with
/// `ACL_ERROR_RT_OVER_LIMIT` once the output would exceed the host's limit
/// (the policy's guest memory limit); a failed call appends nothing.
pub fn output(b: &[u8]) -> Result<()> {
    let n = wire_len("aclwasm.output_write", b.len())?;
    if n == 0 {
        return Ok(());
    }
    check("aclwasm.output_write", unsafe { sys::output_write(b.as_ptr(), n) })
}

/// Says why the running call fails: the host reports `msg` with the
/// call's nonzero status or exit code (`host.StatusError`'s reason;
/// `aclwasm serve` answers 502 `plugin_failed` with it). A later call
/// replaces it and an empty `msg` clears it; each call of an export starts
/// with none, and the host keeps its first 4096 bytes.
///
/// ```no_run
/// #[no_mangle]
/// pub extern "C" fn handle() -> i32 {
///     let _ = aclwasm::fail("want 4 bytes of input");
///     1
/// }
/// ```
pub fn fail(msg: &str) -> Result<()> {
    let n = wire_len("aclwasm.error_set", msg.len())?;
    check("aclwasm.error_set", unsafe { sys::error_set(msg.as_ptr(), n) })
}

/// Copies the value of configuration key `key` into `buf`, at most
/// `buf.len()` bytes, and returns the value's full length (which may exceed
/// `buf.len()`: then the value is cut), or `None` if the key is not set.
/// Allocation-free, for `no_std` plugins.
pub fn config_into(key: &str, buf: &mut [u8]) -> Result<Option<usize>> {
    let kn = wire_len("aclwasm.config_read", key.len())?;
    let bn = buf.len().min(i32::MAX as usize) as i32;
    let r = unsafe { sys::config_read(key.as_ptr(), kn, buf.as_mut_ptr(), bn) };
    match r {
        -1 => Ok(None),
        r if r >= 0 && (r as usize) <= MAX_CONFIG_LEN => Ok(Some(r as usize)),
        code => Err(AclError::from_code("aclwasm.config_read", code)),
    }
}

/// Config values are below 64 KiB, so a larger result is an error code.
const MAX_CONFIG_LEN: usize = 64 << 10;

/// Returns the value of configuration key `key` (a manifest's `config`
/// entry, or `host.Config.Vars`), or `None` if the key is not set. A value
/// that is not UTF-8 is an `ACL_ERROR_INVALID_PARAM` error: read it as bytes
/// with [`config_bytes`].
#[cfg(feature = "std")]
pub fn config(key: &str) -> Result<Option<std::string::String>> {
    match config_bytes(key)? {
        None => Ok(None),
        Some(v) => match std::string::String::from_utf8(v) {
            Ok(s) => Ok(Some(s)),
            Err(_) => Err(AclError::local("aclwasm.config_read", ACL_ERROR_INVALID_PARAM, "the value is not UTF-8")),
        },
    }
}

/// Returns the bytes of configuration key `key`'s value, or `None` if the
/// key is not set.
#[cfg(feature = "std")]
pub fn config_bytes(key: &str) -> Result<Option<std::vec::Vec<u8>>> {
    let mut small = [0u8; 256];
    let n = match config_into(key, &mut small)? {
        None => return Ok(None),
        Some(n) if n <= small.len() => return Ok(Some(small[..n].to_vec())),
        Some(n) => n,
    };
    let mut big = std::vec![0u8; n];
    match config_into(key, &mut big)? {
        Some(m) if m == n => Ok(Some(big)),
        _ => Err(AclError::local("aclwasm.config_read", ACL_ERROR_INVALID_PARAM, "the value's length changed between two reads")),
    }
}
