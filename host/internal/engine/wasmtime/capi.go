//go:build wasmtime && cgo

package wasmtime

// The few Wasmtime C API functions that wasmtime-go v39 does not wrap: the
// linear-memory reservation settings of a Config, and the store's epoch
// deadline callback. They are declared here rather than included, since the
// headers live in wasmtime-go's module directory; the symbols come from the
// static libwasmtime that wasmtime-go links (same version: go.mod pins it).

/*
#include <stdbool.h>
#include <stdint.h>

typedef struct wasm_config_t wasm_config_t;
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_error wasmtime_error_t;

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

// checkLayout fails if wasmtime-go's Config or Store no longer start with
// the C pointer (a wasmtime-go upgrade must revisit this file).
func checkLayout() error {
	for _, t := range []reflect.Type{reflect.TypeFor[wasmtime.Config](), reflect.TypeFor[wasmtime.Store]()} {
		if t.NumField() == 0 || t.Field(0).Name != "_ptr" || t.Field(0).Type.Kind() != reflect.Pointer || t.Field(0).Offset != 0 {
			return fmt.Errorf("wasmtime-go's %s no longer starts with its C pointer: revisit host/internal/engine/wasmtime/capi.go", t)
		}
	}
	return nil
}

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
