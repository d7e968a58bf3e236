// Package ociplugin publishes and fetches aclwasm plugins as OCI
// artifacts, in the layout of the CNCF Wasm OCI artifact: an image
// manifest whose config has the media type application/vnd.wasm.config.v0+json,
// with one layer application/wasm (the module) and, optionally, a second
// layer application/vnd.aclwasm.manifest.v1+yaml (the plugin's manifest,
// host.Manifest).
//
// A reference is written oci://REGISTRY/REPOSITORY:TAG or
// oci://REGISTRY/REPOSITORY@sha256:DIGEST. Everything fetched is checked
// against its digest, and the module's layer against a size limit and its
// media type before any of it is downloaded; what passes is kept in a
// content-addressed cache on disk, so that a digest fetched once is never
// fetched again. Tags are never cached: each Resolve asks the registry.
// Credentials come from the Docker config file ($DOCKER_CONFIG/config.json,
// ~/.docker/config.json, and the credential helpers it names). Plain HTTP
// is used for loopback registries (localhost, 127.0.0.0/8, ::1) and, with
// Options.PlainHTTP, for every registry; HTTPS otherwise.
package ociplugin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"

	"github.com/aclwasm/aclwasm/host"
)

// Media types of the artifact.
const (
	// ConfigMediaType is the config's media type of a Wasm OCI artifact
	// (CNCF TAG Runtime's Wasm OCI artifact layout).
	ConfigMediaType = "application/vnd.wasm.config.v0+json"
	// WasmMediaType is the module layer's media type.
	WasmMediaType = "application/wasm"
	// ManifestMediaType is the optional layer holding the plugin's
	// manifest (the YAML file of aclwasm run --manifest).
	ManifestMediaType = "application/vnd.aclwasm.manifest.v1+yaml"
)

// Scheme starts every reference this package takes.
const Scheme = "oci://"

// Size limits of what is fetched besides the module (Options.MaxModuleBytes).
const (
	// MaxImageManifestBytes bounds the OCI image manifest.
	MaxImageManifestBytes = 4 << 20
	// MaxPluginManifestBytes bounds the plugin manifest layer.
	MaxPluginManifestBytes = 1 << 20
)

// ErrRefused is wrapped by every error that is the artifact's fault rather
// than the network's or the registry's availability: a layer over its size
// limit or of another media type, content whose digest is not the one
// asked for, a manifest that is not a Wasm artifact. Retrying does not
// help until the artifact changes.
var ErrRefused = errors.New("artifact refused")

// refused is an error wrapping ErrRefused with a reason.
func refused(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// IsRef says whether s is written as an OCI reference (oci://...), which
// is how the CLI and the server tell a reference from a file's path.
func IsRef(s string) bool { return strings.HasPrefix(s, Scheme) }

// Ref is a parsed reference: a registry, a repository, and a tag or a
// digest.
type Ref struct {
	registry.Reference
}

// ParseRef parses oci://REGISTRY/REPOSITORY:TAG or
// oci://REGISTRY/REPOSITORY@sha256:DIGEST. A tag or a digest is required:
// a plugin reference without one would silently mean "latest".
func ParseRef(s string) (Ref, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Ref{}, fmt.Errorf("reference %q: want oci://REGISTRY/REPOSITORY:TAG or oci://REGISTRY/REPOSITORY@sha256:DIGEST", s)
	}
	r, err := registry.ParseReference(rest)
	if err != nil {
		return Ref{}, fmt.Errorf("reference %q: %w", s, err)
	}
	if r.Reference == "" {
		return Ref{}, fmt.Errorf("reference %q: want a tag (:TAG) or a digest (@sha256:DIGEST)", s)
	}
	if strings.Contains(rest, "@") && r.ValidateReferenceAsDigest() != nil {
		return Ref{}, fmt.Errorf("reference %q: the digest is not sha256:64 hex digits", s)
	}
	return Ref{r}, nil
}

// String writes the reference with its scheme.
func (r Ref) String() string { return Scheme + r.Reference.String() }

// IsDigest says whether the reference names a digest, which needs no
// resolving and never moves.
func (r Ref) IsDigest() bool { return r.ValidateReferenceAsDigest() == nil }

// At is the reference to digest d in the same repository.
func (r Ref) At(d digest.Digest) Ref {
	r.Reference.Reference = d.String()
	return r
}

