package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin"
)

// validName is what a plugin's file name (less .wasm) must look like: it
// is a URL path segment and a metrics label.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// Sidecar is the optional NAME.json next to NAME.wasm: the plugin's policy
// overrides (unset fields keep the server's defaults) and what its runs
// get. Unknown fields are an error, so that a typo does not silently keep
// a default.
//
// Deprecated: write the manifest NAME.yaml instead ([host.Manifest], the
// file of aclwasm run --manifest). NAME.json is read for one more release,
// with a warning in the log once per plugin.
type Sidecar struct {
	DeviceMemory     *uint64  `json:"device_memory,omitempty"` // bytes
	PinnedMemory     *uint64  `json:"pinned_memory,omitempty"` // bytes
	MaxAllocations   *int     `json:"max_allocations,omitempty"`
	MaxRegistrations *int     `json:"max_registrations,omitempty"`
	MaxStreams       *int     `json:"max_streams,omitempty"`
	MaxEvents        *int     `json:"max_events,omitempty"`
	MaxQueued        *int     `json:"max_queued,omitempty"`
	MaxBatchEntries  *int     `json:"max_batch_entries,omitempty"`
	MemoryPages      *uint32  `json:"memory_pages,omitempty"`
	Timeout          string   `json:"timeout,omitempty"` // a Go duration: "500ms", "2s"
	Devices          []int32  `json:"devices,omitempty"`
	Allow            []string `json:"allow,omitempty"`
	Deny             []string `json:"deny,omitempty"`
	// MaxConcurrent overrides the server's limit of runs at once.
	MaxConcurrent *int `json:"max_concurrent,omitempty"`
	// Export is the export a reactor's requests call (default "handle").
	Export string `json:"export,omitempty"`
	// Args follow the plugin's name in its argv.
	Args []string `json:"args,omitempty"`
	// Env are KEY=VALUE pairs added to the server's.
	Env []string `json:"env,omitempty"`
}

// apply returns base with the sidecar's overrides, or an error naming the
// first field out of range.
func (sc *Sidecar) apply(base host.Policy, maxConc int) (host.Policy, int, error) {
	p := base
	pos := func(field string, v *int, dst *int) error {
		if v == nil {
			return nil
		}
		if *v < 1 {
			return fmt.Errorf("%s %d: want at least 1", field, *v)
		}
		*dst = *v
		return nil
	}
	for _, f := range []struct {
		name string
		v    *int
		dst  *int
	}{
		{"max_allocations", sc.MaxAllocations, &p.MaxAllocations},
		{"max_registrations", sc.MaxRegistrations, &p.MaxRegistrations},
		{"max_streams", sc.MaxStreams, &p.MaxStreams},
		{"max_events", sc.MaxEvents, &p.MaxEvents},
		{"max_queued", sc.MaxQueued, &p.MaxQueued},
		{"max_batch_entries", sc.MaxBatchEntries, &p.MaxBatchEntries},
		{"max_concurrent", sc.MaxConcurrent, &maxConc},
	} {
		if err := pos(f.name, f.v, f.dst); err != nil {
			return p, 0, err
		}
	}
	for _, f := range []struct {
		name string
		v    *uint64
		dst  *uint64
	}{{"device_memory", sc.DeviceMemory, &p.DeviceMemory}, {"pinned_memory", sc.PinnedMemory, &p.PinnedMemory}} {
		if f.v != nil {
			if *f.v == 0 {
				return p, 0, fmt.Errorf("%s 0: want more than 0", f.name)
			}
			*f.dst = *f.v
		}
	}
	if sc.MemoryPages != nil {
		if *sc.MemoryPages == 0 {
			return p, 0, errors.New("memory_pages 0: want at least 1")
		}
		p.MemoryPages = *sc.MemoryPages
	}
	if sc.Timeout != "" {
		d, err := time.ParseDuration(sc.Timeout)
		if err != nil || d <= 0 {
			return p, 0, fmt.Errorf("timeout %q: want a positive duration such as 500ms or 2s", sc.Timeout)
		}
		p.Timeout = d
	}
	if sc.Devices != nil {
		p.Devices = sc.Devices
	}
	if sc.Allow != nil {
		p.Allow = sc.Allow
	}
	if sc.Deny != nil {
		p.Deny = append(append([]string(nil), base.Deny...), sc.Deny...)
	}
	for _, kv := range sc.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return p, 0, fmt.Errorf("env %q: want KEY=VALUE with a nonempty KEY", kv)
		}
	}
	return p, maxConc, nil
}

