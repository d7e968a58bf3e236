package host

import (
	"context"
	"syscall"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestMemoryKeptResident: an instance made after a run released its
// memory gets a memory whose pages past its first, which the run wrote,
// are already in RAM: the engine handed it the memory the run used,
// cleared in place (TestMemoryReusedClean proves it reads zero), not a
// fresh reservation whose pages would fault in on first touch. On both
// engines: wazero's pool of reservations, wasmtime's pooling allocator.
func TestMemoryKeptResident(t *testing.T) {
	rt := newRuntime(t)
	pl := load(t, rt, testsupport.WAT(t, touchWAT), Policy{MemoryPages: 4096})
	for i := range 4 {
		res, err := pl.Run(context.Background(), Config{}) // writes 2 pages
		require.NoError(t, err)
		require.Zero(t, res.ExitCode)
		inst, err := pl.Instantiate(context.Background(), Config{})
		require.NoError(t, err)
		mem := inst.inst.Memory()
		require.Len(t, mem, 1<<16)
		// The first 4 KiB of the second wasm page: beyond the new
		// instance's memory, within its reservation.
		page := unsafe.Add(unsafe.Pointer(unsafe.SliceData(mem)), 1<<16)
		var vec [1]byte
		_, _, errno := syscall.Syscall(syscall.SYS_MINCORE, uintptr(page), 4096, uintptr(unsafe.Pointer(&vec[0])))
		require.Zero(t, errno)
		require.Equal(t, byte(1), vec[0]&1, "instance %d: the page the previous run wrote is resident (%s)", i, testEngine)
		require.NoError(t, inst.Close(context.Background()))
	}
}
