// Package ocitest runs an OCI registry in the test process, on 127.0.0.1,
// for the tests of the packages that pull plugins (ociplugin, serve, the
// CLI). It is go-containerregistry's in-memory registry behind a handler
// that counts blob and manifest requests, and can demand basic auth, serve
// wrong bytes for a blob, send a blob slowly or stop sending it halfway,
// or stop answering, so that a test sees what a client fetched and how it
// copes.
package ocitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// Registry is a registry served on 127.0.0.1 for one test.
type Registry struct {
	// Host is its host:port, for references: oci://HOST/REPO:TAG.
	Host string

	srv *httptest.Server
	mu  sync.Mutex
	// blobGets counts GET requests of blobs by digest.
	blobGets map[string]int
	// manifestReqs counts GET and HEAD requests of manifests.
	manifestReqs int
	user, pass   string
	corrupt      map[string]bool          // blob digests served with a flipped byte
	trickle      map[string]time.Duration // blob digests served a byte at a time, this far apart
	stall        map[string]bool          // blob digests whose body stops halfway
	hold         chan struct{}            // non-nil: manifest requests wait until it is closed
	down         bool
	blobsDown    bool
	quit         chan struct{} // closed when the registry closes: slow answers end
	closeOnce    sync.Once
}

// New starts a registry; it is closed when the test ends.
func New(t testing.TB) *Registry {
	t.Helper()
	r := &Registry{blobGets: map[string]int{}, corrupt: map[string]bool{}, trickle: map[string]time.Duration{}, stall: map[string]bool{},
		quit: make(chan struct{})}
	inner := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { r.serve(inner, w, req) }))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	r.srv = srv
	r.Host = ln.Addr().String()
	t.Cleanup(r.Close)
	return r
}

// serve counts the request and answers it as the registry's settings say.
func (r *Registry) serve(inner http.Handler, w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	down, user, pass := r.down, r.user, r.pass
	var corrupt, stall bool
	var trickle time.Duration
	if i := strings.Index(req.URL.Path, "/blobs/"); i >= 0 && req.Method == http.MethodGet {
		d := req.URL.Path[i+len("/blobs/"):]
		r.blobGets[d]++
		corrupt, trickle, stall = r.corrupt[d], r.trickle[d], r.stall[d]
		down = down || r.blobsDown
	}
	hold := (chan struct{})(nil)
	if strings.Contains(req.URL.Path, "/manifests/") && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
		r.manifestReqs++
		hold = r.hold
	}
	r.mu.Unlock()
	if hold != nil {
		select { // a registry that does not answer
		case <-hold:
		case <-req.Context().Done():
			return
		case <-r.quit:
			return
		}
	}
	if down {
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
		return
	}
	if user != "" {
		if u, p, ok := req.BasicAuth(); !ok || u != user || p != pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="ocitest"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	if !corrupt && trickle == 0 && !stall {
		inner.ServeHTTP(w, req)
		return
	}
	rec := httptest.NewRecorder()
	inner.ServeHTTP(rec, req)
	b := rec.Body.Bytes()
	if len(b) > 0 && corrupt {
		b = bytes.Clone(b)
		b[len(b)/2] ^= 0xff // same length, other bytes: only the digest tells
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	switch {
	case stall:
		_, _ = w.Write(b[:len(b)/2])
		http.NewResponseController(w).Flush()
		select { // until the client gives up, or the registry closes
		case <-req.Context().Done():
		case <-r.quit:
		}
	case trickle > 0:
		for i := range b {
			_, _ = w.Write(b[i : i+1])
			http.NewResponseController(w).Flush()
			select {
			case <-time.After(trickle):
			case <-req.Context().Done():
				return
			case <-r.quit:
				return
			}
		}
	default:
		_, _ = w.Write(b)
	}
}

// Trickle makes GETs of blob digest (sha256:HEX) send one byte, then wait
// every, and so on: a registry that makes progress, too slowly.
func (r *Registry) Trickle(digest string, every time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trickle[digest] = every
}

// Stall makes GETs of blob digest (sha256:HEX) send the headers and half
// the body, then nothing until the client gives up or the registry
// closes.
func (r *Registry) Stall(digest string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stall[digest] = true
}

// HoldManifests makes requests of manifests (tags resolved, manifests
// fetched) wait without an answer until release is called.
func (r *Registry) HoldManifests() (release func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.hold = ch
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.hold = nil
			r.mu.Unlock()
			close(ch)
		})
	}
}

// Heal serves blob digest normally again (no trickle, stall or
// corruption).
func (r *Registry) Heal(digest string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.trickle, digest)
	delete(r.stall, digest)
	delete(r.corrupt, digest)
}

// RequireAuth makes every request need basic auth with user and pass.
func (r *Registry) RequireAuth(user, pass string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.user, r.pass = user, pass
}

// Corrupt makes GETs of blob digest (sha256:HEX) answer wrong bytes of the
// right length, as a broken proxy or a tampered store would.
func (r *Registry) Corrupt(digest string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.corrupt[digest] = true
}

// SetDown makes every request fail with 503 (down) or be served again.
func (r *Registry) SetDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.down = down
}

// SetBlobsDown makes GETs of blobs fail with 503 (down) or be served
// again, while manifests and tags still answer: a download that fails
// after the tag resolved.
func (r *Registry) SetBlobsDown(down bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.blobsDown = down
}

// Close stops the server: slow answers end, connections are refused
// from then on.
func (r *Registry) Close() {
	r.closeOnce.Do(func() {
		close(r.quit)
		r.srv.Close()
	})
}

// BlobGets is how many GETs of blob digest (sha256:HEX) were made.
func (r *Registry) BlobGets(digest string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blobGets[digest]
}

// AllBlobGets is how many GETs of blobs were made in all.
func (r *Registry) AllBlobGets() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.blobGets {
		n += c
	}
	return n
}

// ManifestRequests is how many GETs and HEADs of manifests were made.
func (r *Registry) ManifestRequests() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.manifestReqs
}

// Layer is one layer of an artifact PushLayers writes.
type Layer struct {
	MediaType string
	Data      []byte
}

// PushLayers pushes an artifact with the Wasm config media type
// (application/vnd.wasm.config.v0+json) and these layers, as given, to
// repo:tag: the layouts a client must refuse, which it never writes
// itself. It returns each layer's digest.
func (r *Registry) PushLayers(t testing.TB, repo, tag string, layers ...Layer) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rp, err := remote.NewRepository(r.Host + "/" + repo)
	if err != nil {
		t.Fatal(err)
	}
	rp.PlainHTTP = true
	rp.Client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	defer rp.Client.(*http.Client).CloseIdleConnections()
	push := func(d ocispec.Descriptor, b []byte) {
		if err := rp.Push(ctx, d, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
	}
	var descs []ocispec.Descriptor
	var digests []string
	for _, l := range layers {
		d := content.NewDescriptorFromBytes(l.MediaType, l.Data)
		push(d, l.Data)
		descs = append(descs, d)
		digests = append(digests, d.Digest.String())
	}
	cfg := []byte(`{"architecture":"wasm","os":"wasip1"}`)
	cd := content.NewDescriptorFromBytes("application/vnd.wasm.config.v0+json", cfg)
	push(cd, cfg)
	raw, err := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest, Config: cd, Layers: descs})
	if err != nil {
		t.Fatal(err)
	}
	md := content.NewDescriptorFromBytes(ocispec.MediaTypeImageManifest, raw)
	if err := rp.PushReference(ctx, md, bytes.NewReader(raw), tag); err != nil {
		t.Fatal(err)
	}
	return digests
}
