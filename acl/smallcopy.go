package acl

import (
	"context"
	"reflect"
)

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
