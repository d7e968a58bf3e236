use crate::addr::Addr;
use crate::error::{check, Result};
use crate::stream::Stream;
use crate::sys;
use crate::types::{HostRegisterType, MemAttr, MemMallocPolicy, MemcpyKind, PtrAttributes};

/// Device memory from `aclrtMalloc`, freed (`aclrtFree`) on drop. Freeing
/// waits for queued work that uses it.
///
/// Device memory is not Rust memory, so writing it needs only `&self`.
#[derive(Debug)]
pub struct DeviceBuffer {
    addr: Addr,
    len: u64,
}

impl DeviceBuffer {
    /// Allocates `len` bytes with `ACL_MEM_MALLOC_HUGE_FIRST`.
    pub fn new(len: u64) -> Result<DeviceBuffer> {
        DeviceBuffer::with_policy(len, MemMallocPolicy::MALLOC_HUGE_FIRST)
    }

    /// Allocates `len` bytes with a page policy (and flags).
    pub fn with_policy(len: u64, policy: MemMallocPolicy) -> Result<DeviceBuffer> {
        let mut a = 0u64;
        check("aclrtMalloc", unsafe { sys::aclrtMalloc(&mut a, len, policy.0) })?;
        Ok(DeviceBuffer { addr: Addr(a), len })
    }

    /// Takes ownership of an allocation made by `aclrtMalloc`.
    ///
    /// # Safety
    /// `addr` must be the base of a live allocation of `len` bytes that
    /// nothing else frees.
    pub unsafe fn from_raw(addr: Addr, len: u64) -> DeviceBuffer {
        DeviceBuffer { addr, len }
    }

    /// Gives up ownership: the allocation is no longer freed on drop.
    pub fn into_raw(self) -> (Addr, u64) {
        let r = (self.addr, self.len);
        core::mem::forget(self);
        r
    }

    /// Frees the allocation now and reports the result (drop ignores it).
    pub fn free(self) -> Result<()> {
        let (a, _) = self.into_raw();
        check("aclrtFree", unsafe { sys::aclrtFree(a.0) })
    }

    /// The base address.
    pub fn addr(&self) -> Addr {
        self.addr
    }

    /// The size in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the size is 0 (never, for an allocation that succeeded).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies `src` into the buffer at `offset` (synchronous H2D).
    pub fn write(&self, offset: u64, src: &[u8]) -> Result<()> {
        let dst = self.addr.add(offset);
        let max = self.len.saturating_sub(offset);
        unsafe { memcpy(dst, max, Addr::of(src), src.len() as u64, MemcpyKind::HOST_TO_DEVICE) }
    }

    /// Copies bytes of the buffer at `offset` into `dst` (synchronous D2H).
    pub fn read(&self, offset: u64, dst: &mut [u8]) -> Result<()> {
        let n = dst.len() as u64;
        unsafe { memcpy(Addr::of_mut(dst), n, self.addr.add(offset), n, MemcpyKind::DEVICE_TO_HOST) }
    }

    /// Copies all of `src` into the start of the buffer (synchronous D2D).
    pub fn copy_from(&self, src: &DeviceBuffer) -> Result<()> {
        unsafe { memcpy(self.addr, self.len, src.addr, src.len, MemcpyKind::DEVICE_TO_DEVICE) }
    }

    /// Queues a copy of all of `src` into the start of the buffer on `stream` (D2D).
    pub fn copy_from_async(&self, src: &DeviceBuffer, stream: &Stream) -> Result<()> {
        unsafe { memcpy_async(self.addr, self.len, src.addr, src.len, MemcpyKind::DEVICE_TO_DEVICE, stream) }
    }

    /// Sets every byte to `value` (`aclrtMemset`).
    pub fn fill(&self, value: u8) -> Result<()> {
        unsafe { memset(self.addr, self.len, value as i32, self.len) }
    }

    /// Queues setting every byte to `value` on `stream` (`aclrtMemsetAsync`).
    pub fn fill_async(&self, value: u8, stream: &Stream) -> Result<()> {
        unsafe { memset_async(self.addr, self.len, value as i32, self.len, stream) }
    }

    /// Sets every whole 32-bit word to `value` (`aclrtMemsetD32`, in the
    /// guest's byte order, little-endian); a tail of fewer than 4 bytes is
    /// left as it was.
    pub fn fill_u32(&self, value: u32) -> Result<()> {
        unsafe { memset_d32(self.addr, self.len, value, self.len / 4) }
    }

    /// Queues [`DeviceBuffer::fill_u32`] on `stream` (`aclrtMemsetD32Async`).
    pub fn fill_u32_async(&self, value: u32, stream: &Stream) -> Result<()> {
        unsafe { memset_d32_async(self.addr, self.len, value, self.len / 4, stream) }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        // A failure here (the device was reset) has nothing to release.
        let _ = unsafe { sys::aclrtFree(self.addr.0) };
    }
}

