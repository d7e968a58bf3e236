//go:build wasmtime && cgo

package wasmtime

// The Wasmtime C API functions that wasmtime-go v39 does not wrap, or wraps
// at a cost per call: the linear-memory reservation settings of a Config,
// the store's epoch deadline callback, host functions and export calls in
// the "unchecked" form (untyped raw values: wasmtime-go boxes every
// argument and result of a host call in a []Val and finds the callback
// under two process-wide locks, which both allocates and serializes the
// host calls of all sessions), and a host call's store and memory size in
// one call (aclwasm_caller). They are declared here rather than included,
// since the headers live in wasmtime-go's module directory; the symbols
// come from the static libwasmtime that wasmtime-go links (same version:
// go.mod pins it).

/*
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct wasm_config_t wasm_config_t;
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef struct wasmtime_caller wasmtime_caller_t;
typedef struct wasmtime_linker wasmtime_linker_t;
typedef struct wasm_functype_t wasm_functype_t;
typedef struct wasm_trap_t wasm_trap_t;

// wasm_byte_vec_t (wasm_message_t), as wasm.h declares it.
typedef struct {
	size_t size;
	char *data;
} aclwasm_bytes_t;

// wasmtime_val_raw_t, as val.h declares it: a 16-byte union, 8-byte
// aligned, each value little-endian from offset 0.
typedef struct {
	uint64_t lo, hi;
} aclwasm_raw_t;

// wasmtime_func_t, as extern.h declares it.
typedef struct {
	uint64_t store_id;
	void *p;
} aclwasm_func_t;

// wasmtime_memory_t, as extern.h declares it (24 bytes).
typedef struct {
	struct {
		uint64_t store_id;
		uint32_t p1;
	} id;
	uint32_t p2;
} aclwasm_memory_t;

// wasmtime_instance_t, as instance.h declares it.
typedef struct {
	uint64_t store_id;
	size_t p;
} aclwasm_instance_t;

// wasmtime_extern_t, as extern.h declares it: a kind and a union of 24
// bytes (a global, table or memory handle is the largest).
typedef struct {
	uint8_t kind;
	union {
		aclwasm_func_t func;
		aclwasm_memory_t memory;
		uint8_t size[24];
	} of;
} aclwasm_extern_t;

enum { aclwasm_extern_memory = 3 }; // WASMTIME_EXTERN_MEMORY

extern wasmtime_context_t *wasmtime_caller_context(wasmtime_caller_t *);
extern wasmtime_context_t *wasmtime_store_context(wasmtime_store_t *);
extern void *wasmtime_context_get_data(const wasmtime_context_t *);
extern size_t wasmtime_memory_data_size(const wasmtime_context_t *, const aclwasm_memory_t *);

typedef struct wasmtime_module wasmtime_module_t;
extern wasmtime_error_t *wasmtime_linker_instantiate(const wasmtime_linker_t *, wasmtime_context_t *, const wasmtime_module_t *, aclwasm_instance_t *, wasm_trap_t **);
extern bool wasmtime_instance_export_get(wasmtime_context_t *, const aclwasm_instance_t *, const char *, size_t, aclwasm_extern_t *);
extern void wasmtime_extern_delete(aclwasm_extern_t *);
extern uint8_t *wasmtime_memory_data(const wasmtime_context_t *, const aclwasm_memory_t *);
extern void wasmtime_store_limiter(wasmtime_store_t *, int64_t, int64_t, int64_t, int64_t, int64_t);
extern void wasmtime_config_memory_may_move_set(wasm_config_t *, bool);
extern void wasmtime_config_memory_reservation_set(wasm_config_t *, uint64_t);
extern void wasmtime_config_memory_reservation_for_growth_set(wasm_config_t *, uint64_t);
extern wasmtime_error_t *wasmtime_error_new(const char *);
extern void wasmtime_error_message(const wasmtime_error_t *, aclwasm_bytes_t *);
extern bool wasmtime_error_exit_status(const wasmtime_error_t *, int *);
extern void wasmtime_error_delete(wasmtime_error_t *);
extern wasm_trap_t *wasmtime_trap_new(const char *, size_t);
extern void wasm_trap_message(const wasm_trap_t *, aclwasm_bytes_t *);
extern bool wasmtime_trap_code(const wasm_trap_t *, uint8_t *);
extern void wasm_trap_delete(wasm_trap_t *);
extern void wasm_byte_vec_delete(aclwasm_bytes_t *);
extern wasmtime_error_t *wasmtime_context_set_fuel(wasmtime_context_t *, uint64_t);
extern void wasmtime_context_set_epoch_deadline(wasmtime_context_t *, uint64_t);
extern wasmtime_error_t *wasmtime_func_call_unchecked(wasmtime_context_t *, const aclwasm_func_t *, aclwasm_raw_t *, size_t, wasm_trap_t **);
extern wasmtime_error_t *wasmtime_linker_define_func_unchecked(
	wasmtime_linker_t *, const char *, size_t, const char *, size_t, const wasm_functype_t *,
	wasm_trap_t *(*cb)(void *, wasmtime_caller_t *, aclwasm_raw_t *, size_t), void *, void (*)(void *));

// WASMTIME_TRAP_CODE_OUT_OF_FUEL (trap.h; wasmtime-go's OutOfFuel constant
// misses ALWAYS_TRAP_ADAPTER before it and is one less).
enum { aclwasm_trap_out_of_fuel = 12 };
extern void wasmtime_store_epoch_deadline_callback(
	wasmtime_store_t *store,
	wasmtime_error_t *(*func)(wasmtime_context_t *, void *, uint64_t *, uint8_t *),
	void *data, void (*finalizer)(void *));

// Defined in Go (epoch.go).
extern int aclwasmEpochDeadline(uintptr_t data);

static wasmtime_error_t *aclwasm_epoch_cb(wasmtime_context_t *cx, void *data, uint64_t *delta, uint8_t *kind) {
	if (aclwasmEpochDeadline((uintptr_t)wasmtime_context_get_data(cx))) {
		return wasmtime_error_new("guest interrupted: the call's context is done");
	}
	*delta = 1;
	*kind = 0; // WASMTIME_UPDATE_DEADLINE_CONTINUE
	return NULL;
}

// A host call needs its store's data (wasmtime-go's index of the store,
// which names the instance) and its guest memory's size: four calls into C
// and a global lock through wasmtime-go. aclwasm_caller makes it one call
// in the steady state: each thread remembers the memory of the store whose
// host calls it served last, under a generation that every store's closing
// bumps (a closed store's index may name a new store, whose memory a
// remembered handle of the old one must never be used with: wasmtime
// aborts on a handle of another store).
static uint64_t aclwasm_gen = 1;
static __thread uint64_t aclwasm_tls_gen;
static __thread uintptr_t aclwasm_tls_data;
static __thread aclwasm_memory_t aclwasm_tls_mem;

// aclwasm_caller returns the data of the caller's store and, if this
// thread remembers its memory (*known set), the memory's size.
static uintptr_t aclwasm_caller(void *caller, size_t *size, int *known) {
	wasmtime_context_t *cx = wasmtime_caller_context((wasmtime_caller_t *)caller);
	uintptr_t d = (uintptr_t)wasmtime_context_get_data(cx);
	*known = 0;
	if (aclwasm_tls_data == d && aclwasm_tls_gen == __atomic_load_n(&aclwasm_gen, __ATOMIC_ACQUIRE)) {
		*size = wasmtime_memory_data_size(cx, &aclwasm_tls_mem);
		*known = 1;
	}
	return d;
}

// aclwasm_caller_memory makes this thread remember mem as the memory of
// the store with data d, the caller's, and returns its size.
static size_t aclwasm_caller_memory(void *caller, uintptr_t d, const aclwasm_memory_t *mem) {
	aclwasm_tls_gen = __atomic_load_n(&aclwasm_gen, __ATOMIC_ACQUIRE);
	aclwasm_tls_data = d;
	memcpy(&aclwasm_tls_mem, mem, sizeof *mem);
	return wasmtime_memory_data_size(wasmtime_caller_context((wasmtime_caller_t *)caller), mem);
}

// Defined in Go (hostcall.go).
extern void *aclwasmHostCall(uintptr_t env, void *caller, uintptr_t data, size_t size, int known, void *args);

// aclwasm_host_cb is every host function of the adapter: the caller's
// store data and memory size come with the call into Go, which then needs
// no call back into C in the steady state.
static wasm_trap_t *aclwasm_host_cb(void *env, wasmtime_caller_t *caller, aclwasm_raw_t *args, size_t n) {
	size_t size = 0;
	int known;
	uintptr_t d = aclwasm_caller(caller, &size, &known);
	return (wasm_trap_t *)aclwasmHostCall((uintptr_t)env, caller, d, size, known, args);
}

// aclwasm_define defines a host function of the given type in the linker:
// aclwasm_host_cb with env.
static wasmtime_error_t *aclwasm_define(void *linker, _GoString_ module, _GoString_ name, void *ty, uintptr_t env) {
	return wasmtime_linker_define_func_unchecked((wasmtime_linker_t *)linker,
		_GoStringPtr(module), _GoStringLen(module), _GoStringPtr(name), _GoStringLen(name),
		(const wasm_functype_t *)ty, aclwasm_host_cb, (void *)env, NULL);
}

// aclwasm_store_closing forgets every thread's remembered memory: a store
// is about to be deleted.
static void aclwasm_store_closing(void) { __atomic_add_fetch(&aclwasm_gen, 1, __ATOMIC_RELEASE); }

// aclwasm_error takes a call's error or trap (one of them, or none): its
// message (the first n bytes of msg, which the caller frees: the
// trap's without its NUL), a WASI exit's status, whether it
// ran out of fuel; it frees both.
static void aclwasm_error(wasmtime_error_t *err, wasm_trap_t *trap, aclwasm_bytes_t *msg, size_t *n, int *exited, int *status, int *fuel) {
	*exited = 0;
	*fuel = 0;
	msg->size = 0;
	msg->data = NULL;
	*n = 0;
	if (trap != NULL) {
		uint8_t code;
		wasm_trap_message(trap, msg);
		*n = msg->size > 0 ? msg->size - 1 : 0;
		*fuel = wasmtime_trap_code(trap, &code) && code == aclwasm_trap_out_of_fuel;
		wasm_trap_delete(trap);
	}
	if (err != NULL) {
		if (msg->data == NULL) {
			wasmtime_error_message(err, msg);
			*n = msg->size;
		}
		*exited = wasmtime_error_exit_status(err, status);
		wasmtime_error_delete(err);
	}
}

// aclwasm_result is how a call ended: an error or a trap, or neither.
typedef struct {
	wasmtime_error_t *err;
	wasm_trap_t *trap;
} aclwasm_result_t;

// aclwasm_call calls f unchecked (see wasmtime_func_call_unchecked).
static aclwasm_result_t aclwasm_call(void *cx, const aclwasm_func_t *f, aclwasm_raw_t *raw, size_t n) {
	aclwasm_result_t r = {NULL, NULL};
	r.err = wasmtime_func_call_unchecked((wasmtime_context_t *)cx, f, raw, n, &r.trap);
	return r;
}

// aclwasm_call_in calls f unchecked in the store of a host call in
// progress, through its caller's context (Reenter).
static aclwasm_result_t aclwasm_call_in(void *caller, const aclwasm_func_t *f, aclwasm_raw_t *raw, size_t n) {
	return aclwasm_call(wasmtime_caller_context((wasmtime_caller_t *)caller), f, raw, n);
}

// aclwasm_instantiate instantiates module in the store with context cx
// through linker and, if it exports memory 0 as mem_name (not ""), returns
// that memory and its base (*found set).
static aclwasm_result_t aclwasm_instantiate(void *linker, void *cx, void *module, aclwasm_instance_t *inst,
		_GoString_ mem_name, aclwasm_memory_t *mem, void **base, int *found) {
	aclwasm_result_t r = {NULL, NULL};
	*base = NULL;
	*found = 0;
	r.err = wasmtime_linker_instantiate((wasmtime_linker_t *)linker, (wasmtime_context_t *)cx, (wasmtime_module_t *)module, inst, &r.trap);
	if (r.err != NULL || r.trap != NULL || _GoStringLen(mem_name) == 0) {
		return r;
	}
	aclwasm_extern_t ext;
	if (wasmtime_instance_export_get((wasmtime_context_t *)cx, inst, _GoStringPtr(mem_name), _GoStringLen(mem_name), &ext)) {
		if (ext.kind == aclwasm_extern_memory) {
			*mem = ext.of.memory;
			*base = wasmtime_memory_data((wasmtime_context_t *)cx, mem);
			*found = 1;
		}
		wasmtime_extern_delete(&ext);
	}
	return r;
}

// aclwasm_store_setup readies a new store: its epoch callback,
// its memory limit (one memory of at most mem_limit bytes); it returns
// the store's context and data.
static void *aclwasm_store_setup(void *store, int64_t mem_limit, uintptr_t *data) {
	wasmtime_store_t *st = (wasmtime_store_t *)store;
	wasmtime_context_t *cx = wasmtime_store_context(st);
	wasmtime_store_epoch_deadline_callback(st, aclwasm_epoch_cb, NULL, NULL);
	wasmtime_store_limiter(st, mem_limit, -1, -1, -1, 1);
	*data = (uintptr_t)wasmtime_context_get_data(cx);
	return cx;
}

static void aclwasm_config_fixed_memory(void *cfg, uint64_t reservation) {
	wasmtime_config_memory_reservation_set((wasm_config_t *)cfg, reservation);
	wasmtime_config_memory_reservation_for_growth_set((wasm_config_t *)cfg, 0);
	wasmtime_config_memory_may_move_set((wasm_config_t *)cfg, false);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// rawPtr returns the C pointer a wasmtime-go object wraps: its first field,
// unexported. checkLayout verifies that assumption for the pinned version
// before anything relies on it.
func rawPtr[T any](obj *T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(obj)) }

// checkLayout fails if wasmtime-go's Config, Store, Caller, Linker,
// FuncType or Module no longer start with the C pointer, or its Memory,
// Func or Instance with the C handle (a wasmtime-go upgrade must revisit this file).
func checkLayout() error {
	for _, t := range []reflect.Type{reflect.TypeFor[wasmtime.Config](), reflect.TypeFor[wasmtime.Store](), reflect.TypeFor[wasmtime.Caller](), reflect.TypeFor[wasmtime.Linker](), reflect.TypeFor[wasmtime.FuncType](), reflect.TypeFor[wasmtime.Module]()} {
		if t.NumField() == 0 || (t.Field(0).Name != "_ptr" && t.Field(0).Name != "ptr") || t.Field(0).Type.Kind() != reflect.Pointer || t.Field(0).Offset != 0 {
			return fmt.Errorf("wasmtime-go's %s no longer starts with its C pointer: revisit host/internal/engine/wasmtime/capi.go", t)
		}
	}
	if t := reflect.TypeFor[wasmtime.Memory](); t.NumField() != 1 || t.Field(0).Name != "val" || t.Size() != C.sizeof_aclwasm_memory_t {
		return fmt.Errorf("wasmtime-go's %s is no longer the C handle alone: revisit host/internal/engine/wasmtime/capi.go", t)
	}
	if t := reflect.TypeFor[wasmtime.Func](); t.NumField() != 1 || t.Field(0).Name != "val" || t.Size() != C.sizeof_aclwasm_func_t {
		return fmt.Errorf("wasmtime-go's %s is no longer the C handle alone: revisit host/internal/engine/wasmtime/capi.go", t)
	}
	if t := reflect.TypeFor[wasmtime.Instance](); t.NumField() != 1 || t.Field(0).Name != "val" || t.Size() != C.sizeof_aclwasm_instance_t {
		return fmt.Errorf("wasmtime-go's %s is no longer the C handle alone: revisit host/internal/engine/wasmtime/capi.go", t)
	}
	if C.sizeof_aclwasm_raw_t != 16 || C.sizeof_aclwasm_extern_t != 32 {
		return errors.New("wasmtime_val_raw_t is not 16 bytes or wasmtime_extern_t not 32: revisit host/internal/engine/wasmtime/capi.go")
	}
	return nil
}

// callerMemory makes this thread remember mem as the memory of the store
// with data d, the caller's, and returns its size.
func callerMemory(caller unsafe.Pointer, d uintptr, mem *wasmtime.Memory) uint64 {
	return uint64(C.aclwasm_caller_memory(caller, C.uintptr_t(d), (*C.aclwasm_memory_t)(unsafe.Pointer(mem))))
}

// storeClosing makes every thread forget the memories it remembers.
func storeClosing() { C.aclwasm_store_closing() }

// fixedMemory makes every linear memory one reservation of the given size
// that never moves: growing within it only commits pages, and growing past
// it fails (memory.grow returns -1) instead of relocating the memory.
func fixedMemory(cfg *wasmtime.Config, reservation uint64) {
	C.aclwasm_config_fixed_memory(rawPtr(cfg), C.uint64_t(reservation))
}

// defineFunc defines module.name in l as the host function env (see
// aclwasmHostCall) of type ty, called with raw values.
func defineFunc(l *wasmtime.Linker, module, name string, ty *wasmtime.FuncType, env uintptr) error {
	err := C.aclwasm_define(rawPtr(l), module, name, rawPtr(ty), C.uintptr_t(env))
	runtime.KeepAlive(l)
	runtime.KeepAlive(ty)
	if err != nil {
		return takeError(err, nil)
	}
	return nil
}

// newTrap makes a trap for a host function to return: the engine owns it.
func newTrap(msg string) unsafe.Pointer {
	return unsafe.Pointer(C.wasmtime_trap_new((*C.char)(unsafe.Pointer(unsafe.StringData(msg))), C.size_t(len(msg))))
}

// setFuel sets the fuel of the store with context cx.
func setFuel(cx unsafe.Pointer, fuel uint64) error {
	if err := C.wasmtime_context_set_fuel((*C.wasmtime_context_t)(cx), C.uint64_t(fuel)); err != nil {
		return takeError(err, nil)
	}
	return nil
}

// setEpochDeadline sets the deadline of the store with context cx to
// delta epochs from now.
func setEpochDeadline(cx unsafe.Pointer, delta uint64) {
	C.wasmtime_context_set_epoch_deadline((*C.wasmtime_context_t)(cx), C.uint64_t(delta))
}

// callRaw calls f, of the store with context cx, with its parameters in
// raw and leaves its results there (raw holds the more of both).
func callRaw(cx unsafe.Pointer, f *wasmtime.Func, raw []rawVal) error {
	r := C.aclwasm_call(cx, (*C.aclwasm_func_t)(unsafe.Pointer(f)), (*C.aclwasm_raw_t)(unsafe.Pointer(&raw[0])), C.size_t(len(raw)))
	if r.err != nil || r.trap != nil {
		return takeError(r.err, r.trap)
	}
	return nil
}

// callRawIn is callRaw from inside a host call, through its caller.
func callRawIn(caller unsafe.Pointer, f *wasmtime.Func, raw []rawVal) error {
	r := C.aclwasm_call_in(caller, (*C.aclwasm_func_t)(unsafe.Pointer(f)), (*C.aclwasm_raw_t)(unsafe.Pointer(&raw[0])), C.size_t(len(raw)))
	if r.err != nil || r.trap != nil {
		return takeError(r.err, r.trap)
	}
	return nil
}

// callError is how a call into wasm ended other than by returning: a trap
// or an error of wasmtime's, a WASI exit among them.
type callError struct {
	msg    string
	exited bool  // proc_exit
	status int32 // its code
	fuel   bool  // out of fuel
}

func (e *callError) Error() string { return e.msg }

// takeError makes a callError of an error or a trap of wasmtime's, which it
// frees.
func takeError(err *C.wasmtime_error_t, trap *C.wasm_trap_t) *callError {
	var msg C.aclwasm_bytes_t
	var n C.size_t
	var exited, status, fuel C.int
	C.aclwasm_error(err, trap, &msg, &n, &exited, &status, &fuel)
	e := &callError{msg: C.GoStringN(msg.data, C.int(n)), exited: exited != 0, status: int32(status), fuel: fuel != 0}
	if msg.data != nil {
		C.wasm_byte_vec_delete(&msg)
	}
	return e
}

// rawVal is a wasmtime_val_raw_t in Go memory: the value little-endian
// from the first byte.
type rawVal [2]uint64

// setupStore readies a new store (see aclwasm_store_setup) and returns its
// context and its data: wasmtime-go's index of the store, which
// aclwasm_caller returns for a host call.
func setupStore(store *wasmtime.Store, memLimit int64) (cx unsafe.Pointer, data uintptr) {
	var d C.uintptr_t
	cx = C.aclwasm_store_setup(rawPtr(store), C.int64_t(memLimit), &d)
	return cx, uintptr(d)
}

// instantiate instantiates mod through l in the store with context cx, in
// one call into C with the lookup of its memory export memName ("": none):
// the memory and its base, nil if there is none.
func instantiate(l *wasmtime.Linker, cx unsafe.Pointer, mod *wasmtime.Module, memName string) (*wasmtime.Instance, *wasmtime.Memory, unsafe.Pointer, error) {
	inst, mem := new(wasmtime.Instance), new(wasmtime.Memory)
	var base unsafe.Pointer
	var found C.int
	r := C.aclwasm_instantiate(rawPtr(l), cx, rawPtr(mod), (*C.aclwasm_instance_t)(unsafe.Pointer(inst)), memName, (*C.aclwasm_memory_t)(unsafe.Pointer(mem)), &base, &found)
	runtime.KeepAlive(l)
	runtime.KeepAlive(mod)
	if r.err != nil || r.trap != nil {
		return nil, nil, nil, takeError(r.err, r.trap)
	}
	if found == 0 {
		mem = nil
	}
	return inst, mem, base, nil
}
