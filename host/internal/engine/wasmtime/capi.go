//go:build wasmtime && cgo

package wasmtime

// The few Wasmtime C API functions that wasmtime-go v39 does not wrap, or
// wraps at a cost per host call: the linear-memory reservation settings of
// a Config, the store's epoch deadline callback, and a host call's store
// and memory size in one call (aclwasm_caller). They are declared here rather than included, since the
// headers live in wasmtime-go's module directory; the symbols come from the
// static libwasmtime that wasmtime-go links (same version: go.mod pins it).

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

// wasmtime_memory_t, as extern.h declares it (24 bytes).
typedef struct {
	struct {
		uint64_t store_id;
		uint32_t p1;
	} id;
	uint32_t p2;
} aclwasm_memory_t;

extern wasmtime_context_t *wasmtime_caller_context(wasmtime_caller_t *);
extern wasmtime_context_t *wasmtime_store_context(wasmtime_store_t *);
extern void *wasmtime_context_get_data(const wasmtime_context_t *);
extern size_t wasmtime_memory_data_size(const wasmtime_context_t *, const aclwasm_memory_t *);

extern void wasmtime_config_memory_may_move_set(wasm_config_t *, bool);
extern void wasmtime_config_memory_reservation_set(wasm_config_t *, uint64_t);
extern void wasmtime_config_memory_reservation_for_growth_set(wasm_config_t *, uint64_t);
extern wasmtime_error_t *wasmtime_error_new(const char *);
extern void wasmtime_store_epoch_deadline_callback(
	wasmtime_store_t *store,
	wasmtime_error_t *(*func)(wasmtime_context_t *, void *, uint64_t *, uint8_t *),
	void *data, void (*finalizer)(void *));

// Defined in Go (epoch.go).
extern int aclwasmEpochDeadline(uintptr_t handle);

static wasmtime_error_t *aclwasm_epoch_cb(wasmtime_context_t *cx, void *data, uint64_t *delta, uint8_t *kind) {
	if (aclwasmEpochDeadline((uintptr_t)data)) {
		return wasmtime_error_new("guest interrupted: the call's context is done");
	}
	*delta = 1;
	*kind = 0; // WASMTIME_UPDATE_DEADLINE_CONTINUE
	return NULL;
}

static void aclwasm_set_epoch_callback(void *store, uintptr_t handle) {
	wasmtime_store_epoch_deadline_callback((wasmtime_store_t *)store, aclwasm_epoch_cb, (void *)handle, NULL);
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

// aclwasm_store_closing forgets every thread's remembered memory: a store
// is about to be deleted.
static void aclwasm_store_closing(void) { __atomic_add_fetch(&aclwasm_gen, 1, __ATOMIC_RELEASE); }

// aclwasm_store_data returns the data of a store, as aclwasm_caller does.
static uintptr_t aclwasm_store_data(void *store) {
	return (uintptr_t)wasmtime_context_get_data(wasmtime_store_context((wasmtime_store_t *)store));
}

static void aclwasm_config_fixed_memory(void *cfg, uint64_t reservation) {
	wasmtime_config_memory_reservation_set((wasm_config_t *)cfg, reservation);
	wasmtime_config_memory_reservation_for_growth_set((wasm_config_t *)cfg, 0);
	wasmtime_config_memory_may_move_set((wasm_config_t *)cfg, false);
}
*/
import "C"

import (
	"fmt"
	"reflect"
	"runtime/cgo"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// rawPtr returns the C pointer a wasmtime-go object wraps: its first field,
// unexported. checkLayout verifies that assumption for the pinned version
// before anything relies on it.
func rawPtr[T any](obj *T) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(obj)) }

// checkLayout fails if wasmtime-go's Config, Store or Caller no longer
// start with the C pointer, or its Memory with the C handle (a wasmtime-go
// upgrade must revisit this file).
func checkLayout() error {
	for _, t := range []reflect.Type{reflect.TypeFor[wasmtime.Config](), reflect.TypeFor[wasmtime.Store](), reflect.TypeFor[wasmtime.Caller]()} {
		if t.NumField() == 0 || (t.Field(0).Name != "_ptr" && t.Field(0).Name != "ptr") || t.Field(0).Type.Kind() != reflect.Pointer || t.Field(0).Offset != 0 {
			return fmt.Errorf("wasmtime-go's %s no longer starts with its C pointer: revisit host/internal/engine/wasmtime/capi.go", t)
		}
	}
	if t := reflect.TypeFor[wasmtime.Memory](); t.NumField() != 1 || t.Field(0).Name != "val" || t.Size() != C.sizeof_aclwasm_memory_t {
		return fmt.Errorf("wasmtime-go's %s is no longer the C handle alone: revisit host/internal/engine/wasmtime/capi.go", t)
	}
	return nil
}

// callerStore returns the data of c's store (see storeData) and, when this
// thread served that store last (and no store closed since), its memory's
// size; ok reports whether it did.
func callerStore(c *wasmtime.Caller) (data uintptr, size uint64, ok bool) {
	var sz C.size_t
	var known C.int
	d := C.aclwasm_caller(rawPtr(c), &sz, &known)
	return uintptr(d), uint64(sz), known != 0
}

// callerMemory makes this thread remember mem as the memory of the store
// with data d, c's, and returns its size.
func callerMemory(c *wasmtime.Caller, d uintptr, mem *wasmtime.Memory) uint64 {
	return uint64(C.aclwasm_caller_memory(rawPtr(c), C.uintptr_t(d), (*C.aclwasm_memory_t)(unsafe.Pointer(mem))))
}

// storeClosing makes every thread forget the memories it remembers.
func storeClosing() { C.aclwasm_store_closing() }

// storeData returns the data wasmtime-go keeps in a store's C context: its
// index of the store, which callerStore returns for a host call.
func storeData(store *wasmtime.Store) uintptr { return uintptr(C.aclwasm_store_data(rawPtr(store))) }

// fixedMemory makes every linear memory one reservation of the given size
// that never moves: growing within it only commits pages, and growing past
// it fails (memory.grow returns -1) instead of relocating the memory.
func fixedMemory(cfg *wasmtime.Config, reservation uint64) {
	C.aclwasm_config_fixed_memory(rawPtr(cfg), C.uint64_t(reservation))
}

// setEpochCallback makes the store ask aclwasmEpochDeadline, with the
// handle h, each time it reaches its epoch deadline.
func setEpochCallback(store *wasmtime.Store, h cgo.Handle) {
	C.aclwasm_set_epoch_callback(rawPtr(store), C.uintptr_t(h))
}
