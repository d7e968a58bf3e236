package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim/model"
)

// Models (ABI section 13.4). A guest names a model the embedder approved
// (Limits.Models); the sandbox opens that file and no other. A backend
// that runs Go compute (acl.Computer: the simulator) runs ONNX models
// through package model; one that runs offline models itself
// (acl.ModelRunner: the native backend) runs .om files through the node's
// runtime, one native load per guest load. Elsewhere a load gives 207000.
// An approved file of the other kind (by its extension: .om on the
// simulator, .onnx on the native backend) is refused at load. A loaded
// model's device memory counts against the session's quota until it is
// unloaded.

// mdlRec is a loaded model of the session.
type mdlRec struct {
	name    string
	in, out []model.IO
	m       *model.Model    // on the simulator
	cm      *cachedModel    // an approved model's entry in the runtime's cache; nil for a guest's
	native  acl.NativeModel // on an acl.ModelRunner
	ne      *cachedModel    // natively, its entry in the runtime's list of native loads, until unloaded
	nr      acl.ModelRunner
	dev     int32  // the guest device whose quota it counts against
	charged uint64 // device memory counted against the quota
}

// mdlObj is a model description or a dataset.
type mdlObj struct {
	kind abi.Kind
	desc *mdlRec  // a description: the model it describes (nil: empty)
	bufs []uint32 // a dataset: its data buffers (the guest's aclDataBuffer pointers)
}

// newMobj gives o a handle.
func (c *Call) newMobj(o *mdlObj) (uint32, error) {
	h, err := c.s.newHandle()
	if err != nil {
		return 0, err
	}
	if c.s.mobjs == nil {
		c.s.mobjs = map[uint32]*mdlObj{}
	}
	c.s.mobjs[h] = o
	return h, nil
}

// mobj resolves handle parameter i as a model object of kind k: NULL or
// a handle of another kind gives 100000.
func (c *Call) mobj(i int, k abi.Kind) (*mdlObj, error) {
	name, h := abi.Funcs[c.fi].Params[i].Name, c.u32(i)
	if h == 0 {
		return nil, acl.Errorf(acl.ErrInvalidParam, "%s is NULL", name)
	}
	o, ok := c.s.mobjs[h]
	if !ok || o.kind != k {
		return nil, acl.Errorf(acl.ErrInvalidParam, "%s %d is not an %s of this session (unknown, destroyed or of another kind)", name, h, k)
	}
	return o, nil
}

// runsModels reports whether the backend runs models: guest ones (from
// guest memory) only on one that runs Go compute, since a native model
// carries device code.
func (c *Call) runsModels(guest bool) error {
	t := c.s.b.Traits()
	if t.Computer != nil {
		return nil
	}
	if t.ModelRunner != nil && !guest {
		return nil
	}
	if guest {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend runs no models from guest memory (a model carries device code)", c.s.b.Name())
	}
	return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not run models", c.s.b.Name())
}

// opens is the open step of a load or size query of the approved model
// name: as natively the parser opens the file before it reads a byte of
// it (ge model_parser_base.cc:35-64), a file removed or made unreadable
// since the host approved it fails with 145002, whatever its kind.
func opens(name, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return openFailed(name, err)
	}
	return f.Close()
}

// openFailed is the 145002 of a model file that could not be opened.
func openFailed(name string, err error) error {
	return acl.Errorf(acl.ErrGEModelPathInvalid, "model %q could not be opened: %v", name, err)
}

// loadFailed is the error of a load of the approved model name that
// failed with err after the file was opened: 145002 where the file could
// not be read after all (removed meanwhile, or the runtime says so),
// 145006 for a file that is no model the backend runs.
func loadFailed(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) || acl.CodeOf(err) == acl.ErrGEModelPathInvalid {
		return acl.Errorf(acl.ErrGEModelPathInvalid, "model %q could not be read: %s", name, acl.MessageOf(err))
	}
	return acl.Errorf(acl.ErrGEModelDataSizeInvalid, "model %q could not be loaded: %s", name, acl.MessageOf(err))
}

