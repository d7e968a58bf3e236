package serve

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin"
	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

// pusher is a client that publishes plugins to the test's registries.
func pusher(t *testing.T) *ociplugin.Client {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir()) // the user's own credentials stay out of it
	c, err := ociplugin.NewClient(ociplugin.Options{})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// push publishes wasm (and manifest, unless nil) at ref, returning its digest.
func push(t *testing.T, c *ociplugin.Client, ref string, wasm, manifest []byte) string {
	t.Helper()
	r, err := ociplugin.ParseRef(ref)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	d, err := c.Push(ctx, r, wasm, manifest)
	require.NoError(t, err)
	return d.String()
}

// waitFor polls cond every 10ms until it holds or the watchdog ends.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(watchdog); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// TestOCIServeTag: a NAME.yaml whose source is a tag serves the artifact;
// pushing a new version to the same tag hot-reloads it at the next poll,
// and GET /v1/plugins shows the new digest. The artifact's manifest
// applies when the file holds only its source.
func TestOCIServeTag(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	ref := "oci://" + reg.Host + "/plugins/echo:stable"
	d1 := push(t, pc, ref, wat2wasm(t, "echo", ""), []byte("name: echo\nmodule: {path: whatever.wasm}\nserve: {max_concurrent: 3}\n"))
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir, Poll: 20 * time.Millisecond, OCI: OCIConfig{CacheDir: t.TempDir()}})

	r := f.do("POST", "/v1/plugins/echo", "", []byte("hi"))
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:hi", string(r.body))
	pi := f.listed()["echo"]
	require.Equal(t, ref, pi.Source)
	require.Equal(t, d1, pi.Digest)
	require.Equal(t, 3, pi.MaxConcurrent, "the artifact's manifest applies")

	d2 := push(t, pc, ref, echoSaying(t, "ECHO:"), nil)
	require.NotEqual(t, d1, d2)
	waitFor(t, "the new digest to serve", func() bool { return f.listed()["echo"].Digest == d2 })
	r = f.do("POST", "/v1/plugins/echo", "", []byte("hi"))
	require.Equal(t, "ECHO:hi", string(r.body))
	require.Equal(t, "ready", f.listed()["echo"].State)
	require.Equal(t, 16, f.listed()["echo"].MaxConcurrent, "the new artifact has no manifest: the server's default")
}

// TestOCILocalManifest: a NAME.yaml with more than its source is the
// plugin's manifest (name and module.path may be left out; module.sha256
// pins the bytes); the artifact's own manifest is then not used. A
// module.path in it is an error, and so is a bad source.
func TestOCILocalManifest(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	wasm := wat2wasm(t, "echo", "")
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	push(t, pc, ref, wasm, []byte("name: echo\nmodule: {path: echo.wasm}\nserve: {max_concurrent: 3}\n"))
	dir := plugins(t, nil, nil)
	write(t, dir, "local.yaml", "source: "+ref+"\nserve: {max_concurrent: 5}\npolicy: {timeout: 3s}\n")
	write(t, dir, "pinned.yaml", "source: "+ref+"\nmodule: {sha256: "+strings.Repeat("0", 64)+"}\n")
	write(t, dir, "withpath.yaml", "source: "+ref+"\nmodule: {path: x.wasm}\n")
	write(t, dir, "badref.yaml", "source: "+strings.TrimPrefix(ref, "oci://")+"\n")
	write(t, dir, "notaplugin.yaml", "name: x\n") // no source, no module: not a plugin
	f := start(t, Config{Dir: dir})
	ls := f.listed()
	require.Equal(t, 5, ls["local"].MaxConcurrent)
	require.Equal(t, "3s", ls["local"].Timeout)
	require.Equal(t, "echo:x", string(f.do("POST", "/v1/plugins/local", "", []byte("x")).body))
	require.Equal(t, "refused", ls["pinned"].State)
	require.Contains(t, ls["pinned"].Error.Problems[0], "module.sha256")
	require.Equal(t, "invalid", ls["withpath"].State)
	require.Contains(t, ls["withpath"].Error.Message, "module.path")
	require.Equal(t, "invalid", ls["badref"].State)
	require.Contains(t, ls["badref"].Error.Message, "want oci://")
	require.NotContains(t, ls, "notaplugin")
}

