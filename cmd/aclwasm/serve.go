package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/serve"
)

func serveCmd() *cobra.Command {
	var (
		f                   sandboxFlags
		listen, token       string
		logFormat, logLevel string
		otel                otelStart // nil without -tags otel
		maxBody, maxOutput  string
		maxBuffered         string
		maxGuestMem         string
		memoryWait          time.Duration
		poll, grace, drain  time.Duration
		maxConcurrent       int
		noPrepare           bool
		reuse               bool
		env                 []string
		sec                 secureFlags
		sources             []string // --plugin NAME=oci://...
	)
	c := &cobra.Command{
		Use:   "serve [flags] DIR",
		Short: "Serve the plugins of DIR over HTTP: POST /v1/plugins/NAME, body in, output out",
		Long: `Serve every NAME.wasm of DIR over HTTP: POST /v1/plugins/NAME runs a command
with the request body as stdin and answers with its stdout, or calls a
reactor's export "handle" with the body as its input (module aclwasm); the
exit code or status is in X-Aclwasm-Exit-Code. The policy flags are every
plugin's defaults; an optional manifest NAME.yaml (the file of run
--manifest, with a serve section for max_concurrent, export and
reuse_instances) overrides them per plugin; the older NAME.json is
deprecated. A reactor gets a new instance per request unless its manifest
says serve.reuse_instances: true (or --reuse-instances, for every reactor
whose manifest does not say): then its instances are kept between
requests, with their memory, device memory and streams, so that its
requests see each other's leftovers. DIR is rescanned every
--poll: changed modules are reloaded, requests in flight finish on the old
version, and a manifest or module that fails to load leaves the last good
version serving (GET /v1/plugins shows the failure). GET /v1/plugins lists
them, /healthz and /readyz report health, /metrics serves Prometheus
metrics. Every response and log record of a request has its X-Request-Id.
SIGTERM or SIGINT fails /readyz and serves on until no request is in
flight (and --drain-delay has passed), then closes the listener; requests
still running at the end of --grace are cancelled and every session is
released. The status codes are in the package doc of serve.

--tls-cert and --tls-key serve over TLS (the pair is re-read when the files
change), --client-ca requires client certificates signed by that CA, and
--config FILE holds access rules: which bearer tokens (stored as hashes:
aclwasm serve hash-token) and certificate subjects may call which plugins
and admin actions. An address that is not loopback is served only with
TLS and access rules, or with --insecure. SIGHUP re-reads --config and
rescans DIR, as POST /v1/admin/reload does.

A plugin may come from an OCI registry (docs/OCI.md): a NAME.yaml without
NAME.wasm whose top-level source is oci://REGISTRY/REPO:TAG (or
@sha256:DIGEST), or --plugin NAME=oci://...; a tag is resolved again at
every --poll, and a moved tag reloads. Pulls are cached by digest under
--cache-dir's oci (default the user's cache directory's aclwasm/oci).`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{exitHost, fmt.Errorf("usage: %s", c.UseLine())}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			fail := func(err error) error { return &exitError{exitHost, err} }
			log, err := newLogger(cmd.ErrOrStderr(), logFormat, logLevel)
			if err != nil {
				return fail(err)
			}
			for _, kv := range env {
				if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
					return fail(fmt.Errorf("--env %q: want KEY=VALUE with a nonempty KEY", kv))
				}
			}
			body, err := parseBytes(maxBody)
			if err != nil {
				return fail(fmt.Errorf("--max-body: %w", err))
			}
			out, err := parseBytes(maxOutput)
			if err != nil {
				return fail(fmt.Errorf("--max-output: %w", err))
			}
			buffered, err := parseBytes(maxBuffered)
			if err != nil {
				return fail(fmt.Errorf("--max-buffered: %w", err))
			}
			if body == 0 || out == 0 || buffered == 0 || body > 1<<40 || out > 1<<40 || buffered > 1<<40 || maxConcurrent < 1 || poll < 0 || grace < 0 || drain < 0 {
				return fail(errors.New("--max-body, --max-output and --max-buffered want 1 byte to 1 TiB, --max-concurrent at least 1, --poll, --grace and --drain-delay no negative duration"))
			}
			guestMem, err := parseBytes(maxGuestMem)
			if err != nil {
				return fail(fmt.Errorf("--max-guest-memory: %w", err))
			}
			if guestMem > 1<<50 || memoryWait < 0 {
				return fail(errors.New("--max-guest-memory wants at most 1 PiB (0: no budget), --memory-wait no negative duration"))
			}
			if buffered < body {
				return fail(fmt.Errorf("--max-buffered %s is below --max-body %s: no body of --max-body bytes could be read", maxBuffered, maxBody))
			}
			if token == "" {
				token = os.Getenv("ACLWASM_ADMIN_TOKEN")
			}
			tlsCfg, err := sec.check(listen)
			if err != nil {
				return fail(err)
			}
			p, err := f.policy()
			if err != nil {
				return fail(err)
			}
			b, desc, err := f.openBackend()
			if err != nil {
				return fail(err)
			}
			defer b.Close()
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			m, err := host.NewMetrics(reg)
			if err != nil {
				return fail(err)
			}
			ctx := context.Background()
			opts := []host.Option{host.WithBackend(b), host.WithEngine(f.engine), host.WithMetrics(m)}
			var tracer serve.RequestTracer // nil: requests are not traced
			if otel != nil {
				tr, err := otel(cmd.ErrOrStderr())
				if err != nil {
					return fail(fmt.Errorf("--otel: %w", err))
				}
				if tr != nil {
					opts = append(opts, tr.option)
					tracer = tr.requests
					defer tr.shutdown(context.Background())
				}
			}
			rt, err := f.newRuntime(ctx, opts)
			if err != nil {
				return fail(err)
			}
			defer rt.Close(ctx)
			src, err := pluginSources(sources)
			if err != nil {
				return fail(err)
			}
			srv, err := serve.New(ctx, serve.Config{
				Dir: args[0], Runtime: rt, Policy: p, Env: env,
				Sources: src, OCI: serve.OCIConfig{CacheDir: ociCacheDir(f.fs, f.cacheDir), PlainHTTP: f.plainHTTP},
				MaxConcurrent: maxConcurrent, NoPrepare: noPrepare, ReuseInstances: reuse, MaxBody: int64(body), MaxOutput: int64(out), MaxBuffered: int64(buffered),
				MaxGuestMemory: int64(guestMem), MemoryWait: memoryWait,
				Poll: poll, DrainDelay: drain, AdminToken: token, Logger: log, Registerer: reg, Gatherer: reg,
				TLS: tlsCfg, ConfigFile: sec.config,
				Tracer: tracer,
			})
			if err != nil {
				return fail(err)
			}
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				_ = srv.Shutdown(ctx)
				return fail(err)
			}
			if !serve.IsLoopback(listen) && (tlsCfg == nil || sec.config == "") {
				log.Warn("--insecure: serving a non-loopback address without TLS and access rules", "addr", listen)
			}
			log.Info("listening", "addr", ln.Addr().String(), "dir", args[0], "engine", f.engine, "backend", desc, "admin", token != "",
				"tls", tlsCfg != nil, "mtls", sec.clientCA != "", "config", sec.config)
			sig, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			served := make(chan error, 1)
			go func() { served <- srv.Serve(ln) }()
			go func() {
				if srv.WaitLoaded(sig) == nil {
					log.Info("plugins loaded")
				}
			}()
		wait:
			for {
				select {
				case err = <-served: // the listener failed
					break wait
				case <-sig.Done():
					log.Info("signal: shutting down", "grace", grace)
					break wait
				case <-hup:
					reloadSignal(sig, srv, log)
				}
			}
			gctx, cancel := context.WithTimeout(ctx, grace)
			defer cancel()
			serr := srv.Shutdown(gctx)
			if err == nil {
				err = <-served
			}
			if err != nil {
				return fail(err)
			}
			if serr != nil {
				log.Warn("requests were cancelled at the end of the grace period")
			}
			return nil
		},
	}
	f.register(c)
	c.AddCommand(hashTokenCmd())
	fl := c.Flags()
	fl.StringVar(&listen, "listen", "127.0.0.1:8080", "address to listen on (host:port; port 0 picks one, logged as \"listening\")")
	fl.DurationVar(&poll, "poll", 2*time.Second, "how often to rescan DIR for new, changed and removed plugins (0: never)")
	fl.DurationVar(&grace, "grace", 10*time.Second, "how long requests in flight may finish after SIGTERM/SIGINT before they are cancelled; meanwhile /readyz answers 503 and the listener serves until no request is in flight")
	fl.DurationVar(&drain, "drain-delay", 0, "after SIGTERM/SIGINT, keep serving at least this long (within --grace) with /readyz failing, so that a load balancer stops sending first")
	fl.IntVar(&maxConcurrent, "max-concurrent", 16, "requests one plugin runs at once, counting those still sending their bodies; more get 429 before their bodies are read")
	fl.BoolVar(&noPrepare, "no-prepare", false, "make every command's instance when its request comes; by default a request that ends with no other request of its plugin in flight makes the next one's after it is answered, so that the next request waits for the guest's code alone (a prepared instance holds its memory while it waits; under --max-guest-memory its share, made only where there is room at once, and closed first to make room)")
	fl.BoolVar(&reuse, "reuse-instances", false, "keep every reactor's instances between requests (up to --max-concurrent), unless its manifest sets serve.reuse_instances; a kept instance keeps its memory, device memory and streams, which the plugin's next requests see: only for plugins written for it")
	fl.StringVar(&maxBody, "max-body", "16MiB", "largest request body (413 above it; at once, unread, for a Content-Length above it)")
	fl.StringVar(&maxBuffered, "max-buffered", "256MiB", "most bytes of request bodies all requests together hold in memory; a body beyond it gets 503 buffers_full (Retry-After: 1); at least --max-body")
	fl.StringVar(&maxGuestMem, "max-guest-memory", "0", "server-wide budget of guest linear memory (0: none): every instance reserves its policy's memory limit (memory pages x 64 KiB) while it exists, a kept one while it is kept; an instance beyond it waits --memory-wait, closing idle kept instances of other plugins, then its request gets 503 memory_budget (Retry-After: 1)")
	fl.DurationVar(&memoryWait, "memory-wait", time.Second, "how long a request waits for room in --max-guest-memory before 503 memory_budget (also ended by the request's end)")
	fl.StringVar(&maxOutput, "max-output", "16MiB", "most a run may write, a command to stdout or a reactor with output_write: the write beyond it fails as it is made (502 output_too_large)")
	fl.StringVar(&token, "admin-token", "", "enable POST /v1/admin/reload with this bearer token (default $ACLWASM_ADMIN_TOKEN; off when empty)")
	fl.StringVar(&logFormat, "log-format", "text", "log format: text or json")
	otel = addOtel(fl)
	fl.StringVar(&logLevel, "log-level", "info", "log level: debug (every request), info, warn or error")
	fl.StringArrayVar(&env, "env", nil, "KEY=VALUE environment variable for every plugin (repeatable)")
	sec.register(fl)
	fl.StringArrayVar(&sources, "plugin", nil, "NAME=oci://REGISTRY/REPO:TAG (or @sha256:DIGEST): serve that artifact as plugin NAME, besides DIR's (repeatable)")
	return c
}

// pluginSources reads serve's --plugin NAME=oci://... flags.
func pluginSources(flags []string) (map[string]string, error) {
	src := map[string]string{}
	for _, kv := range flags {
		n, ref, ok := strings.Cut(kv, "=")
		if !ok || n == "" {
			return nil, fmt.Errorf("--plugin %q: want NAME=oci://REGISTRY/REPO:TAG", kv)
		}
		if _, dup := src[n]; dup {
			return nil, fmt.Errorf("--plugin %q: plugin %s is given twice", kv, n)
		}
		src[n] = ref
	}
	return src, nil
}

// newLogger returns a slog logger writing to w in format at level.
func newLogger(w interface{ Write([]byte) (int, error) }, format, level string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		opts.ReplaceAttr = durationString
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, fmt.Errorf("--log-format %q: want text or json", format)
}

// durationString writes a duration as Go writes it ("2.02s") instead of
// slog's JSON default, a count of nanoseconds that a person misreads.
func durationString(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}