// Options configure a Client. The zero value fetches without a cache,
// with the Docker config's credentials and the host's default module size
// limit.
type Options struct {
	// CacheDir holds what was fetched, by digest (blobs/sha256/HEX); ""
	// keeps nothing. It is made 0700 if absent.
	CacheDir string
	// PlainHTTP talks plain HTTP to every registry, not only to loopback
	// ones: for a registry on a trusted network without TLS.
	PlainHTTP bool
	// MaxModuleBytes bounds the module layer: a larger one is refused
	// from its descriptor, before any of it is downloaded. 0 is
	// host.DefaultMaxModuleBytes, the host's own compile limit.
	MaxModuleBytes int64
	// Credential gives the credentials for a registry (host:port); nil
	// reads the Docker config file (credentials.NewStoreFromDocker).
	Credential auth.CredentialFunc
	// HTTPClient makes the requests; nil is a client of its own.
	HTTPClient *http.Client
	// ProgressTimeout and ProgressBytes are the progress every request
	// must make: an answer, and ProgressBytes of its body (or the rest
	// of it), in each window of ProgressTimeout; a request that makes
	// less fails with ErrStalled, so that a registry that stops sending,
	// or trickles, does not hold a download for a total timeout. 0 is
	// DefaultProgressTimeout, DefaultProgressBytes.
	ProgressTimeout time.Duration
	ProgressBytes   int64
}

// Client fetches and pushes plugins. It is safe for concurrent use.
type Client struct {
	opts Options
	auth *auth.Client
}

