package sandbox

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// dropKeeps are the leaves of a Call that drop leaves as they are, each
// for a reason: the session and the function index, which every call
// sets again (invoke, HostFunc), and a small copy's device sides, which
// refer to no guest memory and which the next small copy sets again
// (clearing them measured a tenth of a small copy's time).
var dropKeeps = map[string]bool{
	"s":               true,
	"fi":              true,
	"small[*].Region": true,
	"small[*].Dev":    true,
}

// TestCallDropClearsEveryField: drop, which clears a Call's fields one
// by one (only what was set, for speed) rather than with a composite
// literal, clears every leaf field of it that is not in dropKeeps, each
// set alone: a field added to Call (or to acl.SmallSide) and not to drop
// fails here until drop clears it or dropKeeps says why it stays.
func TestCallDropClearsEveryField(t *testing.T) {
	leaves := callLeaves(reflect.TypeFor[Call](), "", nil)
	require.GreaterOrEqual(t, len(leaves), 8, "the leaves of Call: %v", leaves)
	for _, l := range leaves {
		if dropKeeps[l.pattern] {
			continue
		}
		t.Run(l.path, func(t *testing.T) {
			var c Call
			v := l.field(&c)
			set(t, v)
			require.False(t, v.IsZero(), "the test set %s", l.path)
			c.drop()
			for _, o := range leaves {
				if !dropKeeps[o.pattern] && !o.field(&c).IsZero() {
					t.Errorf("drop leaves %s set (after %s was set)", o.path, l.path)
				}
			}
		})
	}
}

// leaf is a field of a Call that is not a struct or an array: path names
// it (small[1].Host), pattern names it for every index (small[*].Host).
type leaf struct {
	path, pattern string
	index         []int // struct field or array element, at each level
}

// callLeaves appends the leaves of type t at path to out.
func callLeaves(t reflect.Type, path string, index []int) []leaf {
	var out []leaf
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			out = append(out, callLeaves(f.Type, p, append(append([]int(nil), index...), i))...)
		}
	case reflect.Array:
		for i := range t.Len() {
			out = append(out, callLeaves(t.Elem(), fmt.Sprintf("%s[%d]", path, i), append(append([]int(nil), index...), i))...)
		}
	default:
		pattern := path
		for i := range 10 {
			pattern = strings.ReplaceAll(pattern, fmt.Sprintf("[%d]", i), "[*]")
		}
		out = append(out, leaf{path: path, pattern: pattern, index: index})
	}
	return out
}

// field returns the leaf of c, settable although unexported.
func (l leaf) field(c *Call) reflect.Value {
	v := reflect.ValueOf(c).Elem()
	for _, i := range l.index {
		if v.Kind() == reflect.Array {
			v = v.Index(i)
		} else {
			v = v.Field(i)
		}
	}
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// set gives v a value that is not zero.
func set(t *testing.T, v reflect.Value) {
	t.Helper()
	switch k := v.Kind(); {
	case k == reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case k == reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case k == reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case k == reflect.String:
		v.SetString("x")
	case k == reflect.Bool:
		v.SetBool(true)
	case k >= reflect.Int && k <= reflect.Int64:
		v.SetInt(1)
	case k >= reflect.Uint && k <= reflect.Uintptr:
		v.SetUint(1)
	case k == reflect.Float32 || k == reflect.Float64:
		v.SetFloat(1)
	case k == reflect.Interface && v.Type() == reflect.TypeFor[context.Context]():
		v.Set(reflect.ValueOf(context.Background()))
	case k == reflect.Interface && v.Type().NumMethod() == 0:
		v.Set(reflect.ValueOf(new(int)))
	default:
		t.Fatalf("no value for a field of type %v: teach set one", v.Type())
	}
}

// TestAllocRecordsMadeTogether: a session's first two allocation records
// and the room for its first four come in one heap object, for the two or
// three buffers of a command run per request; the third is a record of
// its own, and a record is always zero when handed out.
func TestAllocRecordsMadeTogether(t *testing.T) {
	as := newAddrSpace(0)
	var a, b *alloc
	got := testing.AllocsPerRun(1, func() {
		as = newAddrSpace(0)
		a = as.record()
		*a = alloc{base: 1 << 40, size: 64}
		as.insert(a)
		b = as.record()
		*b = alloc{base: 2 << 40, size: 64}
		as.insert(b)
	})
	require.Equal(t, 1.0, got, "allocations for two records and their room")
	require.Equal(t, 4, cap(as.allocs))
	c := as.record()
	require.True(t, c.base == 0 && c.size == 0 && c.ptr == 0 && c.lease == nil && c.rg == nil, "a zero record")
	require.NotSame(t, a, c)
	require.NotSame(t, b, c)
	require.Same(t, b, as.find(2<<40))
}

// TestFirstContextOneObject: a session's first context (aclrtSetDevice's)
// and the list of its contexts are one heap object; the later ones follow
// it in the list, in the order of their handles.
func TestFirstContextOneObject(t *testing.T) {
	var s *Session
	var cx *ctxRec
	got := testing.AllocsPerRun(1, func() {
		s = &Session{}
		var err error
		if cx, err = s.newContext(0, true); err != nil {
			t.Fatal(err)
		}
	})
	require.Equal(t, 2.0, got, "allocations: the session and its first context with the list")
	next, err := s.newContext(0, false)
	require.NoError(t, err)
	require.Equal(t, []*ctxRec{cx, next}, s.ctxs)
	require.Same(t, next, s.ctxOf(next.h))
	require.Same(t, cx, s.primaryOf(0))
	require.Nil(t, s.primaryOf(1))
	s.forgetContext(next)
	require.Nil(t, s.ctxOf(next.h))
	require.True(t, s.deadCtxs[next.h])
}
