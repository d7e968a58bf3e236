package serve

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

var serial atomic.Int64

func newKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return k
}

func newCA(t testing.TB, cn string) *testCA {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// leaf is a certificate the CA issued, in PEM, and as tls.Certificate.
type leaf struct {
	certPEM, keyPEM []byte
	tls             tls.Certificate
	serial          *big.Int
}

// issue signs a certificate for subject, valid from notBefore to
// notAfter: a server's for 127.0.0.1 when server is set, else a client's.
func (ca *testCA) issue(t testing.TB, subject pkix.Name, server bool, notBefore, notAfter time.Time) leaf {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)), Subject: subject, NotBefore: notBefore, NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	l := leaf{certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), serial: tmpl.SerialNumber}
	l.tls, err = tls.X509KeyPair(l.certPEM, l.keyPEM)
	require.NoError(t, err)
	return l
}

// issueRaw is a client certificate whose subject is the DER subject,
// as given (pkix.Name cannot write two CNs or a multi-valued RDN).
func (ca *testCA) issueRaw(t testing.TB, subject []byte) leaf {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)), RawSubject: subject, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	kder, err := x509.MarshalECPrivateKey(key)
	require.NoError(t, err)
	l := leaf{certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), serial: tmpl.SerialNumber}
	l.tls, err = tls.X509KeyPair(l.certPEM, l.keyPEM)
	require.NoError(t, err)
	return l
}

func (ca *testCA) server(t testing.TB) leaf {
	return ca.issue(t, pkix.Name{CommonName: "aclwasm-test-server"}, true, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
}

func (ca *testCA) client(t testing.TB, cn string) leaf {
	return ca.issue(t, pkix.Name{CommonName: cn, Organization: []string{"example"}}, false, time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour))
}

// writeFile writes b to path atomically (a temporary file, then rename),
// with a modification time after any the file had: a reload must see it
// whatever the file system's time granularity.
func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	mod := time.Now()
	if fi, err := os.Stat(path); err == nil && !fi.ModTime().Before(mod) {
		mod = fi.ModTime().Add(time.Second)
	}
	tmp := path + ".tmp"
	require.NoError(t, os.WriteFile(tmp, b, 0o600))
	require.NoError(t, os.Chtimes(tmp, mod, mod))
	require.NoError(t, os.Rename(tmp, path))
}

// pki is a test's TLS files: the server's pair from ca, and ca as the
// client CA.
type pki struct {
	ca                   *testCA
	certFile, keyFile    string
	caFile, dir          string
	serverSerial         *big.Int
	clientA, expired     leaf
	untrusted, stranger  leaf
	otherCA              *testCA
	serverPool, wrongCAs *x509.CertPool
}

func newPKI(t testing.TB) *pki {
	t.Helper()
	p := &pki{ca: newCA(t, "aclwasm-test-ca"), otherCA: newCA(t, "another-ca"), dir: t.TempDir()}
	srv := p.ca.server(t)
	p.serverSerial = srv.serial
	p.certFile, p.keyFile, p.caFile = filepath.Join(p.dir, "server.crt"), filepath.Join(p.dir, "server.key"), filepath.Join(p.dir, "ca.crt")
	writeFile(t, p.certFile, srv.certPEM)
	writeFile(t, p.keyFile, srv.keyPEM)
	writeFile(t, p.caFile, p.ca.pem)
	p.clientA = p.ca.client(t, "client-a")
	p.stranger = p.ca.client(t, "client-z")
	p.expired = p.ca.issue(t, pkix.Name{CommonName: "client-a", Organization: []string{"example"}}, false, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour))
	p.untrusted = p.otherCA.client(t, "client-a")
	p.serverPool = x509.NewCertPool()
	p.serverPool.AddCert(p.ca.cert)
	p.wrongCAs = x509.NewCertPool()
	p.wrongCAs.AddCert(p.otherCA.cert)
	return p
}

// tlsClient is an HTTPS client that trusts roots and presents cert (none
// when nil; sent whatever the server asks for), on connections of its own (closed at the test's end), with
// keep-alives off and HTTP/1.1 when fresh is set: each request makes a
// new handshake, and a handshake the server fails shows as its alert.
func tlsClient(t testing.TB, roots *x509.CertPool, cert *tls.Certificate, fresh bool) *http.Client {
	t.Helper()
	tc := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	if cert != nil {
		// Sent whatever CAs the server asks for (Certificates would be
		// left out for a server that names another CA).
		tc.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return cert, nil }
	}
	tr := &http.Transport{TLSClientConfig: tc, DisableKeepAlives: fresh, ForceAttemptHTTP2: !fresh}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: time.Minute}
}