// NewClient returns a client with opts. It fails only when the Docker
// config file exists and cannot be read.
func NewClient(opts Options) (*Client, error) {
	if opts.MaxModuleBytes == 0 {
		opts.MaxModuleBytes = host.DefaultMaxModuleBytes
	}
	if opts.ProgressTimeout == 0 {
		opts.ProgressTimeout = DefaultProgressTimeout
	}
	if opts.ProgressBytes == 0 {
		opts.ProgressBytes = DefaultProgressBytes
	}
	if opts.MaxModuleBytes < 0 || opts.ProgressTimeout < 0 || opts.ProgressBytes < 0 {
		return nil, errors.New("ociplugin: negative MaxModuleBytes, ProgressTimeout or ProgressBytes")
	}
	cred := opts.Credential
	if cred == nil {
		store, err := credentials.NewStoreFromDocker(credentials.StoreOptions{})
		if err != nil {
			return nil, fmt.Errorf("ociplugin: docker config: %w", err)
		}
		cred = credentials.Credential(store)
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	c := &Client{opts: opts, auth: &auth.Client{Client: hc, Cache: auth.NewCache(), Credential: cred}}
	c.auth.SetUserAgent("aclwasm")
	return c, nil
}

// CloseIdleConnections closes the client's idle connections (a server
// that stops, a test that checks for leaked goroutines).
func (c *Client) CloseIdleConnections() { c.auth.Client.CloseIdleConnections() }

// repo is the remote repository of ref.
func (c *Client) repo(ref Ref) (*remote.Repository, error) {
	r, err := remote.NewRepository(ref.Registry + "/" + ref.Repository)
	if err != nil {
		return nil, err
	}
	r.Client = c.auth
	r.PlainHTTP = c.opts.PlainHTTP || isLoopback(ref.Host())
	return r, nil
}

// isLoopback says whether hostport names this machine, where plain HTTP
// cannot be overheard.
func isLoopback(hostport string) bool {
	h, _, err := net.SplitHostPort(hostport)
	if err != nil {
		h = hostport
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// Resolve returns the digest of the manifest ref names: a digest
// reference's own, without asking the registry; a tag's, asking it.
func (c *Client) Resolve(ctx context.Context, ref Ref) (digest.Digest, error) {
	if ref.IsDigest() {
		return digest.Parse(ref.Reference.Reference)
	}
	repo, err := c.repo(ref)
	if err != nil {
		return "", err
	}
	ctx, p := c.watch(ctx)
	defer p.stop()
	desc, err := repo.Resolve(ctx, ref.Reference.Reference)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", ref, stalled(ctx, err))
	}
	if err := desc.Digest.Validate(); err != nil || desc.Digest.Algorithm() != digest.SHA256 {
		return "", refused("resolve %s: the registry gave digest %q, want sha256", ref, desc.Digest)
	}
	return desc.Digest, nil
}

// Artifact is a fetched plugin.
type Artifact struct {
	// Digest is the image manifest's digest: the plugin's version.
	Digest digest.Digest
	// Module is the wasm module, ModuleDigest its layer's digest.
	Module       []byte
	ModuleDigest digest.Digest
	// Manifest is the plugin manifest layer (YAML), nil when the
	// artifact has none.
	Manifest []byte
}

// Pull fetches the plugin ref names: a tag is resolved first (Resolve),
// then Fetch gets that digest.
func (c *Client) Pull(ctx context.Context, ref Ref) (*Artifact, error) {
	d, err := c.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	return c.Fetch(ctx, ref, d)
}

// Fetch gets the plugin whose manifest has digest d from ref's repository,
// or from the cache. The manifest must be a Wasm artifact; its module
// layer must be application/wasm and at most Options.MaxModuleBytes, which
// is checked from the manifest before the layer is downloaded; every
// blob's bytes must match its digest. Errors that are the artifact's
// fault wrap ErrRefused.
func (c *Client) Fetch(ctx context.Context, ref Ref, d digest.Digest) (*Artifact, error) {
	if err := d.Validate(); err != nil {
		return nil, refused("digest %q: %v", d, err)
	}
	var repo *remote.Repository // made on the first cache miss
	fetch := func(desc ocispec.Descriptor) ([]byte, error) {
		if b, ok := c.cached(desc.Digest, desc.Size, true); ok {
			return b, nil
		}
		if repo == nil {
			var err error
			if repo, err = c.repo(ref); err != nil {
				return nil, err
			}
		}
		ctx, p := c.watch(ctx)
		defer p.stop()
		rc, err := repo.Blobs().Fetch(ctx, desc)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %w", ref.At(desc.Digest), stalled(ctx, err))
		}
		defer rc.Close()
		b, err := content.ReadAll(p.reader(rc), desc)
		if err != nil {
			if errors.Is(err, content.ErrMismatchedDigest) || errors.Is(err, content.ErrTrailingData) {
				return nil, refused("%s: %v", ref.At(desc.Digest), err)
			}
			return nil, fmt.Errorf("fetch %s: %w", ref.At(desc.Digest), stalled(ctx, err))
		}
		c.store(desc.Digest, b)
		return b, nil
	}
	raw, err := c.fetchManifest(ctx, ref, d)
	if err != nil {
		return nil, err
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, refused("%s: the manifest is not an OCI image manifest: %v", ref.At(d), err)
	}
	mod, man, err := c.layers(ref.At(d), m)
	if err != nil {
		return nil, err
	}
	a := &Artifact{Digest: d, ModuleDigest: mod.Digest}
	if a.Module, err = fetch(mod); err != nil {
		return nil, err
	}
	if man != nil {
		if a.Manifest, err = fetch(*man); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// fetchManifest fetches the image manifest d, at most
// MaxImageManifestBytes, and checks its digest.
func (c *Client) fetchManifest(ctx context.Context, ref Ref, d digest.Digest) ([]byte, error) {
	if b, ok := c.cached(d, MaxImageManifestBytes, false); ok {
		return b, nil
	}
	repo, err := c.repo(ref)
	if err != nil {
		return nil, err
	}
	ctx, p := c.watch(ctx)
	defer p.stop()
	desc, rc, err := repo.Manifests().FetchReference(ctx, d.String())
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", ref.At(d), stalled(ctx, err))
	}
	defer rc.Close()
	if desc.Size > MaxImageManifestBytes {
		return nil, refused("%s: the manifest has %d bytes, at most %d", ref.At(d), desc.Size, MaxImageManifestBytes)
	}
	b, err := io.ReadAll(io.LimitReader(p.reader(rc), MaxImageManifestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", ref.At(d), stalled(ctx, err))
	}
	if len(b) > MaxImageManifestBytes {
		return nil, refused("%s: the manifest has more than %d bytes", ref.At(d), MaxImageManifestBytes)
	}
	if got := digest.SHA256.FromBytes(b); got != d {
		return nil, refused("%s: the manifest's bytes have digest %s", ref.At(d), got)
	}
	c.store(d, b)
	return b, nil
}

// layers checks that m is a Wasm artifact and returns its module layer and
// its plugin manifest layer (nil if none).
func (c *Client) layers(ref Ref, m ocispec.Manifest) (ocispec.Descriptor, *ocispec.Descriptor, error) {
	var mod, man *ocispec.Descriptor
	if m.MediaType != "" && m.MediaType != ocispec.MediaTypeImageManifest {
		return ocispec.Descriptor{}, nil, refused("%s: manifest media type %q, want %s", ref, m.MediaType, ocispec.MediaTypeImageManifest)
	}
	if m.Config.MediaType != ConfigMediaType || m.ArtifactType != "" && m.ArtifactType != ConfigMediaType {
		return ocispec.Descriptor{}, nil, refused("%s: not a Wasm artifact: config media type %q, artifact type %q, want %s", ref, m.Config.MediaType, m.ArtifactType, ConfigMediaType)
	}
	for i := range m.Layers {
		l := &m.Layers[i]
		switch l.MediaType {
		case WasmMediaType:
			if mod != nil {
				return ocispec.Descriptor{}, nil, refused("%s: more than one %s layer", ref, WasmMediaType)
			}
			if l.Size < 0 || l.Size > c.opts.MaxModuleBytes {
				return ocispec.Descriptor{}, nil, refused("%s: the module layer has %d bytes, over the limit of %d (the module size limit)", ref, l.Size, c.opts.MaxModuleBytes)
			}
			mod = l
		case ManifestMediaType:
			if man != nil {
				return ocispec.Descriptor{}, nil, refused("%s: more than one %s layer", ref, ManifestMediaType)
			}
			if l.Size < 0 || l.Size > MaxPluginManifestBytes {
				return ocispec.Descriptor{}, nil, refused("%s: the plugin manifest layer has %d bytes, at most %d", ref, l.Size, MaxPluginManifestBytes)
			}
			man = l
		default:
			return ocispec.Descriptor{}, nil, refused("%s: layer %s has media type %q, want %s (or %s)", ref, l.Digest, l.MediaType, WasmMediaType, ManifestMediaType)
		}
	}
	if mod == nil {
		return ocispec.Descriptor{}, nil, refused("%s: no %s layer", ref, WasmMediaType)
	}
	for _, l := range []*ocispec.Descriptor{mod, man} {
		if l != nil && (l.Digest.Validate() != nil || l.Digest.Algorithm() != digest.SHA256) {
			return ocispec.Descriptor{}, nil, refused("%s: layer digest %q: want sha256", ref, l.Digest)
		}
	}
	return *mod, man, nil
}

// wasmConfig is the artifact's config blob (Wasm OCI artifact, v0).
type wasmConfig struct {
	Architecture string   `json:"architecture"`
	OS           string   `json:"os"`
	LayerDigests []string `json:"layerDigests"`
}

// Push publishes module, and manifest (a plugin manifest, YAML) unless it
// is nil, as a Wasm artifact at ref (a tag, or the digest the artifact
// will have), and returns the image manifest's digest. The module must
// start with the wasm magic number, and be at most Options.MaxModuleBytes,
// since a larger one would be refused by every puller with this limit.
func (c *Client) Push(ctx context.Context, ref Ref, module, manifest []byte) (digest.Digest, error) {
	if !bytes.HasPrefix(module, []byte("\x00asm")) {
		return "", errors.New("push: the module is not a wasm binary (no \\0asm magic number)")
	}
	if int64(len(module)) > c.opts.MaxModuleBytes {
		return "", fmt.Errorf("push: the module has %d bytes, over the limit of %d", len(module), c.opts.MaxModuleBytes)
	}
	if len(manifest) > MaxPluginManifestBytes {
		return "", fmt.Errorf("push: the manifest has %d bytes, at most %d", len(manifest), MaxPluginManifestBytes)
	}
	repo, err := c.repo(ref)
	if err != nil {
		return "", err
	}
	mod := content.NewDescriptorFromBytes(WasmMediaType, module)
	mod.Annotations = map[string]string{ocispec.AnnotationTitle: "module.wasm"}
	layers := []ocispec.Descriptor{mod}
	if manifest != nil {
		man := content.NewDescriptorFromBytes(ManifestMediaType, manifest)
		man.Annotations = map[string]string{ocispec.AnnotationTitle: "aclwasm.yaml"}
		layers = append(layers, man)
	}
	cfg, err := json.Marshal(wasmConfig{Architecture: "wasm", OS: "wasip1", LayerDigests: []string{mod.Digest.String()}})
	if err != nil {
		return "", err
	}
	cfgDesc := content.NewDescriptorFromBytes(ConfigMediaType, cfg)
	blobs := [][]byte{module, manifest}
	for i, l := range layers {
		if err := pushBlob(ctx, repo, l, blobs[i]); err != nil {
			return "", err
		}
	}
	if err := pushBlob(ctx, repo, cfgDesc, cfg); err != nil {
		return "", err
	}
	raw, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    cfgDesc,
		Layers:    layers,
	})
	if err != nil {
		return "", err
	}
	desc := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, raw)
	if ref.IsDigest() && ref.Reference.Reference != desc.Digest.String() {
		return "", fmt.Errorf("push %s: the artifact's digest is %s", ref, desc.Digest)
	}
	if err := repo.PushReference(ctx, desc, bytes.NewReader(raw), ref.Reference.Reference); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	return desc.Digest, nil
}

// pushBlob pushes b as desc unless the repository has it.
func pushBlob(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, b []byte) error {
	ok, err := repo.Exists(ctx, desc)
	if err != nil {
		return fmt.Errorf("push: %w", err)
	}
	if ok {
		return nil
	}
	if err := repo.Push(ctx, desc, bytes.NewReader(b)); err != nil {
		return fmt.Errorf("push %s: %w", desc.Digest, err)
	}
	return nil
}
