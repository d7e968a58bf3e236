package wazero

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// resident returns how many pages of b are resident.
func resident(t *testing.T, b []byte) int {
	vec := make([]byte, (len(b)+pageSize-1)/pageSize)
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0])))
	require.Zero(t, e)
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}

// sink keeps a read the compiler would drop.
var sink byte

func TestScrub(t *testing.T) {
	if !swapless() {
		t.Log("the system swaps: every scrub below goes back to the kernel")
	}
	b, err := unix.Mmap(-1, 0, 4<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	require.NoError(t, err)
	defer unix.Munmap(b)
	zero := func() {
		t.Helper()
		for i, c := range b {
			if c != 0 {
				t.Fatalf("byte %#x is %#x after scrub", i, c)
			}
		}
	}

	// A few pages written and one read: cleared in place, kept resident.
	for _, p := range []int{0, 5, 300} {
		b[p*pageSize+7] = 0xab
	}
	sink = b[10*pageSize]
	scrub(b)
	if swapless() {
		require.Equal(t, 4, resident(t, b), "the pages written and read stay resident, and no other comes in")
	}
	zero()

	// More than scrubInPlace resident: back to the kernel.
	clear(b[:2*scrubInPlace])
	b[2*scrubInPlace-1] = 1
	scrub(b)
	require.Zero(t, resident(t, b), "the pages went back to the kernel")
	zero()
}