// modelKind refuses an approved file the backend does not run: an
// offline model (.om) on a backend that runs ONNX, an ONNX file (.onnx)
// on one that runs offline models.
func modelKind(native bool, name, file string) error {
	ext := strings.ToLower(filepath.Ext(file))
	switch {
	case native && ext == ".onnx":
		return acl.Errorf(acl.ErrGEModelDataSizeInvalid, "model %q could not be loaded: %s is an ONNX file; the native backend runs offline models (.om)", name, file)
	case !native && ext == ".om":
		return acl.Errorf(acl.ErrGEModelDataSizeInvalid, "model %q could not be loaded: %s is an offline model (.om); the simulator runs ONNX models", name, file)
	}
	return nil
}

// charge counts n bytes of device memory for a model against the
// session's quota on its current device.
func (c *Call) charge(name string, n uint64) error {
	s := c.s
	if held := s.held[s.dev]; n > s.policy.DeviceMemory-held {
		return acl.Errorf(acl.ErrRTMemoryAllocation, "model %q needs %d bytes of device memory, which exceed the free device memory quota: %d of %d bytes in use on device %d", name, n, held, s.policy.DeviceMemory, s.dev)
	}
	s.held[s.dev] += n
	return nil
}

// approved resolves the path parameter i as an approved model's name.
func (c *Call) approved(i int) (string, string, error) {
	pname := abi.Funcs[c.fi].Params[i].Name
	if c.u32(i) == 0 {
		return "", "", acl.Errorf(acl.ErrInvalidParam, "%s is NULL", pname)
	}
	name, err := c.cstring(pname, c.u32(i))
	if err != nil {
		return "", "", err
	}
	file, ok := c.s.policy.Models[name]
	if !ok {
		return "", "", acl.Errorf(acl.ErrGEModelPathInvalid, "%s %q is not a model the host approved (approved: %s)", pname, name, approvedNames(c.s.policy.Models))
	}
	return name, file, nil
}

func approvedNames(m map[string]string) string {
	if len(m) == 0 {
		return "none"
	}
	var ns []string
	for n := range m {
		ns = append(ns, fmt.Sprintf("%q", n))
	}
	return strings.Join(ns, ", ")
}

// addModel gives r the session's next model id and writes it to
// parameter 1.
func (c *Call) addModel(r *mdlRec, out []byte) error {
	name := r.name
	if r.m != nil {
		r.in, r.out = r.m.Inputs(), r.m.Outputs()
	}
	r.dev = c.s.dev
	c.s.mdlHeld = append(c.s.mdlHeld, r)
	c.s.mdlNext++
	if c.s.mdls == nil {
		c.s.mdls = map[uint32]*mdlRec{}
	}
	c.s.mdls[c.s.mdlNext] = r
	le.PutUint32(out, c.s.mdlNext)
	c.note = fmt.Sprintf("model %q is id %d", name, c.s.mdlNext)
	return nil
}

// memArgs validates the work and weight memory of the WithMem forms
// (parameters i to i+3): each NULL or inside one live device allocation.
func (c *Call) memArgs(i int) error {
	for k := i; k < i+4; k += 2 {
		addr, n := c.u64(k), c.u64(k+1)
		if addr == 0 {
			continue
		}
		if _, err := c.s.resolveDevice(abi.Funcs[c.fi].Params[k].Name, addr, max(n, 1)); err != nil {
			return acl.Errorf(acl.ErrInvalidParam, "%s", acl.MessageOf(err))
		}
	}
	return nil
}

