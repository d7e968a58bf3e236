//! The host's operator library (ABI section 13.2): tensors over device
//! buffers, and one function per operator (generated from the host's
//! operator table, so every operator the host offers is here).
//!
//! A [`Tensor`] describes device memory as the operator library sees it: a
//! data type, dims (and strides, an offset) over a [`DeviceBuffer`]; it
//! borrows the buffer, so the buffer outlives it, and is destroyed
//! (`aclDestroyTensor`) on drop. [`Scalar`], [`IntArray`], [`FloatArray`],
//! [`BoolArray`] and [`TensorList`] are the other arguments operators take.
//!
//! Each operator function ([`add`], [`softmax`], ...) runs the library's
//! two phases behind one call: `aclnnXxxGetWorkspaceSize` checks the
//! arguments (an [`AclError`] with the native `ACLNN_ERR_*` code and the
//! host's message otherwise), a workspace of the size it asks for is
//! allocated, and `aclnnXxx` is queued on the stream. Results are in the
//! output tensor's buffer once the stream is synchronized. The raw imports
//! (`sys::aclnnAddGetWorkspaceSize`, `sys::aclnnAdd`, ...) stay available
//! for programs that manage executors and workspaces themselves.
//!
//! ```no_run
//! use aclwasm::{nn, DataType, DeviceBuffer, Stream};
//! # fn main() -> aclwasm::Result<()> {
//! let (a, b, c) = (DeviceBuffer::new(16)?, DeviceBuffer::new(16)?, DeviceBuffer::new(16)?);
//! let ta = nn::Tensor::new(&a, DataType::FLOAT, &[4])?;
//! let tb = nn::Tensor::new(&b, DataType::FLOAT, &[4])?;
//! let tc = nn::Tensor::new(&c, DataType::FLOAT, &[4])?;
//! let stream = Stream::new()?;
//! nn::add(&ta, &tb, &nn::Scalar::from_f32(1.0)?, &tc, &stream)?;
//! stream.synchronize()?;
//! # Ok(())
//! # }
//! ```

use core::marker::PhantomData;

use crate::addr::Addr;
use crate::codes::ACLNN_ERR_INNER_NULLPTR;
use crate::error::{check, AclError, Result};
use crate::fp16::{DataType, Float16};
use crate::memory::DeviceBuffer;
use crate::stream::Stream;
use crate::sys;

mod ops;
pub use ops::*;

/// The native `aclFormat` of a tensor's layout (`ACL_FORMAT_ND`, ...).
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Format(pub i32);

impl Format {
    /// `ACL_FORMAT_NCHW`
    pub const NCHW: Format = Format(0);
    /// `ACL_FORMAT_NHWC`
    pub const NHWC: Format = Format(1);
    /// `ACL_FORMAT_ND`: any number of dims, row-major.
    pub const ND: Format = Format(2);
}

/// The most dims a tensor has in the operator library.
pub const MAX_DIMS: usize = 25;

/// A creation that returned NULL: the host's message says why.
fn null(func: &'static str) -> AclError {
    AclError::from_code(func, ACLNN_ERR_INNER_NULLPTR)
}

/// An `aclTensor` over device memory: a data type and a view (dims,
/// strides, offset, in elements) of storage in one device allocation. It
/// borrows the buffer it was made over and is destroyed on drop.
#[derive(Debug)]
pub struct Tensor<'a> {
    h: u32,
    _buf: PhantomData<&'a DeviceBuffer>,
}

impl<'a> Tensor<'a> {
    /// A contiguous row-major tensor of `dims` over the start of `buf`
    /// (format ND). The host checks that `dims` x the element size fits in
    /// the buffer.
    pub fn new(buf: &'a DeviceBuffer, dtype: DataType, dims: &[i64]) -> Result<Tensor<'a>> {
        if dims.len() > MAX_DIMS {
            return Err(AclError::local("aclCreateTensor", crate::codes::ACLNN_ERR_PARAM_INVALID, "more than 25 dims"));
        }
        let mut strides = [0i64; MAX_DIMS];
        let mut s = 1i64;
        for i in (0..dims.len()).rev() {
            strides[i] = s;
            s = s.wrapping_mul(dims[i]);
        }
        // SAFETY: the storage is the buffer, which the tensor borrows.
        unsafe { Tensor::from_parts(buf.addr(), dtype, dims, &strides[..dims.len()], 0, Format::ND, dims) }
    }

    /// A tensor of any view: `dims` and `strides` (elements) from `offset`
    /// elements into storage of `storage_dims` at `data`, as
    /// `aclCreateTensor` takes them.
    ///
    /// # Safety
    /// The storage at `data` must outlive the tensor (the host checks, at
    /// creation and at each launch, that it lies in one live allocation,
    /// but Rust cannot see the allocation's owner).
    pub unsafe fn from_parts(
        data: Addr,
        dtype: DataType,
        dims: &[i64],
        strides: &[i64],
        offset: i64,
        format: Format,
        storage_dims: &[i64],
    ) -> Result<Tensor<'a>> {
        if strides.len() != dims.len() {
            return Err(AclError::local("aclCreateTensor", crate::codes::ACLNN_ERR_PARAM_INVALID, "strides and dims differ in length"));
        }
        let h = sys::aclCreateTensor(
            dims.as_ptr(),
            dims.len() as u64,
            dtype.0,
            strides.as_ptr(),
            offset,
            format.0,
            storage_dims.as_ptr(),
            storage_dims.len() as u64,
            data.0,
        );
        if h == 0 {
            return Err(null("aclCreateTensor"));
        }
        Ok(Tensor { h, _buf: PhantomData })
    }

