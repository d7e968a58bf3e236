package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin"
)

// OCIConfig configures the plugins pulled from OCI registries
// (Config.Sources, and a NAME.yaml whose source is an oci:// reference).
type OCIConfig struct {
	// CacheDir keeps what was pulled by digest, so that a digest is
	// fetched once, across restarts too; "" keeps nothing on disk.
	CacheDir string
	// PlainHTTP talks plain HTTP to every registry; without it, only to
	// loopback ones (localhost, 127.0.0.0/8, ::1), HTTPS to the others.
	PlainHTTP bool
	// ResolveTimeout bounds the resolution of one tag at each scan; a tag
	// that does not resolve in time keeps its last digest. Default 10s.
	ResolveTimeout time.Duration
	// FetchTimeout bounds the download of one version (its manifest and
	// layers) in all. Default 5 minutes.
	FetchTimeout time.Duration
	// ProgressTimeout is the progress deadline of each request to a
	// registry: one that does not answer, or sends less than 64 KiB (or
	// the rest of its blob) in a window this long, fails then, so that
	// a registry that stops sending, or trickles, frees its download
	// slot long before FetchTimeout. Default 30s
	// (ociplugin.DefaultProgressTimeout).
	ProgressTimeout time.Duration
	// MaxDownloads bounds the downloads at once. Downloads have slots of
	// their own, apart from the compilations': slow registries hold
	// these, and a plugin of the directory, or a source already
	// downloaded, still compiles at once. Default 4.
	MaxDownloads int
	// RetryBackoff and RetryBackoffMax space the tries of a source that
	// failed (its tag does not resolve, or its download fails for the
	// network or the registry): the polls leave it alone for
	// RetryBackoff after its first failure, twice that after its second,
	// and so on up to RetryBackoffMax; a success resets it. A Reload
	// asked for (Server.Reload, the admin endpoint) tries at once.
	// Defaults 10s and 5 minutes.
	RetryBackoff, RetryBackoffMax time.Duration
}

// defaults fills in the unset fields, and checks the others.
func (c *OCIConfig) defaults() error {
	if c.ResolveTimeout < 0 || c.FetchTimeout < 0 || c.ProgressTimeout < 0 || c.MaxDownloads < 0 || c.RetryBackoff < 0 || c.RetryBackoffMax < 0 {
		return errors.New("serve: negative Config.OCI limit")
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&c.ResolveTimeout, 10 * time.Second},
		{&c.FetchTimeout, 5 * time.Minute},
		{&c.ProgressTimeout, ociplugin.DefaultProgressTimeout},
		{&c.RetryBackoff, 10 * time.Second},
		{&c.RetryBackoffMax, 5 * time.Minute},
	} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.MaxDownloads == 0 {
		c.MaxDownloads = 4
	}
	c.RetryBackoffMax = max(c.RetryBackoffMax, c.RetryBackoff)
	return nil
}

// Stages of a source's failure (retry.stage).
const (
	stageResolve  = "resolve"
	stageDownload = "download"
)

// retry is the backoff of a source that failed: the polls neither
// resolve nor download it again before after.
type retry struct {
	failures int
	after    time.Time
	stage    string // stageResolve or stageDownload: what failed last
	msg      string // the resolution's failure, the stamp's problem while it is not tried
}

// RetryInfo is a source's backoff in GET /v1/plugins: how many tries in a
// row failed, and when the polls try again.
type RetryInfo struct {
	Failures int       `json:"failures"`
	After    time.Time `json:"after"`
	Stage    string    `json:"stage"` // "resolve" (the tag) or "download"
}

// backoff is the wait after failures failures in a row: base, doubled
// with each further failure, at most most.
func backoff(failures int, base, most time.Duration) time.Duration {
	d := base
	for i := 1; i < failures && d < most; i++ {
		if d > most/2 {
			return most
		}
		d *= 2
	}
	return min(d, most)
}

// sourceFailed counts a failure of plugin name's source at stage, and
// logs when the polls try it again. Called with s.mu held.
func (s *Server) sourceFailed(name, stage, msg string, err error) {
	r := s.retries[name]
	if r == nil {
		r = &retry{}
		s.retries[name] = r
	}
	r.failures++
	wait := backoff(r.failures, s.cfg.OCI.RetryBackoff, s.cfg.OCI.RetryBackoffMax)
	r.after, r.stage, r.msg = time.Now().Add(wait), stage, msg
	s.log.Warn("plugin source failed: the polls try it again after a backoff", "plugin", name, "stage", stage, "failures", r.failures,
		"retry_in", wait, "error", err)
}

// backingOff says whether the polls leave plugin name's source alone
// now. Called with s.mu held.
func (s *Server) backingOff(name string, now time.Time) *retry {
	if r := s.retries[name]; r != nil && now.Before(r.after) {
		return r
	}
	return nil
}