// loadFromFile is aclmdlLoadFromFile(modelPath, modelId) and, with
// withMem, aclmdlLoadFromFileWithMem.
func loadFromFile(withMem bool) importFn {
	return func(c *Call) error {
		name, file, err := c.approved(0)
		if err != nil {
			return err
		}
		if c.u32(1) == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "modelId is NULL")
		}
		out, err := c.out(1, 4)
		if err != nil {
			return err
		}
		if withMem {
			if err := c.memArgs(2); err != nil {
				return err
			}
		}
		if err := c.runsModels(false); err != nil {
			return err
		}
		if err := opens(name, file); err != nil {
			return err
		}
		if nr := c.s.b.Traits().ModelRunner; nr != nil {
			return c.loadNative(nr, name, file, out)
		}
		if err := modelKind(false, name, file); err != nil {
			return err
		}
		t0 := time.Now()
		cm, cached, err := c.s.sh.loadModel(file)
		if err != nil {
			return loadFailed(name, err)
		}
		// The weights count against the quota, unless the WithMem form
		// gives them the guest's own memory (already counted), as
		// natively a NULL weightPtr has the loader allocate them.
		var n uint64
		if !withMem || c.u64(4) == 0 {
			n = cm.m.WeightBytes()
		}
		if err := c.charge(name, n); err != nil {
			c.s.sh.releaseModel(cm)
			return err
		}
		c.s.modelLoadMetrics(name, time.Since(t0), cached)
		return c.addModel(&mdlRec{name: name, m: cm.m, cm: cm, charged: n}, out)
	}
}

// loadNative loads the approved offline model file on the native
// backend, on the session's current device. Its work and weight memory
// (aclmdlQuerySize) count against the quota, checked before it loads;
// the WithMem form's guest memory is validated but not handed to the
// runtime (memory the guest may free must not hold a loaded model), so
// the runtime's own counts there too.
func (c *Call) loadNative(nr acl.ModelRunner, name, file string, out []byte) error {
	if err := modelKind(true, name, file); err != nil {
		return err
	}
	t0 := time.Now()
	work, weight, err := nr.QueryModel(file)
	if err != nil {
		return loadFailed(name, err)
	}
	n := work + weight
	if n < work {
		n = ^uint64(0)
	}
	if err := c.charge(name, n); err != nil {
		return err
	}
	m, d, err := nr.LoadModel(c.s.phys(c.s.dev), file)
	if err != nil {
		c.s.held[c.s.dev] -= n
		if acl.CodeOf(err) == acl.ErrRTFeatureNotSupport {
			return be(err)
		}
		return loadFailed(name, err)
	}
	took := time.Since(t0)
	c.s.modelLoadMetrics(name, took, false)
	ne := c.s.sh.nativeLoaded(file, t0, took, work, weight)
	r := &mdlRec{name: name, native: m, nr: nr, ne: ne, charged: n, in: nativeIOs(d.Inputs), out: nativeIOs(d.Outputs)}
	return c.addModel(r, out)
}

func nativeIOs(ios []acl.ModelIO) []model.IO {
	out := make([]model.IO, len(ios))
	for i, io := range ios {
		out[i] = model.IO{Name: io.Name, Dims: io.Dims, Type: io.Type, Format: io.Format, Size: io.Size}
	}
	return out
}

// dropModel is the unload of model r: its quota is free again and, on
// the native backend, it is unloaded (the backend keeps it for the
// executions still queued). A compiled model of the simulator stays
// until the session ends, for the same reason.
func (s *Session) dropModel(r *mdlRec) error {
	s.held[r.dev] -= r.charged
	r.charged = 0
	if r.ne != nil {
		s.sh.nativeUnloaded(r.ne)
		r.ne = nil
	}
	if r.nr != nil {
		return be(r.nr.UnloadModel(r.native))
	}
	return nil
}

// unloadModels unloads every model the session still holds and releases
// the compiled ones, at its end, once no execution is left to run: a
// cached model goes back to the cache, a guest's is closed.
func (s *Session) unloadModels() []error {
	var errs []error
	for id, r := range s.mdls {
		errs = append(errs, s.dropModel(r))
		delete(s.mdls, id)
	}
	for _, r := range s.mdlHeld {
		switch {
		case r.cm != nil:
			s.sh.releaseModel(r.cm)
		case r.m != nil:
			errs = append(errs, r.m.Close())
		}
	}
	s.mdlHeld = nil
	return errs
}

