//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"bytes"
	"context"
	"errors"
	"sync"

	"github.com/aclwasm/aclwasm/acl"
)

// Offline models (ABI section 13.4) run through the node's own runtime:
// aclmdlLoadFromFile of a file the embedder approved, described with
// aclmdlGetDesc, executed with aclmdlExecuteAsync over datasets whose
// buffers are the native addresses of the launch's validated regions.
// As for operators (oplib.go), an execution is a blocking host callback
// on the guest's stream: when the stream reaches it, the launch's Check
// runs, and only then is the model queued, on the backend's own stream
// of the device, and waited for. A model stays loaded while an execution
// of it is queued, even after UnloadModel.

// models are the loaded models, by the handles the backend gave out
// (never reused), so that no caller's value reaches the runtime as a
// model id.
type models struct {
	mu sync.Mutex
	m  map[acl.NativeModel]*nmodel
}

// nmodel is one loaded model.
type nmodel struct {
	id        uint32
	dev       int32
	queued    int  // executions queued and not yet run or dropped
	unloading bool // UnloadModel was called: no more executions
}

// modelAPI lists the native functions models need.
var modelAPI = []string{"aclmdlLoadFromFile", "aclmdlUnload", "aclmdlCreateDesc", "aclmdlDestroyDesc", "aclmdlGetDesc",
	"aclmdlGetNumInputs", "aclmdlGetNumOutputs", "aclmdlGetInputSizeByIndex", "aclmdlGetOutputSizeByIndex",
	"aclmdlGetInputDims", "aclmdlGetOutputDims", "aclmdlGetInputNameByIndex", "aclmdlGetOutputNameByIndex",
	"aclmdlGetInputDataType", "aclmdlGetOutputDataType", "aclmdlGetInputFormat", "aclmdlGetOutputFormat",
	"aclCreateDataBuffer", "aclDestroyDataBuffer", "aclmdlCreateDataset", "aclmdlDestroyDataset",
	"aclmdlAddDatasetBuffer", "aclmdlExecuteAsync"}

var _ acl.ModelRunner = (*Backend)(nil)

// modelMissing is the error of a library without the model API, nil when
// it has all of it.
func (b *Backend) modelMissing() error {
	for _, fn := range modelAPI {
		if !b.Supports(fn) {
			return b.missing(fn)
		}
	}
	return nil
}

// ioDims is aclmdlIODims on LP64.
type ioDims struct {
	name  [acl.MaxTensorNameLen]byte
	count uint64
	dims  [acl.MaxDimCount]int64
}

// QueryModel implements [acl.ModelRunner] with aclmdlQuerySize, in
// device 0's context; a library without it reports 0 and 0.
func (b *Backend) QueryModel(path string) (work, weight uint64, err error) {
	if err := b.enter(); err != nil {
		return 0, 0, err
	}
	defer b.exit()
	if b.api.aclmdlQuerySize == nil {
		return 0, 0, nil
	}
	err = b.call(0, "aclmdlQuerySize", func() int32 { return b.api.aclmdlQuerySize(path, &work, &weight) })
	return work, weight, err
}

// LoadModel implements [acl.ModelRunner] with aclmdlLoadFromFile in dev's
// context, and describes the model with aclmdlGetDesc. A library without
// the model API gives 207000.
func (b *Backend) LoadModel(dev int32, path string) (acl.NativeModel, acl.ModelDesc, error) {
	var d acl.ModelDesc
	if err := b.enter(); err != nil {
		return 0, d, err
	}
	defer b.exit()
	if err := b.modelMissing(); err != nil {
		return 0, d, err
	}
	var id uint32
	if err := b.call(dev, "aclmdlLoadFromFile", func() int32 { return b.api.aclmdlLoadFromFile(path, &id) }); err != nil {
		return 0, d, err
	}
	d, err := b.describe(dev, id)
	if err == nil && b.api.aclmdlQuerySize != nil {
		err = b.call(dev, "aclmdlQuerySize", func() int32 { return b.api.aclmdlQuerySize(path, &d.Work, &d.Weight) })
	}
	if err != nil {
		_ = b.call(dev, "aclmdlUnload", func() int32 { return b.api.aclmdlUnload(id) })
		return 0, d, err
	}
	h := acl.NativeModel(b.nextH.Add(1))
	b.mdl.mu.Lock()
	defer b.mdl.mu.Unlock()
	if b.mdl.m == nil {
		b.mdl.m = map[acl.NativeModel]*nmodel{}
	}
	b.mdl.m[h] = &nmodel{id: id, dev: dev}
	return h, d, nil
}

