//go:build wasmtime && cgo

package wasmtime

// #include <stddef.h>
// #include <stdint.h>
import "C"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// Host calls. Every host function of the adapter is one C callback
// (aclwasm_host_cb in capi.go) with raw values, which calls aclwasmHostCall
// with the function's env: its index in engine.Options.Funcs, or one of the
// WASI functions the adapter shadows. The instance is found by its store's
// data in live: no allocation, no lock, nothing shared that a host call
// writes, so the host calls of many sessions scale with the cores.

// The envs of the shadowed WASI functions (above any index in Funcs).
const (
	envFdRead uintptr = 1<<31 + iota
	envFdWrite
	envClockTimeGet
	envPollOneoff
)

// live finds an instance by its store's data (setupStore), which
// wasmtime-go numbers across all engines, from 0 up, reusing the numbers
// of closed stores: a table that only grows (a larger copy replaces it),
// written under liveMu.
var (
	liveMu sync.Mutex
	live   atomic.Pointer[[]atomic.Pointer[wasmtimeInstance]]
)

// setLive records w (nil: none) as the instance of the store with data d.
func setLive(d uintptr, w *wasmtimeInstance) {
	liveMu.Lock()
	defer liveMu.Unlock()
	t := live.Load()
	if t == nil || d >= uintptr(len(*t)) {
		n := 64
		if t != nil {
			n = 2 * len(*t)
		}
		grown := make([]atomic.Pointer[wasmtimeInstance], max(n, int(d)+1))
		if t != nil {
			for i := range *t {
				grown[i].Store((*t)[i].Load())
			}
		}
		live.Store(&grown)
		t = &grown
	}
	(*t)[d].Store(w)
}

// liveInstance returns the instance of the store with data d, nil if none.
func liveInstance(d uintptr) *wasmtimeInstance {
	if t := live.Load(); t != nil && d < uintptr(len(*t)) {
		return (*t)[d].Load()
	}
	return nil
}

// callerInstance returns the instance of a host call's store (nil if the
// store is not the adapter's) and the guest's memory now (nil if none),
// given the store's data d and, if known, the memory's size (see
// aclwasm_caller). The memory's base never moves (see New), so views that
// async copies keep of registered ranges stay valid until the session is
// released, which happens before the store is closed.
func callerInstance(caller unsafe.Pointer, d uintptr, size uint64, known bool) (*wasmtimeInstance, []byte) {
	w := liveInstance(d)
	switch {
	case w == nil:
		return nil, nil
	case w.mem == nil:
		return w, w.startMemory(caller)
	case !known:
		size = callerMemory(caller, d, w.mem)
	}
	return w, unsafe.Slice((*byte)(w.base), size)
}

// raw is the i-th raw value of a host call: 16 bytes, the value
// little-endian from the first.
func raw(args unsafe.Pointer, i int) unsafe.Pointer { return unsafe.Add(args, 16*i) }

func rawI32(args unsafe.Pointer, i int) uint32 { return *(*uint32)(raw(args, i)) }

// aclwasmHostCall runs host function env for the store with data d (size
// and known: its memory's size, if aclwasm_caller knew it) with the
// parameters in args, where it leaves the i32 result. It returns a trap for
// the guest, or nil. A panic (a trace callback's, a Stdout writer's: the
// Invoker recovers the imports' own) traps the guest, as on wazero, since
// it cannot unwind through wasmtime's frames.
//
//export aclwasmHostCall
func aclwasmHostCall(env C.uintptr_t, caller unsafe.Pointer, d C.uintptr_t, size C.size_t, known C.int, args unsafe.Pointer) (trap unsafe.Pointer) {
	var w *wasmtimeInstance
	var prev unsafe.Pointer // w.caller before this call, restored after a panic too
	defer func() {
		if r := recover(); r != nil {
			if w != nil && uintptr(env) < envFdRead {
				w.caller = prev
				if w.rec != nil && w.rec.Recover(r, w.stack[:]) { // the session ended the call itself
					w.results(int(env), args)
					if w.ended(env) {
						trap = w.interruptTrap()
					}
					return
				}
			}
			if e, ok := r.(*callError); ok { // a callback the host call ran (Reenter) trapped or exited
				msg := engine.WasmtimeTrap("", e.msg).Reason // the outer trap gets its own backtrace
				if e.exited {
					msg = fmt.Sprintf("a stream callback exited with code %d", e.status)
				}
				trap = newTrap(msg)
				return
			}
			if e, ok := r.(*engine.HostTrap); ok {
				trap = newTrap(e.Msg)
				return
			}
			trap = newTrap(fmt.Sprintf("host function panicked: %v", r))
		}
	}()
	w, mem := callerInstance(caller, uintptr(d), uint64(size), known != 0)
	var r int32
	switch fn := uintptr(env); {
	case fn == envFdRead || fn == envFdWrite:
		r = wasiEBADF
		if w != nil {
			fd, iovs, n, out := rawI32(args, 0), rawI32(args, 1), rawI32(args, 2), rawI32(args, 3)
			if fd > 2 { // not stdio: a file of wasmtime's WASI, if any (mount.go)
				k := origFdRead
				if fn == envFdWrite {
					k = origFdWrite
				}
				r = w.dataCall(caller, mem, k, args, 4, fn == envFdWrite, fd, iovs, n, out)
			} else if fn == envFdWrite {
				r = w.fdWrite(mem, fd, iovs, n, out)
			} else {
				r = w.fdRead(mem, fd, iovs, n, out)
			}
		}
	case fn == envClockTimeGet:
		r = wasiEINVAL
		if w != nil {
			r = clockTimeGet(mem, rawI32(args, 0), uint64(rawI32(args, 2)))
		}
	case fn == envPollOneoff:
		r = wasiEBADF
		if w != nil {
			r = w.pollOneoff(mem, rawI32(args, 0), rawI32(args, 1), rawI32(args, 2), rawI32(args, 3))
		}
	case fn >= envFile && fn < envFile+uintptr(len(fileFuncs)):
		r = wasiEBADF
		if w != nil {
			r = w.fileCall(caller, mem, int(fn-envFile), args)
		}
	default:
		if w == nil { // not a store of this adapter
			r = 500000
			break
		}
		prev = w.caller
		w.caller = caller
		w.hostCall(mem, int(fn), args)
		w.caller = prev
	}
	if w != nil && w.ended(env) {
		// The call's context ended while the function blocked: the guest
		// must not resume (runError reports the timeout).
		return w.interruptTrap()
	}
	if uintptr(env) >= envFdRead || w == nil {
		*(*uint64)(args) = uint64(uint32(r))
	}
	return nil
}

