package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// computeGuests compute through each SDK's API (ABI section 13): two
// tensors added by the operator library, and a call with shapes that do
// not broadcast refused by its first phase; an operator of each kind of
// argument (Mm's int8, ReduceSum's int array, bool and data type,
// Softmax's negative int64, Cast, InplaceZero) over [[1, 2], [3, 4]]; the same sum by the basic
// set's AddF32 through a kernel launcher; the test model mlp run
// synchronously and on a stream. Each checks its sums itself and prints
// (the AssemblyScript one, which has no WASI, logs through aclAppLog) what
// it computed; the model's outputs are those tests/native/models.cpp
// prints for the same input (TestNativeModels: computed with numpy from
// the model's weights).
var computeGuests = []string{"rust-compute", "go-compute", "as-compute"}

func TestSDKCompute(t *testing.T) {
	ctx := context.Background()
	b := sim.New()
	t.Cleanup(func() { b.Close() })
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(engine), host.WithKernelSet(basic.Set, basic.Kernels()...))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	policy := testCompile(host.Policy{
		Kernels: []string{basic.Set},
		Models:  map[string]string{"mlp": filepath.Join(testsupport.Models(t), "mlp.onnx")},
	})
	var logits, probs string
	for _, l := range strings.Split(nativeModelsWant, "\n") {
		if strings.HasPrefix(l, "logits: ") {
			logits = l
		}
		if strings.HasPrefix(l, "probs: ") {
			probs = l
		}
	}
	require.NotEmpty(t, logits)
	want := strings.Join([]string{
		"add: 11 22 33 44",
		"bad shapes: 161002 ACLNN_ERR_PARAM_INVALID",
		"ops: mm 7 10 15 22, sum 17 37, softmax 0.5 0.5, cast 7 10 15 22",
		"kernel: 11 22 33 44",
		"unapproved: 145002",
		logits,
		probs,
		"compute: ok",
	}, "\n") + "\n"

	for _, name := range computeGuests {
		t.Run(name, func(t *testing.T) {
			free, _, err := b.MemInfo(0, 0)
			require.NoError(t, err)
			pl, err := rt.Load(ctx, testsupport.Guest(t, name), policy)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
			var logs, stdout, stderr bytes.Buffer
			res, err := pl.Run(ctx, host.Config{
				Args: []string{name}, Stdout: &stdout, Stderr: &stderr,
				Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
			})
			require.NoError(t, err, "stdout:\n%s\nstderr:\n%s\nlogs:\n%s", stdout.String(), stderr.String(), logs.String())
			require.Zero(t, res.ExitCode, "stdout:\n%s\nstderr:\n%s\nlogs:\n%s", stdout.String(), stderr.String(), logs.String())
			got := stdout.String()
			if strings.HasPrefix(name, "as-") {
				require.Empty(t, got)
				for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
					var r struct{ Level, Msg string }
					require.NoError(t, json.Unmarshal([]byte(line), &r), line)
					require.Equal(t, "INFO", r.Level, line)
					got += r.Msg + "\n"
				}
			}
			require.Equal(t, want, got)
			require.Empty(t, stderr.String())
			after, _, err := b.MemInfo(0, 0)
			require.NoError(t, err)
			require.Equal(t, free, after, "the guest's device memory is freed")

			// Without the basic kernels granted, the launcher binds to
			// nothing and the module is refused, naming the kernel.
			_, err = rt.Load(ctx, testsupport.Guest(t, name), testCompile(host.Policy{Models: policy.Models}))
			var le *host.LoadError
			require.ErrorAs(t, err, &le)
			require.Contains(t, err.Error(), "import env.AddF32 is undefined: no kernel AddF32 for its launcher: it is not granted to the plugin")
		})
	}
}
