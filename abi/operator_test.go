package abi

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// TestOperatorFuncs: each row of aclnn.Ops gives its two functions, in
// the table's order, with the native parameters and the wire forms of
// ABI.md section 13.
func TestOperatorFuncs(t *testing.T) {
	var ops []Func
	for _, f := range Funcs {
		if f.Group == Operator {
			ops = append(ops, f)
		}
	}
	require.Len(t, ops, 2*len(aclnn.Ops))
	for i, o := range aclnn.Ops {
		ws, run := ops[2*i], ops[2*i+1]
		require.Equal(t, "aclnn"+o.Name+"GetWorkspaceSize", ws.Name)
		require.Equal(t, "aclnn"+o.Name, run.Name)
		require.Equal(t, o.Name, ws.Op)
		require.True(t, run.Launch)
		require.Len(t, ws.Params, len(o.Params)+2)
		for k, q := range o.Params {
			p := ws.Params[k]
			require.Equal(t, q.Name, p.Name)
			want := map[aclnn.Kind]Type{aclnn.Int64: U64, aclnn.Int8: I32, aclnn.Bool: I32, aclnn.DType: I32}[q.Kind]
			if q.Kind.Handle() {
				want = Handle
			}
			require.Equal(t, want, p.Type, "%s.%s", ws.Name, q.Name)
		}
		require.Equal(t, "(i64, i64, i32, i32) -> i32", run.SignatureIn(Wide))
		require.Equal(t, "(i32, i64, i32, i32) -> i32", run.SignatureIn(Native32))
	}
}

// TestOperatorParamWithoutWire: a row with a parameter the ABI cannot
// carry yet (a float by value) is refused by name.
func TestOperatorParamWithoutWire(t *testing.T) {
	_, err := opParam(aclnn.Param{Name: "negativeSlope", Kind: aclnn.Float})
	require.ErrorContains(t, err, "negativeSlope")
}
