package tests

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestNativeModels runs tests/native/models.cpp, an inference program in
// the style of the public CANN samples, built with the SDK's include
// path only, on the test model "mlp" the policy approves. The outputs
// are the network's for the program's input, computed in float64 with
// numpy from the model's weights (rounded as printed).
func TestNativeModels(t *testing.T) {
	sb := newSandbox(t)
	file := filepath.Join(testsupport.Models(t), "mlp.onnx")
	p := testCompile(host.Policy{Models: map[string]string{"mlp": file}})
	pl, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "models.cpp"), p)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "models")
	require.Equal(t, nativeModelsWant, o.stdout, "%v", o)
}

var nativeModelsWant = `unapproved: 145002
inputs 1, outputs 2
input 0: x, 2 dims [1, 8], 32 bytes, type 0, format 2
output 0: logits, 16 bytes
output 1: probs, 16 bytes
index of x: 0
logits: 0.2673 0.1254 0.9331 -0.3637
probs: 0.2301 0.1997 0.4478 0.1224
past its allocation: 100000
unload again: 145003
done
`
