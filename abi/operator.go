package abi

import (
	"fmt"

	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// opFuncs derives the operator library's functions from its table (ABI
// section 13.2): for each row of aclnn.Ops, in its order,
//
//	aclnn<Name>GetWorkspaceSize(params..., uint64_t *workspaceSize, aclOpExecutor **executor)
//	aclnn<Name>(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream)
//
// Object parameters are handles; int64_t values i64, int8_t, bool and
// aclDataType values i32. A row whose parameters have no wire form here
// stops the program at start-up: the table and its wiring must agree.
func opFuncs() []Func {
	var fs []Func
	for _, o := range aclnn.Ops {
		ps := make([]Param, 0, len(o.Params)+2)
		for _, q := range o.Params {
			p, err := opParam(q)
			if err != nil {
				panic(fmt.Sprintf("abi: aclnn%sGetWorkspaceSize: %v", o.Name, err))
			}
			ps = append(ps, p)
		}
		ps = append(ps, outOf("workspaceSize", U64), out("executor", ExecutorHandle).native("aclOpExecutor **"))
		fs = append(fs,
			Func{Name: "aclnn" + o.Name + "GetWorkspaceSize", Group: Operator, Op: o.Name, Params: ps,
				Doc: "Checks the arguments of " + o.Name + " as the operator library does, then writes its workspace size and a single-use executor."},
			Func{Name: "aclnn" + o.Name, Group: Operator, Op: o.Name, Launch: true,
				Params: []Param{addr("workspace"), u64("workspaceSize"), handle("executor", ExecutorHandle), handle("stream", StreamHandle).native("aclrtStream")},
				Doc:    "Queues " + o.Name + " on stream with the executor aclnn" + o.Name + "GetWorkspaceSize made; its tensors and the workspace are checked again here and when it runs."},
		)
	}
	return fs
}

// opKinds maps an operator parameter's kind to the handle kind it travels
// as.
var opKinds = map[aclnn.Kind]Kind{
	aclnn.Tensor: TensorHandle, aclnn.TensorList: TensorListHandle, aclnn.Scalar: ScalarHandle,
	aclnn.IntArray: IntArrayHandle, aclnn.FloatArray: FloatArrayHandle, aclnn.BoolArray: BoolArrayHandle,
}

// opParam is the wire form of one operator parameter.
func opParam(q aclnn.Param) (Param, error) {
	if k, ok := opKinds[q.Kind]; ok {
		t := "const " + k.String() + " *"
		if q.Out {
			t = k.String() + " *"
		}
		return handle(q.Name, k).native(t), nil
	}
	switch q.Kind {
	case aclnn.Int64:
		return i64(q.Name), nil
	case aclnn.Int8:
		return i32(q.Name).native("int8_t"), nil
	case aclnn.Bool:
		return i32(q.Name).native("bool"), nil
	case aclnn.DType:
		return enum(q.Name, dataType), nil
	}
	// A float by value travels as an f32, a wire type the ABI does not
	// have yet.
	return Param{}, fmt.Errorf("parameter %s: kind %v has no wire form", q.Name, q.Kind)
}
