package serve

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin"
	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
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
	var logs testsupport.Logs
	f := start(t, Config{Dir: dir, Logger: newTestLogger(&logs), OCI: OCIConfig{ResolveTimeout: 5 * time.Second}})
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
	require.Equal(t, 1, strings.Count(logs.String(), "plugin source does not resolve"), "%s", logs.String())

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

// poll is one poll of the directory (a scan that respects the sources'
// backoffs), waiting for the loads it starts.
func (f *fixture) poll(t *testing.T) {
	t.Helper()
	_, started, err := f.s.startReload(false)
	require.NoError(t, err)
	for _, l := range started {
		select {
		case <-l.done:
		case <-time.After(watchdog):
			t.Fatalf("the load of %s does not end", l.name)
		}
	}
}

// TestOCISlowRegistriesHoldNoLoadSlot: sources whose registry stops
// sending hold their download slots (more of them than there are slots of
// either kind), and a plugin added to the directory meanwhile loads at
// once: it is not reported loading, and serves, while the sources still
// answer 503 loading.
func TestOCISlowRegistriesHoldNoLoadSlot(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	wasm := wat2wasm(t, "echo", "")
	d := push(t, pc, "oci://"+reg.Host+"/plugins/slow:v1", wasm, nil)
	mod := digest.SHA256.FromBytes(wasm).String()
	reg.Stall(mod)
	src := map[string]string{}
	for i := range max(runtime.GOMAXPROCS(0), 2) + 3 {
		src[fmt.Sprintf("slow%d", i)] = "oci://" + reg.Host + "/plugins/slow@" + d
	}
	dir := plugins(t, nil, nil)
	// The stalled downloads hold on for the whole test (an hour's window).
	f := startAll(t, Config{Dir: dir, Sources: src, OCI: OCIConfig{MaxDownloads: 2, ProgressTimeout: time.Hour}}, nil, false)
	waitFor(t, "the downloads to stall", func() bool { return reg.BlobGets(mod) >= 2 })

	write(t, dir, "echo.wasm", string(wasm))
	ctx, cancel := context.WithTimeout(context.Background(), watchdog)
	defer cancel()
	rep, err := f.s.Reload(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"echo"}, rep.Added)
	require.NotContains(t, rep.Loading, "echo", "the local plugin waited behind the downloads")
	r := f.do("POST", "/v1/plugins/echo", "", []byte("x"))
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:x", string(r.body))
	r = f.do("POST", "/v1/plugins/slow0", "", nil)
	require.Equal(t, 503, r.status, "%v", r)
	require.Equal(t, "loading", r.err(t).Code)
	require.LessOrEqual(t, reg.BlobGets(mod), 2, "more downloads at once than MaxDownloads")
}

// TestOCIProgressDeadline: a registry that stops sending the module
// halfway, or sends it a byte at a time (minutes for the module), fails
// the load after a progress window without enough bytes, although the
// download's total timeout (FetchTimeout, 5 minutes) is far off; the
// failure says so, and the source backs off.
func TestOCIProgressDeadline(t *testing.T) {
	for _, how := range []string{"stall", "trickle"} {
		t.Run(how, func(t *testing.T) {
			reg := ocitest.New(t)
			pc := pusher(t)
			wasm := wat2wasm(t, "echo", "")
			ref := "oci://" + reg.Host + "/plugins/echo:v1"
			push(t, pc, ref, wasm, nil)
			if mod := digest.SHA256.FromBytes(wasm).String(); how == "stall" {
				reg.Stall(mod)
			} else {
				reg.Trickle(mod, 500*time.Millisecond) // minutes for the module
			}
			dir := plugins(t, nil, nil)
			write(t, dir, "echo.yaml", "source: "+ref+"\n")
			f := startAll(t, Config{Dir: dir, OCI: OCIConfig{ProgressTimeout: 2 * time.Second}}, nil, false)
			ctx, cancel := context.WithTimeout(context.Background(), watchdog)
			defer cancel()
			require.NoError(t, f.s.WaitLoaded(ctx), "the load still waits for the registry")
			pi := f.listed()["echo"]
			require.Equal(t, "invalid", pi.State)
			require.Contains(t, pi.Error.Message, "no progress: fewer than 65536 bytes in 2s")
			require.NotNil(t, pi.Retry)
			require.Equal(t, 1, pi.Retry.Failures)
			require.Equal(t, "download", pi.Retry.Stage)
		})
	}
}