// startTLS is start over TLS: the fixture's URL is https.
func startTLS(t testing.TB, cfg Config) *fixture {
	t.Helper()
	f := start(t, cfg)
	f.url = "https" + strings.TrimPrefix(f.url, "http")
	return f
}

// call is one request with client c; an error is the transport's
// (a failed handshake).
func call(c *http.Client, method, url, token string, body []byte) (reply, *http.Response, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return reply{}, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return reply{}, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, b, resp.Close}, resp, err
}

// TestTLSServes: with Config.TLS the server answers over TLS 1.2 or
// later only, a plugin and the probes alike, with HTTP/2 offered; a
// client limited to TLS 1.1 fails its handshake, and plain HTTP gets no
// answer from a plugin.
func TestTLSServes(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := startTLS(t, Config{Dir: dir, TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile}})
	c := tlsClient(t, p.serverPool, nil, false)

	r, resp, err := call(c, "POST", f.url+"/v1/plugins/echo", "", []byte("over tls"))
	require.NoError(t, err)
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:over tls", string(r.body))
	require.GreaterOrEqual(t, resp.TLS.Version, uint16(tls.VersionTLS12))
	require.Equal(t, "h2", resp.TLS.NegotiatedProtocol)
	require.Equal(t, p.serverSerial, resp.TLS.PeerCertificates[0].SerialNumber)
	r, _, err = call(c, "GET", f.url+"/healthz", "", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.status)

	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.serverPool, MinVersion: tls.VersionTLS10, MaxVersion: tls.VersionTLS11}}, Timeout: time.Minute}
	_, _, err = call(old, "GET", f.url+"/healthz", "", nil)
	require.ErrorContains(t, err, "protocol version")

	plain := "http" + strings.TrimPrefix(f.url, "https")
	r, _, err = call(&http.Client{Timeout: time.Minute}, "POST", plain+"/v1/plugins/echo", "", []byte("x"))
	require.NoError(t, err)
	require.Equal(t, 400, r.status, "net/http's answer to HTTP on a TLS port")
	require.NotContains(t, string(r.body), "echo:")
}

// TestMutualTLS: with a client CA a client certificate must be one that CA
// signed and that has not expired: an expired one or one of another CA
// fails the handshake; without one, every request but the probes gets 401
// (the kubelet's probes present none); no plugin runs; a good one is
// served.
func TestMutualTLS(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	log := &jsonLog{}
	f := startTLS(t, Config{Dir: dir, Logger: log.logger(), TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, ClientCAFile: p.caFile}})

	r, _, err := call(tlsClient(t, p.serverPool, &p.clientA.tls, false), "POST", f.url+"/v1/plugins/echo", "", []byte("a"))
	require.NoError(t, err)
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:a", string(r.body))

	for _, tc := range []struct {
		name       string
		cert       *tls.Certificate
		alert, log string // the server's alert, and its reason in the server's log
	}{
		{"expired", &p.expired.tls, "expired certificate", "certificate has expired"},
		{"another CA", &p.untrusted.tls, "unknown certificate authority", "certificate signed by unknown authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := call(tlsClient(t, p.serverPool, tc.cert, true), "POST", f.url+"/v1/plugins/echo", "", []byte("a"))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.alert)
			// net/http logs the failed handshake as it closes the
			// connection: maybe after the client read the alert.
			require.Eventually(t, func() bool {
				for _, rec := range log.Records(t) {
					if m, _ := rec["msg"].(string); strings.Contains(m, "TLS handshake error") && strings.Contains(m, tc.log) {
						return true
					}
				}
				return false
			}, 30*time.Second, 10*time.Millisecond, "no handshake error %q in the server's log", tc.log)
		})
	}
	none := tlsClient(t, p.serverPool, nil, true)
	r, _, err = call(none, "POST", f.url+"/v1/plugins/echo", "", []byte("a"))
	require.NoError(t, err)
	require.Equal(t, 401, r.status, "no client certificate: %v", r)
	require.Contains(t, string(r.body), "client certificate")
	r, _, err = call(none, "GET", f.url+"/v1/plugins", "", nil)
	require.NoError(t, err)
	require.Equal(t, 401, r.status)
	for _, probe := range []string{"/healthz", "/readyz"} {
		r, _, err = call(none, "GET", f.url+probe, "", nil)
		require.NoError(t, err)
		require.Equal(t, 200, r.status, "%s without a client certificate", probe)
	}
	ok := 0
	for _, rec := range log.Records(t) {
		if rec["msg"] == "request" && rec["plugin"] == "echo" {
			ok++
		}
	}
	require.Equal(t, 1, ok, "only the good client's request ran")

	// The client's CA must trust the server too: a client that trusts
	// another CA refuses the server's certificate.
	_, _, err = call(tlsClient(t, p.wrongCAs, &p.clientA.tls, true), "GET", f.url+"/healthz", "", nil)
	var ue *tls.CertificateVerificationError
	require.ErrorAs(t, err, &ue)
}

