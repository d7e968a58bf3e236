// Package serve is a long-running HTTP server of plugins: every NAME.wasm
// of a directory is a command plugin, run in the sandbox (package host) by
// POST /v1/plugins/NAME with the request body as its stdin and its stdout
// as the response.
//
// Endpoints:
//
//	POST /v1/plugins/{name}   run the plugin: body in, stdout out
//	GET  /v1/plugins          the plugins, their versions and states (JSON)
//	GET  /healthz             200 while the process serves, shutdown's grace period included
//	GET  /readyz              200 once every first load has ended, 503 before (loading) and
//	                          from the start of Shutdown
//	GET  /metrics             Prometheus metrics (Config.Gatherer)
//	POST /v1/admin/reload     re-read Config.ConfigFile and rescan the directory now; only
//	                          with Config.AdminToken, as "Authorization: Bearer TOKEN", or
//	                          for a client the access rules grant "reload"
//
// Serve speaks HTTP/1.1 and HTTP/2: h2 over TLS, h2c (prior knowledge)
// without. With Config.TLS, Serve answers over TLS (TLS 1.2 at least),
// with mutual TLS when it has a client CA, reloading its certificate when
// the files change (TLSConfig). With access rules (Config.ConfigFile,
// ServerConfig) every request but /healthz and /readyz needs an identity,
// a bearer token (Authorization: Bearer TOKEN; the rules keep its SHA-256
// only) or a verified client certificate's whole subject, and a rule that
// grants the plugin, or the admin action: "list" for GET /v1/plugins,
// "metrics" for /metrics, "reload" for the admin reload, decided on the
// endpoint and plugin name the request is routed to (its path decoded).
// Without rules every endpoint is open, as before (the CLI then serves on
// loopback addresses only).
//
// Each plugin runs under the server's default policy, overridden by an
// optional manifest NAME.yaml next to NAME.wasm: the file of aclwasm run
// --manifest and [host.LoadManifest] ([host.Manifest]), strictly decoded
// (unknown fields and bad values are errors with their line). Its module
// path must be NAME.wasm; its sha256, if given, is checked; the policy
// fields it sets override the server's one by one (its deny list adds to
// the server's); name is argv[0], then args; env adds to [Config.Env];
// config is read by the guest with aclwasm.config_read; its serve section
// sets max_concurrent, a reactor's export and whether its instances are
// kept between requests (reuse_instances). The JSON sidecar NAME.json
// (Sidecar) is deprecated: it is still read, with a warning logged once
// per plugin, unless NAME.yaml exists too (then the plugin is invalid).
//
// A plugin may come from an OCI registry instead (docs/OCI.md): a NAME.yaml
// without NAME.wasm whose top-level source is oci://REGISTRY/REPO:TAG or
// oci://REGISTRY/REPO@sha256:DIGEST, or an entry of Config.Sources. The
// artifact (package internal/ociplugin's layout) is verified by digest,
// its module layer refused from its size or media type before it is
// downloaded, and cached by digest (Config.OCI); a tag is resolved again
// at every poll, and a moved tag loads its new digest as a changed file
// would. A tag that no longer resolves leaves the last version serving.
//
// A command module (exporting _start) runs once per request with the body
// as stdin; its stdout is the response. A reactor (no _start) is
// instantiated afresh per request, and its export "handle" (the
// manifest's serve.export) is called with the bytes-in,
// bytes-out convention of module aclwasm ([host.Instance.CallBytes]): the
// body is its input, its output the response, and a nonzero status it
// returns is reported as the exit code (a 502 plugin_failed). With serve.reuse_instances: true
// (or [Config.ReuseInstances] for a reactor whose manifest does not say),
// a reactor's requests are served instead from instances kept between
// requests (a [host.Pool] per version, as many as its concurrency limit):
// much cheaper, but an instance keeps its linear memory, device memory and
// streams from one request to the next, so that the plugin's requests see
// each other's leftovers; only for plugins written for it. An instance
// that trapped, timed out or was cancelled is dropped, and the next
// request gets a fresh one; the kept instances are released with their
// version (after its last request) and by Shutdown. A command cannot be
// kept (its _start runs once per instance): a command whose manifest
// asks for it is refused at load (422 load_refused). The directory is rescanned every
// [Config.Poll]: a new, changed or removed module or sidecar takes effect
// for the next request, requests in flight finish on the version they
// started on, and a replaced version is closed once its last request ends.
// A changed manifest or module that fails to load leaves the last good
// version serving; the failure is logged, shown in GET /v1/plugins (state
// "stale" and its error) and counted (aclwasm_plugin_load_failures_total,
// aclwasm_plugin_state).
// Plugins compile in parallel, each swapped in when it is ready, so that
// one slow compilation delays no other plugin (its old version serves
// meanwhile). Write modules atomically (write elsewhere, then rename), or
// a half-written file is loaded, refused, and loaded again at the next
// poll.
//
// A request is refused before its body is read whenever that can be
// known from its headers (the plugin, a Content-Length over MaxBody, the
// plugin's concurrency limit, the server's MaxBuffered budget of body
// bytes); over HTTP/1 a refusal given before the body was read closes the
// connection ("Connection: close") instead of reading the rest, so that a
// slow body cannot hold the server; over HTTP/2 it ends the request's
// stream only, after the whole answer and a bounded drain of the body.
// Answers name plugins and reasons, never the server's plugin directory
// (the log has full paths).
//
// Every response carries X-Request-Id: the request's own when it is sane
// (at most 128 printable ASCII characters), else a new one; every log
// record of the request has it as request_id, the guest's stderr and its
// aclAppLog records included.
//
// Shutdown has a grace period: readiness fails (/readyz 503, /healthz
// still 200) while the listener stays open and requests, old and new, are
// served, until none is in flight (and [Config.DrainDelay] has passed);
// then the listener closes, new requests get 503 shutting_down, and at
// the end of the grace period the runs still going are cancelled.
//
// A plugin's version is a digest: "sha256:" and the hex SHA-256 of its
// module's bytes followed by its manifest's (or sidecar's) if it has one,
// so that a change to either is a new version. Answers name it in
// X-Aclwasm-Plugin-Version; GET /v1/plugins lists it with the module's
// own digest (module: "sha256:<hex>", as sha256sum prints it) and, for a
// plugin pulled from a registry, the OCI manifest digest (digest).
//
// How a request ends (every failure has a JSON body {"code", "message",
// "plugin", ...}; the plugin's version is in X-Aclwasm-Plugin-Version):
//
//	200                   the guest ran to its end and succeeded: _start returned or it
//	                      exited with code 0 (a reactor's export returned 0); the body is
//	                      its stdout (output), X-Aclwasm-Exit-Code is 0
//	400 bad_request       the request body could not be read (cut short, a read timeout)
//	401 unauthorized      admin endpoint without the right bearer token; with access rules,
//	                      a request without an identity the rules know (no token, a wrong
//	                      one, a certificate no rule names); WWW-Authenticate: Bearer
//	403 forbidden         with access rules: the client's rules do not grant the plugin
//	                      (its name is in "plugin") or the admin action
//	404 not_found         no such plugin or endpoint
//	405 method_not_allowed
//	413 body_too_large    the body exceeds Config.MaxBody; a Content-Length over it
//	                      is refused at once, before any of the body is read
//	422 load_refused      the module was refused at load time ("problems" lists why)
//	422 not_servable      the module exports neither _start nor the reactor's export
//	422 config_invalid    the admin reload found Config.ConfigFile invalid (the message has
//	                      the field and line); the rules in force stay, nothing is rescanned
//	429 overloaded        the plugin already runs MaxConcurrent requests, counting those
//	                      still sending their bodies; refused before the body is read;
//	                      Retry-After: 1
//	500 plugin_invalid    the plugin's files cannot be used (unreadable, bad manifest, bad name)
//	500 host_error        the host failed (a session could not be released, the plugin
//	                      directory cannot be read by the admin reload, ...)
//	502 trap              the guest trapped; the message is the trap's reason
//	502 plugin_failed     the guest ran to its end and failed: it exited with a nonzero
//	                      code (a reactor's export returned a nonzero status), which is in
//	                      "exit_code" and X-Aclwasm-Exit-Code; "message" is the reason it
//	                      gave with aclwasm.error_set, else a generic one; its output is
//	                      dropped (a command's stderr is logged with the request)
//	502 output_too_large  the guest wrote more than Config.MaxOutput bytes (a command to
//	                      stdout, a reactor with output_write); the write over it failed
//	                      as it was made (a reactor's output_write returned 207012)
//	503 loading           the plugin's first version is still being compiled (the server
//	                      answers from its start); Retry-After: 1
//	503 buffers_full      the body would take the bodies held by all requests beyond
//	                      Config.MaxBuffered; refused at once, not queued; Retry-After: 1
//	503 memory_budget     the instance the request needs would take the guest memory
//	                      reserved beyond Config.MaxGuestMemory, and none was returned
//	                      within Config.MemoryWait; Retry-After: 1
//	503 shutting_down     the server is stopping (after the grace period's drain, or the
//	                      Runtime was closed under the run); Retry-After: 1
//	503 canceled          the client went away before the run ended
//	504 timeout           the policy's timeout stopped the guest
//
// An operator's guide (manifests, failed deployments, logs, metrics,
// stopping) is docs/SERVING.md.
//
// Quotas are not a request outcome: a guest over a quota gets the native
// error code (207001, 207012) from the call and decides what to do, which
// shows in its exit code and output.
//
// The package exports [New], its [Config] and the [Server] it returns
// (what aclwasm serve and an embedder's own server need), the documents a
// client or operator reads: [PluginInfo] (GET /v1/plugins), [ReloadReport]
// (POST /v1/admin/reload, [Server.Reload]) and [Sidecar] (the deprecated
// NAME.json), and [RequestIDHeader], the header a client sets to follow its
// request through the logs.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin"
)

