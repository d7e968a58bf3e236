//go:build wasip1

// Command runtime uses the runtime functions beyond copies through the SDK, checked by the
// guest itself: the run mode, contexts, 32-bit memsets, event resets, a
// stream's stop-on-failure mode and logging through aclAppLog (one record
// per level). It prints "runtime: ok" and exits 0, or logs the failed check at
// LogError and exits 1. tests/sdk_runtime_test.go runs it and reads the records.
//
// Build (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -o build/wasm/go-runtime.wasm github.com/aclwasm/aclwasm/guest-sdk/go/examples/runtime
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
)

func main() {
	if err := run(); err != nil {
		acl.AppLog(acl.LogError, "runtime: %v", err)
		fmt.Fprintln(os.Stderr, "runtime:", err)
		os.Exit(1)
	}
	fmt.Println("runtime: ok")
}

// words returns b's 32-bit little-endian words.
func words(b []byte) []uint32 {
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

func allWords(b []byte, v uint32) bool {
	for _, w := range words(b) {
		if w != v {
			return false
		}
	}
	return true
}

func run() error {
	if err := acl.AppLog(acl.LogDebug, "starting"); err != nil {
		return err
	}
	mode, err := acl.GetRunMode()
	if err != nil {
		return err
	}
	if mode != acl.RunModeHost {
		return fmt.Errorf("check failed: run mode %d, want ACL_HOST", mode)
	}

	// Contexts: SetDevice makes the default context current; a created
	// context is current at once, with a default stream of its own.
	if err := acl.SetDevice(0); err != nil {
		return err
	}
	def, err := acl.CurrentContext()
	if err != nil {
		return err
	}
	ctx, err := acl.CreateContext(0)
	if err != nil {
		return err
	}
	if cur, err := acl.CurrentContext(); err != nil || cur != ctx || ctx == def {
		return fmt.Errorf("check failed: the created context is current (%v)", err)
	}

	// 32-bit memsets, synchronous and queued.
	buf, err := acl.NewDeviceBuffer(66)
	if err != nil {
		return err
	}
	back := make([]byte, 66)
	if err := errors.Join(buf.Fill(0xee), buf.FillU32(0xdeadbeef), buf.Read(0, back)); err != nil {
		return err
	}
	if !allWords(back[:64], 0xdeadbeef) || !bytes.Equal(back[64:], []byte{0xee, 0xee}) {
		return fmt.Errorf("check failed: FillU32 sets the whole words, not the tail: % x", back)
	}
	s, err := acl.CreateStream()
	if err != nil {
		return err
	}
	if err := errors.Join(buf.FillU32Async(0x01020304, s), s.Synchronize(), buf.Read(0, back)); err != nil {
		return err
	}
	if !allWords(back[:64], 0x01020304) {
		return fmt.Errorf("check failed: FillU32Async")
	}
	if err := acl.AppLog(acl.LogInfo, "32-bit memsets ok"); err != nil {
		return err
	}
	err = acl.MemsetD32(buf.Ptr(), 64, 0, 17)
	if !errors.Is(err, acl.ErrInvalidParam) {
		return fmt.Errorf("check failed: 17 words in 64 bytes: %v, want ACL_ERROR_INVALID_PARAM", err)
	}
	if err := acl.AppLog(acl.LogWarning, "expected: %v", err); err != nil {
		return err
	}

	// An event reset keeps its record's status, as natively: it reads as
	// completed, not as never recorded.
	fresh, err := acl.CreateEvent()
	if err != nil {
		return err
	}
	never, err := fresh.Query()
	if err != nil {
		return err
	}
	ev, err := acl.CreateEvent()
	if err != nil {
		return err
	}
	if err := errors.Join(ev.Record(s), s.Synchronize()); err != nil {
		return err
	}
	if st, err := ev.Query(); err != nil || st == never {
		return fmt.Errorf("check failed: a completed record (%v)", err)
	}
	if err := errors.Join(ev.Reset(s), s.Synchronize()); err != nil {
		return err
	}
	if st, err := ev.Query(); err != nil || st == never {
		return fmt.Errorf("check failed: a reset event keeps its record's status: %v (%v)", st, err)
	}

	// Stop on failure: an offset copy whose slots hold NULL fails when it
	// runs; the memset queued after it then has no effect, and the
	// synchronize reports the failure.
	s2, err := acl.CreateStream()
	if err != nil {
		return err
	}
	if err := s2.SetFailureMode(acl.StopOnFailure); err != nil {
		return err
	}
	slots, err := acl.NewDeviceBuffer(16)
	if err != nil {
		return err
	}
	dst, err := acl.NewDeviceBuffer(64)
	if err != nil {
		return err
	}
	if err := errors.Join(slots.Fill(0), dst.Fill(0),
		acl.MemcpyAsyncWithOffset(slots.Ptr(), 64, 0, slots.Ptr()+8, 64, 0, acl.MemcpyInnerDeviceToDevice, s2),
		dst.FillAsync(7, s2)); err != nil {
		return err
	}
	if err := s2.Synchronize(); err == nil {
		return fmt.Errorf("check failed: the failed copy's error at Synchronize")
	}
	got := make([]byte, 64)
	if err := dst.Read(0, got); err != nil {
		return err
	}
	if !bytes.Equal(got, make([]byte, 64)) {
		return fmt.Errorf("check failed: after a failure the stream's later work has no effect")
	}
	if err := errors.Join(dst.FillAsync(7, s2), s2.Synchronize(), dst.Read(0, got)); err != nil {
		return err
	}
	if !bytes.Equal(got, bytes.Repeat([]byte{7}, 64)) {
		return fmt.Errorf("check failed: the synchronize took the error: the stream runs again")
	}
	if err := s2.SetFailureMode(acl.ContinueOnFailure); !errors.Is(err, acl.ErrRTFeatureNotSupport) {
		return fmt.Errorf("check failed: back to ContinueOnFailure: %v", err)
	}

	// Back to the default context, and the created one destroyed.
	if err := errors.Join(buf.Free(), slots.Free(), dst.Free(), s.Destroy(), s2.Destroy(),
		ev.Destroy(), fresh.Destroy(), def.SetCurrent(), ctx.Destroy()); err != nil {
		return err
	}
	if cur, err := acl.CurrentContext(); err != nil || cur != def {
		return fmt.Errorf("check failed: the default context is current again (%v)", err)
	}
	return nil
}