// stamp identifies what is on disk for one plugin: a change of any of its
// files' size or modification time is a new version, and so is a source's
// new digest (a moved tag).
type stamp struct {
	wasm, yaml, json fileStamp
	source           string // the oci:// reference of a plugin pulled from a registry, else ""
	digest           string // the manifest digest source resolved to at the scan
	problem          string // why the source cannot be used (its file, its resolution)
}

// fileStamp is one file's size and modification time; the zero value is
// a file that is not there.
type fileStamp struct {
	size int64
	mod  time.Time
	id   uint64 // the file's inode where there are inodes: an atomic replacement is a new one
	ok   bool
}

// statFile stamps the file at path; anything there counts (a directory
// in a manifest's place is an error to report, not a missing manifest).
// stampOf is fi's stamp. The inode tells a file written again with the
// same size within the file system's timestamp granularity (a coarse
// clock tick) from the one before it, when it was replaced by a rename.
func stampOf(fi os.FileInfo) fileStamp {
	return fileStamp{size: fi.Size(), mod: fi.ModTime(), id: fileID(fi), ok: true}
}

func statFile(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return stampOf(fi)
}

// version is one loaded version of a plugin. Requests hold it (refs) while
// they run; a reload retires it, and it closes its [host.Plugin] when the
// last request holding it ends.
type version struct {
	name  string
	stamp stamp
	// digest is the version: "sha256:" and the hex SHA-256 of the
	// module's bytes followed by its manifest's (or sidecar's), if any;
	// module is the module's alone (what module.sha256 pins).
	digest, module string
	pl             *host.Plugin
	fail           *apiError // why the version cannot run (pl is nil), without the directory's path
	detail         error     // the full error behind fail, for the log only
	policy         host.Policy
	argv0          string // the manifest's name, or the plugin's
	args           []string
	once           sync.Once // makes argvAll and digestHdr
	argvAll        []string  // argv0 and args (argv)
	digestHdr      []string  // {digest}, the value of X-Aclwasm-Plugin-Version (setShared)
	env            []string
	vars           map[string]string // the manifest's config
	export         string            // a reactor's export; "" for a command
	sem            chan struct{}     // runs at once
	// pool keeps a reactor's instances between requests when it reuses
	// them (reuse.go), logs routes their records to the request each
	// runs; both nil when every request gets a fresh instance.
	pool *host.Pool
	logs *logRouter
	// mem is its share of the guest memory budget (memory.go); nil
	// without one.
	mem *memShare
	// ahead is a command's runs made ahead (prepare.go); nil for a
	// reactor, or where the server prepares none.
	ahead *ahead
	// source is the oci:// reference of a plugin pulled from a registry,
	// sourceDigest the manifest digest this version is.
	source, sourceDigest string
	// transient: the version failed for a download that may pass later
	// (the registry, the network), so the next scan tries it again
	// although its stamp is the same.
	transient bool

	mu      sync.Mutex
	refs    int
	retired bool
	closed  func() // called once pl is closed

	seriesOnce sync.Once
	series     *pluginSeries // its requests' metrics (seriesOf)
}

// seriesOf returns the series of v's requests in m (nil without metrics),
// looked up at its first request.
func (v *version) seriesOf(m *serverMetrics) *pluginSeries {
	v.seriesOnce.Do(func() { v.series = m.forPlugin(v.name) })
	return v.series
}