// retryInfo is plugin name's backoff for GET /v1/plugins, nil if none.
// Called with s.mu held.
func (s *Server) retryInfo(name string) *RetryInfo {
	r := s.retries[name]
	if r == nil {
		return nil
	}
	return &RetryInfo{Failures: r.failures, After: r.after.UTC(), Stage: r.stage}
}

// maxSourceFile bounds a NAME.yaml read at each scan to find its source.
const maxSourceFile = 1 << 20

// readSource returns the source of the NAME.yaml at path: the oci://
// reference of its top-level key source, "" if it has none (a manifest
// of NAME.wasm, or no plugin at all), or a problem that makes the plugin
// invalid.
func readSource(path string) (ref string, problem string) {
	f, err := os.Open(path)
	if err != nil {
		return "", "read " + filepath.Base(path) + ": " + pathless(err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxSourceFile+1))
	if err != nil {
		return "", "read " + filepath.Base(path) + ": " + pathless(err)
	}
	if len(raw) > maxSourceFile {
		return "", fmt.Sprintf("%s: more than %d bytes", filepath.Base(path), maxSourceFile)
	}
	var top struct {
		Source yaml.Node `yaml:"source"`
	}
	if err := yaml.Unmarshal(raw, &top); err != nil || top.Source.Kind == 0 {
		return "", "" // not a source: parsed, and reported, as a manifest if NAME.wasm is there
	}
	if top.Source.Kind != yaml.ScalarNode {
		return "", fmt.Sprintf("%s: source (line %d): want an oci:// reference", filepath.Base(path), top.Source.Line)
	}
	if _, err := ociplugin.ParseRef(top.Source.Value); err != nil {
		return "", fmt.Sprintf("%s: source (line %d): %v", filepath.Base(path), top.Source.Line, err)
	}
	return top.Source.Value, ""
}

// localManifest is the manifest part of a source's NAME.yaml: nil when
// the file has nothing but its source (the artifact's own manifest then
// applies), else the file without its source key, with name (the
// plugin's) and module.path (NAME.wasm) added when absent, since the
// module is the artifact's.
func localManifest(name string, raw []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("want a mapping of the manifest's fields")
	}
	m := doc.Content[0]
	var kept []*yaml.Node
	has := map[string]*yaml.Node{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "source" {
			continue
		}
		has[m.Content[i].Value] = m.Content[i+1]
		kept = append(kept, m.Content[i], m.Content[i+1])
	}
	if len(kept) == 0 {
		return nil, nil
	}
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	if has["name"] == nil {
		kept = append(kept, str("name"), str(name))
	}
	switch mod := has["module"]; {
	case mod == nil:
		kept = append(kept, str("module"), &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str("path"), str(name + ".wasm")}})
	case mod.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(mod.Content); i += 2 {
			if mod.Content[i].Value == "path" {
				return nil, fmt.Errorf("module.path (line %d): the module is the source's; give module.sha256 alone to pin its bytes", mod.Content[i].Line)
			}
		}
		mod.Content = append(mod.Content, str("path"), str(name+".wasm"))
	}
	m.Content = kept
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// resolveSources sets the digest of each source of found: a digest
// reference's own; a tag's as the registry resolves it now, in parallel.
// A tag that does not resolve keeps the digest its plugin has (the last
// good version serves on; the failure is logged once and shown in GET
// /v1/plugins), or, for a plugin without one, makes it invalid; either
// way it is not asked again before its backoff has passed, unless force
// (a Reload asked for).
func (s *Server) resolveSources(found map[string]stamp, force bool) {
	type result struct {
		name    string
		d       digest.Digest
		err     error
		waiting *retry // not asked: its backoff has not passed
	}
	var wg sync.WaitGroup
	results := make(chan result, len(found))
	sem := make(chan struct{}, 8)
	now := time.Now()
	s.mu.RLock()
	waiting := map[string]*retry{}
	for name := range found {
		if r := s.backingOff(name, now); r != nil && r.stage == stageResolve && !force {
			waiting[name] = r
		}
	}
	s.mu.RUnlock()
	for name, st := range found {
		if st.source == "" || st.problem != "" {
			continue
		}
		if r := waiting[name]; r != nil {
			results <- result{name: name, waiting: r}
			continue
		}
		ref, err := ociplugin.ParseRef(st.source)
		if err != nil { // checked when it was read
			st.problem = err.Error()
			found[name] = st
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(s.loadCtx, s.cfg.OCI.ResolveTimeout)
			defer cancel()
			go func() { // Shutdown stops the polls first: do not hold it
				select {
				case <-s.stopPoll:
					cancel()
				case <-ctx.Done():
				}
			}()
			d, err := s.oci.Resolve(ctx, ref)
			results <- result{name: name, d: d, err: err}
		}()
	}
	wg.Wait()
	close(results)
	var rs []result
	for r := range results {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].name < rs[j].name })
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rs {
		st := found[r.name]
		old := s.plugins[r.name]
		serving := old != nil && old.stamp.source == st.source && old.stamp.digest != ""
		if r.waiting != nil { // as at its last failure
			if serving {
				st.digest = old.stamp.digest
			} else {
				st.problem = r.waiting.msg
			}
			found[r.name] = st
			continue
		}
		if r.err == nil {
			st.digest = r.d.String()
			found[r.name] = st
			if s.sourceErr[r.name] != nil {
				delete(s.sourceErr, r.name)
				s.log.Info("plugin source resolves again", "plugin", r.name, "source", st.source, "digest", st.digest)
			}
			if rt := s.retries[r.name]; rt != nil && rt.stage == stageResolve {
				delete(s.retries, r.name)
			}
			continue
		}
		msg := fmt.Sprintf("resolve %s: %v", st.source, r.err)
		s.sourceFailed(r.name, stageResolve, msg, r.err)
		if serving {
			st.digest = old.stamp.digest // the last version resolved serves on
			found[r.name] = st
			if prev := s.sourceErr[r.name]; prev == nil || prev.Message != msg {
				s.sourceErr[r.name] = &apiError{status: http.StatusBadGateway, Code: "source_unavailable", Message: msg}
				s.metrics.loadFailed(r.name)
				s.log.Warn("plugin source does not resolve: the last version resolved serves on", "plugin", r.name, "source", st.source, "serving", old.stamp.digest, "error", r.err)
			}
			continue
		}
		st.problem = msg
		found[r.name] = st
	}
}