// loadFromMem is aclmdlLoadFromMem(model, modelSize, modelId) and, with
// withMem, aclmdlLoadFromMemWithMem.
func loadFromMem(withMem bool) importFn {
	return func(c *Call) error {
		n := c.u64(1)
		if c.u32(0) == 0 || n == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "model is NULL or modelSize is 0")
		}
		out, err := c.out(2, 4)
		if err != nil {
			return err
		}
		if !c.s.policy.AllowGuestModels {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "the policy does not allow models from guest memory (AllowGuestModels); load a model the host approved with aclmdlLoadFromFile")
		}
		if err := c.runsModels(true); err != nil {
			return err
		}
		b, err := c.guest("model", c.u32(0), n)
		if err != nil {
			return err
		}
		if withMem {
			if err := c.memArgs(3); err != nil {
				return err
			}
		}
		m, err := model.Parse(b)
		if err != nil {
			return acl.Errorf(acl.ErrGEModelDataSizeInvalid, "the model's %d bytes are not a model the simulator runs: %v", n, err)
		}
		c.s.modelLoadMetrics(guestModel, 0, false)
		return c.addModel(&mdlRec{name: guestModel, m: m}, out)
	}
}

// guestModel is the name of a model from guest memory, in messages and
// metrics.
const guestModel = "(guest model)"

// querySize is aclmdlQuerySize(fileName, workSize, weightSize): the
// device memory a load of the approved model counts against the quota,
// read from its file as natively (a file that is no model the backend
// runs fails as its load would). The native backend answers what the
// node's runtime does; the simulator keeps a model in host memory and
// counts its weights (compiled into the runtime's cache, for the load
// that follows). A backend that runs no models answers 0 and 0.
func querySize(c *Call) error {
	name, file, err := c.approved(0)
	if err != nil {
		return err
	}
	for i := 1; i <= 2; i++ {
		if c.u32(i) == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "%s is NULL", abi.Funcs[c.fi].Params[i].Name)
		}
	}
	var outs [2][]byte
	for i := range outs {
		if outs[i], err = c.outWord(i + 1); err != nil {
			return err
		}
	}
	var work, weight uint64
	t := c.s.b.Traits()
	if t.ModelRunner != nil || t.Computer != nil {
		if err := opens(name, file); err != nil {
			return err
		}
	}
	switch {
	case t.ModelRunner != nil:
		if err := modelKind(true, name, file); err != nil {
			return err
		}
		if work, weight, err = t.ModelRunner.QueryModel(file); err != nil {
			return loadFailed(name, err)
		}
	case t.Computer != nil:
		if err := modelKind(false, name, file); err != nil {
			return err
		}
		cm, _, err := c.s.sh.loadModel(file)
		if err != nil {
			return loadFailed(name, err)
		}
		cm.loads.Add(^uint64(0)) // no guest's load: loadModel counted one
		weight = cm.m.WeightBytes()
		c.s.sh.releaseModel(cm)
	}
	putWord(outs[0], work)
	putWord(outs[1], weight)
	return nil
}

// modelOf resolves a model id.
func (c *Call) modelOf(id uint32) (*mdlRec, error) {
	r, ok := c.s.mdls[id]
	if !ok {
		return nil, acl.Errorf(acl.ErrGEModelIDInvalid, "model id %d is not a model this session loaded (or it was unloaded)", id)
	}
	return r, nil
}

// unload is aclmdlUnload(modelId): executions already queued keep the
// model until they have run.
func unload(c *Call) error {
	r, err := c.modelOf(c.u32(0))
	if err != nil {
		return err
	}
	delete(c.s.mdls, c.u32(0))
	return c.s.dropModel(r)
}

// createMobj is aclmdlCreateDesc and aclmdlCreateDataset.
func createMobj(k abi.Kind) importFn {
	return func(c *Call) error {
		c.returns(0)
		h, err := c.newMobj(&mdlObj{kind: k})
		if err != nil {
			return err
		}
		c.returns(h)
		return nil
	}
}