// Config configures a Server. Dir and Runtime are required.
type Config struct {
	// Dir holds the plugins: NAME.wasm, and optionally its manifest
	// NAME.yaml ([host.Manifest]; or the deprecated NAME.json, Sidecar); or
	// a NAME.yaml alone whose source is an oci:// reference (docs/SERVING.md,
	// "OCI plugins").
	Dir string
	// Sources are plugins pulled from OCI registries besides Dir's: name
	// -> oci://REGISTRY/REPOSITORY:TAG or @sha256:DIGEST, each as a NAME.yaml
	// holding only that source would be. A tag is resolved again at every
	// Poll: a moved tag loads its new digest.
	Sources map[string]string
	// OCI configures the pulls of those plugins.
	OCI OCIConfig
	// Runtime runs the plugins. The caller closes it after Shutdown.
	Runtime *host.Runtime
	// Policy is every plugin's policy, each field unless its manifest sets it.
	Policy host.Policy
	// Env are KEY=VALUE pairs every run gets.
	Env []string
	// MaxConcurrent bounds the runs of one plugin version at once; more
	// get 429. Default 16.
	MaxConcurrent int
	// ReuseInstances keeps the instances of every reactor whose manifest
	// does not set serve.reuse_instances between requests ([host.Pool]:
	// as many as the plugin's concurrency limit) instead of making one per
	// request. A kept instance keeps its linear memory, device memory and
	// streams from one request to the next, so that a plugin's requests
	// see each other's leftovers: only for plugins written for it.
	// Commands are not affected (each request runs _start on a new
	// instance).
	ReuseInstances bool
	// NoPrepare makes every command's run when its request comes. By
	// default a command's request that ends with no other request of
	// its plugin in flight makes the next request's run (its session and
	// instance, host.Plugin.Prepare) once its answer is sent, so that the
	// next request waits for the guest's code alone: instantiating a Go
	// guest (its data segments) is most of a short run. Under load the
	// next request comes while others run, and a run made ahead would
	// be no sooner ready, only colder in the CPU's caches. A prepared
	// run holds its session and guest memory while it waits, and is
	// closed with its plugin's version; under MaxGuestMemory it holds
	// its instance's share, is made only where there is room at once
	// and no request waits for some, and is closed first to make room.
	NoPrepare bool
	// MaxBody bounds a request body (413 above it; at once, unread, when
	// its Content-Length says so). Default 16 MiB.
	MaxBody int64
	// MaxBuffered bounds the bytes of request bodies all requests together
	// hold in memory: a request whose body would go beyond it gets 503
	// buffers_full at once (Retry-After: 1), since waiting would hold its
	// connection and goroutine anyway. At least MaxBody; default 256 MiB,
	// or MaxBody if that is larger.
	MaxBuffered int64
	// MaxGuestMemory is the server's budget of guest linear memory, in
	// bytes (0: none). Every instance reserves the most its plugin's
	// policy allows (MemoryPages x 64 KiB) before it is made: a fresh one
	// while its request runs, a kept one (ReuseInstances) while it exists.
	// A request whose instance has no room waits up to MemoryWait (or
	// until it ends), while idle kept instances of other plugins are
	// closed to make room, then gets 503 memory_budget (Retry-After: 1).
	MaxGuestMemory int64
	// MemoryWait bounds that wait; default 1s.
	MemoryWait time.Duration
	// MaxOutput bounds what a run may write, a command to stdout, a reactor
	// with module aclwasm's output_write (502 above it): the write that
	// would go beyond it fails as it is made, so a run holds at most
	// MaxOutput bytes of output. Its stderr is kept up to 4 KiB for the
	// log. Default 16 MiB.
	MaxOutput int64
	// Poll is how often the directory is rescanned; 0 never (Reload, or
	// the admin endpoint, still reloads).
	Poll time.Duration
	// DrainDelay is how long Shutdown keeps the listener open and serving
	// at least, readiness failing, so that a load balancer sees /readyz
	// fail before connections are refused; within the grace period.
	// Default 0: the listener closes once no request is in flight.
	DrainDelay time.Duration
	// AdminToken enables POST /v1/admin/reload for this bearer token
	// (with access rules too, alongside the rules' reload grants).
	AdminToken string
	// TLS, if set, makes Serve answer over TLS, with mutual TLS when it
	// has a client CA (TLSConfig); nil: plain HTTP.
	TLS *TLSConfig
	// ConfigFile is the server configuration file (ServerConfig: the
	// access rules), read by New and again by ReloadConfig (the admin
	// reload endpoint); "" for no rules: every endpoint is open, the
	// admin reload only with AdminToken.
	ConfigFile string
	// Logger gets the server's structured logs; default slog.Default().
	// A request's records have its request_id ([RequestIDHeader]).
	Logger *slog.Logger
	// Registerer gets the server's own metrics (serverMetrics: requests by
	// plugin, status and outcome, their duration, requests in flight,
	// buffered body bytes, reloads, plugin loads, load failures and
	// states); nil for none.
	Registerer prometheus.Registerer
	// Gatherer is served at /metrics; nil: /metrics is 404.
	Gatherer prometheus.Gatherer
	// Tracer, if set, traces every plugin request (RequestTracer;
	// serve/otelserve.New makes one of OpenTelemetry); nil for none.
	Tracer RequestTracer

	// testHookLoad, if set, runs before each plugin's compilation, in the
	// goroutine that compiles it: a test blocks it to stand for a slow
	// compilation.
	testHookLoad func(name string)
}