// argv is the guest's argv: argv0 and args, made once, shared by the
// version's runs (nothing changes a Config's Args).
func (v *version) argv() []string {
	v.made()
	return v.argvAll
}

// made makes what the version's requests share, once it is set up.
func (v *version) made() {
	v.once.Do(func() {
		v.argvAll = append([]string{v.argv0}, v.args...)
		v.digestHdr = []string{v.digest}
	})
}

func (v *version) acquire() {
	v.mu.Lock()
	v.refs++
	v.mu.Unlock()
}

func (v *version) release() {
	v.mu.Lock()
	v.refs--
	last := v.retired && v.refs == 0
	v.mu.Unlock()
	if last {
		v.close()
	}
}

// retire marks the version replaced: it closes now if nothing holds it,
// or when the last request holding it ends.
func (v *version) retire() {
	v.mu.Lock()
	v.retired = true
	last := v.refs == 0
	v.mu.Unlock()
	if last {
		v.close()
	}
}

// close releases the kept instances (no request holds the version, so
// none is in use), then the plugin.
func (v *version) close() {
	if v.pool != nil {
		_ = v.pool.Close(context.Background())
	}
	if v.pl != nil {
		_ = v.pl.Close(context.Background())
		v.closed()
	}
	v.mem.close()
}

// inFlight is how many requests hold the version.
func (v *version) inFlight() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.refs
}

// scan lists the directory's plugins by name with what is on disk: each
// NAME.wasm, and each NAME.yaml without one whose source is an oci://
// reference (readSource).
func scan(dir string) (map[string]stamp, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]stamp{}
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && e.Type().IsRegular() {
			if _, err := os.Stat(filepath.Join(dir, name+".wasm")); err == nil {
				continue // NAME.wasm's manifest: a source in it is an unknown field there
			}
			p := filepath.Join(dir, e.Name())
			if ref, problem := readSource(p); ref != "" || problem != "" {
				out[name] = stamp{yaml: statFile(p), source: ref, problem: problem}
			}
			continue
		}
		name, ok := strings.CutSuffix(e.Name(), ".wasm")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		out[name] = stamp{wasm: stampOf(fi),
			yaml: statFile(filepath.Join(dir, name+".yaml")), json: statFile(filepath.Join(dir, name+".json"))}
	}
	return out, nil
}

// newVersion is the version of plugin name with stamp st, before its
// files are read.
func (s *Server) newVersion(name string, st stamp) *version {
	v := &version{name: name, stamp: st, policy: s.cfg.Policy, argv0: name, env: s.cfg.Env, closed: func() { s.open.Add(-1) }}
	if st.source != "" || st.problem != "" {
		v.source, v.sourceDigest = st.source, st.digest
	}
	return v
}

// downloaded is a source plugin's download: its module, the manifest it
// runs with (nil for none) and that manifest's name for messages.
type downloaded struct {
	wasm, manifest []byte
	manName        string
}

// download fetches the module of source plugin name (fetchSource), or
// returns the version that carries why it cannot.
func (s *Server) download(ctx context.Context, name string, st stamp) (*downloaded, *version) {
	if !validName.MatchString(name) {
		return nil, nil // load refuses the name
	}
	v := s.newVersion(name, st)
	var d downloaded
	var fail *apiError
	d.wasm, d.manifest, d.manName, fail, v.detail = s.fetchSource(ctx, name, st)
	if fail != nil {
		v.fail = fail
		v.transient = v.detail != nil && !errors.Is(v.detail, ociplugin.ErrRefused) && !errors.Is(v.detail, fs.ErrNotExist)
		return nil, v
	}
	return &d, nil
}

