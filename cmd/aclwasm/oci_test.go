package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

// noCreds is an environment with an empty Docker config, so that the
// user's own credentials stay out of the tests.
func noCreds(t *testing.T) []string {
	return []string{"DOCKER_CONFIG=" + t.TempDir()}
}

// TestPushPull: push prints the artifact's digest; pull by tag and by
// digest prints the same one and writes the same bytes, and the manifest
// pushed with it; run and call take the reference in place of a file.
func TestPushPull(t *testing.T) {
	reg := ocitest.New(t)
	hello, err := os.ReadFile(filepath.Join("..", "..", "host", "testdata", "hello.wasm"))
	require.NoError(t, err)
	dir := t.TempDir()
	man := filepath.Join(dir, "hello.yaml")
	require.NoError(t, os.WriteFile(man, []byte("name: hello\nmodule: {path: hello.wasm}\n"), 0o644))
	ref := "oci://" + reg.Host + "/plugins/hello:v1"
	env := noCreds(t)

	r := cliEnv(t, env, "push", "--manifest", man, filepath.Join("..", "..", "host", "testdata", "hello.wasm"), ref)
	require.Zero(t, r.code, r.stderr)
	d := strings.TrimSpace(r.stdout)
	require.NoError(t, digest.Digest(d).Validate(), r.stdout)

	out := filepath.Join(dir, "pulled.wasm")
	manOut := filepath.Join(dir, "pulled.yaml")
	r = cliEnv(t, env, "pull", "--cache-dir", "", "-o", out, "--manifest-out", manOut, ref)
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, d+"\n", r.stdout)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, hello, got)
	gotMan, err := os.ReadFile(manOut)
	require.NoError(t, err)
	require.Equal(t, "name: hello\nmodule: {path: hello.wasm}\n", string(gotMan))

	byDigest := "oci://" + reg.Host + "/plugins/hello@" + d
	r = cliEnv(t, env, "pull", "--cache-dir", "", byDigest)
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, d+"\n", r.stdout)

	r = cliEnv(t, env, "run", "--cache-dir", "", ref)
	require.Zero(t, r.code, r.stderr)
	require.Contains(t, r.stdout, "hello from the plugin")

	bytesRef := "oci://" + reg.Host + "/plugins/bytes:v1"
	r = cliEnv(t, env, "push", wat(t, "bytes", watBytes), bytesRef)
	require.Zero(t, r.code, r.stderr)
	r = cliEnv(t, env, "call", "--cache-dir", "", "--input", "hi", bytesRef, "echo")
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, "echo:hi", r.stdout)

	// Usage errors.
	r = cliEnv(t, env, "push", filepath.Join("..", "..", "host", "testdata", "hello.wasm"), reg.Host+"/plugins/hello:v1")
	require.Equal(t, exitHost, r.code)
	require.Contains(t, r.stderr, "want oci://")
	r = cliEnv(t, env, "push", man, ref)
	require.Equal(t, exitHost, r.code)
	require.Contains(t, r.stderr, "not a wasm binary")
	r = cliEnv(t, env, "run", "--cache-dir", "", "oci://"+reg.Host+"/plugins/none:v1")
	require.Equal(t, exitHost, r.code)
	require.Contains(t, r.stderr, "not found")
	r = cliEnv(t, env, "pull", "--manifest-out", manOut, bytesRef)
	require.Equal(t, exitHost, r.code)
	require.Contains(t, r.stderr, "no manifest layer")
	r = cliEnv(t, env, "serve", "--plugin", "nameless", t.TempDir())
	require.Equal(t, exitHost, r.code)
	require.Contains(t, r.stderr, "want NAME=oci://")
}

// TestPullCache: a second pull of the same artifact, into the same cache,
// fetches no blob; the default cache is the user's cache directory's
// aclwasm/oci.
func TestPullCache(t *testing.T) {
	reg := ocitest.New(t)
	env := noCreds(t)
	ref := "oci://" + reg.Host + "/plugins/exit7:v1"
	r := cliEnv(t, env, "push", wat(t, "exit7", watExit7), ref)
	require.Zero(t, r.code, r.stderr)
	home := t.TempDir()
	env = append(env, "XDG_CACHE_HOME="+home)
	r = cliEnv(t, env, "pull", ref)
	require.Zero(t, r.code, r.stderr)
	require.Equal(t, 1, reg.AllBlobGets())
	entries, err := os.ReadDir(filepath.Join(home, "aclwasm", "oci", "blobs", "sha256"))
	require.NoError(t, err)
	require.Len(t, entries, 2, "the manifest and the module, by digest")

	r = cliEnv(t, env, "pull", ref)
	require.Zero(t, r.code, r.stderr)
	r = cliEnv(t, env, "run", ref)
	require.Equal(t, 7, r.code, r.stderr)
	require.Equal(t, 1, reg.AllBlobGets(), "a cached blob was fetched again")
}

