package wazero

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// newSpin compiles testsupport.SpinWAT and returns an instance maker; all is closed
// with the test.
func newSpin(t *testing.T) func() *instance {
	ctx := context.Background()
	e, err := New(ctx, engine.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.Close(ctx)) })
	cm, err := e.Compile(ctx, engine.Module{Wasm: testsupport.WAT(t, testsupport.SpinWAT)})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cm.Close(ctx)) })
	return func() *instance {
		inv := &nopInvoker{}
		ei, err := cm.Instantiate(ctx, engine.Config{Invoker: inv, MemoryLimit: 1 << 16})
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, errors.Join(ei.Close(ctx), inv.Release(ctx))) })
		return ei.(*instance)
	}
}

// storeModules counts the modules in the wazero store of mod (wazero
// 1.12's wasm.Store.moduleList, linked by next), host modules included.
func storeModules(t *testing.T, mod api.Module) int {
	s := reflect.ValueOf(mod).Elem().FieldByName("s")
	require.True(t, s.IsValid() && !s.IsNil(), "wazero 1.12's ModuleInstance.s")
	n := 0
	for m := s.Elem().FieldByName("moduleList"); !m.IsNil(); m = m.Elem().FieldByName("next") {
		n++
	}
	return n
}

// TestWatchStopsSpinningGuest: with the adapter watching the call's
// context instead of wazero (reach found wazero 1.12's fields), a guest
// spinning in a loop is stopped when the context is cancelled or its
// deadline passes, with wazero's exit codes, or before it starts when
// the context is done already; each instance so ended leaves wazero's
// store when it is closed, and no goroutine is left.
func TestWatchStopsSpinningGuest(t *testing.T) {
	defer goleak.VerifyNone(t)
	newInst := newSpin(t)
	first := newInst()
	require.NotNil(t, first.w.closed, "wazero's module and compiled module as the adapter reaches them (terminate.go)")
	before := storeModules(t, first.mod)

	wait := func(ctx context.Context, i *instance) error {
		return testsupport.Stopped(t, func() error { _, err := i.Call(ctx, "spin"); return err })
	}
	var closed []*instance
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		code uint32
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(20*time.Millisecond, cancel)
			return ctx, cancel
		}, sys.ExitCodeContextCanceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}, sys.ExitCodeDeadlineExceeded},
		{"done before", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, sys.ExitCodeContextCanceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := newInst()
			ctx, cancel := tc.ctx()
			defer cancel()
			var ee *engine.ExitError
			require.ErrorAs(t, wait(ctx, i), &ee)
			require.Equal(t, tc.code, ee.Code)
			require.True(t, i.mod.IsClosed())
			closed = append(closed, i)
		})
	}
	for _, i := range closed {
		require.NoError(t, i.Close(context.Background()))
	}
	require.Equal(t, before, storeModules(t, first.mod), "instances the watcher stopped left wazero's store when closed")
}

// lateWatcher is a call context that ends as the call returns: its
// Unwatch cancels it and runs the watcher before saying it had started,
// as when a deadline passes between the guest's return and the end of
// the watch.
type lateWatcher struct {
	context.Context
	cancel context.CancelFunc
	f      *func()
}

func (c *lateWatcher) Watch(f *func()) { c.f = f }

func (c *lateWatcher) Unwatch(f *func()) bool {
	c.cancel()
	var wg sync.WaitGroup
	wg.Go(*f)
	wg.Wait()
	return false
}

// TestWatchAfterReturn: a context that ends after the guest returned does
// not fail the call nor close the module (wazero ignores it too): the
// next call runs.
func TestWatchAfterReturn(t *testing.T) {
	i := newSpin(t)()
	require.NotNil(t, i.w.closed)
	ctx, cancel := context.WithCancel(context.Background())
	_, err := i.Call(&lateWatcher{Context: ctx, cancel: cancel}, "empty")
	require.NoError(t, err)
	require.False(t, i.mod.IsClosed(), "the watcher that fired after the return is undone")
	_, err = i.Call(context.Background(), "empty")
	require.NoError(t, err)
}

// TestFieldByName: the cached lookup finds what reflect's FieldByName
// finds for a struct's own fields, again from the cache, and nothing for
// a missing field or one promoted from an embedded struct (reach reads
// wazero's own fields only).
func TestFieldByName(t *testing.T) {
	type inner struct{ Promoted int }
	type outer struct {
		inner
		A int
		b string
	}
	v := reflect.ValueOf(&outer{A: 7, b: "x"}).Elem()
	for range 2 { // the second time from the cache
		require.Equal(t, 7, int(fieldByName(v, "A").Int()))
		require.Equal(t, "x", fieldByName(v, "b").String())
		require.False(t, fieldByName(v, "missing").IsValid())
		require.False(t, fieldByName(v, "Promoted").IsValid())
	}
	require.Zero(t, testing.AllocsPerRun(100, func() { fieldByName(v, "A") }))
}
