package gen

import (
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

func TestFuncsCoverTheABI(t *testing.T) {
	fs, err := Funcs()
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != len(abi.Funcs) {
		t.Fatalf("%d functions, want %d", len(fs), len(abi.Funcs))
	}
	for i, f := range fs {
		if f.Name != abi.Funcs[i].Name {
			t.Errorf("function %d is %s, want %s (ABI order)", i, f.Name, abi.Funcs[i].Name)
		}
	}
}

// Every class travels as the wire type of the parameters it is given to.
func TestSemsTravelAsTheirWireType(t *testing.T) {
	fs, err := Funcs()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fs {
		if f.Group == abi.Tensor || f.Group == abi.Operator || f.Group == abi.Model || f.Group == abi.Kernel || f.Group == abi.Prof {
			continue // nn.go, mdl.go, kernelapi.go and prof.go declare them from the table itself
		}
		for _, p := range f.Params {
			if w := p.Sem.Wire(); w != p.Type {
				t.Errorf("%s.%s is %s in the ABI table, but its class %d travels as %s", f.Name, p.Name, p.Type, p.Sem, w)
			}
		}
	}
}

// A parameter whose description the generators cannot render fails
// generation, naming it, instead of producing a binding of some type.
func TestFuncsRejectAnUndescribedParam(t *testing.T) {
	f := &abi.Func{Name: "aclrtX"}
	for _, q := range []abi.Param{
		{Name: "x", Type: abi.I32},                                          // neither Int, Uint nor an enum
		{Name: "x", Type: abi.Handle},                                       // which handle?
		{Name: "x", Type: abi.Gptr, Kind: abi.Int},                          // no direction
		{Name: "x", Type: abi.Gptr, Dir: abi.In, Kind: abi.Float},           // a float read: no class
		{Name: "x", Type: abi.Gptr, Dir: abi.In, Elem: abi.Addr},            // an array without its count
		{Name: "x", Type: abi.Gptr, Dir: abi.In, Kind: abi.MemcpyBatchAttr}, // likewise
	} {
		if s, err := semOf(f, q); err == nil || !strings.Contains(err.Error(), "aclrtX parameter x") {
			t.Errorf("semOf(%+v) = %d, %v; want an error naming aclrtX parameter x", q, s, err)
		}
	}
}

// The Go SDK's names match package acl's where acl names a value.
func TestGoNamesMatchPackageACL(t *testing.T) {
	codes := map[acl.Error]string{
		acl.ErrInvalidParam: "ErrInvalidParam", acl.ErrRepeatInitialize: "ErrRepeatInitialize",
		acl.ErrRepeatFinalize: "ErrRepeatFinalize", acl.ErrFeatureUnsupported: "ErrFeatureUnsupported",
		acl.ErrInternal: "ErrInternal", acl.ErrRTParamInvalid: "ErrRTParamInvalid",
		acl.ErrRTInvalidDeviceID: "ErrRTInvalidDeviceID", acl.ErrRTContextNull: "ErrRTContextNull",
		acl.ErrRTInvalidHandle: "ErrRTInvalidHandle", acl.ErrRTFeatureNotSupport: "ErrRTFeatureNotSupport",
		acl.ErrRTMemoryAllocation: "ErrRTMemoryAllocation", acl.ErrRTOverLimit: "ErrRTOverLimit",
		acl.ErrRTInternal: "ErrRTInternal", acl.ErrRTStreamSyncTimeout: "ErrRTStreamSyncTimeout",
		acl.ErrHostMemoryAlreadyRegistered: "ErrHostMemoryAlreadyRegistered",
		acl.ErrHostMemoryNotRegistered:     "ErrHostMemoryNotRegistered",
	}
	for e, want := range codes {
		if got := (Code{Name: e.Name(), Value: int32(e)}).GoName(); got != want {
			t.Errorf("GoName(%s) = %s, want %s", e.Name(), got, want)
		}
	}
	es, err := Enums()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"ACL_MEMCPY_HOST_TO_DEVICE": "MemcpyHostToDevice", "ACL_MEM_LOCATION_TYPE_HOST_NUMA": "MemLocationHostNUMA",
		"ACL_MEM_MALLOC_HUGE1G_ONLY_P2P": "MemMallocHuge1GOnlyP2P", "ACL_MEM_ACCESS_USER_SPACE_READONLY": "MemAccessUserSpaceReadonly",
		"ACL_HBM_MEM_P2P_HUGE1G": "HBMMemP2PHuge1G", "ACL_STREAM_STATUS_NOT_READY": "StreamStatusNotReady",
		"ACL_EVENT_RECORDED_STATUS_COMPLETE": "EventRecordedStatusComplete", "ACL_HOST_REGISTER_IOMEMORY": "HostRegisterIOMemory",
		"ACL_HOST_REGISTER_READONLY": "HostRegisterReadOnly",
	}
	seen := 0
	for i := range es {
		for _, m := range es[i].Members {
			if w, ok := want[m.Name]; ok {
				seen++
				if got := es[i].GoConst(m); got != w {
					t.Errorf("GoConst(%s) = %s, want %s", m.Name, got, w)
				}
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of %d enum members", seen, len(want))
	}
}

func TestFilesAreDeterministic(t *testing.T) {
	a, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Files()
	if err != nil {
		t.Fatal(err)
	}
	for p := range a {
		if string(a[p]) != string(b[p]) {
			t.Errorf("%s differs between two runs", p)
		}
	}
}

// The native-layout C declarations are the native signatures, and each
// travels as its acl32 wire type: pointers and size_t as i32, uint64_t as i64.
func TestCNativeDeclarations(t *testing.T) {
	m, err := load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"aclrtMalloc":                "void **devPtr, size_t size, aclrtMemMallocPolicy policy",
		"aclrtMemcpy":                "void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind",
		"aclrtHostRegister":          "void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr",
		"aclrtMemcpyAsyncWithOffset": "void **dst, size_t destMax, size_t dstDataOffset, const void **src, size_t count, size_t srcDataOffset, aclrtMemcpyKind kind, aclrtStream stream",
		"aclrtGetMemInfo":            "aclrtMemAttr attr, size_t *free, size_t *total",
	}
	sigs := map[string]string{
		"aclrtHostRegister": "aclrtHostRegister(ptr i32, size i64, type i32, devPtr i32) -> i32",
		"aclrtMemcpy":       "aclrtMemcpy(dst i32, destMax i32, src i32, count i32, kind i32) -> i32",
	}
	for i := range m.funcs {
		f := &m.funcs[i]
		var b buf
		if err := cNativeDecl(&b, f); err != nil {
			t.Errorf("%s: %v", f.Name, err)
		}
		if w, ok := want[f.Name]; ok {
			got, err := cParams(f, cNative)
			if err != nil || got != w {
				t.Errorf("%s(%s), %v; want (%s)", f.Name, got, err, w)
			}
		}
		if w, ok := sigs[f.Name]; ok && wireSig32(f) != w {
			t.Errorf("acl32 wire of %s is %s, want %s", f.Name, wireSig32(f), w)
		}
	}
}

// A native C type that does not travel as the table's acl32 wire type, or
// that points to values of another width, fails generation.
func TestCNativeMismatch(t *testing.T) {
	m, err := load()
	if err != nil {
		t.Fatal(err)
	}
	for key, typ := range map[string]string{
		"aclrtHostRegister.size": "size_t", // i32, but the table's size is uint64_t (i64)
		"aclrtGetMemInfo.free":   "uint64_t *",
		"aclrtMalloc.devPtr":     "int32_t *",
	} {
		name, param, _ := strings.Cut(key, ".")
		f := *m.lookup(name)
		f.Params = append([]Param(nil), f.Params...)
		for i := range f.Params {
			if f.Params[i].Name == param {
				f.Params[i].Native = typ
			}
		}
		var b buf
		if err := cNativeDecl(&b, &f); err == nil {
			t.Errorf("%s as %s: no error", key, typ)
		}
	}
}

// The table dlsym looks names up in lists every function of the ABI table
// and the SDK functions of the hand-written headers (and none of their
// helpers), each once, in strcmp order (its lookup is a binary search).
func TestCSymbolsListTheSDK(t *testing.T) {
	m, err := load()
	if err != nil {
		t.Fatal(err)
	}
	b, err := cSymbols(m)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if n, ok := strings.CutPrefix(strings.TrimSpace(line), `{"`); ok {
			name, rest, _ := strings.Cut(n, `"`)
			if rest != ", (void *)"+name+"}," {
				t.Errorf("entry %q does not point at %s", line, name)
			}
			names = append(names, name)
		}
	}
	has := map[string]bool{}
	for i, n := range names {
		if i > 0 && names[i-1] >= n {
			t.Errorf("%s follows %s: not in strcmp order, or listed twice", n, names[i-1])
		}
		has[n] = true
	}
	for _, f := range abi.Funcs {
		if !has[f.Name] {
			t.Errorf("ABI function %s is missing", f.Name)
		}
	}
	for _, n := range []string{"aclrtMallocHost", "aclCreateDataBuffer", "aclGetDataBufferSize", "acldvppMalloc", "aclFloat16ToFloat", "aclsysGetVersionNum", "aclDataTypeSize"} {
		if !has[n] {
			t.Errorf("SDK function %s is missing", n)
		}
	}
	for n := range has {
		if strings.HasPrefix(n, "aclwasm") {
			t.Errorf("SDK helper %s is listed", n)
		}
	}
}
