//go:build darwin || freebsd || linux || netbsd

package cann

import "github.com/aclwasm/aclwasm/acl"

// Backend reduces with the node's own aclrtReduceAsync.
var _ acl.Reducer = (*Backend)(nil)

// ReduceAsync implements [acl.Reducer] with aclrtReduceAsync on the two
// translated device ranges; a library without it gives 207000.
func (b *Backend) ReduceAsync(dst, src acl.DevPtr, n uint64, k acl.ReduceKind, t acl.DataType, sh acl.Stream) error {
	f := b.api.aclrtReduceAsync
	if f == nil {
		return b.missing("aclrtReduceAsync")
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	st, sides, err := b.acquire(sh, req{acl.Device(dst), n, true}, req{acl.Device(src), n, false})
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	d, s := sides[0], sides[1]
	return b.submit(st, sides, false, "aclrtReduceAsync", func(stream uintptr) int32 {
		return f(d.addr, s.addr, n, int32(k), int32(t), stream, 0)
	})
}
