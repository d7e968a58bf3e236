package acl

import (
	"fmt"
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Memcpy copies count bytes from src to dst synchronously (aclrtMemcpy); the
// direction comes from the addresses, kind must be 0..5.
func Memcpy(dst Ptr, destMax uint64, src Ptr, count uint64, kind MemcpyKind) error {
	return check("aclrtMemcpy", raw.Memcpy(uint64(dst), destMax, uint64(src), count, int32(kind)))
}

// MemcpyAsync queues a copy on s (aclrtMemcpyAsync). With unregistered guest
// memory it completes before returning.
func MemcpyAsync(dst Ptr, destMax uint64, src Ptr, count uint64, kind MemcpyKind, s Stream) error {
	return check("aclrtMemcpyAsync", raw.MemcpyAsync(uint64(dst), destMax, uint64(src), count, int32(kind), uint32(s)))
}

// MemcpyAsyncWithCondition is deprecated natively and behaves as MemcpyAsync.
func MemcpyAsyncWithCondition(dst Ptr, destMax uint64, src Ptr, count uint64, kind MemcpyKind, s Stream) error {
	return check("aclrtMemcpyAsyncWithCondition", raw.MemcpyAsyncWithCondition(uint64(dst), destMax, uint64(src), count, int32(kind), uint32(s)))
}

// Memcpy2D copies height rows of width bytes, rows spitch apart in src and
// dpitch apart in dst (aclrtMemcpy2d, H2D or D2H). Each side touches
// (height-1)*pitch + width bytes from its base.
func Memcpy2D(dst Ptr, dpitch uint64, src Ptr, spitch, width, height uint64, kind MemcpyKind) error {
	return check("aclrtMemcpy2d", raw.Memcpy2d(uint64(dst), dpitch, uint64(src), spitch, width, height, int32(kind)))
}

// Memcpy2DAsync queues a 2D copy on s (aclrtMemcpy2dAsync, H2D, D2H or D2D).
func Memcpy2DAsync(dst Ptr, dpitch uint64, src Ptr, spitch, width, height uint64, kind MemcpyKind, s Stream) error {
	return check("aclrtMemcpy2dAsync", raw.Memcpy2dAsync(uint64(dst), dpitch, uint64(src), spitch, width, height, int32(kind), uint32(s)))
}

// Batch is the entries of a batch copy: entry i copies Sizes[i] bytes from
// Srcs[i] to Dsts[i], whose capacity is DestMaxs[i]. Attrs[k] applies to
// the entries from AttrsIndexes[k] on; AttrsIndexes[0] is 0.
type Batch struct {
	Dsts         []Ptr
	DestMaxs     []uint64
	Srcs         []Ptr
	Sizes        []uint64
	Attrs        []MemcpyBatchAttr
	AttrsIndexes []uint64
}

func first[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Pointer(&s[0])
}

// args checks the lengths (a mismatch is a programming error: it panics, as
// the host would otherwise read past a short array) and returns the raw arguments.
func (b *Batch) args() (d, dm, s, sz unsafe.Pointer, n uint64, a, ai unsafe.Pointer, na uint64) {
	k := len(b.Dsts)
	if len(b.DestMaxs) != k || len(b.Srcs) != k || len(b.Sizes) != k {
		panic(fmt.Sprintf("acl: batch arrays differ in length: Dsts %d, DestMaxs %d, Srcs %d, Sizes %d", k, len(b.DestMaxs), len(b.Srcs), len(b.Sizes)))
	}
	if len(b.Attrs) != len(b.AttrsIndexes) {
		panic(fmt.Sprintf("acl: batch Attrs (%d) and AttrsIndexes (%d) differ in length", len(b.Attrs), len(b.AttrsIndexes)))
	}
	return first(b.Dsts), first(b.DestMaxs), first(b.Srcs), first(b.Sizes), uint64(k),
		first(b.Attrs), first(b.AttrsIndexes), uint64(len(b.Attrs))
}

func batchErr(fn string, code int32, fail uint64) error {
	err := check(fn, code)
	if e, ok := err.(*Error); ok && fail != ^uint64(0) {
		e.FailIndex = int64(fail)
	}
	return err
}

// MemcpyBatch runs a batch of H2D/D2H copies (aclrtMemcpyBatch). On failure
// the *Error's FailIndex names the entry that failed a location check.
func MemcpyBatch(b *Batch) error {
	d, dm, s, sz, n, a, ai, na := b.args()
	fail := ^uint64(0)
	code := raw.MemcpyBatch(d, dm, s, sz, n, a, ai, na, unsafe.Pointer(&fail))
	return batchErr("aclrtMemcpyBatch", code, fail)
}

// MemcpyBatchAsync queues a batch on s as one operation (aclrtMemcpyBatchAsync).
func MemcpyBatchAsync(b *Batch, s Stream) error {
	d, dm, sr, sz, n, a, ai, na := b.args()
	fail := ^uint64(0)
	code := raw.MemcpyBatchAsync(d, dm, sr, sz, n, a, ai, na, unsafe.Pointer(&fail), uint32(s))
	return batchErr("aclrtMemcpyBatchAsync", code, fail)
}

// MemcpyBatchV2 is MemcpyBatch without a fail index (aclrtMemcpyBatchV2).
func MemcpyBatchV2(b *Batch) error {
	d, dm, s, sz, n, a, ai, na := b.args()
	return check("aclrtMemcpyBatchV2", raw.MemcpyBatchV2(d, dm, s, sz, n, a, ai, na))
}

// MemcpyBatchAsyncV2 is MemcpyBatchAsync without a fail index (aclrtMemcpyBatchAsyncV2).
func MemcpyBatchAsyncV2(b *Batch, s Stream) error {
	d, dm, sr, sz, n, a, ai, na := b.args()
	return check("aclrtMemcpyBatchAsyncV2", raw.MemcpyBatchAsyncV2(d, dm, sr, sz, n, a, ai, na, uint32(s)))
}

// MemcpyDescSize returns the size of a copy descriptor for kind
// (aclrtGetMemcpyDescSize; only MemcpyInnerDeviceToDevice).
func MemcpyDescSize(kind MemcpyKind) (uint64, error) {
	var n uint64
	err := check("aclrtGetMemcpyDescSize", raw.GetMemcpyDescSize(int32(kind), unsafe.Pointer(&n)))
	return n, err
}

// SetMemcpyDesc writes a descriptor for a device-to-device copy of count
// bytes from src to dst into device memory at desc (aclrtSetMemcpyDesc).
func SetMemcpyDesc(desc Ptr, kind MemcpyKind, src, dst Ptr, count uint64) error {
	return check("aclrtSetMemcpyDesc", raw.SetMemcpyDesc(uint64(desc), int32(kind), uint64(src), uint64(dst), count, nil))
}

// MemcpyAsyncWithDesc queues the copy the descriptor at desc describes
// (aclrtMemcpyAsyncWithDesc); s must not be the default stream.
func MemcpyAsyncWithDesc(desc Ptr, kind MemcpyKind, s Stream) error {
	return check("aclrtMemcpyAsyncWithDesc", raw.MemcpyAsyncWithDesc(uint64(desc), int32(kind), uint32(s)))
}

// MemcpyAsyncWithOffset queues a copy between the device addresses stored in
// device memory at dstSlot and srcSlot, plus offsets
// (aclrtMemcpyAsyncWithOffset, MemcpyInnerDeviceToDevice); the slots are read
// when the copy executes.
func MemcpyAsyncWithOffset(dstSlot Ptr, destMax, dstOffset uint64, srcSlot Ptr, count, srcOffset uint64, kind MemcpyKind, s Stream) error {
	return check("aclrtMemcpyAsyncWithOffset", raw.MemcpyAsyncWithOffset(uint64(dstSlot), destMax, dstOffset, uint64(srcSlot), count, srcOffset, int32(kind), uint32(s)))
}

// Memset sets count bytes at p to value's low byte (aclrtMemset); p must be
// device memory or pinned guest memory.
func Memset(p Ptr, maxCount uint64, value int32, count uint64) error {
	return check("aclrtMemset", raw.Memset(uint64(p), maxCount, value, count))
}

// MemsetD32 sets count 32-bit words at p (4-byte aligned) to value
// (aclrtMemsetD32). As natively, count 0 does nothing, and count*4 above
// memSize or p in guest memory that is not pinned fails with
// ErrInvalidParam.
func MemsetD32(p Ptr, memSize uint64, value uint32, count uint64) error {
	return check("aclrtMemsetD32", raw.MemsetD32(uint64(p), memSize, value, count))
}

// MemsetD32Async queues a MemsetD32 on s (aclrtMemsetD32Async).
func MemsetD32Async(p Ptr, memSize uint64, value uint32, count uint64, s Stream) error {
	return check("aclrtMemsetD32Async", raw.MemsetD32Async(uint64(p), memSize, value, count, uint32(s)))
}

// MemsetAsync queues a memset on s (aclrtMemsetAsync).
func MemsetAsync(p Ptr, maxCount uint64, value int32, count uint64, s Stream) error {
	return check("aclrtMemsetAsync", raw.MemsetAsync(uint64(p), maxCount, value, count, uint32(s)))
}
