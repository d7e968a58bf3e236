//go:build wasmtime && cgo && linux

package wasmtime

// Linear memories made by the adapter (wasmtime's host memory creator),
// so that a released memory's reservation serves the next instance, as on
// wazero (host/internal/engine/wazero/linmem.go): mapping and unmapping a
// 4 GiB reservation per instance, and faulting its pages in again, was
// most of a small command's run. A memory is one reservation of the size
// wasmtime asks for (memory_reservation and its guard), inaccessible but
// for the memory's bytes, which never moves. When the store lets it go,
// the bytes it ever had are cleared (the first MiB in place, the rest
// given back to the kernel, which reads zero on the next touch), and the
// reservation waits in a bounded pool of the process for the next memory,
// which gets exactly its own bytes accessible. Wasmtime's pooling allocator would do the
// same, but it reserves all its slots when the engine is made, which the
// C API turns into an abort of the process when the mapping fails, and
// bounds the instances alive at once.

/*
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct wasm_config_t wasm_config_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef struct wasm_memorytype_t wasm_memorytype_t;

extern wasmtime_error_t *wasmtime_error_new(const char *);

typedef uint8_t *(*aclwasm_get_t)(void *, size_t *, size_t *);
typedef wasmtime_error_t *(*aclwasm_grow_t)(void *, size_t);

// wasmtime_linear_memory_t and wasmtime_memory_creator_t, as config.h
// declares them.
typedef struct {
	void *env;
	aclwasm_get_t get_memory;
	aclwasm_grow_t grow_memory;
	void (*finalizer)(void *);
} aclwasm_linear_memory_t;

typedef struct {
	void *env;
	wasmtime_error_t *(*new_memory)(void *, const wasm_memorytype_t *, size_t, size_t, size_t, size_t, aclwasm_linear_memory_t *);
	void (*finalizer)(void *);
} aclwasm_memory_creator_t;

extern void wasmtime_config_host_memory_creator_set(wasm_config_t *, aclwasm_memory_creator_t *);

// A memory: base, its accessible bytes (size, only growing), its
// reservation (mapped bytes, guard included) and capacity (bytes it may
// grow to in place).
typedef struct {
	uint8_t *base;
	size_t size, mapped, capacity;
} aclwasm_mem_t;

// The released reservations, each with the bytes left accessible (and
// zero) at its start: at most ACLWASM_POOL_MAX, keeping at most
// ACLWASM_POOL_RESIDENT bytes resident among them (those cleared in
// place). As on wazero, the pool keeps the memories of a burst of
// instances for the next burst: one that unmapped those past a small count
// would map them again and fault their pages in at every burst.
#define ACLWASM_POOL_MAX 256
#define ACLWASM_POOL_RESIDENT (64 << 20)
#define ACLWASM_CLEAR_IN_PLACE (1 << 20)
typedef struct {
	uint8_t *base;
	size_t mapped, size, resident;
} aclwasm_pooled_t;
static pthread_mutex_t aclwasm_pool_mu = PTHREAD_MUTEX_INITIALIZER;
static aclwasm_pooled_t aclwasm_pool[ACLWASM_POOL_MAX];
static int aclwasm_pool_n;
static size_t aclwasm_pool_resident;
static atomic_ullong aclwasm_reused;

static uint8_t *aclwasm_mem_get(void *env, size_t *size, size_t *capacity) {
	aclwasm_mem_t *m = env;
	*size = m->size;
	*capacity = m->capacity;
	return m->base;
}

static wasmtime_error_t *aclwasm_mem_grow(void *env, size_t size) {
	aclwasm_mem_t *m = env;
	if (size <= m->size) {
		return NULL;
	}
	if (size > m->capacity || mprotect(m->base + m->size, size - m->size, PROT_READ | PROT_WRITE) != 0) {
		return wasmtime_error_new("linear memory: cannot grow in place");
	}
	m->size = size;
	return NULL;
}

// aclwasm_mem_free clears what the memory ever held and pools its
// reservation (or unmaps it when the pool is full or clearing fails). The
// bytes stay accessible: taking the access away again would cost a TLB
// shootdown on every release (a round of interrupts to every CPU the
// process runs on, in a VM an exit each), where the next memory, most
// often of the same size, needs none (aclwasm_mem_new).
static void aclwasm_mem_free(void *env) {
	aclwasm_mem_t *m = env;
	size_t in_place = m->size < ACLWASM_CLEAR_IN_PLACE ? m->size : ACLWASM_CLEAR_IN_PLACE;
	memset(m->base, 0, in_place);
	if (m->size == in_place || madvise(m->base + in_place, m->size - in_place, MADV_DONTNEED) == 0) {
		pthread_mutex_lock(&aclwasm_pool_mu);
		if (aclwasm_pool_n < ACLWASM_POOL_MAX && aclwasm_pool_resident + in_place <= ACLWASM_POOL_RESIDENT) {
			aclwasm_pool[aclwasm_pool_n++] = (aclwasm_pooled_t){m->base, m->mapped, m->size, in_place};
			aclwasm_pool_resident += in_place;
			m->base = NULL;
		}
		pthread_mutex_unlock(&aclwasm_pool_mu);
	}
	if (m->base != NULL) {
		munmap(m->base, m->mapped);
	}
	free(m);
}

static wasmtime_error_t *aclwasm_mem_new(void *env, const wasm_memorytype_t *ty, size_t minimum, size_t maximum,
		size_t reserved, size_t guard, aclwasm_linear_memory_t *ret) {
	// The engine's memories never move: wasmtime asks for the reservation
	// memory_reservation configures (4 GiB).
	if (reserved < minimum || reserved > SIZE_MAX - guard) {
		return wasmtime_error_new("linear memory: no fixed reservation");
	}
	size_t mapped = reserved + guard;
	// A pooled reservation of this size, preferably one whose accessible
	// bytes are as many as this memory's.
	aclwasm_pooled_t p = {NULL, 0, 0, 0};
	pthread_mutex_lock(&aclwasm_pool_mu);
	int pick = -1;
	for (int i = aclwasm_pool_n - 1; i >= 0; i--) {
		if (aclwasm_pool[i].mapped == mapped && (pick < 0 || aclwasm_pool[i].size == minimum)) {
			pick = i;
			if (aclwasm_pool[i].size == minimum) {
				break; // the latest released of the same size
			}
		}
	}
	if (pick >= 0) {
		p = aclwasm_pool[pick];
		aclwasm_pool[pick] = aclwasm_pool[--aclwasm_pool_n];
		aclwasm_pool_resident -= p.resident;
	}
	pthread_mutex_unlock(&aclwasm_pool_mu);
	uint8_t *base = p.base;
	int ok = 1;
	if (base != NULL) {
		// Exactly the memory's bytes accessible: the rest of the
		// reservation is what traps an access out of bounds.
		if (p.size > minimum) {
			ok = mprotect(base + minimum, p.size - minimum, PROT_NONE) == 0;
		} else if (p.size < minimum) {
			ok = mprotect(base + p.size, minimum - p.size, PROT_READ | PROT_WRITE) == 0;
		}
	} else {
		base = mmap(NULL, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (base == MAP_FAILED) {
			return wasmtime_error_new("linear memory: cannot reserve its address space");
		}
		ok = minimum == 0 || mprotect(base, minimum, PROT_READ | PROT_WRITE) == 0;
	}
	if (!ok) {
		munmap(base, mapped);
		return wasmtime_error_new("linear memory: cannot set its access");
	}
	if (p.base != NULL) {
		atomic_fetch_add(&aclwasm_reused, 1);
	}
	aclwasm_mem_t *m = malloc(sizeof *m);
	if (m == NULL) {
		munmap(base, mapped);
		return wasmtime_error_new("linear memory: out of memory");
	}
	m->base = base;
	m->size = minimum;
	m->mapped = mapped;
	m->capacity = reserved;
	ret->env = m;
	ret->get_memory = aclwasm_mem_get;
	ret->grow_memory = aclwasm_mem_grow;
	ret->finalizer = aclwasm_mem_free;
	return NULL;
}

static void aclwasm_config_memories(void *cfg) {
	aclwasm_memory_creator_t c = {NULL, aclwasm_mem_new, NULL};
	wasmtime_config_host_memory_creator_set(cfg, &c);
}

static unsigned long long aclwasm_mem_reused(void) {
	return atomic_exchange(&aclwasm_reused, 0);
}
*/
import "C"

import (
	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// ownMemories makes cfg's engine make its linear memories with the
// adapter's memory creator. Data segments are then copied in at
// instantiation: wasmtime maps its copy-on-write images only into memories
// it made itself (and aborts on reaching that path with another's).
func ownMemories(cfg *wasmtime.Config) {
	cfg.SetMemoryInitCOWSet(false)
	C.aclwasm_config_memories(rawPtr(cfg))
}

// countReused adds the memories made from a pooled reservation since the
// last count to engine.ReusedMemories.
func countReused() {
	if n := C.aclwasm_mem_reused(); n > 0 {
		engine.ReusedMemories.Add(int64(n))
	}
}
