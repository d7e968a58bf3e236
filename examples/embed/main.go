// Command embed is the embedding API end to end: a pre-processing plugin
// configured by a manifest runs on device buffers the host produced and
// lends it read-only, concurrently from 64 goroutines through a pool, with
// its output lines in log/slog.
//
//	go run ./examples/embed                       # wazero, simulated device
//	go run -tags wasmtime ./examples/embed -engine wasmtime
//	go run ./examples/embed -acl-lib /path/to/libascendcl.so
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/cann"
	"github.com/aclwasm/aclwasm/host"
)

func main() {
	manifest := flag.String("manifest", filepath.Join("examples", "embed", "preprocess.yaml"), "the plugin's manifest")
	engine := flag.String("engine", "wazero", "wazero or wasmtime")
	aclLib := flag.String("acl-lib", "", "libascendcl.so for the native backend (default: the simulated device)")
	flag.Parse()
	var opts []host.Option
	if *aclLib != "" {
		b, err := cann.Open(*aclLib)
		if err != nil {
			log.Fatal(err)
		}
		defer b.Close()
		opts = append(opts, host.WithBackend(b))
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	n, err := run(context.Background(), *manifest, logger, 64, append(opts, host.WithEngine(*engine))...)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d requests preprocessed\n", n)
}

// run serves requests concurrent requests: each produces a device buffer
// (as a model would), lends it read-only to a pooled instance of the
// plugin, gets the processed bytes back and checks them.
func run(ctx context.Context, manifest string, logger *slog.Logger, requests int, opts ...host.Option) (int, error) {
	m, err := host.LoadManifest(manifest)
	if err != nil {
		return 0, err
	}
	rt, err := host.NewRuntime(ctx, opts...)
	if err != nil {
		return 0, err
	}
	defer rt.Close(ctx)
	pl, err := m.Load(ctx, rt)
	if err != nil {
		return 0, err
	}
	defer pl.Close(ctx)
	cfg := m.Config()
	cfg.Name, cfg.Logger = m.Name, logger
	pool, err := pl.NewPool(host.PoolConfig{Size: 8, Config: cfg})
	if err != nil {
		return 0, err
	}
	defer pool.Close(ctx)

	var wg sync.WaitGroup
	errs := make(chan error, requests)
	for r := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- request(ctx, rt.Backend(), pool, r)
		}()
	}
	wg.Wait()
	close(errs)
	done := 0
	for err := range errs {
		if err != nil {
			return done, err
		}
		done++
	}
	return done, nil
}

func request(ctx context.Context, b acl.Backend, pool *host.Pool, r int) error {
	// The embedder's own device buffer, as a model's output.
	n := 1024 + r
	in := make([]byte, n)
	for i := range in {
		in[i] = byte(i + r)
	}
	buf, err := b.Malloc(0, uint64(n), acl.MemMallocHugeFirst)
	if err != nil {
		return err
	}
	defer b.Free(ctx, buf)
	if err := b.Memcpy(ctx, acl.Device(buf), acl.Host(in, 0), uint64(n)); err != nil {
		return err
	}
	var out []byte
	err = pool.Do(ctx, func(inst *host.Instance) error {
		l, err := inst.Lend(buf, uint64(n), host.LendOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		arg := make([]byte, 12)
		putU64(arg, l.Addr())
		putU32(arg[8:], uint32(n))
		out, err = inst.CallBytes(ctx, "preprocess", arg)
		if rerr := l.Revoke(ctx); err == nil {
			err = rerr
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("request %d: %w", r, err)
	}
	if len(out) != n {
		return fmt.Errorf("request %d: %d bytes back, want %d", r, len(out), n)
	}
	for i := range out {
		if out[i] != 255-in[i] {
			return fmt.Errorf("request %d: byte %d is %d, want %d", r, i, out[i], 255-in[i])
		}
	}
	return nil
}

func putU64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (8 * i))
	}
}

func putU32(b []byte, v uint32) {
	for i := range 4 {
		b[i] = byte(v >> (8 * i))
	}
}
