package wazero

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tetratelabs/wazero/api"
)

// wazero's ExportedFunction makes a call engine per lookup: 1.5 KiB of
// state and a stack of 10 KiB at least, zeroed, the larger part of what a
// command run per request allocates, and its slowest lookup. An instance
// looks each export up once; when it is closed, the call engines of its
// exports go to its module (funcPool) and the next instance of the module
// takes them over (rebind) instead of looking up anew. wazero 1.12's call
// engine is bound to its instance only by its parent field, the module
// engine whose opaque pointer each call passes to the compiled code; its
// code and trampolines are the compilation's, which rebind checks is the
// same. Its stack is cleared first: nothing of the last guest's frames is
// left for the next guest (the compiled code writes a slot before reading
// it, but the sandbox does not rely on that), and its exception state is
// dropped. Like reach, rebind checks the types and fields it touches, and
// where wazero's differ it takes nothing over (a fresh lookup, as before);
// TestFuncReuse fails then.

// maxReusedStack bounds the stack of a call engine kept for reuse: one a
// deep recursion grew is left to the garbage collector.
const maxReusedStack = 64 << 10

// ceLayout is where rebind finds what it touches, worked out from the
// first call engine and module (ok false: not what wazero 1.12 makes).
type ceLayout struct {
	ok       bool
	ce       reflect.Type // *wazevo.callEngine
	mi       reflect.Type // *wasm.ModuleInstance
	me       reflect.Type // *wazevo.moduleEngine
	engine   int          // the index of ModuleInstance.Engine
	parent   uintptr      // callEngine.parent (*moduleEngine)
	stack    uintptr      // callEngine.stack ([]byte)
	handlers uintptr      // callEngine.tryHandlers (a slice)
	hType    reflect.Type
	pending  uintptr // callEngine.pendingException (a pointer)
	compiled uintptr // moduleEngine.parent (*compiledModule)
}

var layout struct {
	mu   sync.Mutex
	done atomic.Bool // l is worked out
	l    ceLayout
}

// ceLayoutOf returns the layout, worked out from the first fn that is a
// call engine (not a host function an instance re-exports) and its mod.
func ceLayoutOf(fn api.Function, mod api.Module) *ceLayout {
	if layout.done.Load() {
		return &layout.l
	}
	layout.mu.Lock()
	defer layout.mu.Unlock()
	if !layout.done.Load() {
		t := reflect.TypeOf(fn)
		if t != nil && t.Kind() == reflect.Pointer && t.Elem().Name() != "callEngine" {
			return &ceLayout{} // no verdict from a host function
		}
		layout.l = newCELayout(fn, mod)
		layout.done.Store(true)
	}
	return &layout.l
}

func newCELayout(fn api.Function, mod api.Module) (l ceLayout) {
	mv := reflect.ValueOf(mod)
	if mv.Kind() != reflect.Pointer || mv.IsNil() || mv.Elem().Kind() != reflect.Struct {
		return l
	}
	ef, ok := mv.Elem().Type().FieldByName("Engine")
	if !ok || len(ef.Index) != 1 || ef.Type.Kind() != reflect.Interface {
		return l
	}
	me := mv.Elem().Field(ef.Index[0])
	if me.IsNil() || me.Elem().Kind() != reflect.Pointer || me.Elem().Elem().Kind() != reflect.Struct {
		return l
	}
	meType := me.Elem().Type()
	compiled, ok := meType.Elem().FieldByName("parent")
	if !ok || len(compiled.Index) != 1 || compiled.Type.Kind() != reflect.Pointer {
		return l
	}
	ceType := reflect.TypeOf(fn)
	if ceType == nil || ceType.Kind() != reflect.Pointer || ceType.Elem().Kind() != reflect.Struct {
		return l
	}
	field := func(name string, want func(reflect.Type) bool) (reflect.StructField, bool) {
		f, ok := ceType.Elem().FieldByName(name)
		return f, ok && len(f.Index) == 1 && want(f.Type)
	}
	parent, ok1 := field("parent", func(t reflect.Type) bool { return t == meType })
	stack, ok2 := field("stack", func(t reflect.Type) bool { return t == reflect.TypeFor[[]byte]() })
	handlers, ok3 := field("tryHandlers", func(t reflect.Type) bool { return t.Kind() == reflect.Slice })
	pending, ok4 := field("pendingException", func(t reflect.Type) bool { return t.Kind() == reflect.Pointer })
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return l
	}
	return ceLayout{ok: true, ce: ceType, mi: mv.Type(), me: meType, engine: ef.Index[0],
		parent: parent.Offset, stack: stack.Offset, handlers: handlers.Offset, hType: handlers.Type,
		pending: pending.Offset, compiled: compiled.Offset}
}

