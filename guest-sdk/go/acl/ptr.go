package acl

import (
	"strconv"
	"unsafe"
)

// Ptr is an address in the sandbox's address space: a guest pointer
// zero-extended (below 2^32) or an opaque device address from Malloc (2^32
// and above). p.Add(k) names byte k after p. 0 is NULL.
type Ptr uint64

// Add returns the address k bytes after p.
func (p Ptr) Add(k uint64) Ptr { return p + Ptr(k) }

// IsDevice reports whether p cannot be guest memory (it is at or above 2^32).
func (p Ptr) IsDevice() bool { return p >= 1<<32 }

// String returns p in hexadecimal.
func (p Ptr) String() string { return "0x" + strconv.FormatUint(uint64(p), 16) }

// Addr returns the address of b's first element (0 for a nil slice). See the
// package documentation on keeping b alive; Addr makes b escape to the heap,
// where it does not move.
func Addr(b []byte) Ptr {
	escape(b)
	return Ptr(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
}

// AddrOf returns the address of *p, which escapes to the heap.
func AddrOf[T any](p *T) Ptr {
	escape(p)
	return Ptr(uintptr(unsafe.Pointer(p)))
}

// escape makes x escape to the heap, as internal/abi.Escape does: the
// compiler cannot prove the store never happens.
func escape(x any) {
	if escapeNever {
		escapeSink = x
	}
}

var (
	escapeNever bool
	//lint:ignore U1000 only ever written: the possible store is what makes x escape
	escapeSink any
)
