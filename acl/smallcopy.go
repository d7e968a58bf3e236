package acl

import "context"

// SmallCopier is the role of a backend that copies a few bytes between device
// allocations its caller has already resolved, so that a small
// synchronous copy looks each side up once and takes at most one lock per
// allocation: the sandbox finds the allocation of an address in its own
// table, and keeps the backend's handle on it (Region) beside its entry.
// It is optional ([Traits].SmallCopier); the sandbox uses Memcpy where a
// backend lacks it.
type SmallCopier interface {
	// Region returns the backend's handle on the live allocation that
	// holds p, nil if there is none. The handle names that allocation
	// for as long as it lives; it is only ever passed back to CopySmall.
	Region(p DevPtr) any
	// CopySmall is Memcpy of n bytes (at most SmallCopyMax) from src to
	// dst, where the region of a device side is its handle (Region of
	// its DevPtr; nil for a host side, pageable: no Pin). It reports
	// false, having done nothing, for anything else (a freed or
	// mismatched region, a timed backend, pinned memory), which the
	// caller then gives to Memcpy for its checks and errors; true with
	// Memcpy's error otherwise.
	CopySmall(ctx context.Context, dst *Buf, dr any, src *Buf, sr any, n uint64) (bool, error)
}

// SmallCopyMax bounds the copies a SmallCopier takes: above it the copy
// itself outweighs a second lookup.
const SmallCopyMax = 64 << 10
