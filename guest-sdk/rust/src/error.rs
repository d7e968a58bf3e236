use core::fmt;

use crate::codes::{error_name, ACL_SUCCESS};
use crate::sys;

/// The result of a call: `Err` carries the native code and the host's message.
pub type Result<T> = core::result::Result<T, AclError>;

#[cfg(not(feature = "std"))]
const INLINE_MSG: usize = 192;

/// A failed ACL call: the native `aclError` code, its native name, the
/// function that returned it, and the host's message from
/// `aclGetRecentErrMsg` (which argument was wrong and why), read when the
/// call failed.
#[derive(Clone)]
pub struct AclError {
    code: i32,
    func: &'static str,
    fail_index: Option<u64>,
    #[cfg(feature = "std")]
    message: std::string::String,
    #[cfg(not(feature = "std"))]
    message: ([u8; INLINE_MSG], usize),
}

impl AclError {
    /// The error of `func` having returned `code`, with the host's most recent
    /// error message.
    pub fn from_code(func: &'static str, code: i32) -> AclError {
        let mut e = AclError::bare(func, code);
        e.read_message();
        e
    }

    /// An error raised by the SDK itself, before calling the host.
    pub(crate) fn local(func: &'static str, code: i32, msg: &str) -> AclError {
        let mut e = AclError::bare(func, code);
        e.set_message(msg.as_bytes());
        e
    }

    fn bare(func: &'static str, code: i32) -> AclError {
        AclError {
            code,
            func,
            fail_index: None,
            #[cfg(feature = "std")]
            message: std::string::String::new(),
            #[cfg(not(feature = "std"))]
            message: ([0; INLINE_MSG], 0),
        }
    }

    #[cfg(feature = "std")]
    fn read_message(&mut self) {
        self.message = recent_error_message();
    }

    #[cfg(not(feature = "std"))]
    fn read_message(&mut self) {
        let mut buf = [0u8; INLINE_MSG + 1];
        let n = recent_error_message_into(&mut buf);
        let n = if n < buf.len() { n } else { buf.len() - 1 };
        self.set_message(&buf[..n]);
    }

    #[cfg(feature = "std")]
    fn set_message(&mut self, b: &[u8]) {
        self.message = std::string::String::from_utf8_lossy(b).into_owned();
    }

    #[cfg(not(feature = "std"))]
    fn set_message(&mut self, b: &[u8]) {
        let mut n = b.len().min(INLINE_MSG);
        // Cut at a character boundary.
        while n > 0 && core::str::from_utf8(&b[..n]).is_err() {
            n -= 1;
        }
        self.message.0[..n].copy_from_slice(&b[..n]);
        self.message.1 = n;
    }

    pub(crate) fn with_fail_index(mut self, i: u64) -> AclError {
        if i != u64::MAX {
            self.fail_index = Some(i);
        }
        self
    }

    /// The native `aclError` code, such as 107000.
    pub fn code(&self) -> i32 {
        self.code
    }

    /// The native name of the code, such as `"ACL_ERROR_RT_PARAM_INVALID"`.
    pub fn name(&self) -> &'static str {
        error_name(self.code)
    }

    /// The ACL function that failed, such as `"aclrtMemcpy"`.
    pub fn func(&self) -> &'static str {
        self.func
    }

    /// The host's message: which argument was wrong and why. Empty if the
    /// host recorded none.
    pub fn message(&self) -> &str {
        #[cfg(feature = "std")]
        {
            &self.message
        }
        #[cfg(not(feature = "std"))]
        {
            core::str::from_utf8(&self.message.0[..self.message.1]).unwrap_or("")
        }
    }

    /// For a failed batch copy: the entry that failed a location or address
    /// check (`*failIndex`), or `None` when the failure is not tied to one
    /// entry (`SIZE_MAX`) or the call was not a batch.
    pub fn fail_index(&self) -> Option<u64> {
        self.fail_index
    }
}

impl fmt::Display for AclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} ({})", self.func, self.name(), self.code)?;
        if !self.message().is_empty() {
            write!(f, ": {}", self.message())?;
        }
        if let Some(i) = self.fail_index {
            write!(f, " [failIndex {}]", i)?;
        }
        Ok(())
    }
}

impl fmt::Debug for AclError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AclError")
            .field("func", &self.func)
            .field("code", &self.code)
            .field("name", &self.name())
            .field("message", &self.message())
            .field("fail_index", &self.fail_index)
            .finish()
    }
}

#[cfg(feature = "std")]
impl std::error::Error for AclError {}

/// Turns a returned code into a `Result`.
pub(crate) fn check(func: &'static str, code: i32) -> Result<()> {
    if code == ACL_SUCCESS {
        Ok(())
    } else {
        Err(AclError::from_code(func, code))
    }
}

/// Copies the session's most recent error message into `buf` (at most
/// `buf.len() - 1` bytes and a NUL) and returns the message's full length in
/// bytes (0 if there is none). A copy of the whole message clears it, as the
/// native read does; a truncated one leaves it for a larger buffer.
pub fn recent_error_message_into(buf: &mut [u8]) -> usize {
    let len = if buf.len() > i32::MAX as usize { i32::MAX } else { buf.len() as i32 };
    let n = unsafe { sys::aclGetRecentErrMsg(buf.as_mut_ptr(), len) };
    if n < 0 {
        0
    } else {
        n as usize
    }
}

/// Returns the session's most recent error message. Where the native
/// `aclGetRecentErrMsg` returns NULL (no call has failed yet), this returns
/// an empty string, the SDK's "no message". As natively, reading the message
/// whole clears it: a second read without a new failure returns "".
#[cfg(feature = "std")]
pub fn recent_error_message() -> std::string::String {
    let mut buf = [0u8; 512];
    let n = recent_error_message_into(&mut buf);
    if n < buf.len() {
        return std::string::String::from_utf8_lossy(&buf[..n]).into_owned();
    }
    let mut big = std::vec![0u8; n + 1];
    let m = recent_error_message_into(&mut big).min(n);
    std::string::String::from_utf8_lossy(&big[..m]).into_owned()
}

/// Returns the session's most recent error message, truncated to fit `buf`.
#[cfg(not(feature = "std"))]
pub fn recent_error_message(buf: &mut [u8]) -> &str {
    let n = recent_error_message_into(buf).min(buf.len().saturating_sub(1));
    let mut n = n;
    while n > 0 && core::str::from_utf8(&buf[..n]).is_err() {
        n -= 1;
    }
    core::str::from_utf8(&buf[..n]).unwrap_or("")
}
