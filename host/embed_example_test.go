package host_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// sumFunc is the host function env.sum(ptr, n, out) that upper.wasm
// imports: it adds n little-endian uint32s at ptr and writes the sum at out.
var sumFunc = host.HostFunc{
	Module: "env", Name: "sum",
	Params: []abi.Param{{Name: "ptr", Type: abi.Gptr}, {Name: "n", Type: abi.I32}, {Name: "out", Type: abi.Gptr}},
	Fn: func(c *host.HostCall) (int32, error) {
		n := uint32(c.Arg(1))
		if n > 1<<16 {
			return 0, acl.Errorf(acl.ErrInvalidParam, "n %d is over 65536", n)
		}
		b, err := c.Read(uint32(c.Arg(0)), 4*n) // bounds-checked
		if err != nil {
			return 0, err // the guest gets 100000 and the message
		}
		var s uint32
		for i := range n {
			s += binary.LittleEndian.Uint32(b[4*i:])
		}
		return 0, c.Write(uint32(c.Arg(2)), binary.LittleEndian.AppendUint32(nil, s))
	},
}

func loadUpper(ctx context.Context) (*host.Runtime, *host.Plugin) {
	wasm, err := os.ReadFile("testdata/upper.wasm")
	if err != nil {
		log.Fatal(err)
	}
	rt, err := host.NewRuntime(ctx, host.WithHostFuncs(sumFunc))
	if err != nil {
		log.Fatal(err)
	}
	pl, err := rt.Load(ctx, wasm, host.Policy{MemoryPages: 2})
	if err != nil {
		log.Fatal(err)
	}
	return rt, pl
}