// destroyMobj is aclmdlDestroyDesc and aclmdlDestroyDataset; a dataset's
// data buffers are the guest's, as natively.
func destroyMobj(k abi.Kind) importFn {
	return func(c *Call) error {
		if _, err := c.mobj(0, k); err != nil {
			return err
		}
		delete(c.s.mobjs, c.u32(0))
		return nil
	}
}

// getDesc is aclmdlGetDesc(modelDesc, modelId).
func getDesc(c *Call) error {
	d, err := c.mobj(0, abi.ModelDescHandle)
	if err != nil {
		return err
	}
	d.desc = nil // natively cleared first
	r, err := c.modelOf(c.u32(1))
	if err != nil {
		return err
	}
	d.desc = r
	return nil
}

// ios returns the inputs or the outputs a description holds: none for an
// empty one (natively a description aclmdlGetDesc never filled), an
// error for a NULL or foreign one.
func (c *Call) ios(output bool) ([]model.IO, error) {
	d, err := c.mobj(0, abi.ModelDescHandle)
	if err != nil {
		return nil, err
	}
	return d.ios(output), nil
}

func (o *mdlObj) ios(output bool) []model.IO {
	switch {
	case o.desc == nil:
		return nil
	case output:
		return o.desc.out
	}
	return o.desc.in
}

// io returns input or output index (parameter 1) of the description.
func (c *Call) io(output bool) (model.IO, error) {
	ios, err := c.ios(output)
	if err != nil {
		return model.IO{}, err
	}
	return c.index(ios, output)
}

// index returns element index (parameter 1) of ios.
func (c *Call) index(ios []model.IO, output bool) (model.IO, error) {
	i := c.u64(1)
	if len(ios) == 0 {
		return model.IO{}, acl.Errorf(acl.ErrInvalidParam, "index %d: modelDesc %d describes no %s (an empty description: aclmdlGetDesc fills it)", i, c.u32(0), ioWord(output))
	}
	if i >= uint64(len(ios)) {
		return model.IO{}, acl.Errorf(acl.ErrInvalidParam, "index %d is past the model's %d %s", i, len(ios), ioWord(output))
	}
	return ios[i], nil
}

func ioWord(output bool) string {
	if output {
		return "outputs"
	}
	return "inputs"
}

// retSize makes the function return v, saturated to 32 bits.
func (c *Call) retSize(v uint64) { c.returns(uint32(min(v, 1<<32-1))) }

// numIOs is aclmdlGetNumInputs and aclmdlGetNumOutputs: 0 on an error.
func numIOs(output bool) importFn {
	return func(c *Call) error {
		c.returns(0)
		ios, err := c.ios(output)
		if err != nil {
			return err
		}
		c.retSize(uint64(len(ios)))
		return nil
	}
}

// ioSize is aclmdlGetInputSizeByIndex and aclmdlGetOutputSizeByIndex.
func ioSize(output bool) importFn {
	return func(c *Call) error {
		c.returns(0)
		io, err := c.io(output)
		if err != nil {
			return err
		}
		c.retSize(io.Size)
		return nil
	}
}

// ioDims is aclmdlGetInputDims and aclmdlGetOutputDims(modelDesc, index, dims).
func ioDims(output bool) importFn {
	return func(c *Call) error {
		ios, err := c.ios(output)
		if err != nil {
			return err
		}
		if c.u32(2) == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "dims is NULL")
		}
		io, err := c.index(ios, output)
		if err != nil {
			return err
		}
		out, err := c.out(2, acl.IODimsSize)
		if err != nil {
			return err
		}
		d := c.s.mobjs[c.u32(0)]
		id := uint32(0)
		for k, r := range c.s.mdls {
			if r == d.desc {
				id = k
			}
		}
		w := 8 // size_t of dimCount: 8 bytes in the wide layout, 4 in acl32
		if c.s.prof == abi.Native32 {
			w = 4
		}
		return acl.IODims{Name: acl.ModelTensorName(io.Name, id, output, int(c.u64(1))), Dims: io.Dims}.Encode(out, w)
	}
}

