package acl

import "reflect"

// SmallCopier is the role of a backend that copies a few bytes between device
// allocations its caller has already resolved, so that a small
// synchronous copy looks each side up once and takes at most one lock per
// allocation: the sandbox finds the allocation of an address in its own
// table, and keeps the backend's handle on it (Region) beside its entry.
// It is optional ([Traits].SmallCopier); the sandbox uses Memcpy where a
// backend lacks it.
//
// The role is the backend itself: [SmallCopierOf] takes it only from the
// backend value that reports it, since a small copy is that value's
// Memcpy by another road. A wrapper that embeds a backend and forwards
// its Traits therefore gets no small copies, and every copy reaches the
// wrapper's Memcpy, whether or not it intercepts Memcpy; one that wants
// the small path says so by reporting itself (its own CopySmall, or the
// embedded one promoted).
type SmallCopier interface {
	// Region returns the backend's handle on the live allocation that
	// holds p, nil if there is none. The handle names that allocation
	// for as long as it lives; it is only ever passed back to CopySmall.
	Region(p DevPtr) any
	// CopySmall is Memcpy of n bytes (at most SmallCopyMax) from src to
	// dst. It reports false, having done nothing, for anything it does
	// not take so (a freed or mismatched region, host bytes too short, a
	// timed backend), which the caller then gives to Memcpy for its
	// checks and errors; true with Memcpy's error otherwise. It takes no
	// context: the caller looks at its own first (Memcpy's first check),
	// and the copy waits for nothing but the allocations' data, as
	// Memcpy's does.
	CopySmall(dst, src *SmallSide, n uint64) (bool, error)
}

// SmallSide is one side of a small copy: device memory at Dev in the
// allocation whose handle is Region (SmallCopier.Region of Dev), or, with
// Region nil, pageable host bytes (Host; never registered memory). The
// sides travel by pointer, so that a copy's arguments fit in registers.
type SmallSide struct {
	Region any
	Dev    DevPtr
	Host   []byte
}

// SmallCopyMax bounds the copies a SmallCopier takes: above it the copy
// itself outweighs a second lookup.
const SmallCopyMax = 64 << 10

// SmallCopierOf returns b's small copies: its Traits' SmallCopier where
// that is b itself, nil otherwise (none, or a role that an inner backend
// reported through a wrapper's forwarded Traits).
func SmallCopierOf(b Backend) SmallCopier {
	sc := b.Traits().SmallCopier
	if sc == nil {
		return nil
	}
	// Interface comparison panics on equal types that are not
	// comparable; such a value cannot be b anyway.
	if t := reflect.TypeOf(sc); t != reflect.TypeOf(b) || !t.Comparable() || any(sc) != any(b) {
		return nil
	}
	return sc
}
