package wazero

import (
	"testing"
	"time"
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
	kept := scrub(b)
	if swapless() {
		require.Equal(t, 4, resident(t, b), "the pages written and read stay resident, and no other comes in")
		require.Equal(t, uint64(4*pageSize), kept, "what it left resident")
	}
	zero()

	// More than scrubInPlace resident: back to the kernel.
	clear(b[:2*scrubInPlace])
	b[2*scrubInPlace-1] = 1
	require.Zero(t, scrub(b), "nothing left resident")
	require.Zero(t, resident(t, b), "the pages went back to the kernel")
	zero()
}

// TestSwapCheck: the kernel is asked about swap once, then not again
// until its answer is swapEvery old, and the answer is the kernel's.
func TestSwapCheck(t *testing.T) {
	var (
		now   = time.Unix(1000, 0)
		asked int
		less  = true
	)
	c := swapCheck{now: func() time.Time { return now }, ask: func() bool { asked++; return less }}
	require.True(t, c.less())
	require.Equal(t, 1, asked, "the first call asks")
	less = false // swap turned on
	for range 3 {
		require.True(t, c.less(), "the answer of a moment ago")
	}
	now = now.Add(swapEvery - 1)
	require.True(t, c.less())
	require.Equal(t, 1, asked, "no question within swapEvery")
	now = now.Add(1)
	require.False(t, c.less(), "the kernel's new answer")
	require.Equal(t, 2, asked, "asked again once swapEvery passed")
	require.False(t, c.less())
	require.Equal(t, 2, asked)
}

// TestScrubAsksSwapOnce: scrubs in a row ask the kernel about swap once.
func TestScrubAsksSwapOnce(t *testing.T) {
	asked := 0
	old := swap
	t0 := time.Now() // a clock that stands still: the scrubs are within a second
	swap = &swapCheck{now: func() time.Time { return t0 }, ask: func() bool { asked++; return swapless() }}
	t.Cleanup(func() { swap = old })
	b, err := unix.Mmap(-1, 0, 64<<10, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	require.NoError(t, err)
	defer unix.Munmap(b)
	for i := range 4 {
		b[i*pageSize] = 1
		scrub(b)
		require.Zero(t, b[i*pageSize])
	}
	require.Equal(t, 1, asked, "one question for the four")
}
