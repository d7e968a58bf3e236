package acl

import (
	"runtime"
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// Malloc allocates device memory (aclrtMalloc) and returns its address.
// Prefer NewDeviceBuffer, which remembers the size.
func Malloc(size uint64, policy MemMallocPolicy) (Ptr, error) {
	var p Ptr
	err := check("aclrtMalloc", raw.Malloc(unsafe.Pointer(&p), size, uint32(policy)))
	return p, err
}

// Free frees device memory by its base address (aclrtFree), after the queued
// work that uses it.
func Free(p Ptr) error { return check("aclrtFree", raw.Free(uint64(p))) }

// DeviceBuffer is an allocation of device memory with its size. Go has no
// destructors: call Free when done (the session releases what is left when
// it ends).
type DeviceBuffer struct {
	ptr  Ptr
	size uint64
}

// NewDeviceBuffer allocates size bytes with MemMallocHugeFirst.
func NewDeviceBuffer(size uint64) (*DeviceBuffer, error) {
	return NewDeviceBufferWithPolicy(size, MemMallocHugeFirst)
}

// NewDeviceBufferWithPolicy allocates size bytes with a page policy (and flags).
func NewDeviceBufferWithPolicy(size uint64, policy MemMallocPolicy) (*DeviceBuffer, error) {
	p, err := Malloc(size, policy)
	if err != nil {
		return nil, err
	}
	return &DeviceBuffer{ptr: p, size: size}, nil
}

// Ptr returns the base address.
func (d *DeviceBuffer) Ptr() Ptr { return d.ptr }

// Size returns the size in bytes.
func (d *DeviceBuffer) Size() uint64 { return d.size }

// Free frees the allocation (aclrtFree), after the queued work that uses it.
func (d *DeviceBuffer) Free() error { return Free(d.ptr) }

// Write copies src into the buffer at off (synchronous H2D).
func (d *DeviceBuffer) Write(off uint64, src []byte) error {
	return CopyToDevice(d.ptr.Add(off), d.size-min(off, d.size), src)
}

// Read copies len(dst) bytes of the buffer at off into dst (synchronous D2H).
func (d *DeviceBuffer) Read(off uint64, dst []byte) error {
	return CopyFromDevice(dst, d.ptr.Add(off))
}

// CopyFrom copies all of src into the start of d (synchronous D2D).
func (d *DeviceBuffer) CopyFrom(src *DeviceBuffer) error {
	return Memcpy(d.ptr, d.size, src.ptr, src.size, MemcpyDeviceToDevice)
}

// CopyFromAsync queues a copy of all of src into the start of d on s (D2D).
func (d *DeviceBuffer) CopyFromAsync(src *DeviceBuffer, s Stream) error {
	return MemcpyAsync(d.ptr, d.size, src.ptr, src.size, MemcpyDeviceToDevice, s)
}

// Fill sets every byte to v (aclrtMemset).
func (d *DeviceBuffer) Fill(v byte) error { return Memset(d.ptr, d.size, int32(v), d.size) }

// FillAsync queues setting every byte to v on s (aclrtMemsetAsync).
func (d *DeviceBuffer) FillAsync(v byte, s Stream) error {
	return MemsetAsync(d.ptr, d.size, int32(v), d.size, s)
}

// FillU32 sets every whole 32-bit word to v (aclrtMemsetD32, little-endian
// as the guest); a tail of fewer than 4 bytes is left as it was.
func (d *DeviceBuffer) FillU32(v uint32) error { return MemsetD32(d.ptr, d.size, v, d.size/4) }

// FillU32Async queues FillU32 on s (aclrtMemsetD32Async).
func (d *DeviceBuffer) FillU32Async(v uint32, s Stream) error {
	return MemsetD32Async(d.ptr, d.size, v, d.size/4, s)
}

// CopyToDevice copies src to device memory at dst, whose capacity is
// destMax (synchronous H2D).
func CopyToDevice(dst Ptr, destMax uint64, src []byte) error {
	err := Memcpy(dst, destMax, Addr(src), uint64(len(src)), MemcpyHostToDevice)
	runtime.KeepAlive(src)
	return err
}

// CopyFromDevice copies len(dst) bytes of device memory at src into dst
// (synchronous D2H).
func CopyFromDevice(dst []byte, src Ptr) error {
	err := Memcpy(Addr(dst), uint64(len(dst)), src, uint64(len(dst)), MemcpyDeviceToHost)
	runtime.KeepAlive(dst)
	return err
}

// HostRegister pins [p, p+size) of guest memory (aclrtHostRegister) and
// returns the address the host reports for it (p itself). Prefer Pin.
func HostRegister(p Ptr, size uint64, typ HostRegisterType) (Ptr, error) {
	var dev Ptr
	err := check("aclrtHostRegister", raw.HostRegister(uint64(p), size, uint32(typ), unsafe.Pointer(&dev)))
	return dev, err
}

// HostUnregister unpins the registered range that starts at p
// (aclrtHostUnregister), after the queued work that uses it.
func HostUnregister(p Ptr) error { return check("aclrtHostUnregister", raw.HostUnregister(uint64(p))) }

// PinnedBuffer is guest memory registered with aclrtHostRegister, as
// aclrtMallocHost gives natively: asynchronous copies read and write it when
// they execute, so its contents after such a copy are defined once the stream
// is synchronized. It keeps its memory reachable while registered; Free
// unregisters it. If a PinnedBuffer becomes unreachable without Free, a
// cleanup unregisters it before the memory can be reused.
type PinnedBuffer struct {
	b       []byte
	ptr     Ptr
	cleanup runtime.Cleanup
	freed   bool
}

type pinnedKeep struct {
	ptr Ptr
	b   []byte // keeps the memory alive until unregistered
}

// NewPinnedBuffer allocates size zeroed bytes and registers them
// (HostRegisterMapped), like aclrtMallocHost.
func NewPinnedBuffer(size int) (*PinnedBuffer, error) {
	return Pin(make([]byte, size), HostRegisterMapped)
}

// Pin registers b with typ (mapped, read-only or I/O memory). b must not be
// empty and must not overlap a registered range.
func Pin(b []byte, typ HostRegisterType) (*PinnedBuffer, error) {
	p := Addr(b)
	if _, err := HostRegister(p, uint64(len(b)), typ); err != nil {
		return nil, err
	}
	pb := &PinnedBuffer{b: b, ptr: p}
	pb.cleanup = runtime.AddCleanup(pb, func(k pinnedKeep) { raw.HostUnregister(uint64(k.ptr)) }, pinnedKeep{p, b})
	return pb, nil
}

// Bytes returns the pinned memory.
func (pb *PinnedBuffer) Bytes() []byte { return pb.b }

// Ptr returns the address of the first byte.
func (pb *PinnedBuffer) Ptr() Ptr { return pb.ptr }

// Len returns the size in bytes.
func (pb *PinnedBuffer) Len() int { return len(pb.b) }

// Free unregisters the memory (aclrtHostUnregister), after the queued work
// that uses it. The bytes stay usable as ordinary memory.
func (pb *PinnedBuffer) Free() error {
	if pb.freed {
		return nil
	}
	pb.cleanup.Stop()
	pb.freed = true
	return HostUnregister(pb.ptr)
}

// CopyToDeviceAsync queues a copy of all the bytes into device memory at dst
// (capacity destMax) on s (H2D). The host reads them when the copy executes:
// do not change them until s is synchronized.
func (pb *PinnedBuffer) CopyToDeviceAsync(dst Ptr, destMax uint64, s Stream) error {
	return MemcpyAsync(dst, destMax, pb.ptr, uint64(len(pb.b)), MemcpyHostToDevice, s)
}

// CopyFromDeviceAsync queues a copy of len(Bytes()) bytes of device memory at
// src into the buffer on s (D2H). The bytes are complete once s is
// synchronized.
func (pb *PinnedBuffer) CopyFromDeviceAsync(src Ptr, s Stream) error {
	n := uint64(len(pb.b))
	return MemcpyAsync(pb.ptr, n, src, n, MemcpyDeviceToHost, s)
}