// Server serves plugins over HTTP. Create it with New, serve with Serve (or
// mount Handler elsewhere), and end it with Shutdown.
type Server struct {
	cfg     Config
	log     *slog.Logger
	handler http.Handler
	metrics *serverMetrics

	reloadMu   sync.Mutex // one scan at a time, so that loads start in the order of the scans
	mu         sync.RWMutex
	plugins    map[string]*version
	failed     map[string]*failedLoad // newer files that failed while the version in plugins serves
	warnedJSON map[string]bool        // plugins whose JSON sidecar was logged as deprecated
	sourceErr  map[string]*apiError   // sources that no longer resolve while their last version serves
	oci        *ociplugin.Client      // pulls the sources
	draining   bool                   // Shutdown began: not ready, no reloads, still serving
	closing    bool                   // the drain is over: requests are refused
	active     *active                // requests that hold a version
	buf        budget                 // bytes of request bodies held
	mem        *memBudget             // guest memory reserved; nil: no budget

	// Loads run in their own goroutines, at most cap(loadSlots) at once;
	// each plugin's new version is swapped in when it is ready. loading,
	// guarded by mu, has the plugins being compiled: one load per plugin
	// at a time. A source's download comes first, in one of fetchSlots
	// (apart: a slow registry holds no compilation slot); retries,
	// guarded by mu, has the sources whose last try failed.
	loadSlots   chan struct{}
	fetchSlots  chan struct{}
	retries     map[string]*retry
	loading     map[string]*load
	loads       sync.WaitGroup
	loadCtx     context.Context
	cancelLoads context.CancelFunc

	// runs is done once Shutdown, at the end of its grace period, cancels
	// the runs in progress (active.cancel): a run cancelled then answers
	// shutting_down.
	runs       context.Context
	cancelRuns context.CancelFunc
	// base is the context of Serve's connections (http.Server.BaseContext):
	// runs, marked (runsKey) so that a request knows that Shutdown's
	// cancellation reaches it through its own context (run).
	base     context.Context
	stopPoll chan struct{}
	polling  sync.WaitGroup
	open     atomic.Int64 // host.Plugins not yet closed

	httpMu sync.Mutex
	http   *http.Server

	access accessState // the rules of ConfigFile; none without it
	tls    *tlsState   // nil: plain HTTP

	// testHookRun, if set, runs in a request that holds its version,
	// just before the plugin runs.
	testHookRun func(name string)

	// first is closed once the loads New started have ended: until then
	// /readyz answers 503 and a plugin still compiling 503 loading.
	first chan struct{}
}

