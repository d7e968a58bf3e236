package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