// load builds the version of plugin name that is on disk now, or, for a
// source plugin, of src, its download. A version that cannot run carries
// the reason (fail) instead of a plugin.
func (s *Server) load(ctx context.Context, name string, st stamp, src *downloaded) *version {
	v := s.newVersion(name, st)
	conc := s.cfg.MaxConcurrent
	export := "handle"
	var reuse *bool // the manifest's serve.reuse_instances
	invalid := func(format string, args ...any) *version {
		v.fail = &apiError{status: http.StatusInternalServerError, Code: "plugin_invalid", Message: fmt.Sprintf(format, args...)}
		return v
	}
	if !validName.MatchString(name) {
		return invalid("plugin name %q: want letters, digits, '.', '_' or '-' (at most 128), starting with a letter or digit", name)
	}
	var wasm, manifest []byte
	manName := name + ".yaml" // for messages
	if (st.source != "" || st.problem != "") && src == nil {
		return invalid("plugin %q: its source was not downloaded", name) // loadOne downloads it first
	}
	if src != nil {
		wasm, manifest, manName = src.wasm, src.manifest, src.manName
	} else {
		var err error
		if wasm, err = os.ReadFile(filepath.Join(s.cfg.Dir, name+".wasm")); err != nil {
			v.detail = err
			return invalid("read %s.wasm: %s", name, pathless(err))
		}
		if st.yaml.ok && !st.json.ok {
			if manifest, err = os.ReadFile(filepath.Join(s.cfg.Dir, name+".yaml")); err != nil {
				v.detail = err
				return invalid("read %s.yaml: %s", name, pathless(err))
			}
		}
	}
	h := sha256.New()
	h.Write(wasm)
	var problems []string // the module's, found before it is compiled
	switch {
	case st.source == "" && st.yaml.ok && st.json.ok:
		return invalid("both %s.yaml and %s.json: the JSON sidecar is deprecated, remove it", name, name)
	case manifest != nil:
		raw := manifest
		h.Write(raw)
		m, err := host.ParseManifest(raw)
		if err != nil {
			return invalid("%s: %v", manName, err)
		}
		// A source's module is the artifact's layer, whatever path its
		// manifest was written with.
		if st.source == "" && filepath.Clean(m.Path) != name+".wasm" {
			return invalid("%s.yaml: module.path %q: the server loads the module next to its manifest, want %q", name, m.Path, name+".wasm")
		}
		if m.SHA256 != "" {
			if got := sha256.Sum256(wasm); hex.EncodeToString(got[:]) != m.SHA256 {
				problems = append(problems, fmt.Sprintf("module.sha256: %s.wasm has sha256 %x, the manifest expects %s", name, got, m.SHA256))
			}
		}
		// Mounts give the plugin directories of this host: an artifact's
		// manifest (from a registry) may not choose them; a manifest of
		// Dir names them relative to Dir.
		if len(m.Policy.Mounts) > 0 && st.source != "" && manName != name+".yaml" {
			return invalid("%s: policy.mounts: a plugin pulled from a registry cannot mount directories of the server's host (the server's --mount can)", manName)
		}
		for i, mt := range m.Policy.Mounts {
			if !filepath.IsAbs(mt.HostDir) {
				m.Policy.Mounts[i].HostDir = filepath.Join(s.cfg.Dir, mt.HostDir)
			}
		}
		// Models are files of this host too, named as mounts are.
		if len(m.Policy.Models) > 0 && st.source != "" && manName != name+".yaml" {
			return invalid("%s: policy.models: a plugin pulled from a registry cannot approve files of the server's host as models (a manifest NAME.yaml next to it can)", manName)
		}
		for n, file := range m.Policy.Models {
			if !filepath.IsAbs(file) {
				m.Policy.Models[n] = filepath.Join(s.cfg.Dir, file)
			}
		}
		if v.policy, err = mergePolicy(s.cfg.Policy, m.Policy, raw); err != nil {
			return invalid("%s: %v", manName, err)
		}
		if m.Serve.MaxConcurrent > 0 {
			conc = m.Serve.MaxConcurrent
		}
		if m.Serve.Export != "" {
			export = m.Serve.Export
		}
		reuse = m.Serve.ReuseInstances
		mc := m.Config()
		v.argv0, v.args, v.vars = m.Name, m.Args, mc.Vars
		v.env = append(append([]string(nil), s.cfg.Env...), mc.Env...)
	case st.json.ok:
		s.deprecated(name)
		raw, err := os.ReadFile(filepath.Join(s.cfg.Dir, name+".json"))
		if err != nil {
			v.detail = err
			return invalid("read %s.json: %s", name, pathless(err))
		}
		h.Write(raw)
		var sc Sidecar
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			return invalid("%s.json: %v", name, err)
		}
		if v.policy, conc, err = sc.apply(s.cfg.Policy, conc); err != nil {
			return invalid("%s.json: %v", name, err)
		}
		v.args = sc.Args
		if sc.Export != "" {
			export = sc.Export
		}
		v.env = append(append([]string(nil), s.cfg.Env...), sc.Env...)
	}
	v.digest = "sha256:" + hex.EncodeToString(h.Sum(nil))
	mod := sha256.Sum256(wasm)
	v.module = "sha256:" + hex.EncodeToString(mod[:])
	v.sem = make(chan struct{}, conc)
	if problems != nil {
		v.fail = &apiError{status: http.StatusUnprocessableEntity, Code: "load_refused", Message: "the module was refused at load time", Problems: problems}
		return v
	}
	pl, err := s.cfg.Runtime.Load(ctx, wasm, v.policy, host.LoadName(name))
	var le *host.LoadError
	switch {
	case errors.As(err, &le):
		v.fail = &apiError{status: http.StatusUnprocessableEntity, Code: "load_refused", Message: "the module was refused at load time", Problems: le.Problems}
		return v
	case err != nil: // the policy itself (a manifest's device map, ...)
		v.detail = err
		return invalid("load: %s", s.scrub(err.Error()))
	}
	exports := pl.Exports()
	switch {
	case slices.Contains(exports, "_start") && reuse != nil && *reuse:
		// _start runs once per instance: a kept command has nothing left
		// to call. (The server's default, Config.ReuseInstances, is for
		// reactors, and leaves commands fresh.)
		_ = pl.Close(ctx)
		v.fail = &apiError{status: http.StatusUnprocessableEntity, Code: "load_refused", Message: "the module was refused at load time",
			Problems: []string{manName + ": serve.reuse_instances: the module is a command (it exports _start, which runs once per instance): only a reactor's instances can be kept between requests"}}
		return v
	case !slices.Contains(exports, "_start"):
		if !slices.Contains(exports, export) {
			_ = pl.Close(ctx)
			v.fail = &apiError{status: http.StatusUnprocessableEntity, Code: "not_servable",
				Message: fmt.Sprintf("the module exports neither _start (a command: stdin in, stdout out) nor %s (a reactor: bytes in, bytes out, module aclwasm)", export)}
			return v
		}
		v.export = export
		if s.reuses(reuse) {
			if err := s.newPool(v, pl); err != nil { // Size is cap(sem), at least 1: a bug
				_ = pl.Close(ctx)
				v.detail = err
				return invalid("load: %s", err)
			}
		}
	}
	s.open.Add(1)
	v.pl = pl
	v.mem = s.mem.use(v)
	if v.export == "" {
		v.ahead = s.newAhead()
		v.mem.prepares(v.ahead)
	}
	return v
}

