//! A complete aclwasm guest in Rust with std: device memory, a pinned
//! buffer, a stream, events, and the copies between them. With the argument
//! --skip-sync it makes the classic mistake of reading the pinned buffer
//! before synchronizing the stream: `aclwasm run --check-async` reports the
//! copy it did not wait for.
//!
//! Build (from guest-sdk/rust):
//!   RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --release --target wasm32-wasi --example copy
//! Output: target/wasm32-wasi/release/examples/copy.wasm (a WASI command).

use aclwasm::{codes, set_device, Addr, DeviceBuffer, Event, MemcpyKind, PinnedBuffer, Result, Stream};

fn run(skip_sync: bool) -> Result<()> {
    set_device(0)?;
    let (major, minor, patch) = aclwasm::version()?;
    println!("ACL {}.{}.{} with {} device(s)", major, minor, patch, aclwasm::device_count()?);

    // Synchronous H2D and D2H with ordinary guest memory.
    let input: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let dev = DeviceBuffer::new(input.len() as u64)?;
    dev.write(0, &input)?;
    let mut back = vec![0u8; input.len()];
    dev.read(0, &mut back)?;
    assert_eq!(back, input, "round trip through device memory");

    // Asynchronous copies through pinned memory, timed with events.
    let stream = Stream::new()?;
    let (start, end) = (Event::new()?, Event::new()?);
    let mut pinned = PinnedBuffer::new(input.len())?;
    pinned.copy_from_slice(&input);
    let dev2 = DeviceBuffer::new(input.len() as u64)?;
    start.record(&stream)?;
    unsafe { pinned.copy_to_device_async(&dev2, 0, &stream)? };
    dev2.fill_async(0x5a, &stream)?;
    unsafe { pinned.copy_from_device_async(&dev2, 0, &stream)? };
    end.record(&stream)?;
    if !skip_sync {
        stream.synchronize()?;
    }
    assert!(pinned.iter().all(|&b| b == 0x5a), "memset result copied back");
    println!("async round trip took {:.3} ms", Event::elapsed_time(&start, &end)?);

    // A failing call: the error carries the code, its name and the host's message.
    let err = unsafe { aclwasm::memcpy(dev.addr(), 16, Addr::of(&input), 32, MemcpyKind::HOST_TO_DEVICE) }.unwrap_err();
    assert_eq!(err.code(), codes::ACL_ERROR_RT_PARAM_INVALID);
    println!("expected failure: {}", err);
    Ok(())
}

fn main() {
    let skip_sync = std::env::args().nth(1).as_deref() == Some("--skip-sync");
    if let Err(e) = run(skip_sync) {
        eprintln!("copy: {}", e);
        std::process::exit(1);
    }
    println!("copy: ok");
}