/// Copies `count` bytes from `src` to `dst` synchronously (`aclrtMemcpy`);
/// the direction comes from the addresses, `kind` must be 0..=5.
///
/// # Safety
/// Guest memory in `[dst, dst+count)` must be valid for writes and not
/// borrowed elsewhere; guest memory in `[src, src+count)` valid for reads.
pub unsafe fn memcpy(dst: Addr, dest_max: u64, src: Addr, count: u64, kind: MemcpyKind) -> Result<()> {
    check("aclrtMemcpy", sys::aclrtMemcpy(dst.0, dest_max, src.0, count, kind.0))
}

/// Queues a copy on `stream` (`aclrtMemcpyAsync`). With unregistered guest
/// memory it completes before returning.
///
/// # Safety
/// As [`memcpy`], and pinned guest memory it names must not be used by Rust
/// until the stream is synchronized.
pub unsafe fn memcpy_async(dst: Addr, dest_max: u64, src: Addr, count: u64, kind: MemcpyKind, stream: &Stream) -> Result<()> {
    check("aclrtMemcpyAsync", sys::aclrtMemcpyAsync(dst.0, dest_max, src.0, count, kind.0, stream.handle()))
}

/// `aclrtMemcpyAsyncWithCondition`: deprecated natively; behaves as [`memcpy_async`].
///
/// # Safety
/// As [`memcpy_async`].
pub unsafe fn memcpy_async_with_condition(dst: Addr, dest_max: u64, src: Addr, count: u64, kind: MemcpyKind, stream: &Stream) -> Result<()> {
    check("aclrtMemcpyAsyncWithCondition", sys::aclrtMemcpyAsyncWithCondition(dst.0, dest_max, src.0, count, kind.0, stream.handle()))
}

/// Sets `count` bytes at `ptr` to `value`'s low byte (`aclrtMemset`); `ptr`
/// must be device memory or pinned guest memory.
///
/// # Safety
/// Pinned guest memory in the range must not be borrowed elsewhere.
pub unsafe fn memset(ptr: Addr, max_count: u64, value: i32, count: u64) -> Result<()> {
    check("aclrtMemset", sys::aclrtMemset(ptr.0, max_count, value, count))
}

/// Queues a memset on `stream` (`aclrtMemsetAsync`).
///
/// # Safety
/// As [`memset`], until the stream is synchronized.
pub unsafe fn memset_async(ptr: Addr, max_count: u64, value: i32, count: u64, stream: &Stream) -> Result<()> {
    check("aclrtMemsetAsync", sys::aclrtMemsetAsync(ptr.0, max_count, value, count, stream.handle()))
}

/// Sets `count` 32-bit words at `ptr` (4-byte aligned) to `value`
/// (`aclrtMemsetD32`). As natively, `count` 0 does nothing, and `count * 4`
/// above `mem_size` or `ptr` in guest memory that is not pinned fails with
/// `ACL_ERROR_INVALID_PARAM`.
///
/// # Safety
/// As [`memset`].
pub unsafe fn memset_d32(ptr: Addr, mem_size: u64, value: u32, count: u64) -> Result<()> {
    check("aclrtMemsetD32", sys::aclrtMemsetD32(ptr.0, mem_size, value, count))
}

/// Queues an [`memset_d32`] on `stream` (`aclrtMemsetD32Async`).
///
/// # Safety
/// As [`memset`], until the stream is synchronized.
pub unsafe fn memset_d32_async(ptr: Addr, mem_size: u64, value: u32, count: u64, stream: &Stream) -> Result<()> {
    check("aclrtMemsetD32Async", sys::aclrtMemsetD32Async(ptr.0, mem_size, value, count, stream.handle()))
}

/// The session's free and total device memory of a class: its quota on the
/// current device and what it does not hold (`aclrtGetMemInfo`).
pub fn mem_info(attr: MemAttr) -> Result<(u64, u64)> {
    let (mut free, mut total) = (0u64, 0u64);
    check("aclrtGetMemInfo", unsafe { sys::aclrtGetMemInfo(attr.0, &mut free, &mut total) })?;
    Ok((free, total))
}

/// Where an address lives (`aclrtPointerGetAttributes`): DEVICE with the
/// device id, HOST for registered guest memory, UNREGISTERED for other guest
/// memory.
pub fn pointer_attributes(addr: Addr) -> Result<PtrAttributes> {
    let mut a = PtrAttributes::default();
    check("aclrtPointerGetAttributes", unsafe { sys::aclrtPointerGetAttributes(addr.0, &mut a) })?;
    Ok(a)
}

/// Registers (pins) `[addr, addr+len)` of guest memory (`aclrtHostRegister`)
/// and returns the address the host reports for it (`addr` itself).
///
/// # Safety
/// While registered, asynchronous copies may read and write the range after
/// their call returns; see [`crate::PinnedSlice`] for a safe wrapper.
pub unsafe fn host_register(addr: Addr, len: u64, ty: HostRegisterType) -> Result<Addr> {
    let mut dev = 0u64;
    check("aclrtHostRegister", sys::aclrtHostRegister(addr.0, len, ty.0, &mut dev))?;
    Ok(Addr(dev))
}

/// Unregisters the range that starts at `addr` (`aclrtHostUnregister`),
/// after the queued work that uses it.
pub fn host_unregister(addr: Addr) -> Result<()> {
    check("aclrtHostUnregister", unsafe { sys::aclrtHostUnregister(addr.0) })
}