// TestTLSHandshakeTimeout: a client that connects and stalls, sending
// nothing or only part of a ClientHello, is cut off after the handshake
// timeout; the connection is closed by the server (the watchdog is far
// longer than the timeout, and far shorter than the 10 s default, so
// that the default does not pass for the setting). The timeout is a
// second, not less: the timely client's handshake must fit in it on a
// loaded machine too.
func TestTLSHandshakeTimeout(t *testing.T) {
	t.Parallel() // it waits (on its server, its clients, a timeout) more than it computes
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := startTLS(t, Config{Dir: dir, TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, HandshakeTimeout: time.Second}})
	addr := strings.TrimPrefix(f.url, "https://")

	// A ClientHello's record header (handshake, TLS 1.0 record version,
	// 512 bytes announced) and the first bytes of the message: the server
	// waits for the rest.
	partial := []byte{0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03}
	for _, tc := range []struct {
		name string
		send []byte
	}{{"nothing", nil}, {"partial ClientHello", partial}} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
			require.NoError(t, err)
			defer conn.Close()
			if tc.send != nil {
				_, err = conn.Write(tc.send)
				require.NoError(t, err)
			}
			require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
			n, err := io.Copy(io.Discard, conn) // until the server closes it
			var ne net.Error
			require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server still holds the stalled handshake after 5 s")
			require.Zero(t, n, "a stalled handshake gets no answer")
		})
	}
	// A timely client is served on the same server.
	r, _, err := call(tlsClient(t, p.serverPool, nil, true), "GET", f.url+"/healthz", "", nil)
	require.NoError(t, err)
	require.Equal(t, 200, r.status)
}

// TestTLSCertReload: a certificate written over the files is served from
// the next handshake on; a bad new pair (a certificate that is no PEM, a
// key that does not match) is logged and the pair in use is kept, and a
// good pair after it is taken again.
func TestTLSCertReload(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	log := &jsonLog{}
	f := startTLS(t, Config{Dir: dir, Logger: log.logger(), TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile}})
	c := tlsClient(t, p.serverPool, nil, true)
	served := func() *big.Int {
		t.Helper()
		r, resp, err := call(c, "GET", f.url+"/healthz", "", nil)
		require.NoError(t, err)
		require.Equal(t, 200, r.status)
		return resp.TLS.PeerCertificates[0].SerialNumber
	}
	require.Equal(t, p.serverSerial, served())

	second := p.ca.server(t)
	writeFile(t, p.keyFile, second.keyPEM)
	writeFile(t, p.certFile, second.certPEM)
	require.Equal(t, second.serial, served(), "the next handshake serves the new certificate")
	require.Equal(t, second.serial, served())

	writeFile(t, p.certFile, []byte("not a certificate"))
	require.Equal(t, second.serial, served(), "a bad certificate file keeps the pair in use")
	third := p.ca.server(t)
	writeFile(t, p.certFile, third.certPEM) // the key is still second's
	require.Equal(t, second.serial, served(), "a key that does not match keeps the pair in use")
	failures := 0
	for _, rec := range log.Records(t) {
		if rec["msg"] == "TLS certificate reload failed: the certificate in use is kept" {
			failures++
		}
	}
	require.Equal(t, 2, failures, "each bad pair is logged once, not at every handshake")
	writeFile(t, p.keyFile, third.keyPEM)
	require.Equal(t, third.serial, served(), "a good pair again is taken")
}

