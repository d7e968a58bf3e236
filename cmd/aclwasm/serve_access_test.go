package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServeExposure: the decision to refuse a listen address, for
// addresses on every interface, without listening on any.
func TestServeExposure(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", "[::]:8080", ":8080", "192.0.2.1:8080", "example.com:443"} {
		err := exposure(addr, false, false, false)
		require.EqualError(t, err, "--listen "+addr+" is not a loopback address: serving it needs TLS (--tls-cert, --tls-key) and access rules (--config), or --insecure to serve it without them")
		require.EqualError(t, exposure(addr, true, false, false), "--listen "+addr+" is not a loopback address: serving it needs access rules (--config), or --insecure to serve it without them")
		require.EqualError(t, exposure(addr, false, true, false), "--listen "+addr+" is not a loopback address: serving it needs TLS (--tls-cert, --tls-key), or --insecure to serve it without them")
		require.NoError(t, exposure(addr, true, true, false))
		require.NoError(t, exposure(addr, false, false, true), "--insecure")
	}
	for _, addr := range []string{"127.0.0.1:8080", "[::1]:8080", "localhost:0"} {
		require.NoError(t, exposure(addr, false, false, false), addr)
	}
}

// cliIn is cli with stdin.
func cliIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(stdin), &out, &errb
	err := cmd.Run()
	require.NoError(t, ctx.Err())
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return r
}

// TestServeHashToken: serve hash-token prints the sha256: form of the
// token on stdin (sha256sum's digest), warns of a short token, and
// refuses empty, multi-line and padded input.
func TestServeHashToken(t *testing.T) {
	const want = "sha256:1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0\n" // printf s3cret | sha256sum
	for _, in := range []string{"s3cret", "s3cret\n", "s3cret\r\n"} {
		r := cliIn(t, in, "serve", "hash-token")
		require.Equal(t, 0, r.code, "%q: %s", in, r.stderr)
		require.Equal(t, want, r.stdout)
		require.Contains(t, r.stderr, "warning: a token of 6 characters can be guessed")
	}
	r := cliIn(t, strings.Repeat("ab", 32)+"\n", "serve", "hash-token")
	require.Equal(t, 0, r.code)
	require.Empty(t, r.stderr)
	require.Regexp(t, `^sha256:[0-9a-f]{64}\n$`, r.stdout)
	for in, msg := range map[string]string{
		"":                         "no token on stdin",
		"\n":                       "no token on stdin",
		"a\nb\n":                   "more than one line",
		" padded-token-0123456789": "white space",
		strings.Repeat("x", 5000):  "over 4096 bytes",
	} {
		r := cliIn(t, in, "serve", "hash-token")
		require.Equal(t, 126, r.code, "%q", in)
		require.Empty(t, r.stdout)
		require.Contains(t, r.stderr, msg)
	}
	r = cliIn(t, "s3cret", "serve", "hash-token", "s3cret")
	require.Equal(t, 126, r.code)
	require.Contains(t, r.stderr, "the token comes on stdin")
}

// TestServeSecureFlagErrors: flags that do not go together, an address
// that is not loopback, and a bad configuration file are usage errors
// (126) before anything listens.
func TestServeSecureFlagErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "serve.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("access:\n  - name: a\n    token: x\n"), 0o644))
	pk := newCLIPKI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tls-cert", pk.cert}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-key", pk.key}, "--tls-cert and --tls-key go together"},
		{[]string{"--client-ca", pk.ca}, "--client-ca needs TLS"},
		{[]string{"--tls-cert", pk.cert, "--tls-key", pk.key, "--tls-handshake-timeout", "0s"}, "--tls-handshake-timeout 0s"},
		{[]string{"--listen", "0.0.0.0:0"}, "--listen 0.0.0.0:0 is not a loopback address: serving it needs TLS (--tls-cert, --tls-key) and access rules (--config), or --insecure"},
		{[]string{"--listen", "[::]:0", "--tls-cert", pk.cert, "--tls-key", pk.key}, "--listen [::]:0 is not a loopback address: serving it needs access rules (--config)"},
		{[]string{"--listen", "127.0.0.1:0", "--config", bad}, "serve.yaml: access[0].token (line 3): no such field"},
		{[]string{"--listen", "127.0.0.1:0", "--tls-cert", pk.key, "--tls-key", pk.key}, "serve: TLS"},
	} {
		r := cli(t, append(append([]string{"serve"}, tc.args...), dir)...)
		require.Equal(t, 126, r.code, "%q: %s", tc.args, r.stderr)
		require.Contains(t, r.stderr, tc.want, "%q", tc.args)
		require.NotContains(t, r.stderr, `"listening"`)
	}
}

// cliPKI is a CA, a server certificate for 127.0.0.1 and a client
// certificate (CN=client-a,O=example), as files.
type cliPKI struct {
	ca, cert, key string
	pool          *x509.CertPool
	client        tls.Certificate
}

