use crate::addr::Addr;
use crate::error::{check, Result};
use crate::stream::Stream;
use crate::sys;
use crate::types::{HostRegisterType, MemcpyKind};
use crate::DeviceBuffer;

/// Guest memory the caller owns, registered (pinned) with
/// `aclrtHostRegister` for as long as this value lives; unregistered
/// (`aclrtHostUnregister`, after the queued work that uses it) on drop.
/// Works without `std`: pin a static or stack buffer.
#[derive(Debug)]
pub struct PinnedSlice<'a> {
    mem: &'a mut [u8],
}

impl<'a> PinnedSlice<'a> {
    /// Registers `mem` with `ty` (MAPPED, READONLY or IOMEMORY).
    pub fn register(mem: &'a mut [u8], ty: HostRegisterType) -> Result<PinnedSlice<'a>> {
        let mut dev = 0u64;
        let a = Addr::of_mut(mem);
        check("aclrtHostRegister", unsafe { sys::aclrtHostRegister(a.0, mem.len() as u64, ty.0, &mut dev) })?;
        Ok(PinnedSlice { mem })
    }

    /// The address of the first byte.
    pub fn addr(&self) -> Addr {
        Addr::of(self.mem)
    }

    /// The bytes. Asynchronous copies into them finish at the stream's next
    /// synchronize.
    pub fn as_slice(&self) -> &[u8] {
        self.mem
    }

    /// The bytes, writable.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        self.mem
    }

    /// Unregisters now and reports the result (drop ignores it).
    pub fn unregister(self) -> Result<()> {
        let a = self.addr();
        core::mem::forget(self);
        check("aclrtHostUnregister", unsafe { sys::aclrtHostUnregister(a.0) })
    }

    /// Queues a copy of the bytes into `dst` at `offset` on `stream` (H2D).
    ///
    /// # Safety
    /// The host reads the bytes when the copy executes: they must not be
    /// written until `stream.synchronize()` returns.
    pub unsafe fn copy_to_device_async(&mut self, dst: &DeviceBuffer, offset: u64, stream: &Stream) -> Result<()> {
        let n = self.mem.len() as u64;
        crate::memcpy_async(dst.addr().add(offset), dst.len().saturating_sub(offset), self.addr(), n, MemcpyKind::HOST_TO_DEVICE, stream)
    }

    /// Queues a copy from `src` at `offset` into the bytes on `stream` (D2H).
    ///
    /// # Safety
    /// The host writes the bytes when the copy executes: they must not be
    /// read or written until `stream.synchronize()` returns.
    pub unsafe fn copy_from_device_async(&mut self, src: &DeviceBuffer, offset: u64, stream: &Stream) -> Result<()> {
        let n = self.mem.len() as u64;
        crate::memcpy_async(Addr::of_mut(self.mem), n, src.addr().add(offset), n, MemcpyKind::DEVICE_TO_HOST, stream)
    }
}

impl Drop for PinnedSlice<'_> {
    fn drop(&mut self) {
        let _ = unsafe { sys::aclrtHostUnregister(Addr::of(self.mem).0) };
    }
}

#[cfg(feature = "std")]
pub use owned::PinnedBuffer;

#[cfg(feature = "std")]
mod owned {
    use super::*;
    use std::boxed::Box;
    use std::vec;

    /// Pinned host memory, as `aclrtMallocHost` gives natively: a guest
    /// allocation registered with `aclrtHostRegister`, unregistered (after
    /// the queued work that uses it) and freed on drop. Dereferences to
    /// `[u8]`. Needs the `std` feature.
    #[derive(Debug)]
    pub struct PinnedBuffer {
        mem: Box<[u8]>,
    }

    impl PinnedBuffer {
        /// Allocates `len` zeroed bytes and registers them (MAPPED).
        pub fn new(len: usize) -> Result<PinnedBuffer> {
            PinnedBuffer::with_type(len, HostRegisterType::MAPPED)
        }

        /// Allocates `len` zeroed bytes and registers them with `ty`.
        pub fn with_type(len: usize, ty: HostRegisterType) -> Result<PinnedBuffer> {
            let mut mem = vec![0u8; len].into_boxed_slice();
            let mut dev = 0u64;
            check("aclrtHostRegister", unsafe { sys::aclrtHostRegister(Addr::of_mut(&mut mem).0, len as u64, ty.0, &mut dev) })?;
            Ok(PinnedBuffer { mem })
        }

        /// The address of the first byte.
        pub fn addr(&self) -> Addr {
            Addr::of(&self.mem)
        }

        /// Unregisters now, reporting the result, and returns the memory.
        pub fn unregister(self) -> Result<Box<[u8]>> {
            let me = core::mem::ManuallyDrop::new(self);
            // Move the box out without running Drop.
            let mem = unsafe { core::ptr::read(&me.mem) };
            check("aclrtHostUnregister", unsafe { sys::aclrtHostUnregister(Addr::of(&mem).0) })?;
            Ok(mem)
        }

        /// Queues a copy of the bytes into `dst` at `offset` on `stream` (H2D).
        ///
        /// # Safety
        /// The host reads the bytes when the copy executes: they must not be
        /// written until `stream.synchronize()` returns.
        pub unsafe fn copy_to_device_async(&mut self, dst: &DeviceBuffer, offset: u64, stream: &Stream) -> Result<()> {
            let n = self.mem.len() as u64;
            crate::memcpy_async(dst.addr().add(offset), dst.len().saturating_sub(offset), self.addr(), n, MemcpyKind::HOST_TO_DEVICE, stream)
        }

        /// Queues a copy from `src` at `offset` into the bytes on `stream` (D2H).
        ///
        /// # Safety
        /// The host writes the bytes when the copy executes: they must not be
        /// read or written until `stream.synchronize()` returns.
        pub unsafe fn copy_from_device_async(&mut self, src: &DeviceBuffer, offset: u64, stream: &Stream) -> Result<()> {
            let n = self.mem.len() as u64;
            crate::memcpy_async(Addr::of_mut(&mut self.mem), n, src.addr().add(offset), n, MemcpyKind::DEVICE_TO_HOST, stream)
        }
    }

    impl core::ops::Deref for PinnedBuffer {
        type Target = [u8];
        fn deref(&self) -> &[u8] {
            &self.mem
        }
    }

    impl core::ops::DerefMut for PinnedBuffer {
        fn deref_mut(&mut self) -> &mut [u8] {
            &mut self.mem
        }
    }

    impl Drop for PinnedBuffer {
        fn drop(&mut self) {
            // Unregistering waits for queued work on the range; only then is
            // the memory freed. If it fails the range was never ours to keep.
            let _ = unsafe { sys::aclrtHostUnregister(Addr::of(&self.mem).0) };
        }
    }
}
