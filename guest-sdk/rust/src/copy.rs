use crate::addr::Addr;
use crate::error::{check, AclError, Result};
use crate::stream::Stream;
use crate::sys;
use crate::types::{MemcpyBatchAttr, MemcpyKind};

/// Copies `height` rows of `width` bytes, rows `spitch` apart in `src` and
/// `dpitch` apart in `dst` (`aclrtMemcpy2d`, H2D or D2H). Each side touches
/// `(height-1)*pitch + width` bytes from its base.
///
/// # Safety
/// Guest memory the copy writes must be valid for writes and not borrowed
/// elsewhere.
pub unsafe fn memcpy_2d(dst: Addr, dpitch: u64, src: Addr, spitch: u64, width: u64, height: u64, kind: MemcpyKind) -> Result<()> {
    check("aclrtMemcpy2d", sys::aclrtMemcpy2d(dst.0, dpitch, src.0, spitch, width, height, kind.0))
}

/// Queues a 2D copy on `stream` (`aclrtMemcpy2dAsync`, H2D, D2H or D2D).
///
/// # Safety
/// As [`memcpy_2d`], until the stream is synchronized when guest memory is pinned.
pub unsafe fn memcpy_2d_async(
    dst: Addr,
    dpitch: u64,
    src: Addr,
    spitch: u64,
    width: u64,
    height: u64,
    kind: MemcpyKind,
    stream: &Stream,
) -> Result<()> {
    check("aclrtMemcpy2dAsync", sys::aclrtMemcpy2dAsync(dst.0, dpitch, src.0, spitch, width, height, kind.0, stream.handle()))
}

/// The entries of a batch copy: entry `i` copies `sizes[i]` bytes from
/// `srcs[i]` to `dsts[i]`, whose capacity is `dest_maxs[i]`. `attrs[k]`
/// applies to the entries from `attrs_indexes[k]` on.
#[derive(Clone, Copy, Debug)]
pub struct Batch<'a> {
    /// Destination addresses.
    pub dsts: &'a [Addr],
    /// Destination capacities.
    pub dest_maxs: &'a [u64],
    /// Source addresses.
    pub srcs: &'a [Addr],
    /// Byte counts.
    pub sizes: &'a [u64],
    /// Location attributes.
    pub attrs: &'a [MemcpyBatchAttr],
    /// The first entry each attribute applies to; `attrs_indexes[0]` is 0.
    pub attrs_indexes: &'a [u64],
}

impl<'a> Batch<'a> {
    fn check_lens(&self) {
        let n = self.dsts.len();
        assert!(
            self.dest_maxs.len() == n && self.srcs.len() == n && self.sizes.len() == n,
            "aclwasm: batch arrays differ in length: dsts {}, dest_maxs {}, srcs {}, sizes {}",
            n,
            self.dest_maxs.len(),
            self.srcs.len(),
            self.sizes.len()
        );
        assert!(
            self.attrs.len() == self.attrs_indexes.len(),
            "aclwasm: batch attrs ({}) and attrs_indexes ({}) differ in length",
            self.attrs.len(),
            self.attrs_indexes.len()
        );
    }

    fn raw(&self) -> (*const u64, *const u64, *const u64, *const u64, u64, *const MemcpyBatchAttr, *const u64, u64) {
        (
            self.dsts.as_ptr() as *const u64,
            self.dest_maxs.as_ptr(),
            self.srcs.as_ptr() as *const u64,
            self.sizes.as_ptr(),
            self.dsts.len() as u64,
            self.attrs.as_ptr(),
            self.attrs_indexes.as_ptr(),
            self.attrs.len() as u64,
        )
    }
}

fn batch_result(func: &'static str, code: i32, fail_index: u64) -> Result<()> {
    if code == 0 {
        Ok(())
    } else {
        Err(AclError::from_code(func, code).with_fail_index(fail_index))
    }
}

/// Runs a batch of H2D/D2H copies (`aclrtMemcpyBatch`). On failure,
/// [`AclError::fail_index`] names the entry that failed a location check.
///
/// # Panics
/// If the entry arrays, or `attrs` and `attrs_indexes`, differ in length.
///
/// # Safety
/// Guest memory the entries write must be valid for writes and not borrowed elsewhere.
pub unsafe fn memcpy_batch(b: &Batch<'_>) -> Result<()> {
    b.check_lens();
    let (d, dm, s, sz, n, a, ai, na) = b.raw();
    let mut fail = u64::MAX;
    let code = sys::aclrtMemcpyBatch(d, dm, s, sz, n, a, ai, na, &mut fail);
    batch_result("aclrtMemcpyBatch", code, fail)
}