// ended reports whether the context of host function env's call has
// ended (clock_time_get, which never blocks, aside).
func (w *wasmtimeInstance) ended(env C.uintptr_t) bool {
	return w.ctx != nil && w.ctx.Err() != nil && uintptr(env) != envClockTimeGet
}

// interruptTrap is the trap of a call whose context ended (ended).
func (w *wasmtimeInstance) interruptTrap() unsafe.Pointer {
	return newTrap("interrupted: " + w.ctx.Err().Error())
}

// hostCall runs host function fi: raw values in, the engine-neutral stack
// to the Invoker (i32 and f32 zero-extended), the results out as raw
// values.
func (w *wasmtimeInstance) hostCall(mem []byte, fi int, args unsafe.Pointer) {
	f := &w.e.sigs[fi]
	stack := w.stack[:max(f.n, f.nres, 1)]
	for k := range f.n {
		if f.wide&(1<<k) != 0 {
			stack[k] = *(*uint64)(raw(args, k))
		} else {
			stack[k] = uint64(rawI32(args, k))
		}
	}
	ctx := w.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	w.inv.Invoke(ctx, fi, mem, stack)
	w.results(fi, args)
}

// results puts the results of host function fi from w.stack in args as
// raw values.
func (w *wasmtimeInstance) results(fi int, args unsafe.Pointer) {
	f := &w.e.sigs[fi]
	for k := range f.nres {
		if f.wideRes&(1<<k) != 0 {
			*(*uint64)(raw(args, k)) = w.stack[k]
		} else {
			*(*uint64)(raw(args, k)) = uint64(uint32(w.stack[k]))
		}
	}
}

// sig is what a host call needs of its function's type: the number of
// parameters and which are 64 bits wide (i64, f64), the same of its
// results.
type sig struct {
	n, nres       int
	wide, wideRes uint64
}

// defineFuncs puts the host functions of e.funcs in l.
func (e *wasmtimeEngine) defineFuncs(l *wasmtime.Linker) error {
	kinds := map[engine.ValType]*wasmtime.ValType{
		engine.I32: wasmtime.NewValType(wasmtime.KindI32),
		engine.I64: wasmtime.NewValType(wasmtime.KindI64),
		engine.F32: wasmtime.NewValType(wasmtime.KindF32),
		engine.F64: wasmtime.NewValType(wasmtime.KindF64),
	}
	valTypes := func(ts []engine.ValType, wide *uint64) ([]*wasmtime.ValType, error) {
		out := make([]*wasmtime.ValType, len(ts))
		for k, t := range ts {
			if out[k] = kinds[t]; out[k] == nil {
				return nil, fmt.Errorf("value type %v", t)
			}
			if t.Is64() {
				*wide |= 1 << k
			}
		}
		return out, nil
	}
	e.sigs = make([]sig, len(e.funcs))
	for fi, f := range e.funcs {
		t := f.Types()
		if max(len(t.Params), len(t.Results)) > len(wasmtimeInstance{}.stack) {
			return fmt.Errorf("%s.%s: %d parameters and %d results, more than a host call takes", f.Module, f.Name, len(t.Params), len(t.Results))
		}
		s := &e.sigs[fi]
		params, err := valTypes(t.Params, &s.wide)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", f.Module, f.Name, err)
		}
		results, err := valTypes(t.Results, &s.wideRes)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", f.Module, f.Name, err)
		}
		s.n, s.nres = len(params), len(results)
		if err := defineFunc(l, f.Module, f.Name, wasmtime.NewFuncType(params, results), uintptr(fi)); err != nil {
			return err
		}
	}
	return nil
}