// newFails is New's error for cfg, on a runtime of its own; New must
// fail.
func newFails(t testing.TB, cfg Config) error {
	t.Helper()
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(engine))
	require.NoError(t, err)
	defer func() { require.NoError(t, rt.Close(ctx)) }()
	cfg.Runtime = rt
	s, err := New(ctx, cfg)
	if err == nil {
		_ = s.Shutdown(ctx)
	}
	require.Error(t, err, "New accepted the Config")
	return err
}

// TestTLSConfigErrors: files that do not load fail New, naming the
// problem.
func TestTLSConfigErrors(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, nil, nil)
	garbage := filepath.Join(p.dir, "garbage.pem")
	writeFile(t, garbage, []byte("no pem here"))
	for _, tc := range []struct {
		name string
		tls  TLSConfig
		want string
	}{
		{"no key", TLSConfig{CertFile: p.certFile}, "both CertFile and KeyFile"},
		{"missing cert", TLSConfig{CertFile: filepath.Join(p.dir, "nope.crt"), KeyFile: p.keyFile}, "no such file"},
		{"bad cert", TLSConfig{CertFile: garbage, KeyFile: p.keyFile}, "failed to find any PEM data"},
		{"bad client CA", TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, ClientCAFile: garbage}, "no PEM certificate"},
		{"missing client CA", TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, ClientCAFile: filepath.Join(p.dir, "nope")}, "no such file"},
		{"handshake timeout", TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, HandshakeTimeout: 2 * time.Minute}, "HandshakeTimeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.tls
			require.ErrorContains(t, newFails(t, Config{Dir: dir, TLS: &cfg}), tc.want)
		})
	}
}

// rdns is a subject as RDNs in RFC 4514's order (the most specific
// first), each RDN a list of type, value pairs: CN, O, OU by name, or a
// dotted OID.
func rdns(t testing.TB, rs ...[]string) []byte {
	t.Helper()
	oids := map[string]asn1.ObjectIdentifier{"CN": {2, 5, 4, 3}, "O": {2, 5, 4, 10}, "OU": {2, 5, 4, 11}}
	var seq pkix.RDNSequence
	for _, r := range rs {
		var set pkix.RelativeDistinguishedNameSET
		for i := 0; i+1 < len(r); i += 2 {
			var v any = r[i+1]
			if r[i] == "serial-int" { // a value that is no string
				set = append(set, pkix.AttributeTypeAndValue{Type: asn1.ObjectIdentifier{2, 5, 4, 5}, Value: 7})
				continue
			}
			set = append(set, pkix.AttributeTypeAndValue{Type: oids[r[i]], Value: v})
		}
		seq = append(pkix.RDNSequence{set}, seq...) // DER: the most general first
	}
	der, err := asn1.Marshal(seq)
	require.NoError(t, err)
	return der
}

