package ociplugin

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// module is a wasm binary of n bytes: the magic number, the version, then
// a custom section's worth of filler (never compiled here).
func module(n int, fill byte) []byte {
	b := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte{fill}, n-8)...)
	return b
}

// client is a client of its own for one test, with a cache in dir ("" none)
// and no Docker config.
func client(t *testing.T, dir string, max int64) *Client {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	c, err := NewClient(Options{CacheDir: dir, MaxModuleBytes: max})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func ref(t *testing.T, s string) Ref {
	t.Helper()
	r, err := ParseRef(s)
	require.NoError(t, err)
	return r
}

func TestParseRef(t *testing.T) {
	r := ref(t, "oci://127.0.0.1:5000/team/echo:v1")
	require.Equal(t, "127.0.0.1:5000", r.Registry)
	require.Equal(t, "team/echo", r.Repository)
	require.False(t, r.IsDigest())
	require.Equal(t, "oci://127.0.0.1:5000/team/echo:v1", r.String())
	d := "sha256:" + string(bytes.Repeat([]byte("ab"), 32))
	r = ref(t, "oci://ghcr.io/acme/echo@"+d)
	require.True(t, r.IsDigest())
	require.Equal(t, d, r.Reference.Reference)
	for _, bad := range []string{"ghcr.io/acme/echo:v1", "oci://ghcr.io/acme/echo", "oci://ghcr.io/acme/echo@sha256:12", "oci://"} {
		_, err := ParseRef(bad)
		require.Error(t, err, bad)
	}
	require.True(t, IsRef("oci://x/y:z"))
	require.False(t, IsRef("x.wasm"))
	require.True(t, isLoopback("127.0.0.1:5000"))
	require.True(t, isLoopback("localhost:5000"))
	require.True(t, isLoopback("[::1]:5000"))
	require.False(t, isLoopback("ghcr.io"))
	require.False(t, isLoopback("10.0.0.1:5000"))
}

// TestPushPull: what is pushed is pulled back byte for byte, by tag and by
// digest, with its manifest layer; the artifact has the Wasm layout.
func TestPushPull(t *testing.T) {
	reg := ocitest.New(t)
	c := client(t, "", 0)
	mod := module(4096, 7)
	man := []byte("name: echo\nmodule:\n  path: echo.wasm\n")
	r := ref(t, "oci://"+reg.Host+"/plugins/echo:v1")
	d, err := c.Push(ctx(t), r, mod, man)
	require.NoError(t, err)

	a, err := c.Pull(ctx(t), r)
	require.NoError(t, err)
	require.Equal(t, d, a.Digest)
	require.Equal(t, mod, a.Module)
	require.Equal(t, digest.SHA256.FromBytes(mod), a.ModuleDigest)
	require.Equal(t, man, a.Manifest)

	a, err = c.Pull(ctx(t), r.At(d))
	require.NoError(t, err)
	require.Equal(t, mod, a.Module)

	// The layout: config media type, one wasm layer, the manifest layer.
	repo, err := remote.NewRepository(reg.Host + "/plugins/echo")
	require.NoError(t, err)
	repo.PlainHTTP = true
	_, rc, err := repo.FetchReference(ctx(t), d.String())
	require.NoError(t, err)
	defer rc.Close()
	var m ocispec.Manifest
	require.NoError(t, json.NewDecoder(rc).Decode(&m))
	require.Equal(t, ConfigMediaType, m.Config.MediaType)
	require.Len(t, m.Layers, 2)
	require.Equal(t, WasmMediaType, m.Layers[0].MediaType)
	require.Equal(t, ManifestMediaType, m.Layers[1].MediaType)

	// Without a manifest: no second layer, Manifest nil.
	r2 := ref(t, "oci://"+reg.Host+"/plugins/bare:v1")
	_, err = c.Push(ctx(t), r2, mod, nil)
	require.NoError(t, err)
	a, err = c.Pull(ctx(t), r2)
	require.NoError(t, err)
	require.Nil(t, a.Manifest)

	// A tag moved by a new push resolves to the new digest.
	d2, err := c.Push(ctx(t), r, module(4096, 8), man)
	require.NoError(t, err)
	require.NotEqual(t, d, d2)
	got, err := c.Resolve(ctx(t), r)
	require.NoError(t, err)
	require.Equal(t, d2, got)

	_, err = c.Push(ctx(t), r, []byte("not wasm"), nil)
	require.ErrorContains(t, err, "not a wasm binary")
}

// TestCacheHit: a second pull of the same digest fetches no blob (the
// cache has them by digest); a tag is still resolved. A corrupt cache
// file is fetched again.
func TestCacheHit(t *testing.T) {
	reg := ocitest.New(t)
	dir := t.TempDir()
	c := client(t, dir, 0)
	mod := module(2048, 1)
	r := ref(t, "oci://"+reg.Host+"/p/echo:v1")
	d, err := c.Push(ctx(t), r, mod, nil)
	require.NoError(t, err)
	_, err = c.Pull(ctx(t), r)
	require.NoError(t, err)
	modDigest := digest.SHA256.FromBytes(mod).String()
	require.Equal(t, 1, reg.BlobGets(modDigest))
	manifests := reg.ManifestRequests()

	a, err := c.Pull(ctx(t), r)
	require.NoError(t, err)
	require.Equal(t, mod, a.Module)
	require.Equal(t, 1, reg.AllBlobGets(), "the second pull fetched a blob")
	require.Equal(t, manifests+1, reg.ManifestRequests(), "a tag is resolved every time, the manifest itself is cached")

	// By digest, with everything cached: no request at all.
	manifests = reg.ManifestRequests()
	_, err = c.Pull(ctx(t), r.At(d))
	require.NoError(t, err)
	require.Equal(t, manifests, reg.ManifestRequests())
	require.Equal(t, 1, reg.AllBlobGets())

	// Another client over the same directory (a later process) hits too.
	_, err = client(t, dir, 0).Pull(ctx(t), r.At(d))
	require.NoError(t, err)
	require.Equal(t, 1, reg.AllBlobGets())

	// A corrupt cache entry is not used: the blob is fetched again.
	p := filepath.Join(dir, "blobs", "sha256", digest.SHA256.FromBytes(mod).Encoded())
	require.NoError(t, os.WriteFile(p, module(2048, 2), 0o600))
	a, err = c.Pull(ctx(t), r.At(d))
	require.NoError(t, err)
	require.Equal(t, mod, a.Module)
	require.Equal(t, 2, reg.BlobGets(modDigest))
}

// TestDigestMismatch: a registry that serves other bytes for the module's
// digest is refused, and nothing is cached.
func TestDigestMismatch(t *testing.T) {
	reg := ocitest.New(t)
	dir := t.TempDir()
	c := client(t, dir, 0)
	mod := module(1024, 3)
	r := ref(t, "oci://"+reg.Host+"/p/echo:v1")
	_, err := c.Push(ctx(t), r, mod, nil)
	require.NoError(t, err)
	reg.Corrupt(digest.SHA256.FromBytes(mod).String())
	_, err = c.Pull(ctx(t), r)
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "digest")
	_, statErr := os.Stat(filepath.Join(dir, "blobs", "sha256", digest.SHA256.FromBytes(mod).Encoded()))
	require.ErrorIs(t, statErr, os.ErrNotExist)
}

