package tests

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
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
// Softmax over device tensors, each launch accounted.
func TestNNChain(t *testing.T) {
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "nn-chain", host.Policy{})
	var stdout, stderr bytes.Buffer
	res, err := pl.Run(context.Background(), host.Config{Args: []string{"nn-chain"}, Stdout: &stdout, Stderr: &stderr})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.Equal(t, nnChainWant(), stdout.String())
	noErrors(t, res.Stats)
	for _, op := range []string{"aclnnMul", "aclnnAdd", "aclnnReduceSum", "aclnnSoftmax"} {
		fs := res.Stats.Funcs[op]
		require.Equal(t, uint64(1), fs.Calls, op)
		require.Equal(t, uint64(1), fs.Launches, op)
		require.Zero(t, fs.LaunchFailures, op)
	}
	require.Equal(t, uint64(7), res.Stats.Funcs["aclCreateTensor"].Calls)
	require.Equal(t, base, sb.freeMem(t), "the session released its device memory")
}
