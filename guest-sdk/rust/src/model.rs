//! Models the host approves (ABI section 13.4): a [`Model`] is loaded by
//! the name the embedder approved it under (`aclwasm run --model
//! NAME=FILE`, the manifest's `models:`), runs on [`Dataset`]s of device
//! buffers, synchronously or queued on a stream, and is unloaded on drop.
//!
//! ```no_run
//! use aclwasm::{model::{DataBuffer, Dataset, Model}, DeviceBuffer, Stream};
//! # fn main() -> aclwasm::Result<()> {
//! let m = Model::load("mlp")?;
//! let x = DeviceBuffer::new(m.input_size(0))?;
//! let y = DeviceBuffer::new(m.output_size(0))?;
//! let (ins, outs) = ([DataBuffer::of(&x)], [DataBuffer::of(&y)]);
//! let (input, output) = (Dataset::new(&ins)?, Dataset::new(&outs)?);
//! let stream = Stream::new()?;
//! m.execute_async(&input, &output, &stream)?;
//! stream.synchronize()?;
//! # Ok(())
//! # }
//! ```

use core::marker::PhantomData;

use crate::codes::{ACL_ERROR_FAILURE, ACL_ERROR_INVALID_PARAM};
use crate::error::{check, AclError, Result};
use crate::memory::DeviceBuffer;
use crate::stream::Stream;
use crate::sys;

/// The longest model name [`Model::load`] passes (the host's names are
/// short; a longer one is refused before calling it).
pub const MAX_NAME: usize = 255;

/// A loaded model and its description (`aclmdlDesc`), unloaded on drop.
#[derive(Debug)]
pub struct Model {
    id: u32,
    desc: u32,
}

impl Model {
    /// Loads the model the embedder approved as `name`
    /// (`aclmdlLoadFromFile`: no file is opened; a name that is not
    /// approved fails with the native code for a missing file).
    pub fn load(name: &str) -> Result<Model> {
        let mut path = [0u8; MAX_NAME + 1];
        if name.len() > MAX_NAME || name.as_bytes().contains(&0) {
            return Err(AclError::local("aclmdlLoadFromFile", ACL_ERROR_INVALID_PARAM, "the model name is longer than 255 bytes or holds a NUL"));
        }
        path[..name.len()].copy_from_slice(name.as_bytes());
        let mut id = 0u32;
        check("aclmdlLoadFromFile", unsafe { sys::aclmdlLoadFromFile(path.as_ptr(), &mut id) })?;
        let desc = unsafe { sys::aclmdlCreateDesc() };
        let m = Model { id, desc };
        if desc == 0 {
            return Err(AclError::from_code("aclmdlCreateDesc", ACL_ERROR_FAILURE));
        }
        check("aclmdlGetDesc", unsafe { sys::aclmdlGetDesc(desc, id) })?;
        Ok(m)
    }

    /// The model id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The number of inputs.
    pub fn num_inputs(&self) -> usize {
        unsafe { sys::aclmdlGetNumInputs(self.desc) as usize }
    }

    /// The number of outputs.
    pub fn num_outputs(&self) -> usize {
        unsafe { sys::aclmdlGetNumOutputs(self.desc) as usize }
    }

    /// The bytes of input `i` (0 past the inputs).
    pub fn input_size(&self, i: usize) -> u64 {
        unsafe { sys::aclmdlGetInputSizeByIndex(self.desc, i as u64) as u64 }
    }

    /// The bytes of output `i` (0 past the outputs).
    pub fn output_size(&self, i: usize) -> u64 {
        unsafe { sys::aclmdlGetOutputSizeByIndex(self.desc, i as u64) as u64 }
    }

    /// Runs the model on `input` into `output` and waits for it
    /// (`aclmdlExecute`, on the current context's default stream).
    pub fn execute(&self, input: &Dataset, output: &Dataset) -> Result<()> {
        check("aclmdlExecute", unsafe { sys::aclmdlExecute(self.id, input.h, output.h) })
    }

    /// Queues the model's execution on `stream` (`aclmdlExecuteAsync`): the
    /// outputs are written when the stream reaches it.
    pub fn execute_async(&self, input: &Dataset, output: &Dataset, stream: &Stream) -> Result<()> {
        check("aclmdlExecuteAsync", unsafe { sys::aclmdlExecuteAsync(self.id, input.h, output.h, stream.handle()) })
    }

    /// Unloads the model now and reports the result (drop ignores it).
    pub fn unload(self) -> Result<()> {
        let (id, desc) = (self.id, self.desc);
        core::mem::forget(self);
        unsafe { sys::aclmdlDestroyDesc(desc) };
        check("aclmdlUnload", unsafe { sys::aclmdlUnload(id) })
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        unsafe {
            if self.desc != 0 {
                sys::aclmdlDestroyDesc(self.desc);
            }
            sys::aclmdlUnload(self.id);
        }
    }
}

/// An `aclDataBuffer` (`{data, size}`, 16 bytes in the wide profile) over
/// a device buffer, which it borrows. The host reads it when a dataset
/// holding it is executed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DataBuffer<'a> {
    data: u64,
    size: u64,
    _buf: PhantomData<&'a DeviceBuffer>,
}

const _: () = assert!(core::mem::size_of::<DataBuffer>() == 16);

impl<'a> DataBuffer<'a> {
    /// All of `buf`.
    pub fn of(buf: &'a DeviceBuffer) -> DataBuffer<'a> {
        DataBuffer { data: buf.addr().0, size: buf.len(), _buf: PhantomData }
    }

    /// `size` bytes of `buf` from its start (the host checks them against
    /// the model's size for the input or output).
    pub fn prefix(buf: &'a DeviceBuffer, size: u64) -> DataBuffer<'a> {
        DataBuffer { data: buf.addr().0, size, _buf: PhantomData }
    }
}

/// An `aclmdlDataset`: a model's inputs or outputs, in order. It borrows
/// its data buffers (the host reads them at each execution) and is
/// destroyed on drop.
#[derive(Debug)]
pub struct Dataset<'a> {
    h: u32,
    _bufs: PhantomData<&'a [DataBuffer<'a>]>,
}

impl<'a> Dataset<'a> {
    /// A dataset of `bufs`, in order.
    pub fn new(bufs: &'a [DataBuffer<'a>]) -> Result<Dataset<'a>> {
        let h = unsafe { sys::aclmdlCreateDataset() };
        if h == 0 {
            return Err(AclError::from_code("aclmdlCreateDataset", ACL_ERROR_FAILURE));
        }
        let d = Dataset { h, _bufs: PhantomData };
        for b in bufs {
            check("aclmdlAddDatasetBuffer", unsafe { sys::aclmdlAddDatasetBuffer(h, b as *const DataBuffer as *const u8) })?;
        }
        Ok(d)
    }

    /// The dataset's handle.
    pub fn handle(&self) -> u32 {
        self.h
    }
}

impl Drop for Dataset<'_> {
    fn drop(&mut self) {
        let _ = unsafe { sys::aclmdlDestroyDataset(self.h) };
    }
}