func newCLIPKI(t *testing.T) *cliPKI {
	t.Helper()
	dir := t.TempDir()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		return k
	}
	caKey := key()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test-ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	issue := func(n int64, tmpl *x509.Certificate) (certPEM, keyPEM []byte) {
		k := key()
		tmpl.SerialNumber, tmpl.NotBefore, tmpl.NotAfter, tmpl.KeyUsage = big.NewInt(n), time.Now().Add(-time.Hour), time.Now().Add(time.Hour), x509.KeyUsageDigitalSignature
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		require.NoError(t, err)
		kb, err := x509.MarshalECPrivateKey(k)
		require.NoError(t, err)
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	}
	p := &cliPKI{ca: filepath.Join(dir, "ca.crt"), cert: filepath.Join(dir, "server.crt"), key: filepath.Join(dir, "server.key"), pool: x509.NewCertPool()}
	p.pool.AddCert(caCert)
	c, k := issue(2, &x509.Certificate{Subject: pkix.Name{CommonName: "server"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	require.NoError(t, os.WriteFile(p.cert, c, 0o600))
	require.NoError(t, os.WriteFile(p.key, k, 0o600))
	require.NoError(t, os.WriteFile(p.ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))
	c, k = issue(3, &x509.Certificate{Subject: pkix.Name{CommonName: "client-a", Organization: []string{"example"}}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	p.client, err = tls.X509KeyPair(c, k)
	require.NoError(t, err)
	return p
}

// serverLog is a serve process's JSON log, read as it is written.
type serverLog struct {
	mu   sync.Mutex
	recs []map[string]any
	done chan struct{}
}

func readLog(r io.Reader) *serverLog {
	l := &serverLog{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			var rec map[string]any
			if json.Unmarshal(sc.Bytes(), &rec) != nil {
				rec = map[string]any{"msg": sc.Text()}
			}
			l.mu.Lock()
			l.recs = append(l.recs, rec)
			l.mu.Unlock()
		}
	}()
	return l
}

// wait returns the first record with msg, waiting up to a minute.
func (l *serverLog) wait(t *testing.T, msg string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		for _, r := range l.recs {
			if r["msg"] == msg {
				l.mu.Unlock()
				return r
			}
		}
		l.mu.Unlock()
		select {
		case <-l.done:
			t.Fatalf("serve exited before logging %q", msg)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("serve did not log %q within a minute", msg)
	return nil
}

// TestServeTLSAndAccess runs serve with every TLS and access flag: a
// client with the CA's certificate is served by its subject's rule, a
// token's rule over it; SIGHUP re-reads --config; SIGTERM stops it.
func TestServeTLSAndAccess(t *testing.T) {
	pk := newCLIPKI(t)
	dir := t.TempDir()
	mod := wat(t, "hi", `(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "hi")
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const 2))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))))`)
	b, err := os.ReadFile(mod)
	require.NoError(t, err)
	for _, n := range []string{"hi", "other"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n+".wasm"), b, 0o644))
	}
	cfgFile := filepath.Join(t.TempDir(), "serve.yaml")
	hash := strings.TrimSpace(cliIn(t, "token-ops-0123456789", "serve", "hash-token").stdout)
	rules := fmt.Sprintf("access:\n  - {name: team-a, subjects: [\"CN=client-a,O=example\"], plugins: [hi]}\n  - {name: ops, tokens: [%q], admin: [list, reload]}\n", hash)
	require.NoError(t, os.WriteFile(cfgFile, []byte(rules), 0o644))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--log-format", "json", "--poll", "0", "--cache-dir", "",
		"--tls-cert", pk.cert, "--tls-key", pk.key, "--client-ca", pk.ca, "--tls-handshake-timeout", "5s", "--config", cfgFile, dir)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	log := readLog(stderr)
	defer func() {
		_ = cmd.Process.Kill()
		<-log.done
		_ = cmd.Wait()
	}()
	rec := log.wait(t, "listening")
	require.Equal(t, true, rec["tls"])
	require.Equal(t, true, rec["mtls"])
	url := "https://" + rec["addr"].(string)
	log.wait(t, "plugins loaded")

	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pk.pool, Certificates: []tls.Certificate{pk.client}}}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: time.Minute}
	do := func(method, path, token string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, url+path, nil)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	st, body := do("POST", "/v1/plugins/hi", "")
	require.Equal(t, 200, st, body)
	require.Equal(t, "hi", body)
	st, body = do("POST", "/v1/plugins/other", "")
	require.Equal(t, 403, st)
	require.JSONEq(t, `{"code":"forbidden","message":"client team-a may not call plugin \"other\"","plugin":"other"}`, body)
	st, _ = do("GET", "/v1/plugins", "")
	require.Equal(t, 403, st)
	st, _ = do("GET", "/v1/plugins", "token-ops-0123456789")
	require.Equal(t, 200, st)
	st, _ = do("GET", "/healthz", "")
	require.Equal(t, 200, st)

	// SIGHUP: team-a gets other too.
	require.NoError(t, os.WriteFile(cfgFile, []byte(strings.Replace(rules, "plugins: [hi]", "plugins: [hi, other]", 1)), 0o644))
	require.NoError(t, cmd.Process.Signal(syscall.SIGHUP))
	log.wait(t, "SIGHUP: reloaded")
	st, body = do("POST", "/v1/plugins/other", "")
	require.Equal(t, 200, st, body)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	<-log.done
	require.NoError(t, cmd.Wait(), "serve exits 0 after SIGTERM")
}