// TestOCIDownloadBackoff: a download that fails for the registry is not
// tried again at every poll: the polls leave it alone until its backoff
// has passed (GET /v1/plugins shows it, the log says so), while the last
// good version serves on; a Reload asked for tries at once, and each
// failure doubles the backoff, up to its cap; a success resets it.
func TestOCIDownloadBackoff(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	d1 := push(t, pc, ref, wat2wasm(t, "echo", ""), nil)
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	var logs testsupport.Logs
	f := start(t, Config{Dir: dir, Logger: newTestLogger(&logs), OCI: OCIConfig{RetryBackoff: time.Hour, RetryBackoffMax: 2 * time.Hour}})
	require.Equal(t, d1, f.listed()["echo"].Digest)

	next := echoSaying(t, "NEXT:")
	gets := func() int { return reg.BlobGets(digest.SHA256.FromBytes(next).String()) }
	d2 := push(t, pc, ref, next, nil)
	reg.SetBlobsDown(true)
	f.poll(t) // the tag moved: tried
	require.Equal(t, 1, gets())
	retryIs := func(failures int, least, most time.Duration) {
		t.Helper()
		pi := f.listed()["echo"]
		require.Equal(t, "stale", pi.State)
		require.Equal(t, d1, pi.Digest)
		require.NotNil(t, pi.Retry)
		require.Equal(t, failures, pi.Retry.Failures)
		require.Equal(t, "download", pi.Retry.Stage)
		// Hours of backoff: minutes of margin either way.
		require.True(t, pi.Retry.After.After(time.Now().Add(least)), "%v", pi.Retry.After)
		require.True(t, pi.Retry.After.Before(time.Now().Add(most)), "%v", pi.Retry.After)
	}
	retryIs(1, 50*time.Minute, time.Hour+time.Minute)
	for range 3 {
		f.poll(t)
		require.Equal(t, 1, gets(), "a poll tried the failed download again within its backoff")
		require.Equal(t, "echo:x", string(f.do("POST", "/v1/plugins/echo", "", []byte("x")).body))
	}
	require.Contains(t, logs.String(), `msg="plugin source failed: the polls try it again after a backoff" plugin=echo stage=download failures=1 retry_in=1h0m0s`)

	_, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, gets(), "a Reload asked for tries at once")
	retryIs(2, 110*time.Minute, 2*time.Hour+time.Minute)
	_, err = f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Equal(t, 3, gets())
	retryIs(3, 110*time.Minute, 2*time.Hour+time.Minute) // capped

	reg.SetBlobsDown(false)
	_, err = f.s.Reload(context.Background())
	require.NoError(t, err)
	pi := f.listed()["echo"]
	require.Equal(t, "ready", pi.State)
	require.Equal(t, d2, pi.Digest)
	require.Nil(t, pi.Retry, "a success resets the backoff")

	push(t, pc, ref, echoSaying(t, "THIRD:"), nil)
	reg.SetBlobsDown(true)
	f.poll(t)
	pi = f.listed()["echo"]
	require.NotNil(t, pi.Retry)
	require.Equal(t, 1, pi.Retry.Failures, "the backoff starts again from its base")
}

// TestOCIBackoffPasses: once its backoff has passed, the next poll tries
// a failed download again, and a plugin without a good version loads
// when the registry is back.
func TestOCIBackoffPasses(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	wasm := wat2wasm(t, "echo", "")
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	push(t, pc, ref, wasm, nil)
	gets := func() int { return reg.BlobGets(digest.SHA256.FromBytes(wasm).String()) }
	reg.SetBlobsDown(true)
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir, OCI: OCIConfig{RetryBackoff: time.Millisecond, RetryBackoffMax: time.Millisecond}})
	require.Equal(t, 1, gets())
	require.Equal(t, "invalid", f.listed()["echo"].State)
	time.Sleep(10 * time.Millisecond) // past the backoff: not an assertion on time
	f.poll(t)
	require.Equal(t, 2, gets())
	require.Equal(t, 2, f.listed()["echo"].Retry.Failures)
	reg.SetBlobsDown(false)
	time.Sleep(10 * time.Millisecond)
	f.poll(t)
	pi := f.listed()["echo"]
	require.Equal(t, "ready", pi.State)
	require.Nil(t, pi.Retry)
}

