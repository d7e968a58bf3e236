package tests

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// nnChainWant is samples/nn-chain's output, computed here independently in
// float64 from the sample's inputs and printed as it prints them.
func nnChainWant() string {
	var b bytes.Buffer
	for i := range 2 {
		var a [4]float64
		sum, mx, den := 0.0, math.Inf(-1), 0.0
		for j := range 4 {
			k := i*4 + j
			x := 0.25 * float64(k+1)
			y := float64(k%3) - 1
			z := float64(k) * 0.5
			a[j] = x*y + 0.5*z
			sum += a[j]
			mx = math.Max(mx, a[j])
		}
		for j := range 4 {
			den += math.Exp(a[j] - mx)
		}
		fmt.Fprintf(&b, "row %d: sum %.5f softmax", i, sum)
		for j := range 4 {
			fmt.Fprintf(&b, " %.5f", math.Exp(a[j]-mx)/den)
		}
		b.WriteString("\n")
	}
	b.WriteString("nn-chain: OK\n")
	return b.String()
}

// TestNNChain runs the operator-library sample: Mul, Add, ReduceSum and
// Softmax over device tensors, each launch accounted, on the simulator
// and, when ACLWASM_TEST_ACL_LIB names a libascendcl.so (the stand-in in
// make unit-cann), on the native backend over it and its operator
// library (ACLWASM_TEST_OPAPI_LIB, or the one beside it): the output is
// the same, checked against the chain computed here.
func TestNNChain(t *testing.T) {
	type backend struct {
		name string
		b    acl.Backend
	}
	sb := sim.New()
	t.Cleanup(func() { require.NoError(t, sb.Close()) })
	backends := []backend{{"sim", sb}}
	if b := testsupport.Native(t); b != nil { // closed when the test ends
		backends = append(backends, backend{"native", b})
	}
	wasm := testsupport.Guest(t, "nn-chain")
	ctx := context.Background()
	for _, bk := range backends {
		t.Run(bk.name, func(t *testing.T) {
			rt, err := host.NewRuntime(ctx, host.WithBackend(bk.b), host.WithEngine(engine))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
			base := backendFree(t, bk.b)
			pl, err := rt.Load(ctx, wasm, testCompile(host.Policy{}))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
			o := run(ctx, pl, "nn-chain")
			require.NoError(t, o.err, "%v", o)
			require.Zero(t, o.res.ExitCode, "%v", o)
			require.Equal(t, nnChainWant(), o.stdout, "%v", o)
			noErrors(t, o.res.Stats)
			for _, op := range []string{"aclnnMul", "aclnnAdd", "aclnnReduceSum", "aclnnSoftmax"} {
				fs := o.res.Stats.Funcs[op]
				require.Equal(t, uint64(1), fs.Calls, op)
				require.Equal(t, uint64(1), fs.Launches, op)
				require.Zero(t, fs.LaunchFailures, op)
			}
			require.Equal(t, uint64(7), o.res.Stats.Funcs["aclCreateTensor"].Calls)
			require.Equal(t, base, backendFree(t, bk.b), "the session released its device memory")
		})
	}
}

// backendFree is the free bytes of every device of b, as b accounts them.
func backendFree(t testing.TB, b acl.Backend) []uint64 {
	t.Helper()
	var out []uint64
	for d := 0; d < b.DeviceCount(); d++ {
		free, _, err := b.MemInfo(int32(d), acl.HBMMem)
		require.NoError(t, err)
		out = append(out, free)
	}
	return out
}