// mergePolicy is base with the fields that manifest raw sets taken from
// m (host.ParseManifest decoded it): a manifest's policy overrides the
// server's defaults field by field, as the JSON sidecar's did. Its deny
// list adds to the server's, which a plugin cannot lift.
func mergePolicy(base, m host.Policy, raw []byte) (host.Policy, error) {
	var keys struct {
		Policy map[string]yaml.Node `yaml:"policy"`
	}
	if err := yaml.Unmarshal(raw, &keys); err != nil {
		return base, err
	}
	p := base
	pv, mv := reflect.ValueOf(&p).Elem(), reflect.ValueOf(m)
	for i := 0; i < pv.NumField(); i++ {
		key := snake(pv.Type().Field(i).Name)
		if _, ok := keys.Policy[key]; !ok {
			continue
		}
		if key == "deny" {
			p.Deny = append(append([]string(nil), base.Deny...), m.Deny...)
			continue
		}
		pv.Field(i).Set(mv.Field(i))
	}
	return p, nil
}

// snake writes a Go field name in snake_case, as a manifest's policy keys
// are written: MaxBatchEntries is max_batch_entries.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// deprecated logs, once per plugin, that its JSON sidecar is deprecated.
func (s *Server) deprecated(name string) {
	s.mu.Lock()
	seen := s.warnedJSON[name]
	s.warnedJSON[name] = true
	s.mu.Unlock()
	if !seen {
		s.log.Warn("deprecated: the JSON sidecar "+name+".json is read for one more release; write the manifest "+name+".yaml instead (the file of aclwasm run --manifest)",
			"plugin", name)
	}
}