// fetchSource returns the module of a source plugin and the manifest it
// runs with (nil for none), and the name of that manifest for messages:
// the file's NAME.yaml when it has more than its source, else the
// artifact's own manifest if it has one.
func (s *Server) fetchSource(ctx context.Context, name string, st stamp) (wasm, manifest []byte, manName string, fail *apiError, detail error) {
	if st.problem != "" {
		return nil, nil, "", &apiError{status: http.StatusInternalServerError, Code: "plugin_invalid", Message: st.problem}, nil
	}
	ref, err := ociplugin.ParseRef(st.source)
	if err != nil {
		return nil, nil, "", &apiError{status: http.StatusInternalServerError, Code: "plugin_invalid", Message: err.Error()}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.OCI.FetchTimeout)
	defer cancel()
	a, err := s.oci.Fetch(ctx, ref, digest.Digest(st.digest))
	switch {
	case errors.Is(err, ociplugin.ErrRefused):
		return nil, nil, "", &apiError{status: http.StatusUnprocessableEntity, Code: "load_refused", Message: "the module was refused at load time", Problems: []string{err.Error()}}, err
	case err != nil:
		return nil, nil, "", &apiError{status: http.StatusInternalServerError, Code: "plugin_invalid", Message: fmt.Sprintf("fetch %s: %v", ref.At(digest.Digest(st.digest)), err)}, err
	}
	manifest, manName = a.Manifest, "the artifact's manifest"
	if st.yaml.ok {
		raw, err := os.ReadFile(filepath.Join(s.cfg.Dir, name+".yaml"))
		if err != nil {
			return nil, nil, "", &apiError{status: http.StatusInternalServerError, Code: "plugin_invalid", Message: fmt.Sprintf("read %s.yaml: %s", name, pathless(err))}, err
		}
		local, err := localManifest(name, raw)
		if err != nil {
			return nil, nil, "", &apiError{status: http.StatusInternalServerError, Code: "plugin_invalid", Message: fmt.Sprintf("%s.yaml: %v", name, err)}, nil
		}
		if local != nil {
			manifest, manName = local, name+".yaml"
		}
	}
	return a.Module, manifest, manName, nil, nil
}

// sourceStamps adds Config.Sources to found, the plugins of the directory:
// a name in both is invalid.
func (s *Server) sourceStamps(found map[string]stamp) {
	names := make([]string, 0, len(s.cfg.Sources))
	for n := range s.cfg.Sources {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		st := stamp{source: s.cfg.Sources[n]}
		if _, dup := found[n]; dup {
			st.problem = fmt.Sprintf("plugin %s is both in the plugin directory and in Config.Sources (--plugin): remove one", n)
		}
		found[n] = st
	}
}

// checkSources checks Config.Sources' names and references.
func checkSources(src map[string]string) error {
	for n, r := range src {
		if !validName.MatchString(n) {
			return fmt.Errorf("serve: Config.Sources: plugin name %q: want letters, digits, '.', '_' or '-' (at most 128), starting with a letter or digit", n)
		}
		if !strings.HasPrefix(r, ociplugin.Scheme) {
			return fmt.Errorf("serve: Config.Sources: %s: %q: want an oci:// reference", n, r)
		}
		if _, err := ociplugin.ParseRef(r); err != nil {
			return fmt.Errorf("serve: Config.Sources: %s: %w", n, err)
		}
	}
	return nil
}

// moduleCap is the largest module a source may have: the server's
// policy's compile limit, checked before the layer is downloaded.
func moduleCap(p host.Policy) int64 {
	if p.MaxModuleBytes == 0 {
		return host.DefaultMaxModuleBytes
	}
	return int64(min(p.MaxModuleBytes, 1<<62))
}
