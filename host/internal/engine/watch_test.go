package engine

import (
	"context"
	"sync/atomic"
	"testing"
)

// fakeWatcher is a host call context for CallWatch: fire runs the
// watched function at once, on a goroutine of its own, as a call context
// already done does.
type fakeWatcher struct {
	context.Context
	fire    bool
	watched *func()
}

func (w *fakeWatcher) Watch(f *func()) {
	if w.fire {
		go (*f)()
		return
	}
	w.watched = f
}

func (w *fakeWatcher) Unwatch(f *func()) bool {
	if w.watched != f {
		return false
	}
	w.watched = nil
	return true
}

// TestCallWatch: the action runs when the call's context ends before
// Disarm, which then waits for it and says so; a call whose context does
// not end makes nothing but the watch's closure, once.
func TestCallWatch(t *testing.T) {
	var ran atomic.Int32
	on := func() { ran.Add(1) }
	w := &CallWatch{On: on}
	for range 3 { // the WaitGroup is reused from call to call
		w.Arm(&fakeWatcher{Context: context.Background(), fire: true})
		if !w.Disarm() {
			t.Fatal("the action ran, Disarm says it did not")
		}
		w.Arm(&fakeWatcher{Context: context.Background()})
		if w.Disarm() {
			t.Fatal("the action did not run, Disarm says it did")
		}
	}
	if got := ran.Load(); got != 3 {
		t.Fatalf("the action ran %d times, want 3", got)
	}
	ctx := &fakeWatcher{Context: context.Background()}
	n := testing.AllocsPerRun(100, func() {
		w := &CallWatch{On: on} // a new instance's
		w.Arm(ctx)
		w.Disarm()
	})
	if n != 2 {
		t.Fatalf("%v allocations for a new watch and its call, want 2 (the watch and its closure)", n)
	}
}