// New starts loading every plugin of cfg.Dir, in parallel, and polling it;
// it returns without waiting for the loads, so that the server answers at
// once: a plugin still compiling gets 503 loading, /readyz answers 503
// until every first load has ended (WaitLoaded waits for that). Plugins
// that cannot run are kept with their reason (GET /v1/plugins shows it);
// only an unreadable directory or a bad Config is an error.
func New(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Dir == "" || cfg.Runtime == nil {
		return nil, errors.New("serve: Config.Dir and Config.Runtime are required")
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = 16
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = 16 << 20
	}
	if cfg.MaxOutput == 0 {
		cfg.MaxOutput = 16 << 20
	}
	if cfg.MaxBuffered == 0 {
		cfg.MaxBuffered = max(256<<20, cfg.MaxBody)
	}
	if cfg.MemoryWait == 0 {
		cfg.MemoryWait = time.Second
	}
	if cfg.MaxConcurrent < 0 || cfg.MaxBody < 0 || cfg.MaxOutput < 0 || cfg.MaxBuffered < 0 || cfg.Poll < 0 || cfg.DrainDelay < 0 ||
		cfg.MaxGuestMemory < 0 || cfg.MemoryWait < 0 {
		return nil, errors.New("serve: negative Config limit")
	}
	if cfg.MaxBuffered < cfg.MaxBody {
		return nil, fmt.Errorf("serve: Config.MaxBuffered (%d) is below MaxBody (%d): no body of MaxBody bytes could ever be read", cfg.MaxBuffered, cfg.MaxBody)
	}
	if cfg.Policy.Timeout == 0 {
		cfg.Policy.Timeout = host.DefaultTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := checkSources(cfg.Sources); err != nil {
		return nil, err
	}
	if err := cfg.OCI.defaults(); err != nil {
		return nil, err
	}
	oci, err := ociplugin.NewClient(ociplugin.Options{CacheDir: cfg.OCI.CacheDir, PlainHTTP: cfg.OCI.PlainHTTP, MaxModuleBytes: moduleCap(cfg.Policy),
		ProgressTimeout: cfg.OCI.ProgressTimeout})
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s := &Server{cfg: cfg, log: cfg.Logger, plugins: map[string]*version{}, stopPoll: make(chan struct{}),
		failed: map[string]*failedLoad{}, warnedJSON: map[string]bool{}, active: newActive(), sourceErr: map[string]*apiError{}, oci: oci,
		// Two at least, so that one stuck compilation never holds the only slot.
		loadSlots: make(chan struct{}, max(runtime.GOMAXPROCS(0), 2)), loading: map[string]*load{},
		fetchSlots: make(chan struct{}, cfg.OCI.MaxDownloads), retries: map[string]*retry{}}
	if cfg.TLS != nil {
		if s.tls, err = newTLS(cfg.TLS, s.log); err != nil {
			return nil, err
		}
	}
	if err = s.loadAccess(); err != nil {
		return nil, err
	}
	s.runs, s.cancelRuns = context.WithCancel(context.Background())
	s.base = context.WithValue(s.runs, runsKey{}, s)
	s.loadCtx, s.cancelLoads = context.WithCancel(context.Background())
	if s.metrics, err = newServerMetrics(cfg.Registerer, cfg.ConfigFile != "", s.tls); err != nil {
		return nil, fmt.Errorf("serve: metrics: %w", err)
	}
	s.metrics.configReloaded(nil) // loadAccess read it
	s.buf = budget{max: cfg.MaxBuffered, m: s.metrics}
	if s.mem, err = newMemBudget(cfg, cfg.Registerer); err != nil {
		return nil, fmt.Errorf("serve: metrics: %w", err)
	}
	// The first loads run while the server already answers: a plugin
	// still compiling gets 503 loading, the others are served as each is
	// ready, and /readyz says when all are (WaitLoaded waits for it).
	_, started, err := s.startReload(true)
	if err != nil {
		s.cancelRuns()
		s.cancelLoads()
		s.loads.Wait()
		s.oci.CloseIdleConnections()
		return nil, err
	}
	s.first = make(chan struct{})
	go func() {
		for _, l := range started {
			<-l.done
		}
		close(s.first)
	}()
	s.handler = s.routes()
	if cfg.Poll > 0 {
		s.polling.Add(1)
		go func() { defer s.polling.Done(); s.poll(cfg.Poll, s.stopPoll) }()
	}
	return s, nil
}

// WaitLoaded waits until the loads New started have ended (each plugin
// is then served, or refused with its reason), or ctx is done.
func (s *Server) WaitLoaded(ctx context.Context) error {
	select {
	case <-s.first:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve accepts connections on ln until Shutdown; it returns nil after
// Shutdown, or the error that stopped it.
func (s *Server) Serve(ln net.Listener) error {
	// HTTP/1.1, and HTTP/2: negotiated over TLS (h2), or in clear text
	// with prior knowledge (h2c; no Upgrade), for proxies and meshes that
	// speak it to their backends.
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	if s.tls != nil {
		protocols.SetHTTP2(true)
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		Protocols:         protocols,
		BaseContext:       s.baseContext,
	}
	s.secure(hs)
	s.httpMu.Lock()
	if s.http != nil {
		s.httpMu.Unlock()
		return errors.New("serve: Serve called twice")
	}
	s.http = hs
	s.httpMu.Unlock()
	s.mu.RLock()
	closing := s.closing
	s.mu.RUnlock()
	if closing {
		return nil
	}
	if err := s.serveOn(hs, ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Shutdown stops the server within ctx's grace period. First it drains:
// readiness fails (/readyz 503, /healthz 200), the directory is no longer
// polled, and the listener stays open, serving requests old and new, until
// none is in flight and [Config.DrainDelay] has passed. Then new requests get
// 503 shutting_down, the listener closes, and the requests in flight
// finish until ctx is done; the runs still going then are cancelled (their
// requests get 503) and waited for. Every plugin is closed, and every
// session released, when it returns. It returns ctx's error if the grace
// period ran out.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return errors.New("serve: Shutdown called twice")
	}
	s.draining = true
	s.mu.Unlock()
	s.log.Info("shutting down: not ready, serving until no request is in flight", "drain_delay", s.cfg.DrainDelay)
	close(s.stopPoll)
	s.polling.Wait()
	// A load in progress sees draining and retires what it loaded.
	s.cancelLoads()
	s.loads.Wait()
	s.oci.CloseIdleConnections() // no pull from here on

	delay := time.NewTimer(s.cfg.DrainDelay)
	defer delay.Stop()
	select {
	case <-delay.C:
		select {
		case <-s.active.zero():
		case <-ctx.Done():
		}
	case <-ctx.Done():
	}
	s.mu.Lock()
	s.closing = true // no request acquires a version from here: idle is final
	s.mu.Unlock()
	idle := s.active.zero()

	s.httpMu.Lock()
	hs := s.http
	s.httpMu.Unlock()
	var graceErr error
	if hs != nil {
		graceErr = hs.Shutdown(ctx) // closes the listener, waits for idle connections
	}
	select {
	case <-idle: // none in flight: none cut short, even with ctx done
	default:
		select {
		case <-idle:
		case <-ctx.Done():
			graceErr = ctx.Err()
		}
	}
	if graceErr != nil {
		s.log.Warn("grace period over: cancelling runs in flight", "error", graceErr)
	}
	s.cancelRuns() // first: a run cancelled now sees it (shutting_down)
	s.active.cancel()
	<-idle
	if hs != nil && graceErr != nil {
		// The handlers have returned; their responses (503) are written
		// once each handler's connection flushes: wait for the connections
		// to go idle, briefly, then close what is left.
		flush, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = hs.Shutdown(flush)
		cancel()
		_ = hs.Close()
	}
	s.mu.Lock()
	all := s.plugins
	s.plugins = map[string]*version{}
	s.mu.Unlock()
	for _, v := range all {
		v.retire()
	}
	s.log.Info("stopped")
	return graceErr
}

// runsKey marks a context that Shutdown cancels at the end of its grace
// period (Server.base); its value is the Server.
type runsKey struct{}

// baseContext is the context of every connection Serve accepts, and so of
// its requests: derived from runs, so that Shutdown cancels the runs
// still going through the contexts net/http already makes per connection
// and per request, with no context of a run's own (run).
func (s *Server) baseContext(net.Listener) context.Context { return s.base }

// OpenPlugins is how many loaded plugin versions are not yet closed (a
// retired version stays open while requests hold it).
func (s *Server) OpenPlugins() int { return int(s.open.Load()) }

// routes is the server's handler. Every route is behind the access check
// of what it needs (authorize), made on the request as the mux routed it:
// the mux matches the path decoded segment by segment, so that
// /v1/plugin%73/echo is the plugin route, and its plugin is the name the
// route runs. guard, in front, refuses the paths whose decoded and escaped
// forms disagree on their segments before any route sees them.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	handle := func(pattern string, n needs, h http.HandlerFunc) { mux.Handle(pattern, s.authorize(n, h)) }
	open := fixed(need{kind: needOpen})
	handle("/v1/plugins/{name}", pluginNeed, s.invoke)
	handle("/v1/plugins", fixed(need{kind: needAdmin, name: AdminList}), s.get(s.list))
	handle("/healthz", open, s.get(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, r, http.StatusOK, map[string]string{"status": "ok"})
	}))
	handle("/readyz", open, s.get(s.ready))
	if s.cfg.Gatherer != nil {
		metrics := promhttp.HandlerFor(s.cfg.Gatherer, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelError)})
		handle("/metrics", fixed(need{kind: needAdmin, name: AdminMetrics}), metrics.ServeHTTP)
	}
	if s.cfg.AdminToken != "" || s.cfg.ConfigFile != "" {
		handle("/v1/admin/reload", fixed(need{kind: needAdmin, name: AdminReload}), s.reload)
	}
	handle("/", fixed(need{kind: needIdentity}), func(w http.ResponseWriter, r *http.Request) {
		writeErr(w, r, &apiError{status: http.StatusNotFound, Code: "not_found", Message: "no endpoint " + r.URL.Path})
	})
	return s.withRequestID(guard(mux))
}

