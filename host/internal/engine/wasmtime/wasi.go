//go:build wasmtime && cgo

package wasmtime

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// Stdio on wasmtime. wasmtime-go's WASI takes stdio only as file paths. Pipes
// with copy goroutines would make the output lag behind the guest (a host
// reading its Stdout between two calls of an instance would miss some),
// reorder stdout against stderr when both go to one writer, and read stdin
// ahead of the guest. So the adapter shadows fd_read and fd_write in the
// linker and serves fds 0, 1 and 2 from Config's reader and writers on the
// guest's goroutine (aclwasmHostCall), as wazero does; every other fd
// goes to wasmtime's own function (mount.go: a file of a mount, within
// the policy's limits), which gives EBADF where nothing is mounted. The
// rest of WASI (args, environ, random, proc_exit, ...) is wasmtime's; clocks and
// poll_oneoff are in clock.go. A read of a stdin that stays open
// returns when the call's context ends (the host's stdin.go), and then, as for the
// acl imports, the guest does not resume.

var le = binary.LittleEndian

// WASI errno values.
const (
	wasiEBADF  = 8
	wasiEFAULT = 21
	wasiEIO    = 29
)

func (e *wasmtimeEngine) defineStdio(l *wasmtime.Linker) error {
	i32 := wasmtime.NewValType(wasmtime.KindI32)
	ty := wasmtime.NewFuncType([]*wasmtime.ValType{i32, i32, i32, i32}, []*wasmtime.ValType{i32})
	if err := defineFunc(l, "wasi_snapshot_preview1", "fd_read", ty, envFdRead); err != nil {
		return err
	}
	return defineFunc(l, "wasi_snapshot_preview1", "fd_write", ty, envFdWrite)
}

// iovec returns the buffer of iovec i of the array at iovs, or false if the
// entry or its buffer is not inside mem.
func iovec(mem []byte, iovs, i uint32) ([]byte, bool) {
	at := uint64(iovs) + 8*uint64(i)
	if at+8 > uint64(len(mem)) {
		return nil, false
	}
	ptr, n := uint64(le.Uint32(mem[at:])), uint64(le.Uint32(mem[at+4:]))
	if ptr+n > uint64(len(mem)) {
		return nil, false
	}
	return mem[ptr : ptr+n], true
}

// fdWrite writes the iovecs to stdout (fd 1) or stderr (fd 2); a nil
// writer discards the bytes.
func (w *wasmtimeInstance) fdWrite(mem []byte, fd, iovs, count, out uint32) int32 {
	var dst io.Writer
	switch fd {
	case 1:
		dst = w.stdout
	case 2:
		dst = w.stderr
	default:
		return wasiEBADF
	}
	var total uint32
	for i := uint32(0); i < count; i++ {
		b, ok := iovec(mem, iovs, i)
		if !ok {
			return wasiEFAULT
		}
		if dst != nil && len(b) > 0 {
			if _, err := dst.Write(b); err != nil {
				return wasiEIO
			}
		}
		total += uint32(len(b))
	}
	if uint64(out)+4 > uint64(len(mem)) {
		return wasiEFAULT
	}
	le.PutUint32(mem[out:], total)
	return 0
}

// fdRead reads stdin (fd 0) into the iovecs, stopping at a short read or
// the end of the input; a nil reader is an empty input.
func (w *wasmtimeInstance) fdRead(mem []byte, fd, iovs, count, out uint32) int32 {
	if fd != 0 {
		return wasiEBADF
	}
	var total uint32
	for i := uint32(0); i < count && w.stdin != nil; i++ {
		b, ok := iovec(mem, iovs, i)
		if !ok {
			return wasiEFAULT
		}
		n, err := w.stdin.Read(b)
		total += uint32(n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return wasiEIO
		}
		if n < len(b) {
			break
		}
	}
	if uint64(out)+4 > uint64(len(mem)) {
		return wasiEFAULT
	}
	le.PutUint32(mem[out:], total)
	return 0
}
