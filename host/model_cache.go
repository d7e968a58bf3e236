package host

import "time"

// ModelInfo describes an approved model the runtime holds compiled: one
// per model file, shared read-only by every session of every plugin that
// loads it (aclmdlLoadFromFile), loaded again when the file changes.
//
// On the simulator a model lives in host memory, never in a session's
// device memory: it counts against no Policy quota. WeightBytes is what
// it holds there beyond the ONNX library's working buffers, which each
// execution allocates while it runs (about the size of the model's
// inputs, outputs and intermediate tensors).
type ModelInfo struct {
	// Path is the model's file; Size and ModTime are the file's when it
	// was loaded.
	Path    string
	Size    int64
	ModTime time.Time
	// WeightBytes is the size of the model's weights.
	WeightBytes uint64
	// LoadTime is what compiling the model took, LoadedAt when it began.
	LoadTime time.Duration
	LoadedAt time.Time
	// Loads counts the guests' loads that got this compiled model;
	// Executions, Failures and ExecTime its executions in every session.
	Loads, Executions, Failures uint64
	ExecTime                    time.Duration
}

// Models describes the models the runtime holds compiled, by path.
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