// ioName is aclmdlGetInputNameByIndex and aclmdlGetOutputNameByIndex
// (modelDesc, index, name, nameLen): it returns the name's length and
// writes as much of it as fits, with its NUL.
func ioName(output bool) importFn {
	return func(c *Call) error {
		c.returns(0)
		io, err := c.io(output)
		if err != nil {
			return err
		}
		if n := c.u64(3); c.u32(2) != 0 && n > 0 {
			b, err := c.out(2, n)
			if err != nil {
				return err
			}
			k := copy(b[:n-1], io.Name)
			b[k] = 0
		}
		c.retSize(uint64(len(io.Name)))
		return nil
	}
}

// ioType is aclmdlGetInputDataType and aclmdlGetOutputDataType; ioFormat
// the Format functions: -1 (ACL_DT_UNDEFINED, ACL_FORMAT_UNDEFINED) on an
// error.
func ioEnum(output, format bool) importFn {
	return func(c *Call) error {
		c.returns(^uint32(0))
		io, err := c.io(output)
		if err != nil {
			return err
		}
		if format {
			c.returns(uint32(int32(io.Format)))
		} else {
			c.returns(uint32(int32(io.Type)))
		}
		return nil
	}
}

// inputIndexByName is aclmdlGetInputIndexByName(modelDesc, name, index).
func inputIndexByName(c *Call) error {
	ios, err := c.ios(false)
	if err != nil {
		return err
	}
	name, err := c.cstring("name", c.u32(1))
	if err != nil {
		return err
	}
	out, err := c.outWord(2)
	if err != nil {
		return err
	}
	for i, io := range ios {
		if io.Name == name {
			putWord(out, uint64(i))
			return nil
		}
	}
	return acl.Errorf(acl.ErrInvalidParam, "the model has no input named %q", name)
}

// addDatasetBuffer is aclmdlAddDatasetBuffer(dataset, dataBuffer).
func addDatasetBuffer(c *Call) error {
	ds, err := c.mobj(0, abi.DatasetHandle)
	if err != nil {
		return err
	}
	if c.u32(1) == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "dataBuffer is NULL")
	}
	if _, err := c.guest("dataBuffer", c.u32(1), c.s.dataBufferSize()); err != nil {
		return err
	}
	ds.bufs = append(ds.bufs, c.u32(1))
	return nil
}

// datasetNumBuffers is aclmdlGetDatasetNumBuffers(dataset): 0 for NULL.
func datasetNumBuffers(c *Call) error {
	c.returns(0)
	ds, err := c.mobj(0, abi.DatasetHandle)
	if err != nil {
		return err
	}
	c.retSize(uint64(len(ds.bufs)))
	return nil
}

// datasetBuffer is aclmdlGetDatasetBuffer(dataset, index): NULL for NULL
// or an index past the buffers.
func datasetBuffer(c *Call) error {
	c.returns(0)
	ds, err := c.mobj(0, abi.DatasetHandle)
	if err != nil {
		return err
	}
	if i := c.u64(1); i >= uint64(len(ds.bufs)) {
		return acl.Errorf(acl.ErrInvalidParam, "index %d is past the dataset's %d buffers", i, len(ds.bufs))
	} else {
		c.returns(ds.bufs[i])
	}
	return nil
}

// dataBufferSize is the bytes of the guest's aclDataBuffer {data, size}:
// two words of the profile.
func (s *Session) dataBufferSize() uint64 {
	if s.prof == abi.Native32 {
		return 8
	}
	return 16
}

// dataBuffer reads the guest's aclDataBuffer at p, as it is now.
func (c *Call) dataBuffer(p uint32) (addr, n uint64, err error) {
	b, err := c.guest("dataBuffer", p, c.s.dataBufferSize())
	if err != nil {
		return 0, 0, err
	}
	if len(b) == 8 {
		return uint64(le.Uint32(b)), uint64(le.Uint32(b[4:])), nil
	}
	return le.Uint64(b), le.Uint64(b[8:]), nil
}