// moduleEngine returns mod's module engine, nil if not wazero 1.12's.
func (l *ceLayout) moduleEngine(mod api.Module) unsafe.Pointer {
	mv := reflect.ValueOf(mod)
	if mv.Type() != l.mi || mv.IsNil() {
		return nil
	}
	me := mv.Elem().Field(l.engine)
	if me.IsNil() || me.Elem().Type() != l.me {
		return nil
	}
	return me.Elem().UnsafePointer()
}

// callEngine returns fn's call engine, nil if fn is no wazero 1.12 call
// engine.
func (l *ceLayout) callEngine(fn api.Function) unsafe.Pointer {
	if reflect.TypeOf(fn) != l.ce {
		return nil
	}
	return reflect.ValueOf(fn).UnsafePointer()
}

// rebind makes fn, the call engine of an export of a closed instance,
// that of the same export of mod, an instance of the same compilation;
// false (fn untouched) if it cannot.
func rebind(fn api.Function, mod api.Module) bool {
	l := ceLayoutOf(fn, mod)
	if !l.ok {
		return false
	}
	ce, me := l.callEngine(fn), l.moduleEngine(mod)
	if ce == nil || me == nil {
		return false
	}
	old := *(*unsafe.Pointer)(unsafe.Add(ce, l.parent))
	if old == nil || *(*unsafe.Pointer)(unsafe.Add(old, l.compiled)) != *(*unsafe.Pointer)(unsafe.Add(me, l.compiled)) {
		return false // another compilation's code
	}
	clear(*(*[]byte)(unsafe.Add(ce, l.stack)))
	reflect.NewAt(l.hType, unsafe.Add(ce, l.handlers)).Elem().SetZero()
	*(*unsafe.Pointer)(unsafe.Add(ce, l.pending)) = nil
	*(*unsafe.Pointer)(unsafe.Add(ce, l.parent)) = me
	return true
}

// reusable reports whether fn's call engine may be kept for another
// instance: its stack is not one a deep recursion grew.
func reusable(fn api.Function) bool {
	if !layout.done.Load() || !layout.l.ok {
		return false
	}
	l := &layout.l
	ce := l.callEngine(fn)
	return ce != nil && len(*(*[]byte)(unsafe.Add(ce, l.stack))) <= maxReusedStack
}

// funcPool keeps the call engines of a module's closed instances, by
// export name.
type funcPool struct {
	mu    sync.Mutex
	pools map[string]*sync.Pool
}

func (p *funcPool) pool(name string, create bool) *sync.Pool {
	p.mu.Lock()
	defer p.mu.Unlock()
	sp := p.pools[name]
	if sp == nil && create {
		if p.pools == nil {
			p.pools = map[string]*sync.Pool{}
		}
		sp = &sync.Pool{}
		p.pools[name] = sp
	}
	return sp
}

// take returns a call engine of export name bound to mod, nil if none is
// kept.
func (p *funcPool) take(name string, mod api.Module) api.Function {
	sp := p.pool(name, false)
	if sp == nil {
		return nil
	}
	for {
		fn, _ := sp.Get().(api.Function)
		if fn == nil {
			return nil
		}
		if rebind(fn, mod) {
			return fn
		}
	}
}

// give keeps fn, the call engine of export name of a closed instance.
func (p *funcPool) give(name string, fn api.Function) {
	if reusable(fn) {
		p.pool(name, true).Put(fn)
	}
}
