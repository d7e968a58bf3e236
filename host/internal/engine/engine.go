// Package engine is the contract between the sandbox (package host) and the
// WebAssembly engines that run its guests: compile a module, list its
// function imports, instantiate it for a session, call an export with
// uint64 values, show the guest's memory, close. The adapters (packages
// wazero and wasmtime below this one) are thin: they map their engine's
// calling convention onto a stack of uint64 and hand every host function
// call to the session's Invoker. No import logic lives in them, so the
// checks cannot drift between engines.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/abi"
)

// New makes an engine with the given options.
type New func(context.Context, Options) (Engine, error)

// Options are what an engine is made with.
type Options struct {
	Fuel     uint64 // WithFuel; 0: no fuel metering
	CacheDir string // WithCacheDir; "": in memory only
	// Funcs are the host functions the engine provides besides WASI, each
	// routed to Invoker.Invoke with its index in Funcs.
	Funcs []Func
}

// Func is one host function: of the ABI's form (Params in Profile's
// wire form, one i32 result), or of any wasm type (Type).
type Func struct {
	Module, Name string
	Params       []abi.Param
	// Profile is the wire form of Params (abi.Profile.Is64): Wide but for
	// the imports of module "acl32".
	Profile abi.Profile
	// Type, when not nil, is the function's wasm type, and Params only
	// names its parameters (when there are as many).
	Type *FuncType
	// Unguarded: a Recoverer may leave this function's panics to the
	// adapter (see Recoverer); an adapter that does not recover every
	// host call's panic anyway recovers this function's.
	Unguarded bool
}

// ValType is a wasm value type, by its binary encoding.
type ValType byte

// The value types of host functions.
const (
	I32 ValType = 0x7f
	I64 ValType = 0x7e
	F32 ValType = 0x7d
	F64 ValType = 0x7c
)

// String returns the type's name in the text format: "i32".
func (t ValType) String() string {
	switch t {
	case I32:
		return "i32"
	case I64:
		return "i64"
	case F32:
		return "f32"
	case F64:
		return "f64"
	}
	return fmt.Sprintf("ValType(%#x)", byte(t))
}

// Is64 reports whether t takes 64 bits (i64, f64).
func (t ValType) Is64() bool { return t == I64 || t == F64 }

// FuncType is a function's wasm type.
type FuncType struct{ Params, Results []ValType }

// Signature writes t as abi.Func.Signature and Import.Signature do:
// "(i32, f64) -> i64".
func (t *FuncType) Signature() string {
	names := func(ts []ValType) string {
		s := make([]string, len(ts))
		for i, v := range ts {
			s[i] = v.String()
		}
		return strings.Join(s, ", ")
	}
	return "(" + names(t.Params) + ") -> " + names(t.Results)
}

// Types returns f's wasm type: Type, or Params in Profile's wire form
// returning one i32.
func (f *Func) Types() FuncType {
	if f.Type != nil {
		return *f.Type
	}
	t := FuncType{Params: make([]ValType, len(f.Params)), Results: []ValType{I32}}
	for k, p := range f.Params {
		t.Params[k] = I32
		if f.Profile.Is64(p.Type) {
			t.Params[k] = I64
		}
	}
	return t
}

// Module is a module prepared for compilation: the host has moved its
// start function to an export and exported its memory 0 (see
// host/internal/module).
type Module struct {
	Wasm []byte
	// Start names the export the start function was moved to, "" if none:
	// the adapter checks it has type [] -> [] (ErrStartType).
	Start string
	// Memory names the export of memory 0, "" if the module defines none.
	Memory string
	// Stack names the export of the host's stack counter (host/internal/module/stack.go),
	// "" if none: after a trap the adapter reads it, and StackExhausted in
	// it makes the trap's reason StackLimitReason.
	Stack string
}

// StackExhausted is the stack counter's value when the guest trapped
// because a call would have passed the policy's stack limit.
const StackExhausted = 0xffffffff

// StackLimitReason is the reason of a trap at the policy's stack limit.
const StackLimitReason = "stack limit: a call would pass the policy's MaxStackBytes"

// Engine compiles modules.
type Engine interface {
	Compile(ctx context.Context, m Module) (Compiled, error)
	Close(ctx context.Context) error
}

// Compiled is a compiled module.
type Compiled interface {
	// Imports lists the module's function imports.
	Imports() []Import
	Instantiate(ctx context.Context, cfg Config) (Instance, error)
	Close(ctx context.Context) error
}

// Instance is an instantiated module.
type Instance interface {
	Has(export string) bool
	// Memory is the guest's linear memory now, for the embedder and tests.
	Memory() []byte
	// Call calls an export. It returns ErrNoExport or ErrArgs before any
	// guest code runs, an *ExitError, a *Trap or a *Done after.
	Call(ctx context.Context, name string, args ...uint64) ([]uint64, error)
	// Reenter calls an export whose results are none from inside a host
	// call of this instance, on the host call's goroutine, with the host
	// call's context (the sandbox's stream callbacks). Guest code then
	// runs nested in the host call, under its deadline. The error is how
	// the export ended other than by returning (a trap, an exit, the
	// context's end), or ErrNoExport or ErrArgs: the caller makes it end
	// the host call and the guest's run by panicking with it, which the
	// adapter turns into the outer call's end of the same kind where its
	// engine can.
	Reenter(ctx context.Context, name string, args ...uint64) error
	// Idle says the instance waits, without a call in progress, for a
	// next call that may be long in coming (a pool keeps it): the adapter
	// drops what it made for calls and makes again at the next, so that
	// an idle instance holds only its state.
	Idle()
	Close(ctx context.Context) error
}

