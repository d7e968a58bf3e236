// Package kerneltest is what the tests of registered kernels share: the
// test kernels, the guests that import their launchers, and the count of
// kernel binaries the stand-in library holds. Package host's external
// tests (of binding and loading) and package sandbox's (of launches) use
// it; it imports host, so host's internal tests cannot (testsupport is
// theirs).
package kerneltest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ebitengine/purego"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// StandinBinary is the stand-in's kernel binary, which names C versions
// of the test kernels that have one (acl/cann/testdata/standin): the
// native backend runs those over the stand-in, the simulator their Run.
var StandinBinary = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "acl", "cann", "testdata", "standin", "kernels.txt")
}()

// Kernels are the test kernels: small, each doing one thing a
// conformance case needs; those with a C version name StandinBinary.
func Kernels() []host.Kernel {
	ks := SimKernels()
	for i := range ks {
		switch ks[i].Name {
		case "Inc", "Fill", "Copy", "Panic", "Fault", "Spin":
			ks[i].Binary = StandinBinary
		}
	}
	return ks
}

// SimKernels are Kernels without binaries: Go code only.
func SimKernels() []host.Kernel {
	return []host.Kernel{
		{
			Name:   "Inc",
			Params: []host.KernelParam{host.Buffer("x", acl.DTUint32, host.ReadWrite, "blockDim")},
			Run: func(_ context.Context, b *host.KernelBlock) error {
				b.Uint32s(0)[b.Index()]++
				return nil
			},
		},
		{
			Name: "Fill",
			Params: []host.KernelParam{
				host.Buffer("dst", acl.DTUint8, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
				host.Scalar("v", acl.DTUint8),
			},
			Run: func(_ context.Context, b *host.KernelBlock) error {
				if b.Index() == 0 {
					dst := b.Bytes(0)
					for i := range dst {
						dst[i] = byte(b.Uint(2))
					}
				}
				return nil
			},
		},
		{
			Name: "Copy",
			Params: []host.KernelParam{
				host.Buffer("src", acl.DTUint8, host.Read, "n"),
				host.Buffer("dst", acl.DTUint8, host.Write, "n"),
				host.Scalar("n", acl.DTUint32),
			},
			Run: func(_ context.Context, b *host.KernelBlock) error {
				copy(b.Bytes(1), b.Bytes(0))
				return nil
			},
		},
		{Name: "Panic", Run: func(_ context.Context, b *host.KernelBlock) error { panic("kernel bug") }},
		{Name: "Fault", Run: func(context.Context, *host.KernelBlock) error { return errors.New("illegal address") }},
		{Name: "Spin", Run: func(ctx context.Context, _ *host.KernelBlock) error { <-ctx.Done(); return ctx.Err() }},
		{Name: "Print", Run: func(_ context.Context, b *host.KernelBlock) error {
			b.Printf("block %d of %d\n", b.Index(), b.BlockDim)
			return nil
		}},
		{
			Name:   "Slow",
			Params: []host.KernelParam{host.Buffer("x", acl.DTUint32, host.ReadWrite, "blockDim")},
			Run: func(_ context.Context, b *host.KernelBlock) error {
				b.Uint32s(0)[b.Index()]++
				return nil
			},
			Cost: func(a *host.KernelArgs) time.Duration { return time.Duration(a.BlockDim) * time.Second },
		},
	}
}

// Runtime is a runtime on the test engine and backend (testsupport.Engine,
// testsupport.Native) with the test kernels registered and opts, closed
// at the test's end.
func Runtime(t testing.TB, opts ...host.Option) *host.Runtime {
	t.Helper()
	base := []host.Option{host.WithEngine(testsupport.Engine()), host.WithKernels(Kernels()...)}
	if b := testsupport.Native(t); b != nil {
		base = append(base, host.WithBackend(b))
	}
	rt, err := host.NewRuntime(context.Background(), append(base, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rt.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return rt
}

// Granted is a policy that grants every test kernel.
var Granted = host.Policy{Kernels: []string{"Inc", "Fill", "Copy", "Panic", "Fault", "Spin", "Print", "Slow"}}

// Launcher is a launcher a test guest imports: from "env" as Sym, with
// the wasm parameters Params, returning an i32 when Status.
type Launcher struct {
	Sym    string
	Params string
	Status bool
}

// Wide are the test kernels' launchers in the wide profile.
var Wide = []Launcher{
	{Sym: "Inc", Params: "i32 i32 i64"},
	{Sym: "Fill", Params: "i32 i32 i64 i32 i32", Status: true},
	{Sym: "Copy", Params: "i32 i32 i64 i64 i32", Status: true},
	{Sym: "Panic", Params: "i32 i32"},
	{Sym: "Fault", Params: "i32 i32"},
	{Sym: "Spin", Params: "i32 i32"},
	{Sym: "Print", Params: "i32 i32"},
}

// GuestWAT is the proxy guest of profile prof (testsupport.ProxyWAT) with
// the launchers imported, each re-exported as "k_" + its symbol.
func GuestWAT(prof abi.Profile, ls ...Launcher) string {
	var imps, exps strings.Builder
	for i, l := range ls {
		res := ""
		if l.Status {
			res = " (result i32)"
		}
		fmt.Fprintf(&imps, "  (import \"env\" %q (func $l%d (param %s)%s))\n", l.Sym, i, l.Params, res)
		fmt.Fprintf(&exps, "  (func (export %q) (param %s)%s", "k_"+l.Sym, l.Params, res)
		for j := range strings.Fields(l.Params) {
			fmt.Fprintf(&exps, " local.get %d", j)
		}
		fmt.Fprintf(&exps, " call $l%d)\n", i)
	}
	return strings.Replace(testsupport.ProxyWAT(prof, 4, exps.String()), "(module\n", "(module\n"+imps.String(), 1)
}

// StandinBinaries is how many kernel binaries the stand-in holds; -1 off
// the native backend.
func StandinBinaries(t testing.TB) int64 {
	t.Helper()
	lib := testsupport.NativeLib()
	if lib == "" {
		return -1
	}
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	var stats func(out *int64)
	purego.RegisterLibFunc(&stats, h, "aclwasmStandinKernelStats")
	var n int64
	stats(&n)
	return n
}
