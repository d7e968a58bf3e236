package serve

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// DefaultHandshakeTimeout bounds a TLS handshake when
// TLSConfig.HandshakeTimeout is 0.
const DefaultHandshakeTimeout = 10 * time.Second

// maxHandshakeTimeout is the server's read timeout: net/http bounds the
// handshake by the smallest of its timeouts, so a longer one would not
// hold.
const maxHandshakeTimeout = time.Minute

// TLSConfig makes Serve answer over TLS (Config.TLS), optionally with
// mutual TLS. The protocol settings are fixed and modern: TLS 1.2 at
// least, Go's default cipher suites, and no renegotiation (Go's server
// never renegotiates).
type TLSConfig struct {
	// CertFile and KeyFile are the server's certificate (PEM, with its
	// chain) and private key. Both are re-read when either file's size or
	// modification time changes, checked at each handshake, so that a
	// renewed certificate is served without a restart; a new pair that does
	// not load (a half-written file, a key that does not match) is logged
	// and the pair in use is kept until the files change again. Replace
	// each file atomically (write elsewhere, then rename).
	CertFile, KeyFile string
	// ClientCAFile, if set, turns on mutual TLS: every client must present
	// a certificate that verifies against these CAs (PEM; read once, in
	// New), or the handshake fails. The verified certificate's subject is
	// an identity for the access rules (AccessRule.Subjects).
	ClientCAFile string
	// HandshakeTimeout bounds a TLS handshake: a client that connects and
	// stalls (sends nothing, or part of a ClientHello) is cut off after
	// it. net/http bounds the handshake by the server's ReadHeaderTimeout,
	// so this is also the time a client has to send a request's headers
	// (over TLS the default stays 10 s for both). Default
	// DefaultHandshakeTimeout; at most a minute.
	HandshakeTimeout time.Duration
}

// tlsState is the TLS side of a Server: the tls.Config Serve uses.
type tlsState struct {
	// requireClient: mutual TLS; every request but the probes needs a
	// verified client certificate.
	requireClient bool
	config        *tls.Config
	timeout       time.Duration
}

// newTLS loads c's files: an error for any that does not load.
func newTLS(c *TLSConfig, log *slog.Logger) (*tlsState, error) {
	if c.CertFile == "" || c.KeyFile == "" {
		return nil, errors.New("serve: TLSConfig needs both CertFile and KeyFile")
	}
	if c.HandshakeTimeout < 0 || c.HandshakeTimeout > maxHandshakeTimeout {
		return nil, fmt.Errorf("serve: TLSConfig.HandshakeTimeout %v: want 0 (the default, %v) up to %v", c.HandshakeTimeout, DefaultHandshakeTimeout, maxHandshakeTimeout)
	}
	certs := &certReloader{certFile: c.CertFile, keyFile: c.KeyFile, log: log}
	if err := certs.load(); err != nil {
		return nil, fmt.Errorf("serve: TLS: %w", err)
	}
	tc := &tls.Config{
		MinVersion:     tls.VersionTLS12,
		GetCertificate: certs.get,
	}
	if c.ClientCAFile != "" {
		pem, err := os.ReadFile(c.ClientCAFile)
		if err != nil {
			return nil, fmt.Errorf("serve: TLS client CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("serve: TLS client CA %s: no PEM certificate in it", c.ClientCAFile)
		}
		// A certificate given must verify in the handshake; one not given
		// fails every request but the probes (requireClient), so that a
		// kubelet's probes, which present none, still reach /healthz and
		// /readyz.
		tc.ClientCAs, tc.ClientAuth = pool, tls.VerifyClientCertIfGiven
	}
	st := &tlsState{config: tc, timeout: c.HandshakeTimeout, requireClient: c.ClientCAFile != ""}
	if st.timeout == 0 {
		st.timeout = DefaultHandshakeTimeout
	}
	return st, nil
}

// secure sets up hs for TLS when the server has it: its tls.Config, and
// the handshake timeout as ReadHeaderTimeout (net/http bounds the
// handshake with it; the smallest of the server's timeouts).
func (s *Server) secure(hs *http.Server) {
	if s.tls == nil {
		return
	}
	hs.TLSConfig = s.tls.config
	hs.ReadHeaderTimeout = s.tls.timeout
}

// serveOn serves hs on ln, over TLS when the server has it.
func (s *Server) serveOn(hs *http.Server, ln net.Listener) error {
	if s.tls == nil {
		return hs.Serve(ln)
	}
	return hs.ServeTLS(ln, "", "") // the certificate comes from GetCertificate
}

// certReloader serves a certificate and key from files, loading them
// again when they change.
type certReloader struct {
	certFile, keyFile string
	log               *slog.Logger

	mu   sync.Mutex
	cur  *tls.Certificate
	have [2]fileStamp // of the pair in cur
	bad  [2]fileStamp // of the last pair that failed: not read again until it changes
}

func (c *certReloader) stamps() [2]fileStamp {
	return [2]fileStamp{statFile(c.certFile), statFile(c.keyFile)}
}

// load reads the pair now (New: an error fails the server).
func (c *certReloader) load() error {
	st := c.stamps()
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		return err
	}
	c.cur, c.have = &cert, st
	return nil
}

// get is tls.Config.GetCertificate: the pair in use, read again first
// when either file changed since it (or the last failed pair) was read.
func (c *certReloader) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	st := c.stamps()
	c.mu.Lock()
	defer c.mu.Unlock()
	if st == c.have || st == c.bad {
		return c.cur, nil
	}
	cert, err := tls.LoadX509KeyPair(c.certFile, c.keyFile)
	if err != nil {
		c.bad = st
		c.log.Error("TLS certificate reload failed: the certificate in use is kept", "cert", c.certFile, "key", c.keyFile, "error", err)
		return c.cur, nil
	}
	c.cur, c.have, c.bad = &cert, st, [2]fileStamp{}
	if cert.Leaf != nil {
		c.log.Info("TLS certificate reloaded", "cert", c.certFile, "subject", cert.Leaf.Subject.String(), "not_after", cert.Leaf.NotAfter)
	} else {
		c.log.Info("TLS certificate reloaded", "cert", c.certFile)
	}
	return c.cur, nil
}