// describe reads model id's inputs and outputs through a description.
func (b *Backend) describe(dev int32, id uint32) (acl.ModelDesc, error) {
	var d acl.ModelDesc
	a := b.api
	var desc uintptr
	if err := b.onDevice(dev, func() { desc = a.aclmdlCreateDesc() }); err != nil {
		return d, err
	}
	if desc == 0 {
		return d, acl.Errorf(acl.ErrGEFailure, "aclmdlCreateDesc returned NULL")
	}
	defer func() { _ = b.onDevice(dev, func() { a.aclmdlDestroyDesc(desc) }) }()
	if err := b.call(dev, "aclmdlGetDesc", func() int32 { return a.aclmdlGetDesc(desc, id) }); err != nil {
		return d, err
	}
	var errs []error
	err := b.onDevice(dev, func() {
		read := func(n uint64, size func(uintptr, uint64) uint64, dims func(uintptr, uint64, *ioDims) int32, name func(uintptr, uint64) string, typ, format func(uintptr, uint64) int32, fn string) []acl.ModelIO {
			ios := make([]acl.ModelIO, n)
			for i := range ios {
				k := uint64(i)
				var dd ioDims
				if rc := dims(desc, k, &dd); rc != 0 || dd.count > acl.MaxDimCount {
					errs = append(errs, acl.Errorf(acl.Error(rc), "%s(%d) returned %d (%d dims)", fn, i, rc, dd.count))
					continue
				}
				ios[i] = acl.ModelIO{Name: name(desc, k), Dims: append([]int64(nil), dd.dims[:dd.count]...),
					Type: acl.DataType(typ(desc, k)), Format: acl.Format(format(desc, k)), Size: size(desc, k)}
				if ios[i].Name == "" {
					ios[i].Name = string(dd.name[:max(0, bytes.IndexByte(dd.name[:], 0))])
				}
			}
			return ios
		}
		d.Inputs = read(a.aclmdlGetNumInputs(desc), a.aclmdlGetInputSizeByIndex, a.aclmdlGetInputDims, a.aclmdlGetInputNameByIndex, a.aclmdlGetInputDataType, a.aclmdlGetInputFormat, "aclmdlGetInputDims")
		d.Outputs = read(a.aclmdlGetNumOutputs(desc), a.aclmdlGetOutputSizeByIndex, a.aclmdlGetOutputDims, a.aclmdlGetOutputNameByIndex, a.aclmdlGetOutputDataType, a.aclmdlGetOutputFormat, "aclmdlGetOutputDims")
	})
	if err != nil {
		return d, err
	}
	return d, errors.Join(errs...)
}

// UnloadModel implements [acl.ModelRunner] with aclmdlUnload, at once
// when no execution of m is queued, else when the last has run or been
// dropped.
func (b *Backend) UnloadModel(m acl.NativeModel) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	b.mdl.mu.Lock()
	nm := b.mdl.m[m]
	if nm == nil || nm.unloading {
		b.mdl.mu.Unlock()
		return acl.Errorf(acl.ErrGEModelIDInvalid, "model %d is not loaded", m)
	}
	nm.unloading = true
	last := nm.queued == 0
	if last {
		delete(b.mdl.m, m)
	}
	b.mdl.mu.Unlock()
	if !last {
		return nil
	}
	return b.call(nm.dev, "aclmdlUnload", func() int32 { return b.api.aclmdlUnload(nm.id) })
}

// release ends one queued execution of m, unloading it after the last
// one once UnloadModel was called.
func (b *Backend) releaseModel(m acl.NativeModel, nm *nmodel) {
	b.mdl.mu.Lock()
	nm.queued--
	last := nm.unloading && nm.queued == 0 && b.mdl.m[m] == nm
	if last {
		delete(b.mdl.m, m)
	}
	b.mdl.mu.Unlock()
	if last {
		_ = b.call(nm.dev, "aclmdlUnload", func() int32 { return b.api.aclmdlUnload(nm.id) })
	}
}