// ReloadReport is what one reload changed, by plugin name.
type ReloadReport struct {
	Added   []string `json:"added"`
	Changed []string `json:"changed"`
	Removed []string `json:"removed"`
	// Loading are the plugins whose load was still under way when the
	// reload returned (started by an earlier reload, or not done when its
	// context ended): each is swapped in when it is ready.
	Loading []string `json:"loading,omitempty"`
}

// errClosing is Reload's error once Shutdown has begun.
var errClosing = errors.New("serve: reload: the server is shutting down")

// Reload loads the plugins that are new or changed on disk, and removes
// those whose module is gone. Plugins load in parallel (GOMAXPROCS at
// once, two at least), and each new version is swapped in as soon as it is
// ready, so that one slow compilation delays no other plugin; until then
// the version before it serves. A plugin that is already loading is not
// loaded again until that load ends (a later reload picks up what changed
// meanwhile). Requests in flight finish on the version they started on;
// each replaced version is closed when its last request ends. A changed
// plugin that no longer loads (its manifest, its module) leaves its last
// good version serving, with the failure in the log, in GET /v1/plugins
// (state "stale") and in the metrics, until its files change again; a
// plugin without a good version answers with its failure. Reload returns once the loads it started are done, or
// ctx is (those not done are in Loading).
func (s *Server) Reload(ctx context.Context) (ReloadReport, error) {
	rep, started, err := s.startReload(true)
	if err != nil {
		return rep, err
	}
	for _, l := range started {
		select {
		case <-l.done:
		case <-ctx.Done():
			rep.Loading = append(rep.Loading, l.name)
		}
	}
	sort.Strings(rep.Loading)
	return rep, nil
}

// load is one plugin's load under way.
type load struct {
	name    string
	st      stamp
	changed bool
	dropped bool // guarded by Server.mu: the plugin was removed meanwhile
	done    chan struct{}
}

// startReload scans the directory, removes the plugins that are gone and
// starts a load of each new or changed one: the directory's own plugins
// first, then, once their tags are resolved, the sources, so that a
// registry slow to answer delays no plugin of the directory. A source
// whose last try failed for the network or the registry is tried again
// once its backoff has passed, or at once with force (a Reload asked
// for).
func (s *Server) startReload(force bool) (ReloadReport, []*load, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	var rep ReloadReport
	found, err := scan(s.cfg.Dir)
	s.metrics.reloaded(err)
	if err != nil {
		return rep, nil, fmt.Errorf("serve: reload: %w", err)
	}
	s.sourceStamps(found)
	isSource := func(st stamp) bool { return st.source != "" || st.problem != "" }
	started, err := s.startLoads(&rep, found, func(st stamp) bool { return !isSource(st) }, false, force)
	if err == nil {
		s.resolveSources(found, force)
		var more []*load
		more, err = s.startLoads(&rep, found, isSource, true, force)
		started = append(started, more...)
	}
	// Models whose files changed are compiled again now, not at the next
	// request's load (the runtime's cache holds only models some plugin
	// loaded).
	if done, merr := s.cfg.Runtime.RefreshModels(); len(done) > 0 || merr != nil {
		s.log.Info("models compiled again: their files changed", "models", len(done), "error", merr)
	}
	sort.Strings(rep.Added)
	sort.Strings(rep.Changed)
	sort.Strings(rep.Removed)
	sort.Strings(rep.Loading)
	return rep, started, err
}

