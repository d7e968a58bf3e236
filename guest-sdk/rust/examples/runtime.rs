//! The runtime functions beyond copies through the crate's API, checked by the guest
//! itself: the run mode, contexts, 32-bit memsets, event resets, a stream's
//! stop-on-failure mode and logging through `aclAppLog` (one record per
//! level). It prints `runtime: ok` and exits 0, or logs the failed check at
//! `ERROR` and exits 1. tests/sdk_runtime_test.go runs it and reads the log records.
//!
//! Build (from guest-sdk/rust):
//!   RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --release --target wasm32-wasi --example runtime
//! Output: target/wasm32-wasi/release/examples/runtime.wasm (a WASI command).

use aclwasm::{app_log, codes, Context, DeviceBuffer, Event, LogLevel, MemcpyKind, Result, RunMode, Stream, StreamFailureMode};

/// A failed check: what was expected.
fn fail(what: &str) -> aclwasm::AclError {
    let _ = app_log!(LogLevel::ERROR, "check failed: {}", what);
    std::process::exit(1)
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
}

fn run() -> Result<()> {
    app_log!(LogLevel::DEBUG, "starting")?;
    let mode = aclwasm::run_mode()?;
    if mode != RunMode::HOST {
        return Err(fail("run mode ACL_HOST"));
    }

    // Contexts: set_device makes the default context current; a created
    // context is current at once, with a default stream of its own.
    aclwasm::set_device(0)?;
    let default = Context::current()?;
    let ctx = Context::new(0)?;
    if Context::current()? != ctx || ctx == default {
        return Err(fail("the created context is current"));
    }

    // 32-bit memsets, synchronous and queued.
    let buf = DeviceBuffer::new(66)?;
    buf.fill(0xee)?;
    buf.fill_u32(0xdead_beef)?;
    let mut back = [0u8; 66];
    buf.read(0, &mut back)?;
    if words(&back[..64]) != vec![0xdead_beef; 16] || back[64..] != [0xee, 0xee] {
        return Err(fail("fill_u32 sets the whole words, not the tail"));
    }
    let stream = Stream::new()?;
    buf.fill_u32_async(0x0102_0304, &stream)?;
    stream.synchronize()?;
    buf.read(0, &mut back)?;
    if words(&back[..64]) != vec![0x0102_0304; 16] {
        return Err(fail("fill_u32_async"));
    }
    app_log!(LogLevel::INFO, "32-bit memsets ok")?;
    match unsafe { aclwasm::memset_d32(buf.addr(), 64, 0, 17) } {
        Err(e) if e.code() == codes::ACL_ERROR_INVALID_PARAM => app_log!(LogLevel::WARNING, "expected: {}", e)?,
        _ => return Err(fail("17 words in 64 bytes give ACL_ERROR_INVALID_PARAM")),
    }

    // An event reset keeps its record's status, as natively: it reads as
    // completed, not as never recorded.
    let never = Event::new()?.query()?;
    let ev = Event::new()?;
    ev.record(&stream)?;
    stream.synchronize()?;
    if ev.query()? == never {
        return Err(fail("a completed record"));
    }
    ev.reset(&stream)?;
    stream.synchronize()?;
    if ev.query()? == never {
        return Err(fail("a reset event keeps its record's status"));
    }

    // Stop on failure: an offset copy whose slots hold NULL fails when it
    // runs; the memset queued after it then has no effect, and the
    // synchronize reports the failure.
    let s2 = Stream::new()?;
    s2.set_failure_mode(StreamFailureMode::STOP_ON_FAILURE)?;
    let slots = DeviceBuffer::new(16)?;
    slots.fill(0)?;
    let dst = DeviceBuffer::new(64)?;
    dst.fill(0)?;
    unsafe { aclwasm::memcpy_async_with_offset(slots.addr(), 64, 0, slots.addr().add(8), 64, 0, MemcpyKind::INNER_DEVICE_TO_DEVICE, &s2)? };
    dst.fill_async(7, &s2)?;
    if s2.synchronize().is_ok() {
        return Err(fail("the failed copy's error at synchronize"));
    }
    let mut got = [1u8; 64];
    dst.read(0, &mut got)?;
    if got != [0u8; 64] {
        return Err(fail("after a failure the stream's later work has no effect"));
    }
    dst.fill_async(7, &s2)?;
    s2.synchronize()?;
    dst.read(0, &mut got)?;
    if got != [7u8; 64] {
        return Err(fail("the synchronize took the error: the stream runs again"));
    }
    match s2.set_failure_mode(StreamFailureMode::CONTINUE_ON_FAILURE) {
        Err(e) if e.code() == codes::ACL_ERROR_RT_FEATURE_NOT_SUPPORT => {}
        _ => return Err(fail("a stream cannot go back to CONTINUE_ON_FAILURE")),
    }

    // Back to the default context; the created one is destroyed on drop.
    drop((buf, stream, ev, s2, slots, dst));
    default.set_current()?;
    ctx.destroy()?;
    if Context::current()? != default {
        return Err(fail("the default context is current again"));
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        let _ = app_log!(LogLevel::ERROR, "runtime: {}", e);
        eprintln!("runtime: {}", e);
        std::process::exit(1);
    }
    println!("runtime: ok");
}
