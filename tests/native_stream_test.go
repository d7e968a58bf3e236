package tests

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
)

// TestNativeStreams runs tests/native/streams.c: the ABI v1.3 stream
// functions through the C SDK as a native program calls them, built with
// the SDK's include path only.
func TestNativeStreams(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "streams.c"), testCompile(host.Policy{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "streams")
	require.Equal(t, nativeStreamsWant, o.stdout, "%v", o)
}

// TestNativeAllocator runs tests/native/allocator.c: the external
// allocator registry of acl/acl_rt_allocator.h, SDK functions in the guest
// as natively they are the ACL layer's own bookkeeping.
func TestNativeAllocator(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "allocator.c"), testCompile(host.Policy{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "allocator")
	require.Equal(t, nativeAllocatorWant, o.stdout, "%v", o)
}

var nativeAllocatorWant = `desc: 1
register without functions: 100000
set obj: 0
set NULL alloc: 100000
set alloc: 0
set free: 0
register without a block-address function: 100000
set addr: 0
register on NULL: 100000
register: 0
get: 0
same: 1 1 1 1 1, no advise: 1
through the registered functions: 1
get of another stream: 100000
get without desc: 100000
unregister: 0
get after unregister: 100000
unregister again: 0
destroy: 0
destroy NULL: 100000
allocator: OK
`

var nativeStreamsWant = `limit of NULL before aclrtSetDevice: 107002
cube cores of a new stream: 24
after setting 8: 8
set 1000: 107000
bad type: 107000
thread, stream in use: 8
thread, none in use: 24
after reset: 24
priority 8: 100000
priority of 2 bytes: 100000
attribute 9: 100000
V2 stream: priority 6, flags 0x3
ids distinct: 1
create NULL: 100000
after abort and stop the stream works: 1
stop NULL: 107000
register: 207000
unregister: 0
no name: 100000
streams: OK
`

// TestNativeOverflow runs tests/native/overflow.c (the native layout,
// module acl32; the wide profile's are host's TestOverflowStatus): the
// saturation mode and overflow status of ABI v1.3 section 15 as a native
// program checks its compute for overflow.
func TestNativeOverflow(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "overflow.c"), testCompile(host.Policy{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "overflow")
	require.Equal(t, nativeOverflowWant, o.stdout, "%v", o)
}

var nativeOverflowWant = `starting mode: 1
mode NULL: 100000
mode 2: 107000
status before aclrtSetDevice: 107002
size 8: 107000
NULL output: 100000
no compute: 0
1 + 2 = 3, status 0
max + max is inf: 1, status 1
after reset: 0
mode: 0
saturated: 1, status 1
after reset on the default stream: 0
switch: 0
switch on: 1
switch 2: 100000
switch NULL: 100000
overflow: OK
`

// TestNativeProf runs tests/native/prof.c (module acl32; the wide
// profile's are host's TestProfMarkers): the profiling markers of
// acl/acl_prof.h as a native program sets them, and the trace shows the
// ranges, in order.
func TestNativeProf(t *testing.T) {
	ctx := context.Background()
	var notes []string
	b := sim.New()
	t.Cleanup(func() { b.Close() }) // after the runtime's
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(engine), host.WithTrace(func(r host.CallRecord) {
		if strings.HasPrefix(r.Func.Name, "aclprof") && r.Code == acl.Success && r.Msg != "" {
			notes = append(notes, r.Msg)
		}
	}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	pl, err := rt.Load(ctx, buildNative(t, t.TempDir(), "prof.c"), testCompile(host.Policy{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	o := mustRun(t, pl, "prof")
	require.Equal(t, nativeProfWant, o.stdout, "%v", o)
	require.Len(t, notes, 13, "%q", notes)
	require.Equal(t, []string{`mark "train step"`, `push "train step"`, `push "h2d copy"`, `pop "h2d copy"`, `pop "train step"`,
		`range 1 "h2d copy" started`, `range 1 "h2d copy" stopped`}, notes[:7])
	require.Regexp(t, `^mark "copy queued" on stream \d+$`, notes[7])
	require.Equal(t, []string{`id 7090398782807627396 of "MatMul"`, `id 7090398782807627396 of "MatMul"`, `id 18446744073709551615 of ""`,
		"range pushed (version 1)", "range popped"}, notes[8:])
}

var nativeProfWant = `stamps: 1
pop with nothing pushed: -1
range id: 1
stop of an unknown id: -1
start without rangeId: 100000
markEx with a wrong length: -1
markEx without a stream: -1
message of 128 bytes: -1
range pop before any push: 100000
op name id: 7090398782807627396, the same again: 1
id of the empty string: 18446744073709551615
range push of another message type: -1
range push NULL: 100000
mark NULL: -1, push NULL: 100000
prof: OK
`
