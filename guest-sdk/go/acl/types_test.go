package acl

import (
	"errors"
	"fmt"
	"testing"
	"unsafe"
)

func TestStructLayouts(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof MemLocation", unsafe.Sizeof(MemLocation{}), memLocationSize},
		{"offsetof MemLocation.Type", unsafe.Offsetof(MemLocation{}.Type), 4},
		{"sizeof MemcpyBatchAttr", unsafe.Sizeof(MemcpyBatchAttr{}), memcpyBatchAttrSize},
		{"offsetof MemcpyBatchAttr.SrcLoc", unsafe.Offsetof(MemcpyBatchAttr{}.SrcLoc), 8},
		{"offsetof MemcpyBatchAttr.Rsv", unsafe.Offsetof(MemcpyBatchAttr{}.Rsv), 16},
		{"sizeof PtrAttributes", unsafe.Sizeof(PtrAttributes{}), ptrAttributesSize},
		{"offsetof PtrAttributes.PageSize", unsafe.Offsetof(PtrAttributes{}.PageSize), 8},
		{"offsetof PtrAttributes.Rsv", unsafe.Offsetof(PtrAttributes{}.Rsv), 12},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	var err error = &Error{Func: "aclrtMemcpy", Code: ErrRTParamInvalid, Message: "count 32 exceeds destMax 16", FailIndex: -1}
	if !errors.Is(err, ErrRTParamInvalid) {
		t.Error("errors.Is(err, ErrRTParamInvalid) = false")
	}
	if CodeOf(err) != ErrRTParamInvalid || CodeOf(nil) != Success || CodeOf(errors.New("x")) != ErrFailure {
		t.Error("CodeOf")
	}
	want := "aclrtMemcpy: ACL_ERROR_RT_PARAM_INVALID (107000): count 32 exceeds destMax 16"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	be := &Error{Func: "aclrtMemcpyBatch", Code: ErrRTParamInvalid, FailIndex: 3}
	if got := be.Error(); got != "aclrtMemcpyBatch: ACL_ERROR_RT_PARAM_INVALID (107000) [failIndex 3]" {
		t.Errorf("batch Error() = %q", got)
	}
	if Code(42).Name() != "ACL_ERROR_UNKNOWN" || ErrHostMemoryNotRegistered.Name() != "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED" {
		t.Error("Name")
	}
	if got := fmt.Sprint(MemcpyKind(9)); got != "aclrtMemcpyKind(9)" {
		t.Errorf("MemcpyKind(9) = %q", got)
	}
	if MemcpyInnerDeviceToDevice.String() != "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE" {
		t.Error("MemcpyKind.String")
	}
}

func TestPtr(t *testing.T) {
	b := make([]byte, 8)
	p := Addr(b)
	if p == 0 || Addr(nil) != 0 {
		t.Errorf("Addr = %v, Addr(nil) = %v", p, Addr(nil))
	}
	if p.Add(3) != p+3 || Ptr(1<<32).IsDevice() != true || Ptr(1<<32-1).IsDevice() {
		t.Error("Ptr methods")
	}
	if Ptr(0x1000).String() != "0x1000" {
		t.Error("Ptr.String")
	}
}
