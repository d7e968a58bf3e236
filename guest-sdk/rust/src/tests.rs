//! Unit tests of the parts that do not call the host (run on the build
//! machine: `RUSTC=/usr/bin/rustc cargo test --offline --lib`).

use crate::codes::{self, error_name};
use crate::types::*;
use crate::{AclError, Addr};

#[test]
fn struct_layouts_are_native() {
    use core::mem::size_of;
    assert_eq!(size_of::<MemLocation>(), 8);
    assert_eq!(size_of::<MemcpyBatchAttr>(), 32);
    assert_eq!(size_of::<PtrAttributes>(), 28);
    let a = MemcpyBatchAttr::new(MemLocation::device(1), MemLocation::host());
    let base = &a as *const _ as usize;
    assert_eq!(&a.src_loc as *const _ as usize - base, 8);
    assert_eq!(&a.rsv as *const _ as usize - base, 16);
    assert_eq!(a.rsv, [0; 16]);
}

#[test]
fn codes_and_names() {
    assert_eq!(codes::ACL_ERROR_RT_PARAM_INVALID, 107000);
    assert_eq!(error_name(107017), "ACL_ERROR_RT_INVALID_HANDLE");
    assert_eq!(error_name(42), "ACL_ERROR_UNKNOWN");
    assert_eq!(MemcpyKind::INNER_DEVICE_TO_DEVICE.name(), Some("ACL_MEMCPY_INNER_DEVICE_TO_DEVICE"));
    assert_eq!(MemcpyKind(99).name(), None);
    let p = MemMallocPolicy::MALLOC_HUGE_ONLY | MemMallocPolicy::TYPE_HIGH_BAND_WIDTH;
    assert_eq!(p.0, 0x1001);
}

#[test]
fn addresses() {
    let buf = [0u8; 16];
    let a = Addr::of(&buf);
    assert_eq!(a.0, buf.as_ptr() as usize as u64);
    assert_eq!(a.add(4).0, a.0 + 4);
    assert!(Addr(1 << 32).is_device());
    assert!(Addr::NULL.is_null());
    assert_eq!(Addr(1 << 40).as_guest_ptr(), None);
}

#[test]
fn local_errors_display() {
    let e = AclError::local("aclInit", codes::ACL_ERROR_INVALID_PARAM, "configPath contains a NUL");
    assert_eq!(e.code(), 100000);
    assert_eq!(e.name(), "ACL_ERROR_INVALID_PARAM");
    assert_eq!(e.func(), "aclInit");
    assert_eq!(e.message(), "configPath contains a NUL");
    assert_eq!(e.fail_index(), None);
    #[cfg(feature = "std")]
    assert_eq!(std::format!("{}", e), "aclInit: ACL_ERROR_INVALID_PARAM (100000): configPath contains a NUL");
    let b = e.with_fail_index(3);
    assert_eq!(b.fail_index(), Some(3));
    assert_eq!(AclError::local("x", 1, "").with_fail_index(u64::MAX).fail_index(), None);
}
