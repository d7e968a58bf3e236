//! A reactor plugin of the host's bytes-in, bytes-out convention
//! (docs/EMBEDDING.md): the host calls its exports with
//! `host.Instance.CallBytes` (or a `host.Pool`), and each returns 0 or a
//! nonzero status the host sees as a `*host.StatusError`.
//!
//! - `upper`: the input with ASCII letters upper-cased.
//! - `roundtrip`: the input, copied to device memory and back.
//! - `config`: the value of the configuration key named by the input; status
//!   1 if the key is not set.
//! - `repeat`: the input as many times as the configuration value `times`
//!   says; status 2 if `times` is not set or not a number. Past the host's
//!   output limit, the `aclwasm.output_write` error code (207012) with the
//!   copies written so far.
//!
//! It uses std (Vec, String) but no WASI: built for wasm32-unknown-unknown
//! as a cdylib, it is a reactor that imports nothing but `acl` and
//! `aclwasm`. (Rust 1.63's wasm32-wasi cdylib is a command whose exports
//! each run the C library's exit handlers: not for a plugin called again.)
//!
//! Build (from guest-sdk/rust):
//!   RUSTC=/usr/bin/rustc /usr/bin/cargo build --offline --release --target wasm32-unknown-unknown --example bytes
//! Output: target/wasm32-unknown-unknown/release/examples/bytes.wasm

use aclwasm::{AclError, DeviceBuffer, Result};

/// The status of an export: 0, or the failed call's aclError code.
fn status(r: Result<()>) -> i32 {
    match r {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

#[no_mangle]
pub extern "C" fn upper() -> i32 {
    status((|| {
        let mut b = aclwasm::input()?;
        b.make_ascii_uppercase();
        aclwasm::output(&b)
    })())
}

#[no_mangle]
pub extern "C" fn roundtrip() -> i32 {
    status((|| {
        let input = aclwasm::input()?;
        if input.is_empty() {
            return Ok(());
        }
        aclwasm::set_device(0)?;
        let dev = DeviceBuffer::new(input.len() as u64)?;
        dev.write(0, &input)?;
        let mut back = vec![0u8; input.len()];
        dev.read(0, &mut back)?;
        aclwasm::output(&back)
    })())
}

#[no_mangle]
pub extern "C" fn config() -> i32 {
    let run = || -> core::result::Result<i32, AclError> {
        let key = String::from_utf8_lossy(&aclwasm::input()?).into_owned();
        match aclwasm::config(&key)? {
            None => Ok(1),
            Some(v) => aclwasm::output(v.as_bytes()).map(|()| 0),
        }
    };
    run().unwrap_or_else(|e| e.code())
}

#[no_mangle]
pub extern "C" fn repeat() -> i32 {
    let run = || -> core::result::Result<i32, AclError> {
        let times = match aclwasm::config("times")?.and_then(|v| v.parse::<u32>().ok()) {
            Some(n) => n,
            None => return Ok(2),
        };
        let input = aclwasm::input()?;
        for _ in 0..times {
            aclwasm::output(&input)?;
        }
        Ok(0)
    };
    run().unwrap_or_else(|e| e.code())
}