// get allows GET and HEAD only.
func (s *Server) get(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			methodNotAllowed(w, r, "GET, HEAD")
			return
		}
		h(w, r)
	}
}

func methodNotAllowed(w http.ResponseWriter, r *http.Request, allow string) {
	w.Header().Set("Allow", allow)
	writeErr(w, r, &apiError{status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Message: "use " + allow})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	draining := s.draining
	s.mu.RUnlock()
	if draining {
		writeErr(w, r, &apiError{status: http.StatusServiceUnavailable, Code: "shutting_down", Message: "the server is shutting down"})
		return
	}
	select {
	case <-s.first:
	default:
		w.Header().Set("Retry-After", "1")
		writeErr(w, r, &apiError{status: http.StatusServiceUnavailable, Code: "loading", Message: "the plugins are still being compiled"})
		return
	}
	writeJSON(w, r, http.StatusOK, map[string]string{"status": "ready"})
}

// PluginInfo describes one plugin in GET /v1/plugins.
type PluginInfo struct {
	Name string `json:"name"`
	// Version is the version serving, as X-Aclwasm-Plugin-Version gives
	// it: "sha256:" and the hex SHA-256 of the module's bytes followed by
	// those of its manifest (NAME.yaml, or a source's manifest) if it has
	// one, so that any change to either is a new version. Module is the
	// module's own digest, "sha256:" and the hex SHA-256 of its bytes (as
	// sha256sum prints it and a manifest's module.sha256 pins it).
	Version string `json:"version"`
	Module  string `json:"module,omitempty"`
	// State is "ready"; "stale": the version serving is the last good
	// one, newer files failed to load (Error says why); or "refused" (the
	// module) or "invalid" (its files): the plugin answers with Error.
	State string `json:"state"`
	// Error names the plugin and the reason, never the server's
	// directory (the log has the paths).
	Error         *apiError `json:"error,omitempty"`
	MaxConcurrent int       `json:"max_concurrent,omitempty"`
	InFlight      int       `json:"in_flight"`
	Timeout       string    `json:"timeout,omitempty"`
	// Source is the oci:// reference of a plugin pulled from a registry,
	// Digest the manifest digest of the version serving.
	Source string `json:"source,omitempty"`
	Digest string `json:"digest,omitempty"`
	// ReuseInstances: the reactor's instances are kept between requests
	// (its manifest's serve.reuse_instances, or Config.ReuseInstances).
	ReuseInstances bool `json:"reuse_instances,omitempty"`
	// Retry is the backoff of a source whose last try failed (its tag
	// did not resolve, its download failed): the polls try it again
	// after Retry.After.
	Retry *RetryInfo `json:"retry,omitempty"`
	// Models are the models its manifest approves, by name.
	Models []ModelInfo `json:"models,omitempty"`
}