// TestPullRefused: an artifact whose layer is not wasm, and one whose
// module's bytes do not match their digest, are load refusals (125).
func TestPullRefused(t *testing.T) {
	reg := ocitest.New(t)
	env := noCreds(t)
	reg.PushLayers(t, "plugins/tar", "v1", ocitest.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar", Data: []byte("tar")})
	r := cliEnv(t, env, "pull", "--cache-dir", "", "oci://"+reg.Host+"/plugins/tar:v1")
	require.Equal(t, exitLoad, r.code, r.stderr)
	require.Contains(t, r.stderr, "media type")

	g := wat(t, "exit7", watExit7)
	wasm, err := os.ReadFile(g)
	require.NoError(t, err)
	ref := "oci://" + reg.Host + "/plugins/exit7:v1"
	r = cliEnv(t, env, "push", g, ref)
	require.Zero(t, r.code, r.stderr)
	reg.Corrupt(digest.SHA256.FromBytes(wasm).String())
	r = cliEnv(t, env, "run", "--cache-dir", "", ref)
	require.Equal(t, exitLoad, r.code, r.stderr)
	require.Contains(t, r.stderr, "digest")
}

// TestDockerCredentials: push and pull send the credentials of the Docker
// config file DOCKER_CONFIG points at to a registry that demands basic
// auth; without them the registry refuses.
func TestDockerCredentials(t *testing.T) {
	reg := ocitest.New(t)
	reg.RequireAuth("ci", "t0ken")
	cfg := t.TempDir()
	raw, err := json.Marshal(map[string]any{"auths": map[string]any{reg.Host: map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte("ci:t0ken"))}}})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cfg, "config.json"), raw, 0o600))
	g := wat(t, "exit7", watExit7)
	ref := "oci://" + reg.Host + "/private/exit7:v1"

	r := cliEnv(t, noCreds(t), "push", g, ref)
	require.Equal(t, exitHost, r.code)
	require.Contains(t, r.stderr, "credential")

	creds := []string{"DOCKER_CONFIG=" + cfg}
	r = cliEnv(t, creds, "push", g, ref)
	require.Zero(t, r.code, r.stderr)
	r = cliEnv(t, creds, "pull", "--cache-dir", "", ref)
	require.Zero(t, r.code, r.stderr)
	r = cliEnv(t, noCreds(t), "pull", "--cache-dir", "", ref)
	require.Equal(t, exitHost, r.code)
}

// TestServePlugin: aclwasm serve --plugin NAME=oci://... serves the
// artifact, pulled into the cache of --cache-dir's oci.
func TestServePlugin(t *testing.T) {
	reg := ocitest.New(t)
	env := noCreds(t)
	ref := "oci://" + reg.Host + "/plugins/hi:v1"
	hi := wat(t, "hi", `(module
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "hi from the registry")
  (func (export "greet") (result i32) (call $write (i32.const 16) (i32.const 20))))`)
	man := filepath.Join(t.TempDir(), "hi.yaml")
	require.NoError(t, os.WriteFile(man, []byte("name: hi\nmodule: {path: hi.wasm}\nserve: {export: greet}\n"), 0o644))
	r := cliEnv(t, env, "push", "--manifest", man, hi, ref)
	require.Zero(t, r.code, r.stderr)
	cache := t.TempDir()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--poll", "0", "--cache-dir", cache, "--plugin", "hi="+ref, t.TempDir())
	srv.Env = append(os.Environ(), env...)
	stderr, err := srv.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	addr := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, rest, ok := strings.Cut(sc.Text(), "msg=listening addr="); ok {
			addr, _, _ = strings.Cut(rest, " ")
			break
		}
	}
	require.NotEmpty(t, addr, "no listening line")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	hc := &http.Client{Timeout: 30 * time.Second}
	var body string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		req, err := http.NewRequestWithContext(ctx, "POST", "http://"+addr+"/v1/plugins/hi", nil)
		require.NoError(t, err)
		resp, err := hc.Do(req)
		require.NoError(t, err)
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		if resp.StatusCode != http.StatusServiceUnavailable { // 503 loading: the first load is under way
			require.Equal(t, 200, resp.StatusCode, "%s", b)
			body = string(b)
			break
		}
	}
	require.Equal(t, "hi from the registry", body, "the artifact's manifest names the export")
	entries, err := os.ReadDir(filepath.Join(cache, "oci", "blobs", "sha256"))
	require.NoError(t, err)
	require.Len(t, entries, 3, "the image manifest, the module and the plugin's manifest, by digest")
	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
}
