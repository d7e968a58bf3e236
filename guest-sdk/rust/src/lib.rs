//! Guest SDK for [aclwasm](https://github.com/aclwasm/aclwasm): the CANN ACL
//! runtime's memory-copy API (`aclrtMemcpy` and family, streams, events,
//! device memory) for WebAssembly plugins, as imports from the module `acl`
//! (guest ABI v1).
//!
//! Three layers:
//!
//! - [`sys`]: the raw imports with their exact wire types (generated from the
//!   host's ABI table);
//! - [`codes`], and the enums and structs of [`types`] re-exported here: the
//!   native error codes, enums and struct layouts (generated);
//! - the safe API below: [`Result`]`<T, `[`AclError`]`>`, owned device memory
//!   ([`DeviceBuffer`], freed on drop), pinned guest memory ([`PinnedBuffer`]
//!   with `std`, [`PinnedSlice`] always), [`Stream`] and [`Event`] (destroyed on
//!   drop), and the copy functions;
//! - compute the host approves (ABI section 13): [`nn`], tensors over device
//!   buffers and the operator library (one function per operator, generated
//!   from the host's table); [`kernel!`], launchers of kernels the host
//!   registers, and [`kernels`], those of the sets the CLI links; [`model`], models the host approves, run on datasets of
//!   device buffers;
//! - [`io`]: the host's bytes-in, bytes-out convention (module `aclwasm`):
//!   [`input`], [`output`] and [`config`] for exports the host calls with
//!   `host.Instance.CallBytes`.
//!
//! # Addresses
//!
//! Device memory has 64-bit addresses that do not fit a wasm32 pointer, so
//! every address is an [`Addr`]: guest memory is its own pointer zero-extended
//! (`Addr::of(&buf)`), device memory is what `aclrtMalloc` returned.
//!
//! # Safety model
//!
//! Functions that take only typed buffers ([`DeviceBuffer`], `&[u8]`,
//! `&mut [u8]`) are safe. Functions that take raw [`Addr`]esses are `unsafe`:
//! the host checks every address (a wrong one gives an error, never a host
//! crash), but an address inside guest memory lets the host write memory that
//! Rust code may hold references to. Asynchronous copies into or out of
//! pinned guest memory read and write it after the call returns, until the
//! stream is synchronized, so they are `unsafe` for the same reason.
//!
//! # Features
//!
//! `std` (default): [`AclError`] keeps the host's whole message in a `String`
//! and implements `std::error::Error`; [`PinnedBuffer`] exists. Without it the
//! crate is `#![no_std]` and never allocates; [`AclError`] keeps the first
//! 192 bytes of the message.
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "callbacks")]
pub mod callback;
pub mod codes;
pub mod io;
pub mod kernels;
pub mod model;
pub mod nn;
pub mod sys;
pub mod types;

mod addr;
mod context;
mod copy;
mod device;
mod error;
mod event;
mod fp16;
mod kernel;
mod log;
mod memory;
mod pinned;
mod stream;

pub use addr::Addr;
pub use context::Context;
pub use codes::error_name;
pub use copy::*;
pub use device::*;
pub use error::{recent_error_message, recent_error_message_into, AclError, Result};
pub use event::Event;
pub use fp16::{DataType, Float16};
pub use log::{app_log, app_log_fmt, LogLevel, MAX_LOG_STRING};
pub use kernel::{kernel_status, KernelArg};
pub use io::{config_into, fail, input_len, output, read_input};
#[cfg(feature = "std")]
pub use io::{config, config_bytes, input};
pub use memory::*;
#[cfg(feature = "std")]
pub use pinned::PinnedBuffer;
pub use pinned::PinnedSlice;
pub use stream::{Stream, StreamFailureMode};
pub use types::*;

#[cfg(test)]
mod tests;
