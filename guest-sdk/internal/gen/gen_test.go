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

func TestFuncsRejectAWireMismatch(t *testing.T) {
	old := semantics["aclrtMemcpy"]
	defer func() { semantics["aclrtMemcpy"] = old }()
	semantics["aclrtMemcpy"] = []Sem{Ptr, Int32, Ptr, Size, Kind} // destMax is a size, not an i32
	_, err := Funcs()
	if err == nil || !strings.Contains(err.Error(), "destMax") {
		t.Fatalf("Funcs() = %v, want an error naming destMax", err)
	}
	semantics["aclrtMemcpy"] = old[:4]
	if _, err := Funcs(); err == nil {
		t.Fatal("Funcs() accepted a parameter count mismatch")
	}
}

func TestFuncsRejectAMissingFunction(t *testing.T) {
	old := semantics["aclrtFree"]
	delete(semantics, "aclrtFree")
	defer func() { semantics["aclrtFree"] = old }()
	if _, err := Funcs(); err == nil || !strings.Contains(err.Error(), "aclrtFree") {
		t.Fatalf("Funcs() = %v, want an error naming aclrtFree", err)
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