// mdlBuf is one buffer of an execution: its data buffer's address and
// size, the bytes the model reads or writes there, and whether it is an
// output.
type mdlBuf struct {
	what  string
	addr  uint64
	n     uint64
	write bool
}

// ioSlack is how many bytes a data buffer may be smaller than the model's
// input or output: natively the graph engine allows for a device
// allocation's padding (davinci_model.cc: kDataMemAlignSizeCompare). The
// sandbox still checks the model's whole size against one allocation.
const ioSlack = 64

// datasets resolves the input and output datasets (parameters 1 and 2)
// in the native order: both NULL checks, then the handles.
func (c *Call) datasets() (in, out *mdlObj, err error) {
	if c.u32(1) == 0 || c.u32(2) == 0 {
		return nil, nil, acl.Errorf(acl.ErrInvalidParam, "input or output is NULL")
	}
	if in, err = c.mobj(1, abi.DatasetHandle); err != nil {
		return nil, nil, err
	}
	if out, err = c.mobj(2, abi.DatasetHandle); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// execBufs resolves the datasets of an execution against the model: one
// buffer per input and output (145000 otherwise, both counts first, as
// the graph engine checks them), each at most ioSlack bytes smaller than
// the model's (500002, the graph engine's failed assertion). A buffer
// covers the model's whole size.
func (c *Call) execBufs(r *mdlRec, dss [2]*mdlObj) ([]mdlBuf, error) {
	ioss := [2][]model.IO{r.in, r.out}
	for k, ds := range dss {
		if ios := ioss[k]; len(ds.bufs) != len(ios) {
			word := ioWord(k == 1)
			return nil, acl.Errorf(acl.ErrGEParamInvalid, "the %s dataset holds %d buffers; model %q has %d %s", word[:len(word)-1], len(ds.bufs), r.name, len(ios), word)
		}
	}
	var bufs []mdlBuf
	for k, ds := range dss {
		ios, word := ioss[k], ioWord(k == 1)
		for i, p := range ds.bufs {
			what := fmt.Sprintf("%s %d (%q)", word[:len(word)-1], i, ios[i].Name)
			addr, n, err := c.dataBuffer(p)
			if err != nil {
				return nil, acl.Errorf(acl.ErrInvalidParam, "%s: %s", what, acl.MessageOf(err))
			}
			if n < ios[i].Size && ios[i].Size-n > ioSlack {
				return nil, acl.Errorf(acl.ErrGEFailure, "%s: the data buffer holds %d bytes; the model's is %d (at most %d fewer are accepted)", what, n, ios[i].Size, ioSlack)
			}
			bufs = append(bufs, mdlBuf{what: what, addr: addr, n: ios[i].Size, write: k == 1})
		}
	}
	return bufs, nil
}

// resolveBufs places each buffer in one live allocation of the session
// on device dev, the model's (an output not lent read-only), as its
// launch needs it. Stream workers call it under s.mu.
func (s *Session) resolveBufs(bufs []mdlBuf, dev int32) ([]acl.DevPtr, error) {
	ptrs := make([]acl.DevPtr, len(bufs))
	for i, b := range bufs {
		if b.addr == 0 {
			return nil, fmt.Errorf("%s: its data is NULL (the sandbox allocates no buffer for a model)", b.what)
		}
		sp, err := s.resolveDevice(b.what, b.addr, b.n)
		if err == nil && sp.a.dev != dev {
			err = fmt.Errorf("%s: its memory is on device %d; the model is loaded on device %d", b.what, sp.a.dev, dev)
		}
		if err == nil && b.write {
			err = sp.writable(b.what, b.addr, b.n)
		}
		if err != nil {
			return nil, err
		}
		ptrs[i] = sp.buf.Dev
	}
	return ptrs, nil
}

// execute is aclmdlExecuteAsync(modelId, input, output, stream) and,
// with sync, aclmdlExecute(modelId, input, output) on the current
// context's default stream, waited for.
func execute(sync bool) importFn {
	return func(c *Call) error {
		in, out, err := c.datasets()
		if err != nil {
			return err
		}
		r, err := c.modelOf(c.u32(0))
		if err != nil {
			return err
		}
		bufs, err := c.execBufs(r, [2]*mdlObj{in, out})
		if err != nil {
			return err
		}
		ptrs, err := c.s.resolveBufs(bufs, r.dev)
		if err != nil {
			return acl.Errorf(acl.ErrInvalidParam, "%s", acl.MessageOf(err))
		}
		sh := uint32(0)
		if !sync {
			sh = c.u32(3)
		}
		st, err := c.stream(sh)
		if err != nil {
			return err
		}
		if r.dev != c.s.dev { // natively the runtime's check of the model's context
			return acl.Errorf(acl.ErrRTModelContext, "model %q (id %d) is loaded on device %d; device %d is current: the model is not in the current context", r.name, c.u32(0), r.dev, c.s.dev)
		}
		comp := c.s.b.Traits().Computer
		if comp == nil && r.nr == nil {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not run models", c.s.b.Name())
		}
		if err := c.enqueue(st); err != nil {
			return err
		}
		regions := make([]acl.Region, len(bufs))
		nin := 0
		for i, b := range bufs {
			regions[i] = acl.Region{Ptr: ptrs[i], N: b.n, Write: b.write}
			if !b.write {
				nin++
			}
		}
		s, fi, st0, m, name, cm, dev := c.s, c.fi, c.s.stats.of(c.fi), r.m, r.name, r.cm, r.dev
		if r.ne != nil {
			cm = r.ne // counted in the runtime's list while it is loaded
		}
		done := func(d time.Duration, err error) {
			st0.ranLaunch(d, err)
			s.computeMetrics(fi, d, err != nil)
			s.modelRunMetrics(name, d, err != nil)
			if cm != nil {
				cm.ran(d, err != nil)
			}
		}
		bounds := c.launchBounds()
		l := &acl.Launch{
			Name:    "model " + name,
			Regions: regions,
			Check: func() error {
				s.mu.RLock()
				defer s.mu.RUnlock()
				now, err := s.resolveBufs(bufs, dev)
				if err == nil {
					for i := range now {
						if now[i] != ptrs[i] {
							err = fmt.Errorf("%s: its memory was freed and the address reused", bufs[i].what)
						}
					}
				}
				if err != nil {
					err = &fault{acl.Errorf(acl.ErrRTModelExecute, "model %q did not run, and touched nothing: %s", name, acl.MessageOf(err))}
					done(0, err)
				}
				return err
			},
			Run: func(ctx context.Context, mem [][]byte) error {
				ctx, cancel := bounds(ctx)
				defer cancel()
				t0 := time.Now()
				err := m.Run(ctx, mem[:nin], mem[nin:])
				switch {
				case err == nil:
				case ctx.Err() != nil: // cancelled or out of time: the stream's own code
					err = fmt.Errorf("model %q interrupted: %w", name, ctx.Err())
				default: // the recent error message names the model and why (ABI section 13.1)
					err = &fault{acl.Errorf(acl.ErrRTModelExecute, "model %q failed as it ran, and wrote nothing: %v", name, err)}
				}
				done(time.Since(t0), err)
				return err
			},
		}
		if r.nr != nil { // the node's runtime runs it over the same regions
			l.Model = &acl.ModelCall{Model: r.native, Inputs: nin, Ran: func(d time.Duration, err error) error {
				if err != nil {
					err = nativeEnd(err, fmt.Sprintf("model %q failed as it ran", name))
				}
				done(d, err)
				return err
			}, Bound: bounds} // the same bounds natively: the backend stops the model on the device
			err = r.nr.ExecuteModel(st.h, l)
		} else {
			err = comp.Compute(st.h, l)
		}
		if err != nil {
			return be(err)
		}
		if c.s.tracer != nil {
			c.note = fmt.Sprintf("model %q, %d buffers", name, len(bufs))
		}
		if sync {
			return be(c.s.b.SynchronizeStream(c.ctx, st.h, -1))
		}
		return nil
	}
}