// startLoads starts a load of each plugin of found that which selects
// and that is new or changed, adding them to rep; with last, it also
// removes the plugins that are not in found.
func (s *Server) startLoads(rep *ReloadReport, found map[string]stamp, which func(stamp) bool, last, force bool) ([]*load, error) {
	var started []*load
	var retired []*version
	now := time.Now()
	s.mu.Lock()
	if s.draining {
		s.mu.Unlock()
		return nil, errClosing
	}
	for name, st := range found {
		if !which(st) {
			continue
		}
		old, ok := s.plugins[name]
		if ok && old.stamp == st && !old.transient {
			if s.failed[name] != nil { // the files that failed were put back as they were
				delete(s.failed, name)
				s.metrics.pluginState(name, old.state())
			}
			continue
		}
		if ok && s.failed[name] != nil && s.failed[name].stamp == st && !s.failed[name].transient {
			continue // the files that failed to load are still there
		}
		if ok && !force && s.backingOff(name, now) != nil && (old.stamp == st || s.failed[name] != nil && s.failed[name].stamp == st) {
			continue // the same download failed: tried again after its backoff
		}
		if s.loading[name] != nil {
			rep.Loading = append(rep.Loading, name)
			continue
		}
		l := &load{name: name, st: st, changed: ok, done: make(chan struct{})}
		s.loading[name] = l
		started = append(started, l)
		if ok {
			rep.Changed = append(rep.Changed, name)
		} else {
			rep.Added = append(rep.Added, name)
		}
	}
	for name, v := range s.plugins {
		if _, ok := found[name]; last && !ok {
			rep.Removed = append(rep.Removed, name)
			retired = append(retired, v)
			delete(s.plugins, name)
			delete(s.failed, name)
			delete(s.sourceErr, name)
			delete(s.retries, name)
			s.metrics.pluginState(name, "")
		}
	}
	for name, l := range s.loading {
		if _, ok := found[name]; last && !ok {
			l.dropped = true // gone from disk while it loads: it must not come back
		}
	}
	s.loads.Add(len(started)) // under mu, with closing false: Shutdown waits for these
	s.mu.Unlock()
	for _, v := range retired {
		s.log.Info("plugin removed", "plugin", v.name)
		v.retire()
	}
	for _, l := range started {
		go s.loadOne(l)
	}
	return started, nil
}

