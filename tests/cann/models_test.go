package cann

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// standinModels approves the stand-in's counterparts of the simulator's
// test models (acl/cann/testdata/standin/*.om: the same names, inputs,
// outputs, types and dims, run by the stand-in's fixed models), as
// tests/conformance/run approves the ONNX ones, and as "junk" an offline
// model file that is no model.
func standinModels(t *testing.T) map[string]string {
	dir := filepath.Join("..", "..", "acl", "cann", "testdata", "standin")
	m := map[string]string{"junk": filepath.Join(t.TempDir(), "junk.om")}
	require.NoError(t, os.WriteFile(m["junk"], []byte("not a model\n"), 0o644))
	for _, n := range []string{"mlp", "cnn", "divide"} {
		m[n] = filepath.Join(dir, n+".om")
	}
	return m
}

// TestConformanceModelsOnNativeBackend runs the models' conformance
// program (tests/conformance/models.c) in both profiles with every model
// call delegated to the native aclmdl functions: every argument check,
// dataset, stream, unload and cancellation case holds as on the
// simulator, and no model stays loaded.
func TestConformanceModelsOnNativeBackend(t *testing.T) {
	runConformance(t, "models", host.Policy{Models: standinModels(t)}, func(t *testing.T) {
		require.Zero(t, standinLoaded(t), "every model the program loaded is unloaded")
	})
}

// standinLoaded is how many models the stand-in holds loaded.
func standinLoaded(t *testing.T) uint64 {
	t.Helper()
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	var n func() uint64
	purego.RegisterLibFunc(&n, h, "aclwasmStandinModels")
	return n()
}