// unloadModels unloads the models still loaded, at Close.
func (b *Backend) unloadModels() error {
	b.mdl.mu.Lock()
	ms := b.mdl.m
	b.mdl.m = nil
	b.mdl.mu.Unlock()
	var errs []error
	for _, nm := range ms {
		errs = append(errs, b.call(nm.dev, "aclmdlUnload", func() int32 { return b.api.aclmdlUnload(nm.id) }))
	}
	return errors.Join(errs...)
}

// ExecuteModel implements [acl.ModelRunner]: l runs, in stream order, as
// a blocking host callback on h that runs l.Check and then the model on
// an operator stream of the device, waited for. The regions are held until it has
// run, so a Free of their memory waits for it.
func (b *Backend) ExecuteModel(h acl.Stream, l *acl.Launch) error {
	if l == nil || l.Model == nil {
		return acl.Errorf(acl.ErrInvalidParam, "the launch describes no model execution")
	}
	if err := b.modelMissing(); err != nil {
		return err
	}
	mc := l.Model
	if mc.Inputs < 0 || mc.Inputs > len(l.Regions) {
		return acl.Errorf(acl.ErrInvalidParam, "%s: %d inputs of %d regions", l.Name, mc.Inputs, len(l.Regions))
	}
	reqs, s, err := b.launchRegions(h, l, false)
	if err != nil {
		return err
	}
	b.mdl.mu.Lock()
	nm := b.mdl.m[mc.Model]
	if nm == nil || nm.unloading {
		b.mdl.mu.Unlock()
		return acl.Errorf(acl.ErrGEModelIDInvalid, "%s: model %d is not loaded", l.Name, mc.Model)
	}
	if nm.dev != s.dev {
		b.mdl.mu.Unlock()
		return acl.Errorf(acl.ErrRTModelContext, "%s: the model is loaded on device %d, the stream is on device %d (the model is not in the stream's context)", l.Name, nm.dev, s.dev)
	}
	nm.queued++
	b.mdl.mu.Unlock()
	var once sync.Once
	release := func() { once.Do(func() { b.releaseModel(mc.Model, nm) }) }
	err = b.launchDrop(h, func() error {
		defer release()
		return runBounded(l, l.Name, mc.Bound, mc.Ran, func(ctx context.Context) error { return b.runModel(ctx, nm, l) })
	}, release, true, reqs...)
	if err != nil {
		release()
	}
	return err
}

// runModel executes nm over l's regions on an operator stream of its
// device and waits for it, stopping it when ctx is done; the datasets are
// released whatever happens, once the execution has ended.
func (b *Backend) runModel(ctx context.Context, nm *nmodel, l *acl.Launch) (err error) {
	a, dev := b.api, nm.dev
	onDev := func(fn func()) {
		if e := b.onDevice(dev, fn); e != nil && err == nil {
			err = e
		}
	}
	var dss [2]uintptr
	var bufs []uintptr
	defer func() {
		onDev(func() {
			for _, p := range bufs {
				a.aclDestroyDataBuffer(p)
			}
			for _, ds := range dss {
				if ds != 0 {
					a.aclmdlDestroyDataset(ds)
				}
			}
		})
	}()
	onDev(func() {
		for k := range dss {
			if dss[k] = a.aclmdlCreateDataset(); dss[k] == 0 {
				err = acl.Errorf(acl.ErrGEFailure, "%s: aclmdlCreateDataset returned NULL", l.Name)
				return
			}
		}
		for i, r := range l.Regions {
			p := a.aclCreateDataBuffer(uintptr(r.Ptr), r.N)
			if p == 0 {
				err = acl.Errorf(acl.ErrGEFailure, "%s: aclCreateDataBuffer returned NULL", l.Name)
				return
			}
			bufs = append(bufs, p)
			ds := dss[0]
			if i >= l.Model.Inputs {
				ds = dss[1]
			}
			if rc := a.aclmdlAddDatasetBuffer(ds, p); rc != 0 {
				err = nativeErr(rc, "aclmdlAddDatasetBuffer")
				return
			}
		}
	})
	if err != nil {
		return err
	}
	st, err := b.takeOpStream(dev)
	if err != nil {
		return err
	}
	keep := true // whether st goes back to the pool
	defer func() { b.putOpStream(dev, st, keep) }()
	if err := b.call(dev, "aclmdlExecuteAsync", func() int32 { return a.aclmdlExecuteAsync(nm.id, dss[0], dss[1], st) }); err != nil {
		return err
	}
	// The model uses the datasets until it has run.
	keep, err = b.waitOpStream(ctx, dev, st, l.Name)
	return err
}
