package host

import "time"

// ModelInfo describes an approved model the runtime holds: on the
// simulator one compiled model per model file, shared read-only by every
// session of every plugin that loads it (aclmdlLoadFromFile), loaded
// again when the file changes; on the native backend (Native) an offline
// model the node's runtime holds loaded, Held times (one native load per
// guest load, never shared), listed while at least one is loaded.
//
// On the simulator a model lives in host memory; WeightBytes is what it
// holds there beyond the ONNX library's working buffers, which each
// execution allocates while it runs (about the size of the model's
// inputs, outputs and intermediate tensors). Each session's load counts
// the weights against its device memory quota. Natively each load holds
// WorkBytes and WeightBytes of device memory (aclmdlQuerySize), counted
// against the loading session's quota until it unloads the model.
type ModelInfo struct {
	// Path is the model's file; Size and ModTime are the file's when it
	// was loaded.
	Path    string
	Size    int64
	ModTime time.Time
	// WeightBytes is the size of the model's weights; WorkBytes,
	// natively, the device memory it works in.
	WeightBytes uint64
	WorkBytes   uint64
	// Native: an offline model the node's runtime holds loaded Held
	// times now, each load holding WorkBytes+WeightBytes.
	Native bool
	Held   int
	// LoadTime is what compiling the model took, LoadedAt when it began
	// (natively, the first listed load: aclmdlQuerySize and
	// aclmdlLoadFromFile).
	LoadTime time.Duration
	LoadedAt time.Time
	// Loads counts the guests' loads that got this compiled model (or,
	// natively, this file since it was listed); Executions, Failures and
	// ExecTime its executions in every session.
	Loads, Executions, Failures uint64
	ExecTime                    time.Duration
}

// Models describes the models the runtime holds, compiled or natively
// loaded, by path.
func (r *Runtime) Models() []ModelInfo {
	cms := r.sh.ModelCache()
	out := make([]ModelInfo, len(cms))
	for i, c := range cms {
		out[i] = ModelInfo(c)
	}
	return out
}

// RefreshModels compiles again, now, each model the runtime holds whose
// file changed since it was compiled (a later load would compile it
// then), and returns the files it compiled. A file that fails (gone, or
// no longer a model) is in the error; the old version stays with the
// sessions that loaded it, and loads fail as they would have.
func (r *Runtime) RefreshModels() ([]string, error) { return r.sh.RefreshModels() }