// ModelInfo describes a model a plugin's manifest approves, in GET
// /v1/plugins. On the simulator the server compiles a model file once,
// at the first load of any plugin granted it, and shares it read-only
// between the plugins and instances that load it; a file changed since
// is compiled again at its next load, and executions in progress keep
// the version they loaded. On the native backend each guest's load is a
// load of the offline model by the node's runtime, never shared: the
// model is listed while at least one guest holds it loaded.
type ModelInfo struct {
	Name string `json:"name"`
	// State is "loaded" (compiled, as the file is now; natively, held by
	// a guest), "not_loaded" (no guest has loaded it yet; natively, none
	// holds it now), "changed" (the file changed since it was compiled:
	// the next load compiles it again) or "missing" (the file is gone:
	// loads fail with 145002 until it is back).
	State string `json:"state"`
	// WeightBytes is the size of the model's weights. On the simulator
	// they are in host memory, one copy for every plugin granted the
	// same file (each session's load still counts them against its device
	// memory quota). On the native backend they are in device memory
	// (aclmdlQuerySize's weight size), held by each guest's load and
	// counted, with the model's work memory, against that session's
	// quota. LoadMs is what compiling it took (natively, the first held
	// load's aclmdlQuerySize and aclmdlLoadFromFile).
	WeightBytes uint64  `json:"weight_bytes,omitempty"`
	LoadMs      float64 `json:"load_ms,omitempty"`
	// Loads, Executions and Failures count, over every plugin that uses
	// the compiled model (natively, the file since it was listed), the
	// guests' loads and the executions.
	Loads      uint64 `json:"loads,omitempty"`
	Executions uint64 `json:"executions,omitempty"`
	Failures   uint64 `json:"failures,omitempty"`
}