// Bytes in, bytes out: the export reads its input and writes its output
// through the imports of module "aclwasm" (docs/EMBEDDING.md).
func ExampleInstance_CallBytes() {
	ctx := context.Background()
	rt, pl := loadUpper(ctx)
	defer rt.Close(ctx)
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close(ctx)
	out, err := inst.CallBytes(ctx, "upper", []byte("hello, plugin"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output: HELLO, PLUGIN
}

// The embedder's own host function, called by the guest with pointers
// into its memory; the host writes the arguments and reads the result
// with WriteMemory and ReadMemory.
func ExampleWithHostFuncs() {
	ctx := context.Background()
	rt, pl := loadUpper(ctx)
	defer rt.Close(ctx)
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close(ctx)
	var in []byte
	for _, v := range []uint32{1, 2, 3, 4} {
		in = binary.LittleEndian.AppendUint32(in, v)
	}
	if err := inst.WriteMemory(0x100, in); err != nil {
		log.Fatal(err)
	}
	res, err := inst.Call(ctx, "sum", 0x100, 4, 0x200)
	if err != nil {
		log.Fatal(err)
	}
	sum, err := inst.ReadMemory(0x200, 4)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("status", res[0], "sum", binary.LittleEndian.Uint32(sum))
	// A pointer past the guest's memory: the guest gets 100000.
	res, _ = inst.Call(ctx, "sum", 0xfffffff0, 4, 0x200)
	fmt.Println("status", res[0], inst.Session().LastError())
	// Output:
	// status 0 sum 10
	// status 100000 env.sum: pointer [0xfffffff0, +16) is outside guest memory (131072 bytes)
}

// Concurrent calls through a pool of at most 4 instances: 64 goroutines,
// each call with an instance of its own.
func ExamplePool() {
	ctx := context.Background()
	rt, pl := loadUpper(ctx)
	defer rt.Close(ctx)
	defer pl.Close(ctx)
	pool, err := pl.NewPool(host.PoolConfig{Size: 4})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close(ctx)
	var wg sync.WaitGroup
	var failed atomic.Int32
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := fmt.Sprintf("request %d", g)
			out, err := pool.CallBytes(ctx, "upper", []byte(in))
			if err != nil || string(out) != strings.ToUpper(in) {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	fmt.Println("failed:", failed.Load())
	// Output: failed: 0
}

// Device memory the embedder produced, lent read-only to a plugin for one
// call: the guest copies it out with aclrtMemcpy at the address it is
// given; writes into it are refused; after Revoke the address is dead.
func ExampleInstance_Lend() {
	ctx := context.Background()
	wasm, err := os.ReadFile("testdata/lend.wasm")
	if err != nil {
		log.Fatal(err)
	}
	rt, err := host.NewRuntime(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, wasm, host.Policy{MemoryPages: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer pl.Close(ctx)
	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer inst.Close(ctx)

	// The embedder's own device buffer.
	b := rt.Backend()
	buf, err := b.Malloc(0, 16, acl.MemMallocHugeFirst)
	if err != nil {
		log.Fatal(err)
	}
	defer b.Free(ctx, buf)
	if err := b.Memcpy(ctx, acl.Device(buf), acl.Host([]byte("device features!"), 0), 16); err != nil {
		log.Fatal(err)
	}

	l, err := inst.Lend(buf, 16, host.LendOptions{ReadOnly: true})
	if err != nil {
		log.Fatal(err)
	}
	res, _ := inst.Call(ctx, "pull", l.Addr(), 16) // device -> guest memory at 0x100
	got, _ := inst.ReadMemory(0x100, 16)
	fmt.Printf("pull: %d %q\n", res[0], got)
	res, _ = inst.Call(ctx, "push", l.Addr(), 16) // guest memory -> device: refused
	fmt.Println("push:", res[0])
	if err := l.Revoke(ctx); err != nil {
		log.Fatal(err)
	}
	res, _ = inst.Call(ctx, "pull", l.Addr(), 16)
	fmt.Println("after revoke:", res[0])
	// Output:
	// pull: 0 "device features!"
	// push: 107000
	// after revoke: 107000
}

// loadHello loads testdata/hello.wasm (hello.wat) with policy p.
func loadHello(ctx context.Context, p host.Policy) (*host.Runtime, *host.Plugin) {
	wasm, err := os.ReadFile("testdata/hello.wasm")
	if err != nil {
		log.Fatal(err)
	}
	rt, err := host.NewRuntime(ctx)
	if err != nil {
		log.Fatal(err)
	}
	pl, err := rt.Load(ctx, wasm, p)
	if err != nil {
		log.Fatal(err)
	}
	return rt, pl
}

// quietLogger is a text logger without timestamps, so the examples' output
// repeats; session ids are left out for the same reason.
func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "session" {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// A plugin described by a manifest file: module path and hash, policy and
// configuration. Load refuses a module whose hash differs.
func ExampleLoadManifest() {
	ctx := context.Background()
	m, err := host.LoadManifest("testdata/hello.yaml")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(m.Name, m.Policy.DeviceMemory>>20, "MiB", m.Policy.Timeout, m.Policy.Deny)
	rt, err := host.NewRuntime(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer rt.Close(ctx)
	pl, err := m.Load(ctx, rt)
	if err != nil {
		log.Fatal(err)
	}
	defer pl.Close(ctx)
	res, err := pl.Run(ctx, m.Config()) // stdout unset: discarded
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("exit", res.ExitCode)
	// Output:
	// hello 16 MiB 2s [aclrtHostRegister]
	// exit 0
}

// The guest's stdout and its aclAppLog records reach the embedder's slog
// logger as the plugin's own records, with its name and the call site the
// guest gave.
func ExampleConfig_logger() {
	ctx := context.Background()
	rt, pl := loadHello(ctx, host.Policy{MemoryPages: 4})
	defer rt.Close(ctx)
	defer pl.Close(ctx)
	if _, err := pl.Run(ctx, host.Config{Name: "hello", Logger: quietLogger()}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// level=INFO msg="hello from the plugin" plugin=hello stream=stdout
	// level=WARN msg="tile cache is full" plugin=hello func=resize file=resize.c line=42
}

// The policy's timeout ends a call with ErrTimeout; the caller's own
// deadline or cancellation ends it with ErrCanceled. Both wrap the context
// error, and both end the instance.
func ExampleErrTimeout() {
	ctx := context.Background()
	rt, pl := loadHello(ctx, host.Policy{MemoryPages: 4, Timeout: 50 * time.Millisecond})
	defer rt.Close(ctx)
	defer pl.Close(ctx)

	inst, err := pl.Instantiate(ctx, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	_, err = inst.Call(ctx, "spin")
	fmt.Println(errors.Is(err, host.ErrTimeout), errors.Is(err, context.DeadlineExceeded))

	inst, err = pl.Instantiate(ctx, host.Config{})
	if err != nil {
		log.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond) // the caller's deadline
	defer cancel()
	_, err = inst.Call(cctx, "spin")
	fmt.Println(errors.Is(err, host.ErrCanceled), errors.Is(err, context.DeadlineExceeded))
	// Output:
	// true true
	// true true
}