// TestOCIResolveBackoff: a tag that does not resolve (the registry is
// down) is not asked for again at every poll: the last good version
// serves on without a request until the backoff has passed; a Reload
// asked for asks at once, and a tag that resolves again ends the backoff.
func TestOCIResolveBackoff(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	d1 := push(t, pc, ref, wat2wasm(t, "echo", ""), nil)
	dir := plugins(t, nil, nil)
	write(t, dir, "echo.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir, OCI: OCIConfig{RetryBackoff: time.Hour}})
	reg.SetDown(true)
	f.poll(t)
	pi := f.listed()["echo"]
	require.Equal(t, "stale", pi.State)
	require.Equal(t, "source_unavailable", pi.Error.Code)
	require.NotNil(t, pi.Retry)
	require.Equal(t, "resolve", pi.Retry.Stage)
	asked := reg.ManifestRequests()
	for range 3 {
		f.poll(t)
		require.Equal(t, asked, reg.ManifestRequests(), "a poll asked for the tag within its backoff")
		require.Equal(t, "echo:x", string(f.do("POST", "/v1/plugins/echo", "", []byte("x")).body))
		require.Equal(t, d1, f.listed()["echo"].Digest)
	}
	_, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Greater(t, reg.ManifestRequests(), asked, "a Reload asked for did not ask")
	require.Equal(t, 2, f.listed()["echo"].Retry.Failures)
	reg.SetDown(false)
	_, err = f.s.Reload(context.Background())
	require.NoError(t, err)
	pi = f.listed()["echo"]
	require.Equal(t, "ready", pi.State)
	require.Nil(t, pi.Retry)

	// A plugin that never loaded keeps its failure while it backs off.
	reg.SetDown(true)
	write(t, dir, "other.yaml", "source: oci://"+reg.Host+"/plugins/other:v1\n")
	f.poll(t)
	asked = reg.ManifestRequests()
	f.poll(t)
	require.Equal(t, asked, reg.ManifestRequests())
	pi = f.listed()["other"]
	require.Equal(t, "invalid", pi.State)
	require.Contains(t, pi.Error.Message, "resolve oci://")
	require.Equal(t, 1, pi.Retry.Failures)
}

// TestBackoff: the wait doubles from the base with each failure, up to
// the cap, and does not overflow.
func TestBackoff(t *testing.T) {
	for _, c := range []struct {
		failures int
		want     time.Duration
	}{{1, 10 * time.Second}, {2, 20 * time.Second}, {3, 40 * time.Second}, {5, 160 * time.Second}, {6, 5 * time.Minute}, {1000, 5 * time.Minute}} {
		require.Equal(t, c.want, backoff(c.failures, 10*time.Second, 5*time.Minute), "after %d failures", c.failures)
	}
	require.Equal(t, time.Duration(1<<62), backoff(200, time.Second, 1<<62))
	require.Equal(t, time.Duration(math.MaxInt64), backoff(200, 3*time.Second, math.MaxInt64))
}

// TestOCIUnansweredTagDelaysNoLocalPlugin: while a registry does not
// answer the resolution of a source's tag (a scan waits for it up to
// ResolveTimeout, an hour here), a plugin added to the directory loads
// and serves: the directory's plugins start loading before the tags are
// resolved.
func TestOCIUnansweredTagDelaysNoLocalPlugin(t *testing.T) {
	reg := ocitest.New(t)
	pc := pusher(t)
	wasm := wat2wasm(t, "echo", "")
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	push(t, pc, ref, wasm, nil)
	dir := plugins(t, nil, nil)
	write(t, dir, "remote.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir, OCI: OCIConfig{ResolveTimeout: time.Hour}})
	require.Equal(t, "ready", f.listed()["remote"].State)

	release := reg.HoldManifests()
	defer release()
	asked := reg.ManifestRequests()
	write(t, dir, "local.wasm", string(wasm))
	done := make(chan error, 1)
	go func() {
		_, err := f.s.Reload(context.Background())
		done <- err
	}()
	waitFor(t, "the tag to be asked for", func() bool { return reg.ManifestRequests() > asked })
	waitFor(t, "the local plugin to serve", func() bool { return f.do("POST", "/v1/plugins/local", "", []byte("x")).status == 200 })
	select {
	case err := <-done:
		t.Fatalf("the reload did not wait for the tag: %v", err)
	default:
	}
	release()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(watchdog):
		t.Fatal("the reload does not end once the registry answers")
	}
	require.Equal(t, "ready", f.listed()["remote"].State)
}
