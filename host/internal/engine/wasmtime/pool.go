//go:build wasmtime && cgo

package wasmtime

// Wasmtime's pooling allocator, which wasmtime-go v39 does not wrap:
// declared here as capi.go declares the rest (the symbols come from the
// static libwasmtime that wasmtime-go links, built with the pooling
// allocator).

/*
#include <stddef.h>
#include <stdint.h>

typedef struct wasmtime_pooling_allocation_config_t wasmtime_pooling_allocation_config_t;

extern wasmtime_pooling_allocation_config_t *wasmtime_pooling_allocation_config_new(void);
extern void wasmtime_pooling_allocation_config_delete(wasmtime_pooling_allocation_config_t *);
extern void wasmtime_pooling_allocation_config_total_memories_set(wasmtime_pooling_allocation_config_t *, uint32_t);
extern void wasmtime_pooling_allocation_config_total_core_instances_set(wasmtime_pooling_allocation_config_t *, uint32_t);
extern void wasmtime_pooling_allocation_config_total_tables_set(wasmtime_pooling_allocation_config_t *, uint32_t);
extern void wasmtime_pooling_allocation_config_max_memory_size_set(wasmtime_pooling_allocation_config_t *, size_t);
extern void wasmtime_pooling_allocation_config_linear_memory_keep_resident_set(wasmtime_pooling_allocation_config_t *, size_t);
extern void wasmtime_pooling_allocation_config_table_elements_set(wasmtime_pooling_allocation_config_t *, size_t);
extern void wasmtime_pooling_allocation_config_max_core_instance_size_set(wasmtime_pooling_allocation_config_t *, size_t);
extern void wasmtime_pooling_allocation_config_max_unused_warm_slots_set(wasmtime_pooling_allocation_config_t *, uint32_t);
extern void wasmtime_pooling_allocation_config_max_tables_per_module_set(wasmtime_pooling_allocation_config_t *, uint32_t);
extern void wasmtime_pooling_allocation_strategy_set(void *, const wasmtime_pooling_allocation_config_t *);

static void aclwasm_config_pool(void *cfg, uint32_t slots, size_t max_memory, size_t keep_resident, uint32_t tables, size_t table_elements, size_t instance_size, uint32_t warm) {
	wasmtime_pooling_allocation_config_t *p = wasmtime_pooling_allocation_config_new();
	wasmtime_pooling_allocation_config_total_memories_set(p, slots);
	wasmtime_pooling_allocation_config_total_core_instances_set(p, slots);
	wasmtime_pooling_allocation_config_total_tables_set(p, slots * tables);
	wasmtime_pooling_allocation_config_max_tables_per_module_set(p, tables);
	wasmtime_pooling_allocation_config_max_memory_size_set(p, max_memory);
	wasmtime_pooling_allocation_config_linear_memory_keep_resident_set(p, keep_resident);
	wasmtime_pooling_allocation_config_table_elements_set(p, table_elements);
	wasmtime_pooling_allocation_config_max_core_instance_size_set(p, instance_size);
	wasmtime_pooling_allocation_config_max_unused_warm_slots_set(p, warm);
	wasmtime_pooling_allocation_strategy_set(cfg, p);
	wasmtime_pooling_allocation_config_delete(p);
}
*/
import "C"

import (
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/aclwasm/aclwasm/host/internal/engine"
)

// poolConfig is the pooling allocator's configuration.
type poolConfig struct {
	slots         uint32 // instances, memories and tables alive at once
	maxMemory     uint64 // bytes of one linear memory at most
	keepResident  uint64 // bytes of a released memory zeroed and kept, not decommitted
	tables        uint32 // tables of one instance at most
	tableElements uint64 // elements of one table at most
	instanceSize  uint64 // bytes of an instance's own data (VMContext) at most
	warm          uint32 // released slots kept warm
}

// pooled makes cfg's engine allocate instances from a pool.
func pooled(cfg *wasmtime.Config, p poolConfig) {
	C.aclwasm_config_pool(rawPtr(cfg), C.uint32_t(p.slots), C.size_t(p.maxMemory), C.size_t(p.keepResident),
		C.uint32_t(p.tables), C.size_t(p.tableElements), C.size_t(p.instanceSize), C.uint32_t(p.warm))
}

// reused counts a memory at base that an earlier instance released.
func (e *wasmtimeEngine) reused(base unsafe.Pointer) {
	if base == nil {
		return
	}
	e.freedMu.Lock()
	_, ok := e.freed[base]
	delete(e.freed, base)
	e.freedMu.Unlock()
	if ok {
		engine.ReusedMemories.Add(1)
	}
}

// release records that the memory at base went back to the pool.
func (e *wasmtimeEngine) release(base unsafe.Pointer) {
	if base == nil {
		return
	}
	e.freedMu.Lock()
	if e.freed == nil {
		e.freed = map[unsafe.Pointer]struct{}{}
	}
	e.freed[base] = struct{}{}
	e.freedMu.Unlock()
}

// wasmtimePool is every engine's pool. Its memory slots are each a 4 GiB
// reservation (wasmtimeMaxMemory) and a guard, so 1000 slots reserve
// about 4 TiB of address space (not memory): the 128 TiB of a 64-bit
// process hold many engines. A released memory's first MiB is zeroed in
// place and kept, the rest decommitted (zero pages on the next touch),
// as the wazero adapter clears its reused reservations (scrub_linux.go).
var wasmtimePool = poolConfig{
	slots:         1000,
	maxMemory:     wasmtimeMaxMemory,
	keepResident:  1 << 20,
	tables:        8,
	tableElements: 1 << 20,
	instanceSize:  16 << 20,
	warm:          100,
}