// models describes the models of policy p, from the runtime's compiled
// models cm (by path).
func models(p host.Policy, cm map[string]host.ModelInfo) []ModelInfo {
	var out []ModelInfo
	for name, file := range p.Models {
		mi := ModelInfo{Name: name, State: "not_loaded"}
		if c, ok := cm[file]; ok {
			mi.State = "loaded"
			mi.WeightBytes, mi.LoadMs = c.WeightBytes, float64(c.LoadTime.Microseconds())/1000
			mi.Loads, mi.Executions, mi.Failures = c.Loads, c.Executions, c.Failures
			if st, err := os.Stat(file); err != nil {
				mi.State = "missing"
			} else if st.Size() != c.Size || !st.ModTime().Equal(c.ModTime) {
				mi.State = "changed"
			}
		} else if _, err := os.Stat(file); err != nil {
			mi.State = "missing"
		}
		out = append(out, mi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	cm := map[string]host.ModelInfo{}
	for _, m := range s.cfg.Runtime.Models() {
		cm[m.Path] = m
	}
	s.mu.RLock()
	out := make([]PluginInfo, 0, len(s.plugins))
	for _, v := range s.plugins {
		pi := PluginInfo{Name: v.name, Version: v.digest, Module: v.module, State: v.state(), Error: v.fail, MaxConcurrent: cap(v.sem), InFlight: v.inFlight(),
			ReuseInstances: v.pool != nil}
		if v.fail == nil {
			pi.Timeout = v.pl.Policy().Timeout.String()
			pi.Models = models(v.pl.Policy(), cm)
		}
		if f := s.failed[v.name]; f != nil {
			pi.State, pi.Error = "stale", f.fail
		} else if e := s.sourceErr[v.name]; e != nil && v.fail == nil {
			pi.State, pi.Error = "stale", e // its tag does not resolve: the last version serves
		}
		pi.Source, pi.Digest = v.source, v.sourceDigest
		pi.Retry = s.retryInfo(v.name)
		out = append(out, pi)
	}
	s.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	writeJSON(w, r, http.StatusOK, map[string]any{"plugins": out})
}

func (s *Server) reload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, r, "POST")
		return
	}
	if !s.reloadAllowed(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="aclwasm"`)
		writeErr(w, r, &apiError{status: http.StatusUnauthorized, Code: "unauthorized", Message: "want Authorization: Bearer <admin token>"})
		return
	}
	if err := s.ReloadConfig(); err != nil { // the rules in force stay
		writeErr(w, r, &apiError{status: http.StatusUnprocessableEntity, Code: "config_invalid", Message: err.Error()})
		return
	}
	rep, err := s.Reload(r.Context())
	switch {
	case errors.Is(err, errClosing):
		writeErr(w, r, &apiError{status: http.StatusServiceUnavailable, Code: "shutting_down", Message: "the server is shutting down"})
		return
	case err != nil: // the log has the directory's path, the client does not
		s.logFor(r).Error("reload requested", "error", err)
		writeErr(w, r, &apiError{status: http.StatusInternalServerError, Code: "host_error", Message: "the plugin directory cannot be read: " + pathless(err)})
		return
	}
	s.logFor(r).Info("reload requested", "added", rep.Added, "changed", rep.Changed, "removed", rep.Removed, "loading", rep.Loading)
	writeJSON(w, r, http.StatusOK, rep)
}

// acquire returns the current version of plugin name, held until its
// release, and counts the request in flight; nil and the failure if there
// is none or the server is closing.
func (s *Server) acquire(name string) (*version, *apiError) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closing {
		return nil, &apiError{status: http.StatusServiceUnavailable, Code: "shutting_down", Message: "the server is shutting down"}
	}
	v, ok := s.plugins[name]
	if !ok {
		if _, compiling := s.loading[name]; compiling {
			return nil, &apiError{status: http.StatusServiceUnavailable, Code: "loading", Plugin: name, Message: fmt.Sprintf("plugin %q is still being compiled", name)}
		}
		return nil, &apiError{status: http.StatusNotFound, Code: "not_found", Message: fmt.Sprintf("no plugin %q", name)}
	}
	v.acquire()
	s.active.add()
	return v, nil
}

func (s *Server) invoke(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	name := r.PathValue("name")
	if r.Method != http.MethodPost {
		methodNotAllowed(w, r, "POST")
		return
	}
	r, traced := s.traceStart(w, r, name)
	log := s.logFor(r)
	v, fail := s.acquire(name)
	label := name // a metrics label only for plugins that exist: names in URLs are anyone's
	var series *pluginSeries
	if v == nil {
		label = ""
	} else {
		series = v.seriesOf(s.metrics)
		series.running(1)
	}
	out := s.run(w, r, v, fail, log)
	d := time.Since(start)
	outcome := out.outcome()
	s.metrics.observe(series, label, out.status, outcome, d)
	traceEnd(traced, v, out, outcome)
	s.logRequest(log, r, name, v, out, outcome, d)
	// The next run is made once the request is done with: its time is
	// the next request's, not this one's.
	next := out.ran && v.ahead != nil && v.ahead.reserve(r, v)
	if v != nil {
		v.release()
		s.active.done()
		series.running(-1)
	}
	if next {
		v.ahead.prepareAfter(w, v)
	}
}

// logRequest logs how the request r for plugin name ended, at a level by
// its status (debug when it went well).
func (s *Server) logRequest(log *slog.Logger, r *http.Request, name string, v *version, out result, outcome string, d time.Duration) {
	level := slog.LevelDebug
	switch {
	case out.status >= 500:
		level = slog.LevelWarn
	case out.status >= 400 || out.exit != "0":
		level = slog.LevelInfo
	}
	if !log.Enabled(context.Background(), level) {
		return // the record's attributes are not made for nothing
	}
	attrs := []any{"plugin", name, "status", out.status, "outcome", outcome, "duration", d, "remote", r.RemoteAddr}
	if v != nil {
		attrs = append(attrs, "version", v.digest)
	}
	if out.exit != "" {
		attrs = append(attrs, "exit_code", out.exit)
	}
	if out.fail != nil {
		attrs = append(attrs, "code", out.fail.Code, "error", out.fail.Message)
	}
	if out.err != nil && out.err.Error() != out.fail.Message { // the engine's backtrace, for the log only
		attrs = append(attrs, "detail", s.scrub(out.err.Error()))
	}
	log.Log(context.Background(), level, "request", attrs...)
}

// result is how a request ended: its status, the guest's exit code ("" if
// it did not exit), the failure answered, and the error behind it.
type result struct {
	status int
	exit   string
	fail   *apiError
	err    error
	ran    bool // the guest ran (or its run was tried), after every refusal
}

// outcome is the request's metrics label: ok, or the failure's code
// (plugin_failed for the guest's own nonzero exit code or status).
func (o result) outcome() string {
	if o.fail != nil {
		return o.fail.Code
	}
	return "ok"
}

// refuse answers a failure that came before the guest ran.
func refuse(w http.ResponseWriter, r *http.Request, fail *apiError) result {
	return result{status: writeErr(w, r, fail), fail: fail}
}

// run answers a request for version v. Every refusal that can be made
// without the body comes before it is read: an unusable plugin, a
// declared length over MaxBody, the plugin's concurrency limit, the
// server's buffer budget. log is the request's logger: the guest's
// stderr and aclAppLog records go there with the request's id.
func (s *Server) run(w http.ResponseWriter, r *http.Request, v *version, fail *apiError, log *slog.Logger) result {
	if fail != nil {
		if fail.status == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		return refuse(w, r, fail)
	}
	v.made()
	setShared(w.Header(), "X-Aclwasm-Plugin-Version", v.digestHdr)
	if v.fail != nil {
		e := *v.fail
		e.Plugin = v.name
		return refuse(w, r, &e)
	}
	if r.ContentLength > s.cfg.MaxBody {
		return refuse(w, r, tooLarge(v.name, s.cfg.MaxBody))
	}
	select {
	case v.sem <- struct{}{}:
		defer func() { <-v.sem }()
	default:
		w.Header().Set("Retry-After", "1")
		return refuse(w, r, &apiError{status: http.StatusTooManyRequests, Code: "overloaded", Plugin: v.name, Message: fmt.Sprintf("the plugin already runs %d requests, its limit", cap(v.sem))})
	}
	body, held, fail := s.readBody(w, r, v.name)
	if fail != nil {
		return refuse(w, r, fail)
	}
	defer s.buf.release(held)
	// The guest's streams and the run's link (cancelled by Shutdown at
	// the end of its grace period) in one allocation.
	std := &struct {
		out, err capped
		in       bytes.Reader
		run      runLink
		length   [1]string // the answer's Content-Length
	}{out: capped{max: s.cfg.MaxOutput}, err: capped{max: 4 << 10, quiet: true}}
	ctx := r.Context()
	if m, _ := ctx.Value(runsKey{}).(*Server); m != s {
		// Not one of Serve's connections (Handler mounted elsewhere):
		// a context of the run's own, which Shutdown cancels through
		// the registry of active runs. Under Serve, runs is the base of
		// the request's context (baseContext): a context more, its
		// registration with the request's and the registry's lock
		// twice would be spent on every request for nothing.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		std.run.cancel = cancel
		s.active.follow(&std.run)
		defer s.active.unfollow(&std.run)
	}
	// A command's prepared run holds its memory: the request takes it
	// over; otherwise it reserves what its instance needs.
	pr := v.ahead.take()
	var done func()
	if pr != nil {
		done = v.mem.adopt()
	} else if done, fail = v.mem.enter(ctx); fail != nil {
		w.Header().Set("Retry-After", "1")
		return refuse(w, r, fail)
	}
	defer done()
	if s.testHookRun != nil {
		s.testHookRun(v.name)
	}
	stdout, stderr := &std.out, &std.err
	var res host.Result
	var err error
	if v.pool != nil { // a kept instance: its Config was made with the pool
		res, err = s.callPooled(ctx, v, log, body, stdout, stderr)
	} else {
		std.in.Reset(body)
		cfg := host.Config{Args: v.argv(), Env: v.env, Vars: v.vars, Name: v.name, Logger: log,
			Stdin: &std.in, Stdout: stdout, Stderr: stderr,
			NoStats: true} // the answer has no use for them; metrics count the calls
		if v.export != "" {
			res, err = s.callReactor(ctx, v, cfg, body, stdout)
		} else if pr != nil {
			res, err = pr.Run(ctx, host.Stdio{Stdin: &std.in, Stdout: stdout, Stderr: stderr, Logger: log})
		} else {
			res, err = v.pl.Run(ctx, cfg)
		}
	}
	if stderr.Len() > 0 && (err != nil || res.ExitCode != 0) {
		log.Info("plugin stderr", "plugin", v.name, "stderr", stderr.String())
	}
	fail = nil
	switch {
	case err == nil && stdout.over:
		fail = &apiError{status: http.StatusBadGateway, Code: "output_too_large", Message: fmt.Sprintf("the guest wrote more than %d bytes to stdout", s.cfg.MaxOutput)}
	case err == nil && res.ExitCode != 0:
		// The guest's own failure: its reason if it gave one, else the
		// last error of its host calls, which may be why it gave up.
		code := strconv.FormatUint(uint64(res.ExitCode), 10)
		w.Header().Set("X-Aclwasm-Exit-Code", code)
		msg := res.Message
		if msg == "" {
			msg = "the plugin failed with status " + code
		}
		fail = &apiError{status: http.StatusBadGateway, Code: "plugin_failed", Message: msg, ExitCode: res.ExitCode}
		fail.Plugin = v.name
		return result{status: writeErr(w, r, fail), exit: code, fail: fail, ran: true}
	case err == nil:
		h := w.Header()
		setShared(h, "X-Aclwasm-Exit-Code", exitZero)
		setShared(h, "Content-Type", octetStream)
		// Its length said, the answer is whole when flushed (prepareAfter),
		// before the handler returns, and a large one is not chunked.
		std.length[0] = strconv.Itoa(stdout.Len())
		h["Content-Length"] = std.length[:]
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(stdout.Bytes())
		return result{status: http.StatusOK, exit: "0", ran: true}
	case errors.Is(err, host.ErrClosed), errors.Is(err, host.ErrCanceled) && s.runs.Err() != nil:
		// The Runtime, or the server, is closing: no trap, no guest failure.
		w.Header().Set("Retry-After", "1")
		fail = &apiError{status: http.StatusServiceUnavailable, Code: "shutting_down", Message: "the server is shutting down: the run was cancelled"}
	case errors.Is(err, host.ErrTimeout):
		fail = &apiError{status: http.StatusGatewayTimeout, Code: "timeout", Message: fmt.Sprintf("the guest did not finish within its timeout (%v)", v.pl.Policy().Timeout)}
	case errors.Is(err, host.ErrCanceled):
		fail = &apiError{status: http.StatusServiceUnavailable, Code: "canceled", Message: "the request was cancelled (the client went away)"}
	case errors.Is(err, host.ErrTrap):
		fail = &apiError{status: http.StatusBadGateway, Code: "trap", Message: firstLine(err)}
	default:
		fail = &apiError{status: http.StatusInternalServerError, Code: "host_error", Message: firstLine(err)}
	}
	fail.Plugin = v.name
	return result{status: writeErr(w, r, fail), fail: fail, err: err, ran: true}
}

// callReactor runs a request on a fresh instance of reactor v: its export
// gets the body through module aclwasm (host.Instance.CallBytes), and what
// it writes there goes to out in place of a command's stdout (cfg.Stdout is
// dropped). A nonzero status returned by the export is its exit code.
func (s *Server) callReactor(ctx context.Context, v *version, cfg host.Config, body []byte, out *capped) (host.Result, error) {
	cfg.Stdin, cfg.Stdout = nil, io.Discard // its WASI stdout is no answer
	inst, err := v.pl.Instantiate(ctx, cfg)
	if err != nil {
		return host.Result{}, err
	}
	// The cap holds as the guest writes: a write beyond it fails (207012)
	// and the call reports ErrOutputLimit, so at most out.max bytes exist.
	b, err := inst.CallBytes(ctx, v.export, body, host.MaxOutput(out.max))
	res, err := bytesResult(b, err, out)
	return res, errors.Join(err, inst.Close(ctx))
}

// apiError is the JSON body of every failure.
type apiError struct {
	status   int
	Code     string   `json:"code"`
	Message  string   `json:"message"`
	Plugin   string   `json:"plugin,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// ExitCode is a plugin_failed answer's exit code or status.
	ExitCode uint32 `json:"exit_code,omitempty"`
}