// TestOCISources: Config.Sources serve by digest with nothing in the
// directory; a second server over the same cache fetches no blob (the
// on-disk cache by digest), and resolves nothing for a digest.
func TestOCISources(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	d := push(t, pc, "oci://"+reg.Host+"/plugins/upper:v1", wat2wasm(t, "upper", ""), nil)
	ref := "oci://" + reg.Host + "/plugins/upper@" + d
	cache := t.TempDir()
	cfg := Config{Dir: plugins(t, nil, nil), Sources: map[string]string{"upper": ref}, OCI: OCIConfig{CacheDir: cache}}
	f := start(t, cfg)
	r := f.do("POST", "/v1/plugins/upper", "", []byte("abc"))
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "ABC", string(r.body))
	require.NoError(t, f.shutdown(time.Minute))
	blobs, manifests := reg.AllBlobGets(), reg.ManifestRequests()
	require.Equal(t, 1, blobs)

	f = start(t, cfg)
	require.Equal(t, "ABC", string(f.do("POST", "/v1/plugins/upper", "", []byte("abc")).body))
	require.Equal(t, blobs, reg.AllBlobGets(), "the cached blob was fetched again")
	require.Equal(t, manifests, reg.ManifestRequests(), "a digest needs no request once cached")

	// A bad Sources entry is a bad Config; a name in both places is invalid.
	_, err := New(context.Background(), Config{Dir: t.TempDir(), Runtime: f.rt, Sources: map[string]string{"x": "/tmp/x.wasm"}})
	require.ErrorContains(t, err, "want an oci:// reference")
	dir := plugins(t, map[string][]byte{"upper": wat2wasm(t, "upper", "")}, nil)
	g := start(t, Config{Dir: dir, Sources: map[string]string{"upper": ref}})
	require.Contains(t, g.listed()["upper"].Error.Message, "both in the plugin directory and in Config.Sources")
}

// TestOCIDigestMismatch: a registry that serves other bytes for the new
// version's module is refused at the reload (load_refused, naming the
// digest), and the last good version serves on.
func TestOCIDigestMismatch(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	d1 := push(t, pc, ref, wat2wasm(t, "echo", ""), nil)
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir})
	require.Equal(t, d1, f.listed()["echo"].Digest)

	next := echoSaying(t, "NEXT:")
	reg.Corrupt(digest.SHA256.FromBytes(next).String())
	push(t, pc, ref, next, nil)
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"echo"}, rep.Changed)
	pi := f.listed()["echo"]
	require.Equal(t, "stale", pi.State)
	require.Equal(t, "load_refused", pi.Error.Code)
	require.Contains(t, pi.Error.Problems[0], "digest")
	require.Equal(t, d1, pi.Digest)
	require.Equal(t, "echo:x", string(f.do("POST", "/v1/plugins/echo", "", []byte("x")).body))
}

// TestOCIRegistryDown: once the registry is gone, the poll's resolution
// fails; the last good version serves on, the failure is logged once and
// shown in GET /v1/plugins (stale, source_unavailable). A plugin that
// never loaded answers with the failure.
func TestOCIRegistryDown(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	d1 := push(t, pc, ref, wat2wasm(t, "echo", ""), nil)
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	var logs strings.Builder
	var mu sync.Mutex
	f := start(t, Config{Dir: dir, Logger: newTestLogger(&logs, &mu), OCI: OCIConfig{ResolveTimeout: 5 * time.Second}})
	reg.Close()
	pc.CloseIdleConnections()
	for range 3 {
		_, err := f.s.Reload(context.Background())
		require.NoError(t, err)
	}
	pi := f.listed()["echo"]
	require.Equal(t, "stale", pi.State)
	require.Equal(t, "source_unavailable", pi.Error.Code)
	require.Contains(t, pi.Error.Message, "resolve "+ref)
	require.Equal(t, d1, pi.Digest)
	require.Equal(t, "echo:x", string(f.do("POST", "/v1/plugins/echo", "", []byte("x")).body))
	mu.Lock()
	require.Equal(t, 1, strings.Count(logs.String(), "plugin source does not resolve"), "%s", logs.String())
	mu.Unlock()

	// A new plugin from the gone registry has no version to serve.
	write(t, dir, "other.yaml", "source: oci://"+reg.Host+"/plugins/other:v1\n")
	_, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	r := f.do("POST", "/v1/plugins/other", "", nil)
	require.Equal(t, 500, r.status, "%v", r)
	require.Contains(t, r.err(t).Message, "resolve oci://")
}