    /// The tensor's handle (what `aclTensor *` is on the wire).
    pub fn handle(&self) -> u32 {
        self.h
    }

    /// Gives up ownership: the tensor is no longer destroyed on drop.
    pub fn into_raw(self) -> u32 {
        let h = self.h;
        core::mem::forget(self);
        h
    }
}

impl Drop for Tensor<'_> {
    fn drop(&mut self) {
        let _ = unsafe { sys::aclDestroyTensor(self.h) };
    }
}

/// An `aclScalar`: one value of a data type, destroyed on drop.
#[derive(Debug)]
pub struct Scalar(u32);

impl Scalar {
    /// A scalar of `dtype` from its little-endian bytes (`dtype`'s size of
    /// them).
    pub fn from_bytes(value: &[u8], dtype: DataType) -> Result<Scalar> {
        if value.len() < dtype.size() {
            return Err(AclError::local("aclCreateScalar", crate::codes::ACLNN_ERR_PARAM_INVALID, "fewer value bytes than the data type's size"));
        }
        let h = unsafe { sys::aclCreateScalar(value.as_ptr(), dtype.0) };
        if h == 0 {
            return Err(null("aclCreateScalar"));
        }
        Ok(Scalar(h))
    }

    /// A float32 scalar.
    pub fn from_f32(v: f32) -> Result<Scalar> {
        Scalar::from_bytes(&v.to_le_bytes(), DataType::FLOAT)
    }

    /// A float16 scalar.
    pub fn from_f16(v: Float16) -> Result<Scalar> {
        Scalar::from_bytes(&v.0.to_le_bytes(), DataType::FLOAT16)
    }

    /// An int32 scalar.
    pub fn from_i32(v: i32) -> Result<Scalar> {
        Scalar::from_bytes(&v.to_le_bytes(), DataType::INT32)
    }

    /// An int64 scalar.
    pub fn from_i64(v: i64) -> Result<Scalar> {
        Scalar::from_bytes(&v.to_le_bytes(), DataType::INT64)
    }

    /// A float64 scalar.
    pub fn from_f64(v: f64) -> Result<Scalar> {
        Scalar::from_bytes(&v.to_le_bytes(), DataType::DOUBLE)
    }

    /// The scalar's handle.
    pub fn handle(&self) -> u32 {
        self.0
    }
}

impl Drop for Scalar {
    fn drop(&mut self) {
        let _ = unsafe { sys::aclDestroyScalar(self.0) };
    }
}

macro_rules! array {
    ($(#[$doc:meta])* $name:ident, $t:ty, $create:ident, $destroy:ident, $cname:literal) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name(u32);

        impl $name {
            /// Copies `values` into a new array (the host keeps its own copy).
            pub fn new(values: &[$t]) -> Result<$name> {
                let h = unsafe { sys::$create(values.as_ptr() as _, values.len() as u64) };
                if h == 0 {
                    return Err(null($cname));
                }
                Ok($name(h))
            }

            /// The array's handle.
            pub fn handle(&self) -> u32 {
                self.0
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                let _ = unsafe { sys::$destroy(self.0) };
            }
        }
    };
}

array!(
    /// An `aclIntArray` (dims, axes), destroyed on drop.
    IntArray, i64, aclCreateIntArray, aclDestroyIntArray, "aclCreateIntArray"
);
array!(
    /// An `aclFloatArray`, destroyed on drop.
    FloatArray, f32, aclCreateFloatArray, aclDestroyFloatArray, "aclCreateFloatArray"
);
array!(
    /// An `aclBoolArray` (one byte per bool), destroyed on drop.
    BoolArray, bool, aclCreateBoolArray, aclDestroyBoolArray, "aclCreateBoolArray"
);

/// An `aclTensorList`. As natively, the list owns its tensors: it takes
/// them, and destroying the list (on drop) destroys them.
#[derive(Debug)]
pub struct TensorList<'a> {
    h: u32,
    _bufs: PhantomData<&'a DeviceBuffer>,
}

impl<'a> TensorList<'a> {
    /// A list of `tensors`, which it owns from now on.
    pub fn new<const N: usize>(tensors: [Tensor<'a>; N]) -> Result<TensorList<'a>> {
        let mut hs = [0u32; N];
        for (h, t) in hs.iter_mut().zip(tensors.iter()) {
            *h = t.handle();
        }
        let h = unsafe { sys::aclCreateTensorList(hs.as_ptr(), N as u64) };
        if h == 0 {
            return Err(null("aclCreateTensorList"));
        }
        for t in tensors {
            t.into_raw();
        }
        Ok(TensorList { h, _bufs: PhantomData })
    }

    /// The list's handle.
    pub fn handle(&self) -> u32 {
        self.h
    }
}

impl Drop for TensorList<'_> {
    fn drop(&mut self) {
        let _ = unsafe { sys::aclDestroyTensorList(self.h) };
    }
}

/// The second phase of every operator: a workspace of `size` bytes (none
/// for 0), then `run(workspace, size, executor, stream)`. The workspace is
/// freed on return, which waits for the queued operator that uses it.
fn launch(name: &'static str, size: u64, executor: u32, stream: &Stream, run: impl FnOnce(u64, u64, u32, u32) -> i32) -> Result<()> {
    let ws = if size > 0 { Some(DeviceBuffer::new(size)?) } else { None };
    let addr = ws.as_ref().map_or(0, |b| b.addr().0);
    check(name, run(addr, size, executor, stream.handle()))
}