// TestSubjectMatch: a rule's subject matches a certificate's whole
// subject: every RDN, in order, each with all its attributes (a set);
// types by name or OID in any case, values exactly, escapes decoded.
func TestSubjectMatch(t *testing.T) {
	ops := rdns(t, []string{"CN", "ops"}, []string{"O", "example"})
	for _, tc := range []struct {
		name    string
		subject []byte
		rule    string
		match   bool
	}{
		{"same", ops, "CN=ops,O=example", true},
		{"spaces around separators", ops, " CN = ops , O = example ", true},
		{"types in lower case", ops, "cn=ops,o=example", true},
		{"types as OIDs", ops, "2.5.4.3=ops,2.5.4.10=example", true},
		{"values are case-sensitive", ops, "CN=OPS,O=example", false},
		{"an RDN less", ops, "CN=ops", false},
		{"an RDN more", ops, "CN=ops,OU=x,O=example", false},
		{"order", ops, "O=example,CN=ops", false},
		{"order of the certificate", rdns(t, []string{"O", "example"}, []string{"CN", "ops"}), "CN=ops,O=example", false},
		{"two CNs, the rule names the last", rdns(t, []string{"CN", "mallory"}, []string{"CN", "ops"}, []string{"O", "example"}), "CN=ops,O=example", false},
		{"two CNs, the rule names the first", rdns(t, []string{"CN", "mallory"}, []string{"CN", "ops"}, []string{"O", "example"}), "CN=mallory,O=example", false},
		{"two CNs, the other order", rdns(t, []string{"CN", "ops"}, []string{"CN", "mallory"}, []string{"O", "example"}), "CN=ops,O=example", false},
		{"two CNs named both", rdns(t, []string{"CN", "mallory"}, []string{"CN", "ops"}, []string{"O", "example"}), "CN=mallory,CN=ops,O=example", true},
		{"two CNs named both, swapped", rdns(t, []string{"CN", "mallory"}, []string{"CN", "ops"}, []string{"O", "example"}), "CN=ops,CN=mallory,O=example", false},
		{"two CNs in one RDN", rdns(t, []string{"CN", "mallory", "CN", "ops"}, []string{"O", "example"}), "CN=ops,O=example", false},
		{"two CNs in one RDN named both", rdns(t, []string{"CN", "mallory", "CN", "ops"}, []string{"O", "example"}), "CN=ops+CN=mallory,O=example", true},
		{"multi-valued RDN against two", rdns(t, []string{"CN", "ops", "O", "example"}), "CN=ops,O=example", false},
		{"multi-valued RDN", rdns(t, []string{"CN", "ops", "O", "example"}), "CN=ops+O=example", true},
		{"multi-valued RDN, any order", rdns(t, []string{"CN", "ops", "O", "example"}), "O=example+CN=ops", true},
		{"multi-valued RDN, an attribute less", rdns(t, []string{"CN", "ops", "OU", "x"}, []string{"O", "example"}), "CN=ops,O=example", false},
		{"two RDNs against multi-valued", ops, "CN=ops+O=example", false},
		{"an escaped comma", rdns(t, []string{"CN", "ops,O=example"}, []string{"O", "evil"}), "CN=ops,O=example", false},
		{"an escaped comma named", rdns(t, []string{"CN", "ops,O=example"}, []string{"O", "evil"}), `CN=ops\,O=example,O=evil`, true},
		{"an escaped comma in hex", rdns(t, []string{"CN", "ops,O=example"}, []string{"O", "evil"}), `CN=ops\2cO=example,O=evil`, true},
		{"an escaped plus", rdns(t, []string{"CN", "a+b"}, []string{"O", "example"}), `CN=a\+b,O=example`, true},
		{"a plus is no escaped plus", rdns(t, []string{"CN", "a+b"}, []string{"O", "example"}), `CN=a+CN=b,O=example`, false},
		{"an escaped leading space", rdns(t, []string{"CN", " ops"}, []string{"O", "example"}), `CN=\ ops,O=example`, true},
		{"a leading space is dropped", rdns(t, []string{"CN", " ops"}, []string{"O", "example"}), `CN= ops,O=example`, false},
		{"an escaped trailing space", rdns(t, []string{"CN", "ops "}, []string{"O", "example"}), `CN=ops\ ,O=example`, true},
		{"a value of UTF-8 in hex", rdns(t, []string{"CN", "é"}, []string{"O", "example"}), `CN=\c3\a9,O=example`, true},
		{"an equals sign unescaped", rdns(t, []string{"CN", "a=b"}, []string{"O", "example"}), `CN=a=b,O=example`, true},
		{"a value that is no string", rdns(t, []string{"CN", "ops", "serial-int", ""}, []string{"O", "example"}), "CN=ops+SERIALNUMBER=7,O=example", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub, _, err := certDN(&x509.Certificate{RawSubject: tc.subject})
			require.NoError(t, err)
			rule, err := parseDN(tc.rule)
			require.NoError(t, err, tc.rule)
			require.Equal(t, tc.match, rule.equal(sub))
		})
	}

	for rule, want := range map[string]string{
		"":                 "at 1: want TYPE=VALUE",
		"CN=ops,":          "at 8: want TYPE=VALUE",
		"CN=ops+":          "at 8: want TYPE=VALUE",
		"=ops":             `at 1: unknown attribute type ""`,
		"XX=ops":           `at 1: unknown attribute type "XX"`,
		"2.05.4.3=ops":     `unknown attribute type "2.05.4.3"`,
		"7=ops":            `unknown attribute type "7"`,
		"CN=":              "at 4: an empty value",
		"CN=ops,O=":        "at 10: an empty value",
		"CN=#0403616263":   "at 4: a #hex value: write the value as a string",
		"CN=a;b":           `at 5: ';' unescaped in a value (write \;)`,
		"CN=ops;O=example": `at 7: ';' unescaped`,
		`CN=a"b`:           `'"' unescaped`,
		`CN=a\`:            `at 5: a \ ends the name`,
		`CN=a\q`:           `at 5: \q: escape only`,
		`CN=\ff`:           "the value is no UTF-8",
	} {
		_, err := parseDN(rule)
		require.ErrorContains(t, err, want, "%q", rule)
	}
}

// TestAccessSubjectsWhole: over mutual TLS, a certificate with two CNs
// (CN=mallory,CN=ops,O=example) is granted neither the rule of
// CN=ops,O=example nor that of CN=mallory,O=example, in either order of
// its CNs, and its 401 names its whole subject; a certificate whose
// subject is one RDN of CN and O matches neither.
func TestAccessSubjectsWhole(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", "")}, nil)
	f := startTLS(t, Config{Dir: dir, ConfigFile: rulesFile(t, `access:
  - {name: ops, subjects: ["CN=ops,O=example"], plugins: [upper]}
  - {name: mallory, subjects: ["CN=mallory,O=example"], plugins: [echo]}
`), TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, ClientCAFile: p.caFile}})
	cert := func(subject []byte) *http.Client {
		l := p.ca.issueRaw(t, subject)
		return tlsClient(t, p.serverPool, &l.tls, false)
	}
	r, _, err := call(cert(rdns(t, []string{"CN", "ops"}, []string{"O", "example"})), "POST", f.url+"/v1/plugins/upper", "", []byte("x"))
	require.NoError(t, err)
	require.Equal(t, 200, r.status, "the rule's own subject: %v", r)

	for _, tc := range []struct {
		subject []byte
		name    string
	}{
		{rdns(t, []string{"CN", "mallory"}, []string{"CN", "ops"}, []string{"O", "example"}), "CN=mallory,CN=ops,O=example"},
		{rdns(t, []string{"CN", "ops"}, []string{"CN", "mallory"}, []string{"O", "example"}), "CN=ops,CN=mallory,O=example"},
		{rdns(t, []string{"CN", "ops", "O", "example"}), "CN=ops+O=example"},
		{rdns(t, []string{"O", "example"}, []string{"CN", "ops"}), "O=example,CN=ops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cert(tc.subject)
			for _, plugin := range []string{"upper", "echo"} {
				r, _, err := call(c, "POST", f.url+"/v1/plugins/"+plugin, "", []byte("x"))
				require.NoError(t, err)
				require.Equal(t, 401, r.status, "%s: %v", plugin, r)
				require.Equal(t, fmt.Sprintf("the client certificate's subject %q is not one of the access rules'", tc.name), r.err(t).Message)
			}
		})
	}
}

// TestTLSMetrics: the certificates' expiries are series, the server's
// following a reloaded certificate.
func TestTLSMetrics(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := startTLS(t, Config{Dir: dir, TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, ClientCAFile: p.caFile}})
	expiry := func(cert string) float64 {
		t.Helper()
		return gathered(t, f.s.cfg.Gatherer).sum("aclwasm_tls_certificate_expiry_timestamp_seconds", `cert="`+cert+`"`)
	}
	first, err := tls.X509KeyPair(mustRead(t, p.certFile), mustRead(t, p.keyFile))
	require.NoError(t, err)
	require.Equal(t, float64(first.Leaf.NotAfter.Unix()), expiry("server"))
	require.Equal(t, float64(p.ca.cert.NotAfter.Unix()), expiry("client_ca"))

	later := time.Now().Add(72 * time.Hour).Truncate(time.Second)
	second := p.ca.issue(t, pkix.Name{CommonName: "aclwasm-test-server"}, true, time.Now().Add(-time.Hour), later)
	writeFile(t, p.keyFile, second.keyPEM)
	writeFile(t, p.certFile, second.certPEM)
	_, _, err = call(tlsClient(t, p.serverPool, &p.clientA.tls, true), "GET", f.url+"/healthz", "", nil)
	require.NoError(t, err)
	require.Equal(t, float64(later.Unix()), expiry("server"), "the certificate served now")
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}
