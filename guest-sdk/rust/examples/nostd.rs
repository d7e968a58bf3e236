//! A freestanding aclwasm guest in Rust: `#![no_std]`, no allocator, no WASI.
//! It exports `_start`, which traps (panics with panic=abort) on failure.
//!
//! Build (from guest-sdk/rust):
//!   RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --release --no-default-features \
//!       --target wasm32-unknown-unknown --example nostd
//! Output: target/wasm32-unknown-unknown/release/examples/nostd.wasm
#![no_std]

use aclwasm::{codes, DeviceBuffer, HostRegisterType, PinnedSlice, Stream};

#[cfg(not(feature = "std"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

static mut STAGING: [u8; 256] = [0; 256];

fn run() -> aclwasm::Result<()> {
    aclwasm::set_device(0)?;
    let dev = DeviceBuffer::new(256)?;

    // Synchronous round trip with stack memory.
    let mut data = [0u8; 256];
    for (i, b) in data.iter_mut().enumerate() {
        *b = i as u8;
    }
    dev.write(0, &data)?;
    let mut back = [0u8; 256];
    dev.read(0, &mut back)?;
    if back != data {
        panic!("round trip");
    }

    // Pin a static buffer and copy into it asynchronously.
    let stream = Stream::new()?;
    let mut pinned = PinnedSlice::register(unsafe { &mut STAGING }, HostRegisterType::MAPPED)?;
    unsafe { pinned.copy_from_device_async(&dev, 0, &stream)? };
    stream.synchronize()?;
    if pinned.as_slice() != &data[..] {
        panic!("async copy");
    }

    // Errors carry the native code without an allocator.
    match DeviceBuffer::new(0) {
        Err(e) if e.code() == codes::ACL_ERROR_INVALID_PARAM => Ok(()),
        _ => panic!("aclrtMalloc(0) should fail with ACL_ERROR_INVALID_PARAM"),
    }
}

/// The entry point the host runs.
#[no_mangle]
pub extern "C" fn _start() {
    if run().is_err() {
        core::arch::wasm32::unreachable();
    }
}