func writeErr(w http.ResponseWriter, r *http.Request, e *apiError) int {
	writeJSON(w, r, e.status, e)
	return e.status
}

// writeJSON answers r with v. An HTTP/1 answer given before r's body was
// read to its end closes the connection (guard): the rest of the body is
// not read. Over HTTP/2 only the stream ends (guard drains the body within
// bounds; net/http resets the stream past them): "Connection: close"
// there would make net/http end the whole connection (GOAWAY, then
// close), every other stream of the client's with it, and cut off answers
// still on their way (curl: "(18) Transferred a partial file").
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	if unread(r) && r.ProtoMajor == 1 {
		w.Header().Set("Connection", "close")
	}
	b, err := json.Marshal(v)
	if err != nil { // our own types: a bug
		status, b = http.StatusInternalServerError, []byte(`{"code":"host_error","message":"encoding the response failed"}`)
	}
	b = append(b, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(b))) // whole when flushed (prepareAfter)
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// Header values that every successful answer shares (setShared).
var (
	exitZero    = []string{"0"}
	octetStream = []string{"application/octet-stream"}
)

// setShared sets header key (in canonical form) to vals, a slice that
// answers share rather than one made per answer as Header.Set makes:
// net/http only reads a handler's header values (it copies the header when
// the answer is written), and an Add of another value to a slice of
// length 1 = capacity copies it first.
func setShared(h http.Header, key string, vals []string) {
	h[key] = vals
}

// firstLine drops an engine's wasm stack trace from an error.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return msg
}

// capped is a buffer of at most max bytes. A write past it fails (the
// guest sees an I/O error) and marks the output over, unless quiet, where
// it keeps the first max bytes and drops the rest.
type capped struct {
	bytes.Buffer
	max   int64
	over  bool
	quiet bool
}

func (c *capped) Write(p []byte) (int, error) {
	room := c.max - int64(c.Len())
	if int64(len(p)) <= room {
		return c.Buffer.Write(p)
	}
	if c.quiet {
		c.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	c.over = true
	return 0, fmt.Errorf("output exceeds %d bytes", c.max)
}
