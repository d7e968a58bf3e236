//go:build darwin || freebsd || linux || netbsd

package cann

import "github.com/aclwasm/aclwasm/acl"

// Backend passes a session's per-stream core limits to its native streams.
var _ acl.StreamResLimiter = (*Backend)(nil)

// SetStreamResLimit implements [acl.StreamResLimiter] with
// aclrtSetStreamResLimit; a library without it gives 207000.
func (b *Backend) SetStreamResLimit(h acl.Stream, t acl.DevResLimitType, value uint32) error {
	f := b.api.aclrtSetStreamResLimit
	if f == nil {
		return b.missing("aclrtSetStreamResLimit")
	}
	return b.onStream(h, "aclrtSetStreamResLimit", func(native uintptr) int32 { return f(native, int32(t), value) })
}

// ResetStreamResLimit implements [acl.StreamResLimiter] with
// aclrtResetStreamResLimit; a library without it gives 207000.
func (b *Backend) ResetStreamResLimit(h acl.Stream) error {
	f := b.api.aclrtResetStreamResLimit
	if f == nil {
		return b.missing("aclrtResetStreamResLimit")
	}
	return b.onStream(h, "aclrtResetStreamResLimit", func(native uintptr) int32 { return f(native) })
}

// onStream calls the native function fn on stream h in its device's
// context, holding the stream so that it cannot be destroyed meanwhile.
func (b *Backend) onStream(h acl.Stream, fn string, f func(native uintptr) int32) error {
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	s, _, err := b.acquire(h)
	if err != nil {
		return err
	}
	defer b.done(s, nil)
	return b.call(s.dev, fn, func() int32 { return f(s.native) })
}
