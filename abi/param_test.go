package abi

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// described returns why q, a parameter of f, does not say what it is, or
// nil: every consumer of the table (the sandbox, the trace, the guest SDK
// generators) reads a parameter's meaning from its description alone.
func described(f *Func, q Param) error {
	none := q.Dir == 0 && q.Kind == 0 && q.Enum == nil && q.Elem == 0 && q.Len == ""
	switch q.Type {
	case Addr, Size, U64:
		if !none {
			return fmt.Errorf("a %s is described by its wire type alone", q.Type)
		}
	case I32:
		if q.Dir != 0 || q.Elem != 0 || q.Len != "" {
			return fmt.Errorf("an i32 has no direction, Elem or Len")
		}
		if (q.Enum == nil) == (q.Kind == 0) || q.Kind != 0 && q.Kind != Int && q.Kind != Uint {
			return fmt.Errorf("an i32 is an Int, a Uint or an Enum (kind %v, enum %v)", q.Kind, q.Enum != nil)
		}
	case Handle:
		if !q.Kind.IsHandle() || q.Dir != 0 || q.Enum != nil || q.Elem != 0 || q.Len != "" {
			return fmt.Errorf("a handle names its kind of handle and nothing else")
		}
	case Gptr:
		if q.Dir < In || q.Dir > OutAlways {
			return fmt.Errorf("a gptr says whether the host reads (In) or writes (Out) through it")
		}
		what := 0
		for _, set := range []bool{q.Elem != 0, q.Kind != 0, q.Enum != nil} {
			if set {
				what++
			}
		}
		if what != 1 {
			return fmt.Errorf("a gptr says what it points to: one of Elem, Kind and Enum")
		}
		switch q.Kind {
		case CString, Reserved, GuestFunc, UserData:
			if q.Dir != In {
				return fmt.Errorf("a %s is read, never written", q.Kind)
			}
		case Bool, DataValue:
			if q.Dir != In {
				return fmt.Errorf("a %s is read, never written", q.Kind)
			}
		case Bytes:
			if q.Len == "" {
				return fmt.Errorf("a byte buffer names its length parameter (Len)")
			}
		}
		if q.Len != "" {
			i := slices.IndexFunc(f.Params, func(p Param) bool { return p.Name == q.Len })
			if i < 0 || f.Params[i].Type != Size && f.Params[i].Type != I32 && f.Params[i].Type != U64 {
				return fmt.Errorf("Len %q names no size or i32 parameter of %s", q.Len, f.Name)
			}
		}
	default:
		return fmt.Errorf("no wire type")
	}
	if q.Enum != nil && !slices.Contains(Enums, q.Enum) {
		return fmt.Errorf("enum %s is not in Enums", q.Enum.C)
	}
	return nil
}

// TestParamsDescribed walks both tables: a parameter whose meaning is not
// given, or does not fit its wire type, fails here.
func TestParamsDescribed(t *testing.T) {
	for _, table := range [][]Func{Funcs, IOFuncs} {
		for i := range table {
			f := &table[i]
			for _, q := range f.Params {
				require.NoError(t, described(f, q), "%s.%s", f.Name, q.Name)
			}
		}
	}
}

// TestParamsDescribedRejects: the check is no formality.
func TestParamsDescribedRejects(t *testing.T) {
	f := &Func{Name: "f", Params: []Param{size("n"), i32("len")}}
	for _, q := range []Param{
		{Name: "x", Type: I32},    // neither Int, Uint nor an Enum
		{Name: "x", Type: Handle}, // which handle?
		{Name: "x", Type: Gptr},   // no direction, no pointee
		{Name: "x", Type: Gptr, Dir: Out},
		{Name: "x", Type: Gptr, Kind: Int},
		{Name: "x", Type: Gptr, Dir: In, Kind: Int, Elem: Size},
		{Name: "x", Type: Addr, Dir: In},
		in("x", Bytes),                         // no length
		in("x", Bytes).len("nope"),             // a length that is not a parameter
		out("x", CString),                      // strings are read
		enum("x", &Enum{C: "aclrtNotInEnums"}), // an enum the SDKs would not declare
		{Name: "x"},
	} {
		require.Error(t, described(f, q), "%+v", q)
	}
	require.NoError(t, described(f, in("x", Bytes).len("n")))
	require.NoError(t, described(f, array("x", Addr, "len")))
}

// TestEnums: every enum's members have the header's names from package
// acl, distinct and not the fallback of an unknown value; the signedness
// is the acl type's.
func TestEnums(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Enums {
		require.NotEmpty(t, e.Members, e.C)
		require.NotEmpty(t, e.Doc, e.C)
		require.Equal(t, e.C == "", e.Macros, "%s: only a macro family has no C type", e.C)
		require.False(t, seen[e.C], "%s twice", e.C)
		seen[e.C] = true
		names := map[string]bool{}
		for _, m := range e.Members {
			n := e.Member(m)
			require.Regexp(t, `^ACL_[A-Z0-9_]+$`, n, "%s member %d", e.C, m)
			require.False(t, names[n], "%s: %s twice", e.C, n)
			names[n] = true
		}
	}
	for _, tc := range []struct {
		e    *Enum
		v    uint64
		name string
	}{
		{memcpyKind, uint64(acl.MemcpyHostToDevice), "ACL_MEMCPY_HOST_TO_DEVICE"},
		{memcpyKind, 0xFFFFFFFF, "aclrtMemcpyKind(-1)"}, // an i32 on the wire
		{memAttr, 77, "aclrtMemAttr(77)"},
		{memMallocPolicy, 0x1002 | 0x40000, "ACL_MEM_MALLOC_NORMAL_ONLY|ACL_MEM_TYPE_HIGH_BAND_WIDTH|0x40000"},
		{hostRegisterType, 4 | 8 | 1, "ACL_HOST_REGISTER_IOMEMORY|ACL_HOST_REGISTER_READONLY|0x1"},
		{streamStatus, 0xFFFF, "ACL_STREAM_STATUS_RESERVED"},
		{streamFlag, 3, "ACL_STREAM_FAST_LAUNCH|ACL_STREAM_FAST_SYNC"},
		{lastErrLevel, 1 << 32, "ACL_RT_THREAD_LEVEL"}, // only the low 32 bits travel
	} {
		require.Equal(t, tc.name, tc.e.Name(tc.v))
	}
	require.Equal(t, "ACL_MEM_TYPE_LOW_BAND_WIDTH", memMallocPolicy.Member(int64(acl.MemTypeLowBandWidth)))
	require.True(t, memcpyKind.Signed)
	require.False(t, memMallocPolicy.Signed)
	require.True(t, strings.HasPrefix(memcpyKind.C, "aclrt"))
}
