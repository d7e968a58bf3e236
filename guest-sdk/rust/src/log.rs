use core::fmt::{self, Write};

use crate::error::{check, Result};
use crate::sys;

/// A log level of `aclAppLog` (`aclLogLevel`): the host logs the record
/// with slog's Debug, Info, Warn or Error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogLevel(pub i32);

impl LogLevel {
    /// `ACL_DEBUG`
    pub const DEBUG: LogLevel = LogLevel(0);
    /// `ACL_INFO`
    pub const INFO: LogLevel = LogLevel(1);
    /// `ACL_WARNING`
    pub const WARNING: LogLevel = LogLevel(2);
    /// `ACL_ERROR`
    pub const ERROR: LogLevel = LogLevel(3);
}

/// The longest string `aclAppLog` takes, in bytes, without its NUL.
pub const MAX_LOG_STRING: usize = 4095;

/// A NUL-terminated string of at most [`MAX_LOG_STRING`] bytes, built on the
/// stack: what does not fit is cut at a character boundary, and a NUL in the
/// text ends it (the host reads up to the first NUL).
struct CStr {
    buf: [u8; MAX_LOG_STRING + 1],
    len: usize,
}

impl CStr {
    fn new() -> CStr {
        CStr { buf: [0; MAX_LOG_STRING + 1], len: 0 }
    }

    fn ptr(&mut self) -> *const u8 {
        self.buf[self.len] = 0;
        self.buf.as_ptr()
    }
}

impl Write for CStr {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = MAX_LOG_STRING - self.len;
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

/// Logs `msg` as the plugin's own record at `level` (`aclAppLog`), with the
/// function, file and line it names; the host hands it to the embedder's
/// slog logger with the plugin's name and session. Strings longer than
/// [`MAX_LOG_STRING`] bytes are cut. Prefer the [`app_log!`](crate::app_log)
/// macro, which formats the message and fills in the place.
pub fn app_log(level: LogLevel, func: &str, file: &str, line: u32, msg: &str) -> Result<()> {
    app_log_fmt(level, func, file, line, format_args!("{}", msg))
}

/// [`app_log`] with a formatted message, without allocating.
pub fn app_log_fmt(level: LogLevel, func: &str, file: &str, line: u32, msg: fmt::Arguments<'_>) -> Result<()> {
    let (mut f, mut p, mut m) = (CStr::new(), CStr::new(), CStr::new());
    let _ = f.write_str(func);
    let _ = p.write_str(file);
    let _ = m.write_fmt(msg);
    check("aclAppLog", unsafe { sys::aclAppLog(level.0, f.ptr(), p.ptr(), line, m.ptr()) })
}

/// Logs a formatted message at a level through `aclAppLog`, naming the
/// calling module, file and line, as the C SDK's `ACL_APP_LOG`:
///
/// ```no_run
/// aclwasm::app_log!(aclwasm::LogLevel::INFO, "copied {} bytes", 4096).unwrap();
/// ```
///
/// It returns the [`Result`](crate::Result) of the call.
#[macro_export]
macro_rules! app_log {
    ($level:expr, $($arg:tt)+) => {
        $crate::app_log_fmt($level, ::core::module_path!(), ::core::file!(), ::core::line!(), ::core::format_args!($($arg)+))
    };
}
