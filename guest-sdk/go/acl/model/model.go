// Package model runs models the host approves (ABI section 13.4) from Go
// guests: a Model is loaded by the name the embedder approved it under
// (aclwasm run --model NAME=FILE, the manifest's models:), runs on
// Datasets of device buffers, synchronously or queued on a stream, and is
// unloaded with Unload.
//
//	m, err := model.Load("mlp")
//	x, _ := acl.NewDeviceBuffer(m.InputSize(0)) // and y
//	in, _ := model.NewDataset(x)
//	out, _ := model.NewDataset(y)
//	err = m.ExecuteAsync(in, out, s)
//	err = s.Synchronize()
package model

import (
	"errors"
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Model is a loaded model and its description (aclmdlDesc).
type Model struct {
	id   uint32
	desc uint32
}

// Load loads the model the embedder approved as name (aclmdlLoadFromFile:
// no file is opened; a name that is not approved fails with the native
// code for a missing model file, ErrGEExecModelPathInvalid).
func Load(name string) (*Model, error) {
	path := append([]byte(name), 0)
	var id uint32
	if err := acl.Check("aclmdlLoadFromFile", raw.MdlLoadFromFile(unsafe.Pointer(&path[0]), unsafe.Pointer(&id))); err != nil {
		return nil, err
	}
	m := &Model{id: id, desc: raw.MdlCreateDesc()}
	if m.desc == 0 {
		err := acl.Check("aclmdlCreateDesc", int32(acl.ErrFailure))
		return nil, errors.Join(err, m.Unload())
	}
	if err := acl.Check("aclmdlGetDesc", raw.MdlGetDesc(m.desc, id)); err != nil {
		return nil, errors.Join(err, m.Unload())
	}
	return m, nil
}

// ID returns the model id.
func (m *Model) ID() uint32 { return m.id }

// NumInputs returns the number of inputs.
func (m *Model) NumInputs() int { return int(raw.MdlGetNumInputs(m.desc)) }

// NumOutputs returns the number of outputs.
func (m *Model) NumOutputs() int { return int(raw.MdlGetNumOutputs(m.desc)) }

// InputSize returns the bytes of input i (0 past the inputs).
func (m *Model) InputSize(i int) uint64 { return uint64(raw.MdlGetInputSizeByIndex(m.desc, uint64(i))) }

// OutputSize returns the bytes of output i (0 past the outputs).
func (m *Model) OutputSize(i int) uint64 {
	return uint64(raw.MdlGetOutputSizeByIndex(m.desc, uint64(i)))
}

// Execute runs the model on in into out and waits for it (aclmdlExecute,
// on the current context's default stream).
func (m *Model) Execute(in, out *Dataset) error {
	return acl.Check("aclmdlExecute", raw.MdlExecute(m.id, in.h, out.h))
}

// ExecuteAsync queues the model's execution on s (aclmdlExecuteAsync):
// the outputs are written when the stream reaches it.
func (m *Model) ExecuteAsync(in, out *Dataset, s acl.Stream) error {
	return acl.Check("aclmdlExecuteAsync", raw.MdlExecuteAsync(m.id, in.h, out.h, uint32(s)))
}

// Unload destroys the description and unloads the model (aclmdlUnload);
// executions already queued finish first.
func (m *Model) Unload() error {
	var err error
	if m.desc != 0 {
		err = acl.Check("aclmdlDestroyDesc", raw.MdlDestroyDesc(m.desc))
		m.desc = 0
	}
	return errors.Join(err, acl.Check("aclmdlUnload", raw.MdlUnload(m.id)))
}

// dataBuffer is aclDataBuffer in the wide profile: {data, size}, 16 bytes.
type dataBuffer struct {
	data, size uint64
}

// Dataset is an aclmdlDataset: a model's inputs or outputs, in order. The
// host reads its data buffers at each execution, so the Dataset keeps
// them; Destroy it when done.
type Dataset struct {
	h    uint32
	bufs []dataBuffer
}

// NewDataset returns a dataset of all of each buffer, in order.
func NewDataset(bufs ...*acl.DeviceBuffer) (*Dataset, error) {
	d := &Dataset{h: raw.MdlCreateDataset(), bufs: make([]dataBuffer, len(bufs))}
	if d.h == 0 {
		return nil, acl.Check("aclmdlCreateDataset", int32(acl.ErrFailure))
	}
	for i, b := range bufs {
		d.bufs[i] = dataBuffer{uint64(b.Ptr()), b.Size()}
		if err := acl.Check("aclmdlAddDatasetBuffer", raw.MdlAddDatasetBuffer(d.h, unsafe.Pointer(&d.bufs[i]))); err != nil {
			return nil, errors.Join(err, d.Destroy())
		}
	}
	return d, nil
}

// Destroy destroys the dataset (aclmdlDestroyDataset).
func (d *Dataset) Destroy() error {
	return acl.Check("aclmdlDestroyDataset", raw.MdlDestroyDataset(d.h))
}
