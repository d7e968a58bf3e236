// Package acltest is the conformance suite of [acl.Backend]: the semantics
// every backend shares, whatever it runs on, checked through the interface
// alone. acl/sim runs it against the simulator; a binding of the native
// runtime runs it against a stand-in library or a real device.
//
// What the suite does not check is left to each backend's own tests: chip
// rules (peer access gating), exact accounting, address layout, and the
// codes where the native runtime leaves a choice.
//
// The package exports [Run] alone: a backend's test calls it with a
// constructor, and the suite's cases stay private so that adding one needs
// no change in any backend.
package acltest

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// Run runs the suite, one subtest per behaviour. newBackend returns a fresh
// backend for one subtest, with at least one device and room for a few MiB
// per device; it registers the backend's Close with t.Cleanup. Some
// subtests call Close themselves, so a second Close must be harmless.
// Subtests that need two devices are skipped on a backend with one.
func Run(t *testing.T, newBackend func(t *testing.T) acl.Backend) {
	groups := [][]test{memoryTests, copyTests, streamTests, eventTests, batchTests, descTests, streamConfigTests,
		resourceTests, notifyTests, eventTimestampTests, // ABI v1.2 section 12
		devinfoTests, notifyResetTests, // ABI v1.3 section 15
		contentionTests,
		traitsTests,
	}
	for _, g := range groups {
		for _, c := range g {
			t.Run(c.name, func(t *testing.T) {
				b := newBackend(t)
				c.fn(&env{T: t, b: b, ctx: t.Context()})
			})
		}
	}
}

type test struct {
	name string
	fn   func(e *env)
}

// env is a subtest's backend with helpers that fail the test on error.
type env struct {
	*testing.T
	b   acl.Backend
	ctx context.Context
}

// negWait is how long a check that something has NOT happened yet waits.
// Such checks cannot fail a correct backend; a wrong one fails them unless
// the machine stalls for this long.
const negWait = 30 * time.Millisecond

// hangWait bounds waits that a correct backend ends at once, so that a
// wrong one fails the test instead of hanging it.
const hangWait = 10 * time.Second

func (e *env) twoDevices() {
	if e.b.DeviceCount() < 2 {
		e.Skip("needs two devices")
	}
}

// malloc returns n zeroed bytes on dev. (A backend need not zero what it
// allocates; the suite does not rely on it.)
func (e *env) malloc(dev int32, n uint64) acl.DevPtr {
	p, err := e.b.Malloc(dev, n, acl.MemMallocHugeFirst)
	require.NoError(e, err, "Malloc(%d, %d)", dev, n)
	require.NotZero(e, p)
	require.NoError(e, e.b.Memset(e.ctx, acl.Device(p), 0, n))
	return p
}

func (e *env) free(p acl.DevPtr) {
	require.NoError(e, e.b.Free(e.ctx, p))
}

func (e *env) stream(dev int32) acl.Stream {
	s, err := e.b.CreateStream(dev)
	require.NoError(e, err)
	require.NotZero(e, s)
	return s
}

func (e *env) event(dev int32) acl.Event {
	ev, err := e.b.CreateEvent(dev)
	require.NoError(e, err)
	require.NotZero(e, ev)
	return ev
}

// pinned returns n bytes of registered host memory.
func (e *env) pinned(n int) ([]byte, acl.HostPin) {
	b := make([]byte, n)
	p, err := e.b.HostRegister(b, acl.HostRegisterMapped)
	require.NoError(e, err)
	require.NotZero(e, p)
	return b, p
}

// put writes data at p with a synchronous copy.
func (e *env) put(p acl.DevPtr, data []byte) {
	require.NoError(e, e.b.Memcpy(e.ctx, acl.Device(p), acl.Host(data, 0), uint64(len(data))))
}

// get reads n bytes at p with a synchronous copy.
func (e *env) get(p acl.DevPtr, n int) []byte {
	out := make([]byte, n)
	require.NoError(e, e.b.Memcpy(e.ctx, acl.Host(out, 0), acl.Device(p), uint64(n)))
	return out
}

func (e *env) query(s acl.Stream) acl.StreamStatus {
	st, err := e.b.StreamQuery(s)
	require.NoError(e, err)
	return st
}

func (e *env) sync(s acl.Stream) {
	require.NoError(e, e.b.SynchronizeStream(e.ctx, s, -1))
}

// gate queues on s a host function that blocks until the returned release
// is called (or the test ends), and waits until it runs, so that what is
// queued after it is held back.
func (e *env) gate(s acl.Stream) (release func()) {
	started, open := make(chan struct{}), make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(open) }) }
	e.Cleanup(release)
	require.NoError(e, e.b.LaunchHostFunc(s, func() error {
		close(started)
		<-open
		return nil
	}))
	select {
	case <-started:
	case <-time.After(hangWait):
		e.Fatal("a host function queued on an idle stream did not start")
	}
	return release
}

// batchAsyncFns are the native names of the asynchronous batch copies.
var batchAsyncFns = []string{"aclrtMemcpyBatchAsyncV2", "aclrtMemcpyBatchAsync"}

// lacks reports whether err is the 207000 with which the backend's node
// refused one of the features fns, natively before looking at the
// arguments (the asynchronous batch and offset copies and device-only
// notifies on an older driver or TS firmware), and which the backend then
// reports through Supports. The case accepts it: such a node has nothing
// more to show.
func (e *env) lacks(err error, fns ...string) bool {
	if acl.CodeOf(err) != acl.ErrRTFeatureNotSupport {
		return false
	}
	for _, fn := range fns {
		if !e.b.Supports(fn) {
			e.Logf("the node lacks %s: 207000, as natively", fn)
			return true
		}
	}
	return false
}

// goErr runs f on another goroutine and returns where its error lands.
func goErr(f func() error) <-chan error {
	c := make(chan error, 1)
	go func() { c <- f() }()
	return c
}

// notYet checks that c has not delivered within negWait.
func (e *env) notYet(c <-chan error, what string) {
	e.Helper()
	select {
	case err := <-c:
		e.Fatalf("%s returned (%v) before the work it waits for completed", what, err)
	case <-time.After(negWait):
	}
}

// recv returns what c delivers, failing the test if it takes hangWait.
func (e *env) recv(c <-chan error, what string) error {
	e.Helper()
	select {
	case err := <-c:
		return err
	case <-time.After(hangWait):
		e.Fatalf("%s did not return", what)
		return nil
	}
}

// code checks that err carries the native code want.
func code(t require.TestingT, err error, want acl.Error, msgAndArgs ...any) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Error(t, err, msgAndArgs...)
	require.Truef(t, errors.Is(err, want), "got %v, want code %d (%s)", err, int32(want), want.Name())
}

// codeIn checks that err carries one of the codes.
func codeIn(t require.TestingT, err error, want ...acl.Error) {
	if h, ok := t.(interface{ Helper() }); ok {
		h.Helper()
	}
	require.Error(t, err)
	require.Contains(t, want, acl.CodeOf(err), "got %v", err)
}

// pattern returns n bytes that differ from their neighbours and from other
// patterns' bytes at the same index.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed + byte(i*7) + byte(i>>8)
	}
	return b
}

func filled(n int, v byte) []byte { return bytes.Repeat([]byte{v}, n) }
