package wazero

import (
	"bytes"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// scrubInPlace is the most bytes scrub clears itself: the next guest then
// finds those pages resident, without a fault per page. Above it, the
// pages go back to the kernel.
const scrubInPlace = 1 << 20

// scrub zeroes b, the touched start of a private anonymous mapping.
//
// Only a resident page can hold a byte other than zero, so scrub asks the
// kernel which are (mincore(2)) and clears those, keeping them resident: a
// command plugin touches a few pages per run, and a fault costs more than
// clearing a page (on one virtual machine 0.2 ms a fault, against 8 µs for
// mincore over 4 MiB and the clearing of three pages). Where more than
// scrubInPlace bytes are resident, or the system has swap (a page swapped
// out is not resident but keeps its bytes), the range goes back to the
// kernel with MADV_DONTNEED, after which Linux maps the zero page on the
// next touch. It returns how many bytes of b it left resident.
func scrub(b []byte) uint64 {
	if len(b) == 0 {
		return 0
	}
	if swap.less() {
		if kept, ok := clearResident(b); ok {
			return kept
		}
	}
	if unix.Madvise(b, unix.MADV_DONTNEED) != nil {
		clear(b)
		return uint64(len(b))
	}
	return 0
}

// swap is the system's swap, as scrub sees it.
var swap = &swapCheck{now: time.Now, ask: swapless}

// swapCheck answers whether the system has no swap space from an answer
// at most swapEvery old: asking the kernel cost a system call per
// released reservation, and swap is turned on or off seldom. A scrub that
// misses a swap turned on within the second clears resident pages only,
// as one that asked just before swap came on always could. It is safe for
// concurrent use; callers that find the answer stale at once may each ask.
type swapCheck struct {
	now  func() time.Time
	ask  func() bool // the kernel's answer now
	last atomic.Pointer[swapAnswer]
}

// swapAnswer is what the kernel said, and when.
type swapAnswer struct {
	at   time.Time
	less bool
}

// swapEvery is how old an answer swapCheck still gives.
const swapEvery = time.Second

// less reports whether the system had no swap space at the last answer,
// asking the kernel again where that is swapEvery old or more.
func (c *swapCheck) less() bool {
	now := c.now()
	if a := c.last.Load(); a != nil && now.Sub(a.at) < swapEvery {
		return a.less
	}
	a := &swapAnswer{at: now, less: c.ask()}
	c.last.Store(a)
	return a.less
}

// swapless reports whether the system has no swap space now (sysinfo(2)).
func swapless() bool {
	var si unix.Sysinfo_t
	return unix.Sysinfo(&si) == nil && si.Totalswap == 0
}

var (
	pageSize = os.Getpagesize()
	zeroPage = make([]byte, pageSize)
	// vecs holds mincore's vectors, one byte per page.
	vecs sync.Pool
)

// clearResident zeroes the resident pages of b, a page-aligned range of
// an anonymous mapping, and reports how many bytes are resident and
// whether it did: false where mincore fails or more than scrubInPlace
// bytes are resident (b is then as it was). A resident page that is zero
// (the zero page a read mapped, or a page cleared before) is left
// untouched, so that reading memory does not make it resident.
func clearResident(b []byte) (resident uint64, ok bool) {
	n := (len(b) + pageSize - 1) / pageSize
	vp, _ := vecs.Get().(*[]byte)
	if vp == nil || cap(*vp) < n {
		v := make([]byte, n)
		vp = &v
	}
	defer vecs.Put(vp)
	vec := (*vp)[:n]
	if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
		return 0, false
	}
	pages := 0
	for _, v := range vec {
		pages += int(v & 1)
	}
	if pages*pageSize > scrubInPlace {
		return 0, false
	}
	for i, v := range vec {
		if v&1 == 0 {
			continue
		}
		p := b[i*pageSize : min((i+1)*pageSize, len(b))]
		if !bytes.Equal(p, zeroPage[:len(p)]) {
			clear(p)
		}
	}
	return uint64(pages * pageSize), true
}
