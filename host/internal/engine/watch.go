package engine

import (
	"context"
	"sync"
)

// CallWatch runs an adapter's action once when the context of a guest
// call ends before the call returns (wazero: close the module; wasmtime:
// advance the epoch). On the host's call context (a Watcher) it registers
// without a goroutine or an allocation; on any other context it uses
// context.AfterFunc. Its closure is made at the first Arm, so that a
// call makes none; Disarm waits for an action that started on a
// WaitGroup, not a channel (one allocation per instance fewer, where each
// request of serve has an instance of its own).
type CallWatch struct {
	// On is the adapter's action, set before the first Arm; or, where On
	// is nil, Action's Fire: an adapter's own pointer, whose method value
	// On would be an allocation per instance.
	On     func()
	Action interface{ Fire() }

	fn      func()         // On, then armed.Done
	armed   sync.WaitGroup // one from Arm until fn has run or was stopped
	stop    func() bool    // stops fn (context.AfterFunc)
	watcher Watcher        // or this does (the host's call context)
}

// Arm starts watching ctx for the call about to start.
func (w *CallWatch) Arm(ctx context.Context) {
	if w.fn == nil {
		w.fn = func() {
			if w.On != nil {
				w.On()
			} else {
				w.Action.Fire()
			}
			w.armed.Done()
		}
	}
	w.armed.Add(1)
	if wt, ok := ctx.(Watcher); ok {
		wt.Watch(&w.fn)
		w.watcher = wt
	} else {
		w.stop = context.AfterFunc(ctx, w.fn)
	}
}

// Disarm stops watching, once the call returned, and reports whether the
// action ran; when it did, it has finished.
func (w *CallWatch) Disarm() (fired bool) {
	var stopped bool
	if w.watcher != nil {
		stopped = w.watcher.Unwatch(&w.fn)
	} else {
		stopped = w.stop()
	}
	if stopped {
		w.armed.Done()
	} else {
		w.armed.Wait() // fn has started: it ends soon
	}
	w.stop, w.watcher = nil, nil
	return !stopped
}
