//! Stream callbacks (the `callbacks` feature): a host function on one
//! stream, a report callback on another that aclrtProcessReport runs.
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, Ordering};

use aclwasm::callback;

static SUM: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn add(user: *mut c_void) {
    SUM.fetch_add(*(user as *const u32), Ordering::SeqCst);
}

fn stream() -> u32 {
    let mut s = 0u32;
    assert_eq!(unsafe { aclwasm::sys::aclrtCreateStream(&mut s) }, 0);
    s
}

fn main() {
    aclwasm::set_device(0).unwrap();
    let (a, b) = (stream(), stream());
    let mut five = 5u32;
    let mut seven = 7u32;
    unsafe { callback::launch_host_func(a, add, &mut five as *mut u32 as *mut c_void).unwrap() };
    aclwasm::synchronize_device().unwrap();
    callback::subscribe_report(0, b).unwrap();
    unsafe { callback::launch_callback(add, &mut seven as *mut u32 as *mut c_void, true, b).unwrap() };
    while SUM.load(Ordering::SeqCst) < 12 {
        callback::process_report(-1).unwrap();
    }
    callback::unsubscribe_report(0, b).unwrap();
    println!("rust callbacks: OK (sum {})", SUM.load(Ordering::SeqCst));
}