// TestOCIRefusedBeforeCompile: a module layer over the server's module
// size limit, and a layer that is not wasm, are refused from the
// artifact's manifest: neither blob is downloaded, nothing is compiled.
func TestOCIRefusedBeforeCompile(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	wasm := wat2wasm(t, "echo", "")
	push(t, pc, "oci://"+reg.Host+"/plugins/big:v1", wasm, nil)
	tar := reg.PushLayers(t, "plugins/tar", "v1", ocitest.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar", Data: wasm})
	dir := plugins(t, nil, nil)
	write(t, dir, "big.yaml", "source: oci://"+reg.Host+"/plugins/big:v1\n")
	write(t, dir, "tar.yaml", "source: oci://"+reg.Host+"/plugins/tar:v1\n")
	f := start(t, Config{Dir: dir, Policy: host.Policy{MaxModuleBytes: uint64(len(wasm) - 1)}})
	ls := f.listed()
	require.Equal(t, "refused", ls["big"].State)
	require.Contains(t, ls["big"].Error.Problems[0], "over the limit")
	require.Equal(t, "refused", ls["tar"].State)
	require.Contains(t, ls["tar"].Error.Problems[0], "application/vnd.oci.image.layer.v1.tar")
	require.Zero(t, reg.BlobGets(digest.SHA256.FromBytes(wasm).String()), "a refused layer was downloaded")
	require.Zero(t, reg.BlobGets(tar[0]))
	require.Equal(t, 422, f.do("POST", "/v1/plugins/big", "", nil).status)
}

// TestOCIDocExamples: each NAME.yaml of docs/OCI.md is a source the
// server reads, and its manifest part one that host.ParseManifest takes.
func TestOCIDocExamples(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "OCI.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	require.Len(t, blocks, 2)
	for i, b := range blocks {
		raw := regexp.MustCompile(`(?m)^   `).ReplaceAll(b[1], nil) // the list's indentation
		p := filepath.Join(t.TempDir(), "upper.yaml")
		require.NoError(t, os.WriteFile(p, raw, 0o644))
		ref, problem := readSource(p)
		require.Empty(t, problem)
		require.Equal(t, "oci://ghcr.io/acme/upper:1.2", ref)
		local, err := localManifest("upper", raw)
		require.NoError(t, err)
		if i == 0 {
			require.Nil(t, local, "a source alone leaves the artifact's manifest")
			continue
		}
		m, err := host.ParseManifest(local)
		require.NoError(t, err, "%s", local)
		require.Equal(t, "upper", m.Name)
		require.Equal(t, 4, m.Serve.MaxConcurrent)
		require.Equal(t, uint64(64<<20), m.Policy.DeviceMemory)
	}
}

// TestOCIDownloadRetried: a new version whose download fails after its tag
// resolved (the registry's blobs answer 503) leaves the last good version
// serving, and is tried again at the next scan although the tag did not
// move: a download failure is not the artifact's.
func TestOCIDownloadRetried(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	d1 := push(t, pc, ref, wat2wasm(t, "echo", ""), nil)
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir})
	require.Equal(t, d1, f.listed()["echo"].Digest)

	d2 := push(t, pc, ref, echoSaying(t, "NEXT:"), nil)
	reg.SetBlobsDown(true)
	for range 2 {
		_, err := f.s.Reload(context.Background())
		require.NoError(t, err)
		pi := f.listed()["echo"]
		require.Equal(t, "stale", pi.State)
		require.Contains(t, pi.Error.Message, "fetch "+"oci://"+reg.Host+"/plugins/echo@"+d2)
		require.Equal(t, d1, pi.Digest)
		require.Equal(t, "echo:x", string(f.do("POST", "/v1/plugins/echo", "", []byte("x")).body))
	}
	reg.SetBlobsDown(false)
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"echo"}, rep.Changed)
	require.Equal(t, d2, f.listed()["echo"].Digest)
	require.Equal(t, "ready", f.listed()["echo"].State)
	require.Equal(t, "NEXT:x", string(f.do("POST", "/v1/plugins/echo", "", []byte("x")).body))
}