// TestRefusedBeforeDownload: a module layer over the size limit, and a
// layer of another media type, are refused from the manifest: the layer's
// blob is never requested.
func TestRefusedBeforeDownload(t *testing.T) {
	reg := ocitest.New(t)
	c := client(t, "", 1024)
	big := module(4096, 5)
	_, err := client(t, "", 0).Push(ctx(t), ref(t, "oci://"+reg.Host+"/p/big:v1"), big, nil)
	require.NoError(t, err)
	_, err = c.Pull(ctx(t), ref(t, "oci://"+reg.Host+"/p/big:v1"))
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "over the limit of 1024")
	require.Zero(t, reg.BlobGets(digest.SHA256.FromBytes(big).String()), "the oversized layer was downloaded")

	tar := reg.PushLayers(t, "p/tar", "v1", ocitest.Layer{MediaType: "application/vnd.oci.image.layer.v1.tar", Data: []byte("not a module at all")})
	_, err = c.Pull(ctx(t), ref(t, "oci://"+reg.Host+"/p/tar:v1"))
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, `media type "application/vnd.oci.image.layer.v1.tar"`)
	require.Zero(t, reg.BlobGets(tar[0]))

	// A manifest layer over its limit is refused the same way.
	mod := module(512, 1)
	bigMan := bytes.Repeat([]byte("#"), MaxPluginManifestBytes+1)
	reg.PushLayers(t, "p/bigman", "v1", ocitest.Layer{MediaType: WasmMediaType, Data: mod}, ocitest.Layer{MediaType: ManifestMediaType, Data: bigMan})
	_, err = c.Pull(ctx(t), ref(t, "oci://"+reg.Host+"/p/bigman:v1"))
	require.ErrorIs(t, err, ErrRefused)
	require.Zero(t, reg.AllBlobGets(), "a layer was downloaded")

	// Push refuses what a puller with the same limit would.
	_, err = c.Push(ctx(t), ref(t, "oci://"+reg.Host+"/p/big:v2"), big, nil)
	require.ErrorContains(t, err, "over the limit")
}

// TestRegistryDown: a registry that answers 503, then one that is gone,
// fail the pull with an error that is not a refusal (it may pass later).
func TestRegistryDown(t *testing.T) {
	reg := ocitest.New(t)
	c := client(t, "", 0)
	r := ref(t, "oci://"+reg.Host+"/p/echo:v1")
	_, err := c.Push(ctx(t), r, module(100, 1), nil)
	require.NoError(t, err)
	reg.SetDown(true)
	_, err = c.Pull(ctx(t), r)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrRefused))
	reg.Close()
	c.CloseIdleConnections()
	_, err = c.Resolve(ctx(t), r)
	require.Error(t, err)
	require.False(t, errors.Is(err, ErrRefused))
}

// TestDockerCredentials: a registry that demands basic auth is pulled
// from and pushed to with the credentials of the Docker config file that
// DOCKER_CONFIG points at; without them, it answers 401.
func TestDockerCredentials(t *testing.T) {
	reg := ocitest.New(t)
	reg.RequireAuth("alice", "s3cret")
	cfgDir := t.TempDir()
	auths := map[string]any{"auths": map[string]any{reg.Host: map[string]string{"auth": base64.StdEncoding.EncodeToString([]byte("alice:s3cret"))}}}
	raw, err := json.Marshal(auths)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.json"), raw, 0o600))

	t.Setenv("DOCKER_CONFIG", t.TempDir()) // no credentials
	anon, err := NewClient(Options{})
	require.NoError(t, err)
	defer anon.CloseIdleConnections()
	r := ref(t, "oci://"+reg.Host+"/private/echo:v1")
	_, err = anon.Push(ctx(t), r, module(100, 1), nil)
	require.ErrorContains(t, err, "credential not found")

	t.Setenv("DOCKER_CONFIG", cfgDir)
	c, err := NewClient(Options{})
	require.NoError(t, err)
	defer c.CloseIdleConnections()
	d, err := c.Push(ctx(t), r, module(100, 1), nil)
	require.NoError(t, err)
	a, err := c.Pull(ctx(t), r)
	require.NoError(t, err)
	require.Equal(t, d, a.Digest)
}
