package helm

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"
)

// registryHost is the registry the values files pull their OCI plugins
// from.
const registryHost = "registry.example.com"

// fakeRegistry stands for registryHost: one registry (go-containerregistry's,
// in memory) served on 127.0.0.1 over plain HTTP, where the CLI pushes
// the plugins, and over TLS with a certificate of the test's CA for
// registryHost, reached through an HTTPS proxy (the server's
// HTTPS_PROXY) that connects registryHost:443 to it, as a cluster's
// egress routes a registry's name.
type fakeRegistry struct {
	plain, secure, proxy *httptest.Server

	mu    sync.Mutex
	conns []net.Conn
	wg    sync.WaitGroup
}

func newFakeRegistry(t *testing.T, p *pki) *fakeRegistry {
	t.Helper()
	f := &fakeRegistry{}
	h := registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	f.plain = httptest.NewServer(h)
	f.secure = httptest.NewUnstartedServer(h)
	certPEM, keyPEM := p.issue(t, 10, registryHost, true)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	require.NoError(t, err)
	f.secure.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	f.secure.StartTLS()
	f.proxy = httptest.NewServer(http.HandlerFunc(f.connect))
	t.Cleanup(f.close)
	return f
}

// connect is the proxy: CONNECT registryHost:443 only.
func (f *fakeRegistry) connect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect || r.Host != registryHost+":443" {
		http.Error(w, "this proxy connects "+registryHost+":443 only", http.StatusForbidden)
		return
	}
	up, err := net.Dial("tcp", f.secure.Listener.Addr().String())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	c, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		up.Close()
		return
	}
	f.mu.Lock()
	f.conns = append(f.conns, c, up)
	f.wg.Add(2)
	f.mu.Unlock()
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection established\r\n\r\n")); err != nil {
		c.Close()
		up.Close()
	}
	go func() { defer f.wg.Done(); _, _ = io.Copy(up, brw); up.Close() }()
	go func() { defer f.wg.Done(); _, _ = io.Copy(c, up); c.Close() }()
}

func (f *fakeRegistry) close() {
	f.proxy.Close()
	f.mu.Lock()
	for _, c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	f.secure.Close()
	f.plain.Close()
}

// push publishes the contract plugin as each OCI source of vals
// (oci://registryHost/REPO:TAG), with the CLI's push over plain HTTP.
func (f *fakeRegistry) push(t *testing.T, vals map[string]any) {
	t.Helper()
	entries, _ := lookup(vals, "plugins", "oci").([]any)
	if len(entries) == 0 {
		return
	}
	wasm := filepath.Join(t.TempDir(), "plugin.wasm")
	require.NoError(t, os.WriteFile(wasm, contractEnv.plugin, 0o644))
	for _, e := range entries {
		src, _ := e.(map[string]any)["source"].(string)
		rest, ok := strings.CutPrefix(src, "oci://"+registryHost+"/")
		require.True(t, ok, "%s: the test serves %s only", src, registryHost)
		ref := "oci://" + f.plain.Listener.Addr().String() + "/" + rest
		out, err := exec.Command(contractEnv.cli, "push", "--plain-http", wasm, ref).CombinedOutput()
		require.NoError(t, err, "aclwasm push %s: %s", ref, out)
	}
}
