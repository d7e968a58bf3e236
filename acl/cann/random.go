//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"runtime"
	"unsafe"

	"github.com/aclwasm/aclwasm/acl"
)

// Backend generates random numbers with the node's own aclrtRandomNumAsync.
var _ acl.RandomGenerator = (*Backend)(nil)

// RandomNumAsync implements [acl.RandomGenerator] with aclrtRandomNumAsync
// on a task whose addresses are translated to the node's (the task is
// encoded in the host's pointer width, as the library reads it); a
// library without it gives 207000.
func (b *Backend) RandomNumAsync(task acl.RandomTask, sh acl.Stream) error {
	f := b.api.aclrtRandomNumAsync
	if f == nil {
		return b.missing("aclrtRandomNumAsync")
	}
	size, ok := acl.RandomResultSize(task.Func, task.DataType, task.Num.Bits())
	if !ok {
		return acl.Errorf(acl.ErrRTParamInvalid, "randomNum %d numbers of %v overflow", task.Num.Bits(), task.DataType)
	}
	if err := b.enter(); err != nil {
		return err
	}
	defer b.exit()
	reqs := []req{{acl.Device(acl.DevPtr(task.Result)), size, true}, {acl.Device(acl.DevPtr(task.Counter)), 16, false}}
	if task.ParaAddr != 0 {
		reqs = append(reqs, req{acl.Device(acl.DevPtr(task.ParaAddr)), 16, true})
	}
	st, sides, err := b.acquire(sh, reqs...)
	if err != nil {
		return err
	}
	defer b.done(st, sides)
	nt := task
	nt.Result, nt.Counter = uint64(sides[0].addr), uint64(sides[1].addr)
	if task.ParaAddr != 0 {
		nt.ParaAddr = uint64(sides[2].addr)
	}
	raw := nt.Bytes(int(unsafe.Sizeof(uintptr(0))))
	return b.submit(st, sides, false, "aclrtRandomNumAsync", func(stream uintptr) int32 {
		rc := f(unsafe.Pointer(&raw[0]), stream, 0)
		runtime.KeepAlive(raw)
		return rc
	})
}
