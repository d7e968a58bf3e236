package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl/aclnn"
)

// TestEveryOperatorInEverySDK: each row of the operator table reaches
// every SDK, as its raw two-phase imports and as one idiomatic call (the
// staleness test of package guestsdk then holds the checked-in files to
// this output), and so does every other compute function of the table.
func TestEveryOperatorInEverySDK(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	has := func(path, s string) {
		t.Helper()
		if !strings.Contains(string(files[path]), s) {
			t.Errorf("%s lacks %q", path, s)
		}
	}
	for _, o := range aclnn.Ops {
		for _, n := range []string{"aclnn" + o.Name + "GetWorkspaceSize", "aclnn" + o.Name} {
			has("rust/src/sys.rs", fmt.Sprintf("pub fn %s(", n))
			has("go/acl/raw/raw_wasip1.go", fmt.Sprintf("//go:wasmimport acl %s\n", n))
			has("go/acl/raw/raw_other.go", fmt.Sprintf("func %s(", GoComputeName(n)))
			has("assemblyscript/assembly/bindings.ts", fmt.Sprintf("@external(\"acl\", %q)\nexport declare function %s(", n, n))
		}
		has("rust/src/nn/ops.rs", fmt.Sprintf("pub fn %s(", snake(o.Name)))
		has("go/acl/nn/ops.go", fmt.Sprintf("func %s(", o.Name))
		has("assemblyscript/assembly/nn_ops.ts", fmt.Sprintf("export function %s(", lowerFirst(o.Name)))
	}
	for _, f := range abi.Funcs {
		if f.Group == abi.Tensor || f.Group == abi.Model {
			has("rust/src/sys.rs", fmt.Sprintf("pub fn %s(", f.Name))
			has("go/acl/raw/raw_wasip1.go", fmt.Sprintf("//go:wasmimport acl %s\n", f.Name))
			has("assemblyscript/assembly/bindings.ts", fmt.Sprintf("export declare function %s(", f.Name))
		}
	}
}

// TestOperatorRowWithoutFunctions: a row the ABI table has no functions
// for (the table and the operator list out of step) fails generation,
// naming the operator, instead of an SDK silently lacking it.
func TestOperatorRowWithoutFunctions(t *testing.T) {
	saved := aclnn.Ops
	t.Cleanup(func() { aclnn.Ops = saved })
	aclnn.Ops = append(append([]*aclnn.Op{}, saved...), &aclnn.Op{Name: "Frobnicate", Header: "aclnnop/aclnn_frobnicate.h",
		Params: []aclnn.Param{{Name: "self", Kind: aclnn.Tensor}}})
	if _, err := Files(); err == nil || !strings.Contains(err.Error(), "Frobnicate") {
		t.Fatalf("Files() = %v, want an error naming Frobnicate", err)
	}
}

// TestComputeWireRejectsAnUnknownParam: a compute parameter the SDKs
// cannot pass fails generation, naming it.
func TestComputeWireRejectsAnUnknownParam(t *testing.T) {
	f := &abi.Func{Name: "aclFrob", Params: []abi.Param{{Name: "x", Type: abi.Gptr, Dir: abi.In, Kind: abi.PtrAttributes}}}
	if _, err := computeWire(f, f.Params[0]); err == nil || !strings.Contains(err.Error(), "aclFrob parameter x") {
		t.Fatalf("computeWire = %v, want an error naming aclFrob's x", err)
	}
}

// TestEveryKernelInEverySDK: each kernel of the sets the CLI links has a
// launcher in every SDK, imported from "env" under the kernel's name.
func TestEveryKernelInEverySDK(t *testing.T) {
	files, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	has := func(path, s string) {
		t.Helper()
		if !strings.Contains(string(files[path]), s) {
			t.Errorf("%s lacks %q", path, s)
		}
	}
	for _, set := range kernelSets() {
		if len(set.kernels) == 0 {
			t.Fatalf("set %s has no kernels", set.name)
		}
		for _, k := range set.kernels {
			has("rust/src/kernels.rs", fmt.Sprintf("pub fn %s(", k.Name))
			has("go/acl/kernels/"+set.ident+"/imports_wasip1.go", fmt.Sprintf("//go:wasmimport env %s\n", k.Name))
			has("go/acl/kernels/"+set.ident+"/imports_other.go", fmt.Sprintf("func launch%s(", goExported(k.Name)))
			has("go/acl/kernels/"+set.ident+"/launchers.go", fmt.Sprintf("func %s(blockDim uint32, s acl.Stream", goExported(k.Name)))
			has("assemblyscript/assembly/kernels.ts", fmt.Sprintf("@external(\"env\", %q)\ndeclare function %s_%s_(", k.Name, set.ident, k.Name))
			has("assemblyscript/assembly/kernels.ts", fmt.Sprintf("  export function %s(blockDim: u32, stream: Stream", k.Name))
		}
	}
}

// TestComputeNames: the names each SDK gives operators, kernels and raw
// compute imports.
func TestComputeNames(t *testing.T) {
	for _, c := range []struct {
		fn       func(string) string
		in, want string
	}{
		{snake, "ReduceSum", "reduce_sum"},
		{snake, "InplaceFillScalar", "inplace_fill_scalar"},
		{snake, "cubeMathType", "cube_math_type"},
		{snake, "Mm", "mm"},
		{lowerFirst, "InplaceZero", "inplaceZero"},
		{goExported, "hello_world", "HelloWorld"},
		{goExported, "WriteDo", "WriteDo"},
		{GoComputeName, "aclnnAddGetWorkspaceSize", "NNAddGetWorkspaceSize"},
		{GoComputeName, "aclmdlExecuteAsync", "MdlExecuteAsync"},
		{GoComputeName, "aclCreateTensor", "CreateTensor"},
	} {
		if got := c.fn(c.in); got != c.want {
			t.Errorf("%s: got %q, want %q", c.in, got, c.want)
		}
	}
}