// Import is one function import of a module.
type Import struct {
	Module, Name string
	Signature    string // as abi.Func.Signature writes it
}

// Config is what an instance is made with.
type Config struct {
	Invoker Invoker
	// Binding is what the instance's call contexts carry (InvokerKey),
	// Binding.Invoker being Invoker; the adapter may set its Guest. Nil:
	// the adapter finds the instance its own way.
	Binding     *Binding
	MemoryLimit uint64 // bytes the linear memory may grow to
	Args, Env   []string
	Stdin       io.Reader
	Stdout      io.Writer
	Stderr      io.Writer
	// DeterministicClocks: wazero's fake clocks and sleeps.
	DeterministicClocks bool
	// Mounts are the directories the guest sees (WASI preopens), in
	// order; none: the guest has no filesystem. Files counts their I/O
	// (not nil when there are mounts).
	Mounts []Mount
	Files  *Files
}

// Invoker is the session side of an instance: the host's Session satisfies
// it, so that adapters never import the host.
type Invoker interface {
	// Invoke runs Options.Funcs[fn] with the guest's memory (nil if none)
	// and the parameters on stack (i32 and f32 zero-extended); it leaves
	// the results on stack from stack[0] (the i32 result of the ABI's
	// form). stack holds as many values as the parameters or the results,
	// whichever are more. A panic with a *HostTrap traps the guest with
	// its message.
	Invoke(ctx context.Context, fn int, mem []byte, stack []uint64)
	// Hold gives the session a reference to the guest's memory, which it
	// releases after its streams stopped (queued copies may use it).
	Hold(m Releaser)
	// Release releases the session: the adapter calls it when an
	// instantiation fails after the session may have queued work, before
	// it frees the memory that work may use.
	Release(ctx context.Context) error
}

// Recoverer is an Invoker that may leave the panics of some of its own
// calls to an adapter that recovers every host call's panic anyway
// (wasmtime's, as a panic cannot unwind through its frames; wazero's for
// the functions marked Func.Unguarded), rather than pay for a recover of
// its own on the way of a call. Such an adapter calls Recovering once,
// before the instance's first host call, and hands Recover each panic of
// an Invoke (of an Unguarded function, at least) with that call's stack:
// Recover ends the call as its own recover would have (the result left on
// stack) and reports true, or reports false for a panic it leaves to the
// adapter.
type Recoverer interface {
	Invoker
	Recovering()
	Recover(r any, stack []uint64) bool
}

// Watcher is what the host's call contexts offer the engines besides
// context.Context: context.AfterFunc without its allocations. Watch runs
// *f on a goroutine of its own once the context is done (at once if it
// is); f is the caller's, made once and kept until Unwatch. Unwatch stops
// that and reports whether *f had not been started.
type Watcher interface {
	Watch(f *func())
	Unwatch(f *func()) bool
}

// Releaser drops a reference.
type Releaser interface{ Release() }

// InvokerKey is the context key of the Invoker, for the adapters whose
// host functions are shared by every instance (wazero): the context of a
// guest call carries its session.
type InvokerKey struct{}

// Binding is the value of InvokerKey: the session, and the adapter's own
// state for the instance, set once when the instance is made, so that a
// host function shared by every instance finds both in one lookup (wazero:
// the guest's memory, instead of asking the module for it on every call).
type Binding struct {
	Invoker
	Guest any // the adapter's, nil until it sets it (Config.Binding)
}

// BindingFrom returns the Binding of ctx, nil if none.
func BindingFrom(ctx context.Context) *Binding {
	b, _ := ctx.Value(InvokerKey{}).(*Binding)
	return b
}

// HostTrap, as an Invoker's panic, traps the guest with Msg as the
// trap's reason (an error of one of the embedder's host functions of any
// wasm type, which has no status to return).
type HostTrap struct{ Msg string }

// NewHostTrap returns a HostTrap of msg, clipped as a trap's reason is.
func NewHostTrap(msg string) *HostTrap { return &HostTrap{Msg: clip(msg)} }

func (e *HostTrap) Error() string { return e.Msg }

// Errors of a call refused before any guest code ran (the instance stays
// usable), and of a module whose start function has the wrong type.
var (
	ErrNoExport  = errors.New("no such export")
	ErrArgs      = errors.New("wrong number of arguments")
	ErrStartType = errors.New("start function must have type [] -> []")
)

// ExitError is a guest's exit (proc_exit), code 0 too.
type ExitError struct{ Code uint32 }

func (e *ExitError) Error() string { return "guest exited" }

// Done reports a call stopped because its context ended.
type Done struct{ Call string }

func (e *Done) Error() string { return e.Call + ": context done" }

// LiveMemories counts the guest memories not yet released (reservations on
// wazero, stores on wasmtime), so that tests can prove that every ending of
// a run or an instance releases its memory.
var LiveMemories atomic.Int64

// ReusedMemories counts the guest memories made from a reservation an
// earlier instance released (wazero's pool), so that tests can prove the
// reuse they check for leftovers.
var ReusedMemories atomic.Int64

// MemoryBytes returns the bytes of a linear memory limit of pages pages.
func MemoryBytes(pages uint32) uint64 { return uint64(pages) << 16 }
