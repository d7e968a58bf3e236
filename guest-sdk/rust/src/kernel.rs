//! Kernels the host registers (ABI section 13.3), launched by name.
//!
//! A guest launches a kernel the embedder registered and its policy grants
//! (`aclwasm run --kernels SET`, the manifest's `kernels:`) through the
//! kernel's launcher: an import from the module `env` named as the kernel,
//! taking blockDim, the stream and the kernel's parameters (device buffers
//! as addresses, scalars by value). The host binds each such import when
//! it loads the module, checking its types against the kernel's
//! declaration; a launcher of a kernel that is not granted refuses the
//! module, naming it and the kernels granted. [`kernel!`](crate::kernel)
//! declares launchers as safe functions that return a [`Result`].

use crate::addr::Addr;
use crate::error::{check, Result};
use crate::fp16::Float16;

/// A value a kernel launcher passes: its wire type, as the host's
/// declaration of the kernel types the parameter (a device buffer is an
/// [`Addr`], 8 bytes; a scalar of a kernel's `ACL_UINT32` a `u32`, ...).
pub trait KernelArg {
    /// The wasm type the launcher passes it as.
    type Wire;
    /// The value as passed.
    fn wire(self) -> Self::Wire;
}

macro_rules! kernel_arg {
    ($($t:ty => $w:ty),* $(,)?) => {
        $(impl KernelArg for $t {
            type Wire = $w;
            fn wire(self) -> $w {
                self as $w
            }
        })*
    };
}

kernel_arg!(u8 => u32, u16 => u32, u32 => u32, i8 => i32, i16 => i32, i32 => i32, u64 => u64, i64 => i64, f32 => f32, f64 => f64, bool => u32);

impl KernelArg for Addr {
    type Wire = u64;
    fn wire(self) -> u64 {
        self.0
    }
}

impl KernelArg for Float16 {
    type Wire = u32;
    fn wire(self) -> u32 {
        self.0 as u32
    }
}

/// The result of a launcher that returned `code`: the launch was queued,
/// or an error with the native code and the host's message. For
/// [`kernel!`](crate::kernel).
#[doc(hidden)]
pub fn kernel_status(name: &'static str, code: i32) -> Result<()> {
    check(name, code)
}

/// Declares launchers of kernels the host registers, each a function of
/// the kernel's name taking blockDim, the stream and the kernel's
/// parameters in order, and returning whether the launch was queued (a
/// failure when the kernel runs fails the stream, reported by its next
/// synchronize):
///
/// ```no_run
/// aclwasm::kernel! {
///     /// The `basic` set's AddF32: c = a + b over n floats.
///     fn AddF32(a: aclwasm::Addr, b: aclwasm::Addr, c: aclwasm::Addr, n: u32);
/// }
/// # fn main() -> aclwasm::Result<()> {
/// # let (a, b, c) = (aclwasm::DeviceBuffer::new(16)?, aclwasm::DeviceBuffer::new(16)?, aclwasm::DeviceBuffer::new(16)?);
/// let stream = aclwasm::Stream::new()?;
/// AddF32(1, &stream, a.addr(), b.addr(), c.addr(), 4)?;
/// stream.synchronize()?;
/// # Ok(())
/// # }
/// ```
///
/// Each becomes an import `env.NAME` with the wire types of
/// [`KernelArg`], which the host binds at load time to the granted kernel
/// of that name.
#[macro_export]
macro_rules! kernel {
    ($($(#[$m:meta])* $vis:vis fn $name:ident($($arg:ident: $t:ty),* $(,)?);)*) => {
        $(
            $(#[$m])*
            #[allow(non_snake_case)]
            $vis fn $name(block_dim: u32, stream: &$crate::Stream, $($arg: $t),*) -> $crate::Result<()> {
                #[link(wasm_import_module = "env")]
                extern "C" {
                    #[link_name = stringify!($name)]
                    fn launcher(block_dim: u32, stream: u32, $($arg: <$t as $crate::KernelArg>::Wire),*) -> i32;
                }
                $crate::kernel_status(stringify!($name), unsafe { launcher(block_dim, stream.handle(), $($crate::KernelArg::wire($arg)),*) })
            }
        )*
    };
}
