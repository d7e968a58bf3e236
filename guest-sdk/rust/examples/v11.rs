//! The ABI v1.1 additions through the crate's API, checked by the guest
//! itself: 32-bit memsets, event resets and logging through `aclAppLog`
//! (one record per level). It prints `v11: ok` and exits 0, or logs the failed check at
//! `ERROR` and exits 1. tests/v11_test.go runs it and reads the log records.
//!
//! Build (from guest-sdk/rust):
//!   RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --release --target wasm32-wasi --example v11
//! Output: target/wasm32-wasi/release/examples/v11.wasm (a WASI command).

use aclwasm::{app_log, codes, DeviceBuffer, Event, LogLevel, Result, Stream};

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
    aclwasm::set_device(0)?;

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
        Err(e) if e.code() == codes::ACL_ERROR_RT_PARAM_INVALID => app_log!(LogLevel::WARNING, "expected: {}", e)?,
        _ => return Err(fail("17 words in 64 bytes give ACL_ERROR_RT_PARAM_INVALID")),
    }

    // An event reset: the event reads as never recorded again.
    let never = Event::new()?.query()?;
    let ev = Event::new()?;
    ev.record(&stream)?;
    stream.synchronize()?;
    if ev.query()? == never {
        return Err(fail("a completed record"));
    }
    ev.reset(&stream)?;
    stream.synchronize()?;
    if ev.query()? != never {
        return Err(fail("a reset event reads as never recorded"));
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        let _ = app_log!(LogLevel::ERROR, "v11: {}", e);
        eprintln!("v11: {}", e);
        std::process::exit(1);
    }
    println!("v11: ok");
}
