package sandbox

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim/model"
)

// Models (ABI section 13.4). A guest names a model the embedder approved
// (Limits.Models); the sandbox opens that file and no other. Only a
// backend that runs Go compute (acl.Computer: the simulator) runs models,
// as ONNX through package model; elsewhere a load gives 207000.

// mdlRec is a loaded model of the session.
type mdlRec struct {
	name string
	m    *model.Model
	cm   *cachedModel // an approved model's entry in the runtime's cache; nil for a guest's
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

// runsModels reports whether the backend runs models.
func (c *Call) runsModels() error {
	if c.s.b.Traits().Computer == nil {
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not run models yet", c.s.b.Name())
	}
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

// addModel gives m the session's next model id and writes it to
// parameter 1.
func (c *Call) addModel(name string, m *model.Model, cm *cachedModel, out []byte) error {
	c.s.mdlNext++
	if c.s.mdls == nil {
		c.s.mdls = map[uint32]*mdlRec{}
	}
	c.s.mdls[c.s.mdlNext] = &mdlRec{name: name, m: m, cm: cm}
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
		if err := c.runsModels(); err != nil {
			return err
		}
		t0 := time.Now()
		cm, cached, err := c.s.sh.loadModel(file)
		if err != nil {
			return acl.Errorf(acl.ErrGEModelDataSizeInvalid, "model %q could not be loaded: %v", name, err)
		}
		c.s.modelLoadMetrics(name, time.Since(t0), cached)
		return c.addModel(name, cm.m, cm, out)
	}
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
		if err := c.runsModels(); err != nil {
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
		return c.addModel(guestModel, m, nil, out)
	}
}

// guestModel is the name of a model from guest memory, in messages and
// metrics.
const guestModel = "(guest model)"

// querySize is aclmdlQuerySize(fileName, workSize, weightSize): the
// simulator keeps a model in host memory and needs none of the guest's.
func querySize(c *Call) error {
	if _, _, err := c.approved(0); err != nil {
		return err
	}
	for i := 1; i <= 2; i++ {
		if c.u32(i) == 0 {
			return acl.Errorf(acl.ErrInvalidParam, "%s is NULL", abi.Funcs[c.fi].Params[i].Name)
		}
	}
	for i := 1; i <= 2; i++ {
		out, err := c.outWord(i)
		if err != nil {
			return err
		}
		putWord(out, 0)
	}
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
	if _, err := c.modelOf(c.u32(0)); err != nil {
		return err
	}
	delete(c.s.mdls, c.u32(0))
	return nil
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
		return o.desc.m.Outputs()
	}
	return o.desc.m.Inputs()
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
	ioss := [2][]model.IO{r.m.Inputs(), r.m.Outputs()}
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
// (an output not lent read-only), as its launch needs it. Stream workers
// call it under s.mu.
func (s *Session) resolveBufs(bufs []mdlBuf) ([]acl.DevPtr, error) {
	ptrs := make([]acl.DevPtr, len(bufs))
	for i, b := range bufs {
		if b.addr == 0 {
			return nil, fmt.Errorf("%s: its data is NULL (the sandbox allocates no buffer for a model)", b.what)
		}
		sp, err := s.resolveDevice(b.what, b.addr, b.n)
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
		ptrs, err := c.s.resolveBufs(bufs)
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
		comp := c.s.b.Traits().Computer
		if comp == nil {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend does not run models yet", c.s.b.Name())
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
		s, fi, st0, m, name, cm := c.s, c.fi, c.s.stats.of(c.fi), r.m, r.name, r.cm
		done := func(d time.Duration, err error) {
			st0.ran.Add(1)
			st0.runNs.Add(int64(d))
			if err != nil {
				st0.runFailed.Add(1)
			}
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
				now, err := s.resolveBufs(bufs)
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
		if err := comp.Compute(st.h, l); err != nil {
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