// loadOne downloads a source plugin in one of the download slots, then
// compiles the plugin in one of the load slots, and swaps it in, unless
// the server closed or the plugin was removed meanwhile. The slots are
// apart, so that downloads from slow registries delay no compilation.
func (s *Server) loadOne(l *load) {
	defer s.loads.Done()
	defer close(l.done)
	var v *version
	var src *downloaded
	switch {
	case l.st.problem != "": // nothing to download: it fails at once
		src, v = s.download(s.loadCtx, l.name, l.st)
	case l.st.source != "":
		select {
		case s.fetchSlots <- struct{}{}:
			src, v = s.download(s.loadCtx, l.name, l.st)
			<-s.fetchSlots
		case <-s.loadCtx.Done(): // Shutdown: retired below
			v = s.newVersion(l.name, l.st)
			v.fail = &apiError{status: http.StatusServiceUnavailable, Code: "shutting_down", Message: "the server is shutting down"}
		}
	}
	if v == nil {
		s.loadSlots <- struct{}{}
		if s.cfg.testHookLoad != nil {
			s.cfg.testHookLoad(l.name)
		}
		v = s.load(s.loadCtx, l.name, l.st, src)
		<-s.loadSlots
	}
	s.mu.Lock()
	delete(s.loading, l.name)
	if l.st.source != "" && l.st.problem == "" && !s.draining && !l.dropped {
		if v.transient {
			s.sourceFailed(l.name, stageDownload, "", v.detail)
		} else {
			delete(s.retries, l.name) // it downloaded, or will never: no backoff
		}
	}
	if s.draining || l.dropped {
		s.mu.Unlock()
		s.log.Debug("plugin load dropped: the server closed or the plugin was removed meanwhile", "plugin", l.name)
		v.retire()
		return
	}
	old := s.plugins[l.name]
	if v.fail != nil {
		s.metrics.loadFailed(l.name)
	} else {
		s.metrics.loaded(l.name)
	}
	if v.fail != nil && old != nil && old.fail == nil {
		// The last good version keeps serving; the failure is shown
		// (GET /v1/plugins, the state metric) until the files change.
		s.failed[l.name] = &failedLoad{stamp: l.st, digest: v.digest, fail: v.fail, transient: v.transient}
		s.metrics.pluginState(l.name, "stale")
		s.mu.Unlock()
		s.logLoad(v, l.changed, old)
		v.retire()
		return
	}
	delete(s.failed, l.name)
	s.plugins[l.name] = v
	s.metrics.pluginState(l.name, v.state())
	s.mu.Unlock()
	s.logLoad(v, l.changed, nil)
	if old != nil {
		old.retire()
	}
}

// failedLoad is a plugin's newer files that failed to load while its last
// good version serves.
type failedLoad struct {
	stamp     stamp
	digest    string
	fail      *apiError
	transient bool // a download that failed: tried again at the next scan
}

// state is how GET /v1/plugins and the state metric describe the version:
// "ready", or "refused" (the module) or "invalid" (its files).
func (v *version) state() string {
	switch {
	case v.fail == nil:
		return "ready"
	case v.fail.status == http.StatusInternalServerError:
		return "invalid"
	}
	return "refused"
}

// pathless is err's message without the file's path, for clients (the
// log keeps the path).
func pathless(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// scrub removes the plugin directory's path from a message for clients.
func (s *Server) scrub(msg string) string {
	for _, d := range []string{s.cfg.Dir, filepath.Clean(s.cfg.Dir)} {
		if abs, err := filepath.Abs(d); err == nil && abs != "/" {
			msg = strings.ReplaceAll(msg, abs, "<plugin dir>")
		}
		if d != "" && d != "." && d != "/" {
			msg = strings.ReplaceAll(msg, d, "<plugin dir>")
		}
	}
	return msg
}

// logLoad logs a load's result; kept is the version that serves on when
// the load failed, or nil.
func (s *Server) logLoad(v *version, changed bool, kept *version) {
	what := "plugin loaded"
	if changed {
		what = "plugin reloaded"
	}
	if v.fail != nil {
		attrs := []any{"plugin", v.name, "version", v.digest, "code", v.fail.Code, "error", v.fail.Message, "problems", v.fail.Problems}
		if v.detail != nil {
			attrs = append(attrs, "detail", v.detail.Error())
		}
		if kept != nil {
			s.log.Warn("plugin reload failed: the last good version serves on", append(attrs, "serving", kept.digest)...)
			return
		}
		s.log.Warn(what+" but cannot run", attrs...)
		return
	}
	kind := "command"
	if v.export != "" {
		kind = "reactor, export " + v.export
	}
	s.log.Info(what, "plugin", v.name, "version", v.digest, "kind", kind, "max_concurrent", cap(v.sem), "timeout", v.policy.Timeout,
		"reuse_instances", v.pool != nil)
}

// poll reloads every interval until stop is closed.
func (s *Server) poll(interval time.Duration, stop <-chan struct{}) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			// Not waiting for the loads: the next tick picks up other
			// plugins' changes while a slow one still compiles.
			if _, _, err := s.startReload(false); err != nil && !errors.Is(err, errClosing) {
				s.log.Error("reload", "error", err)
			}
		}
	}
}
