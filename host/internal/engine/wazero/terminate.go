package wazero

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// The host stops a spinning guest with wazero's WithCloseOnContextDone:
// the compiler then puts a check of the module's closed word at every
// loop header, and every call starts a goroutine that closes the module
// when the call's context ends (a channel, the goroutine's closure and a
// stop function: 3 allocations per call in wazero 1.12, whether or not
// the context can end). The adapter keeps the compiled checks and does
// the watching itself with the instance's watcher, made once and
// registered on the host's call context without allocating
// (engine.Watcher), as the wasmtime adapter does for its epochs. wazero
// offers neither part through its API, so the adapter reaches, once per
// instance, two fields of wazero 1.12's own types (reach): the compiled
// module's ensureTermination, which it clears so that calls start no
// goroutine (the code compiled with the checks keeps them), and the
// module's Closed word, which the watcher sets as wazero's own watcher
// does (the exit code in the high half, "resources not closed" in the
// low byte): the guest's next check fails, and the guest's goroutine
// closes the module's resources as it unwinds, never the watcher's. If
// a wazero upgrade changes those types, reach finds nothing and calls
// keep wazero's own watcher: slower, never unstoppable (TestCallNoAllocs
// fails then).

// resourcesOpen is wazero's exitCodeFlagResourceNotClosed: the module is
// closed, its resources are to be closed by the goroutine that finds it
// closed (wasm.ModuleInstance.FailIfClosed).
const resourcesOpen = 2

// reachMu orders the clearing of a compiled module's ensureTermination
// (shared by every instance of it) with the instantiations that read it:
// every call of an instance comes after its instantiation.
var reachMu sync.Mutex

// reach takes over the context watching of mod's calls from wazero: it
// returns mod's Closed word, its compiled module's calls no longer
// watching, or nil (wazero's own watcher stays on) when mod is not what
// wazero 1.12 makes.
func reach(mod api.Module) *atomic.Uint64 {
	v := reflect.ValueOf(mod)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	m := v.Elem()
	closed := fieldByName(m, "Closed")
	if !closed.IsValid() || closed.Type() != reflect.TypeFor[atomic.Uint64]() {
		return nil
	}
	me := fieldByName(m, "Engine") // wasm.ModuleEngine: *wazevo.moduleEngine
	if !me.IsValid() || me.Kind() != reflect.Interface || me.IsNil() {
		return nil
	}
	me = me.Elem()
	if me.Kind() != reflect.Pointer || me.IsNil() || me.Elem().Kind() != reflect.Struct {
		return nil
	}
	cm := fieldByName(me.Elem(), "parent") // *wazevo.compiledModule
	if !cm.IsValid() || cm.Kind() != reflect.Pointer || cm.IsNil() || cm.Elem().Kind() != reflect.Struct {
		return nil
	}
	et := fieldByName(cm.Elem(), "ensureTermination")
	if !et.IsValid() || et.Kind() != reflect.Bool {
		return nil
	}
	ensure := (*bool)(unsafe.Pointer(et.UnsafeAddr()))
	reachMu.Lock()
	if *ensure { // the first instance of this compilation
		*ensure = false
	}
	reachMu.Unlock()
	return (*atomic.Uint64)(unsafe.Pointer(closed.UnsafeAddr()))
}

// fieldKey names a field of a struct type.
type fieldKey struct {
	t    reflect.Type
	name string
}

// fields caches the indices of the fields reach looks up (-1: no direct
// field of that name): reflect's FieldByName compares the names of the
// fields at every lookup, four per instance.
var fields struct {
	mu  sync.RWMutex
	idx map[fieldKey]int
}

// fieldByName is v.FieldByName(name) for a field of v's struct itself
// (not one promoted from an embedded struct), its index looked up once
// per type; the zero Value when v has no such field.
func fieldByName(v reflect.Value, name string) reflect.Value {
	k := fieldKey{v.Type(), name}
	fields.mu.RLock()
	i, ok := fields.idx[k]
	fields.mu.RUnlock()
	if !ok {
		i = -1
		if f, found := k.t.FieldByName(name); found && len(f.Index) == 1 {
			i = f.Index[0]
		}
		fields.mu.Lock()
		if fields.idx == nil {
			fields.idx = map[fieldKey]int{}
		}
		fields.idx[k] = i
		fields.mu.Unlock()
	}
	if i < 0 {
		return reflect.Value{}
	}
	return v.Field(i)
}

// exitCode is the exit code wazero closes a module with when the
// context of its call ended with err; false: err is no such end.
func exitCode(err error) (uint32, bool) {
	switch {
	case errors.Is(err, context.Canceled):
		return sys.ExitCodeContextCanceled, true
	case errors.Is(err, context.DeadlineExceeded):
		return sys.ExitCodeDeadlineExceeded, true
	}
	return 0, false
}

// watch is the instance's watching of its calls' contexts, made once.
type watch struct {
	closed *atomic.Uint64 // the module's Closed word; nil: wazero watches
	ctx    context.Context
	cw     engine.CallWatch // closes the module when ctx ends (Fire)
}

// Fire closes the module as wazero's own watcher does, when the call's
// context ended (engine.CallWatch's Action).
func (w *watch) Fire() {
	if code, ok := exitCode(w.ctx.Err()); ok {
		w.closed.CompareAndSwap(0, uint64(code)<<32|resourcesOpen)
	}
}

// arm starts watching ctx for a call of mod. A context already done
// closes the module and ends the call before guest code runs, as
// wazero's own check does.
func (w *watch) arm(ctx context.Context, mod api.Module) error {
	if code, ok := exitCode(ctx.Err()); ok {
		_ = mod.CloseWithExitCode(ctx, code)
		return &engine.ExitError{Code: code}
	}
	w.ctx = ctx
	w.cw.Action = w
	w.cw.Arm(ctx)
	return nil
}

// disarm stops watching, after the call returned with err. A watcher
// that closed the module after the guest returned (err nil: the call's
// last check found it open) is undone, as wazero ignores a context that
// ends after the call: no resource was closed.
func (w *watch) disarm(err error) {
	if w.cw.Disarm() { // fire has set what it sets
		if c := w.closed.Load(); err == nil && c&0xff == resourcesOpen {
			w.closed.CompareAndSwap(c, 0)
		}
	}
	w.ctx = nil
}

// close closes mod. A module the watcher closed is still in wazero's
// store (wazero's own watcher also removes it, which the adapter cannot
// do): its word is cleared, and CloseWithExitCode closes it again,
// removing it and closing what its guest's goroutine did not.
func (w *watch) close(ctx context.Context, mod api.Module) error {
	var code uint32
	if w.closed != nil {
		if c := w.closed.Load(); c&0xff == resourcesOpen && w.closed.CompareAndSwap(c, 0) {
			code = uint32(c >> 32)
		}
	}
	return mod.CloseWithExitCode(ctx, code)
}