/// Queues a batch on `stream` as one operation (`aclrtMemcpyBatchAsync`).
///
/// # Panics
/// As [`memcpy_batch`].
///
/// # Safety
/// As [`memcpy_batch`], until the stream is synchronized when guest memory is pinned.
pub unsafe fn memcpy_batch_async(b: &Batch<'_>, stream: &Stream) -> Result<()> {
    b.check_lens();
    let (d, dm, s, sz, n, a, ai, na) = b.raw();
    let mut fail = u64::MAX;
    let code = sys::aclrtMemcpyBatchAsync(d, dm, s, sz, n, a, ai, na, &mut fail, stream.handle());
    batch_result("aclrtMemcpyBatchAsync", code, fail)
}

/// [`memcpy_batch`] without a fail index (`aclrtMemcpyBatchV2`).
///
/// # Panics
/// As [`memcpy_batch`].
///
/// # Safety
/// As [`memcpy_batch`].
pub unsafe fn memcpy_batch_v2(b: &Batch<'_>) -> Result<()> {
    b.check_lens();
    let (d, dm, s, sz, n, a, ai, na) = b.raw();
    check("aclrtMemcpyBatchV2", sys::aclrtMemcpyBatchV2(d, dm, s, sz, n, a, ai, na))
}

/// [`memcpy_batch_async`] without a fail index (`aclrtMemcpyBatchAsyncV2`).
///
/// # Panics
/// As [`memcpy_batch`].
///
/// # Safety
/// As [`memcpy_batch_async`].
pub unsafe fn memcpy_batch_async_v2(b: &Batch<'_>, stream: &Stream) -> Result<()> {
    b.check_lens();
    let (d, dm, s, sz, n, a, ai, na) = b.raw();
    check("aclrtMemcpyBatchAsyncV2", sys::aclrtMemcpyBatchAsyncV2(d, dm, s, sz, n, a, ai, na, stream.handle()))
}

/// The size of a copy descriptor for `kind` (`aclrtGetMemcpyDescSize`;
/// only `INNER_DEVICE_TO_DEVICE`).
pub fn memcpy_desc_size(kind: MemcpyKind) -> Result<u64> {
    let mut n = 0u64;
    check("aclrtGetMemcpyDescSize", unsafe { sys::aclrtGetMemcpyDescSize(kind.0, &mut n) })?;
    Ok(n)
}

/// Writes a descriptor for a device-to-device copy of `count` bytes from
/// `src` to `dst` into device memory at `desc` (`aclrtSetMemcpyDesc`).
///
/// # Safety
/// The host validates the descriptor's addresses when the copy executes; a
/// descriptor naming guest memory lets that copy write it.
pub unsafe fn set_memcpy_desc(desc: Addr, kind: MemcpyKind, src: Addr, dst: Addr, count: u64) -> Result<()> {
    check("aclrtSetMemcpyDesc", sys::aclrtSetMemcpyDesc(desc.0, kind.0, src.0, dst.0, count, core::ptr::null_mut()))
}

/// Queues the copy the descriptor at `desc` describes (`aclrtMemcpyAsyncWithDesc`);
/// `stream` must not be the default stream.
///
/// # Safety
/// As [`set_memcpy_desc`].
pub unsafe fn memcpy_async_with_desc(desc: Addr, kind: MemcpyKind, stream: &Stream) -> Result<()> {
    check("aclrtMemcpyAsyncWithDesc", sys::aclrtMemcpyAsyncWithDesc(desc.0, kind.0, stream.handle()))
}

/// Queues a copy between the device addresses stored in device memory at
/// `dst_slot` and `src_slot`, plus offsets (`aclrtMemcpyAsyncWithOffset`,
/// `INNER_DEVICE_TO_DEVICE`); the slots are read when the copy executes.
///
/// # Safety
/// As [`set_memcpy_desc`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn memcpy_async_with_offset(
    dst_slot: Addr,
    dest_max: u64,
    dst_offset: u64,
    src_slot: Addr,
    count: u64,
    src_offset: u64,
    kind: MemcpyKind,
    stream: &Stream,
) -> Result<()> {
    check(
        "aclrtMemcpyAsyncWithOffset",
        sys::aclrtMemcpyAsyncWithOffset(dst_slot.0, dest_max, dst_offset, src_slot.0, count, src_offset, kind.0, stream.handle()),
    )
}
