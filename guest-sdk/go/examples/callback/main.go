//go:build wasip1

// Command callback runs stream callbacks through the SDK: a Go closure
// queued with Stream.LaunchHostFunc that a synchronize runs, and one
// queued with Stream.LaunchCallback on a subscribed stream that
// ProcessReport runs. The blank import of acl/callback gives the module
// the dispatcher export the host runs them through. It prints
// "go callbacks: OK (sum 12)" and exits 0, or prints the failure and
// exits 1. tests/native_callback_test.go runs it.
//
// Build (from the repository root):
//
//	GOOS=wasip1 GOARCH=wasm go build -o build/wasm/go-callback.wasm github.com/aclwasm/aclwasm/guest-sdk/go/examples/callback
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl"
	_ "github.com/aclwasm/aclwasm/guest-sdk/go/acl/callback" // the dispatcher export
)

func main() {
	sum, err := run()
	if err != nil {
		fmt.Println("go callbacks:", err)
		os.Exit(1)
	}
	fmt.Printf("go callbacks: OK (sum %d)\n", sum)
}

func run() (int, error) {
	if err := acl.SetDevice(0); err != nil {
		return 0, err
	}
	a, err := acl.CreateStream()
	if err != nil {
		return 0, err
	}
	b, err := acl.CreateStream()
	if err != nil {
		return 0, err
	}
	sum := 0
	// A host function: the synchronize runs it on this goroutine.
	if err := a.LaunchHostFunc(func() { sum += 5 }); err != nil {
		return 0, err
	}
	if err := a.Synchronize(); err != nil {
		return 0, err
	}
	if sum != 5 {
		return 0, fmt.Errorf("after Synchronize: sum %d, want 5", sum)
	}
	// A nil func is the native NULL fn: refused, nothing queued.
	if err := a.LaunchHostFunc(nil); acl.CodeOf(err) != acl.ErrRTParamInvalid {
		return 0, fmt.Errorf("LaunchHostFunc(nil): %v, want ACL_ERROR_RT_PARAM_INVALID", err)
	}
	// A report callback on a subscribed stream: ProcessReport runs it.
	if err := b.SubscribeReport(0); err != nil {
		return 0, err
	}
	if err := b.LaunchCallback(func() { sum += 7 }, acl.CallbackBlock); err != nil {
		return 0, err
	}
	for sum < 12 {
		if err := acl.ProcessReport(-1); err != nil {
			return 0, err
		}
	}
	// A subscribed stream takes no host function.
	var ae *acl.Error
	if err := b.LaunchHostFunc(func() { sum += 100 }); !errors.As(err, &ae) {
		return 0, fmt.Errorf("LaunchHostFunc on a subscribed stream: %v, want an *acl.Error", err)
	}
	if err := b.UnSubscribeReport(0); err != nil {
		return 0, err
	}
	if n := acl.PendingCallbacks(); n != 0 {
		return 0, fmt.Errorf("%d callbacks still pending", n)
	}
	for _, s := range []acl.Stream{a, b} {
		if err := s.Destroy(); err != nil {
			return 0, err
		}
	}
	return sum, nil
}
