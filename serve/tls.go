package serve

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
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
	certs         *certReloader
	caNotAfter    time.Time // the earliest expiry of the client CAs; zero without
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
	var caNotAfter time.Time
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
		caNotAfter = firstExpiry(pem)
	}
	st := &tlsState{config: tc, timeout: c.HandshakeTimeout, requireClient: c.ClientCAFile != "", certs: certs, caNotAfter: caNotAfter}
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

// notAfter is when the certificate in use expires.
func (c *certReloader) notAfter() time.Time {
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if cur.Leaf != nil {
		return cur.Leaf.NotAfter
	}
	leaf, err := x509.ParseCertificate(cur.Certificate[0]) // LoadX509KeyPair parsed it once already
	if err != nil {
		return time.Time{}
	}
	return leaf.NotAfter
}

// firstExpiry is the earliest NotAfter of the certificates in PEM data
// (those that parse, as x509.CertPool.AppendCertsFromPEM takes them).
func firstExpiry(data []byte) time.Time {
	var first time.Time
	for len(data) > 0 {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		if cert, err := x509.ParseCertificate(b.Bytes); err == nil && (first.IsZero() || cert.NotAfter.Before(first)) {
			first = cert.NotAfter
		}
	}
	return first
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

// dn is a distinguished name as data, for access rules' subjects: its
// relative distinguished names in the order of the certificate's DER
// (the most general first), each a set of attributes, sorted. Two names
// are the same subject when they have the same RDNs in the same order,
// each with the same attributes: every attribute counts, so that a
// certificate with two CNs matches no rule written for one of them.
type dn [][]attr

// attr is one attribute of an RDN: its type as a dotted OID and its
// value. str is false for a certificate's value that is no string (a
// rule cannot name one): it equals nothing.
type attr struct {
	oid, value string
	str        bool
}

func (a attr) cmp(b attr) int {
	return cmp.Or(strings.Compare(a.oid, b.oid), strings.Compare(a.value, b.value), cmp.Compare(b2i(a.str), b2i(b.str)))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (d dn) equal(o dn) bool {
	return slices.EqualFunc(d, o, func(a, b []attr) bool { return slices.Equal(a, b) })
}

// attrOIDs are the attribute type names a subject may use (RFC 4514's,
// and those Go's pkix.Name prints), upper-cased; any other type is
// written as its dotted OID.
var attrOIDs = map[string]string{
	"CN": "2.5.4.3", "SERIALNUMBER": "2.5.4.5", "C": "2.5.4.6", "L": "2.5.4.7", "ST": "2.5.4.8",
	"STREET": "2.5.4.9", "O": "2.5.4.10", "OU": "2.5.4.11", "POSTALCODE": "2.5.4.17",
	"DC": "0.9.2342.19200300.100.1.25", "UID": "0.9.2342.19200300.100.1.1",
	"EMAILADDRESS": "1.2.840.113549.1.9.1",
}

// parseDN reads a subject as RFC 4514 writes it (and Go's
// pkix.Name.String, openssl's -nameopt RFC2253): RDNs separated by
// commas, the most specific first, the attributes of a multi-valued RDN
// joined by "+", types by name (case-insensitive) or dotted OID, values
// with "\" escaping a special character (, + " \ < > ; =, a leading # or
// space, a trailing space) or giving a byte in two hex digits. Spaces
// around separators are dropped, as RFC 2253 allowed. A #hex (BER) value
// is refused: write the string.
func parseDN(s string) (dn, error) {
	var d dn
	var rdn []attr
	i := 0
	for {
		a, next, err := parseAttr(s, i)
		if err != nil {
			return nil, err
		}
		rdn = append(rdn, a)
		i = next
		if i == len(s) || s[i] == ',' {
			slices.SortFunc(rdn, attr.cmp)
			d = append(d, rdn)
			rdn = nil
		}
		if i == len(s) {
			break
		}
		i++ // the separator parseAttr stopped at: , or +
	}
	slices.Reverse(d) // the DER's order, the most general first
	return d, nil
}

// parseAttr reads one TYPE=VALUE of s from i, up to an unescaped , or +
// or the end (next).
func parseAttr(s string, i int) (a attr, next int, err error) {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	eq := strings.IndexByte(s[i:], '=')
	if eq < 0 {
		return a, 0, fmt.Errorf("at %d: want TYPE=VALUE", i+1)
	}
	typ := strings.TrimRight(s[i:i+eq], " ")
	if a.oid, err = attrOID(typ); err != nil {
		return a, 0, fmt.Errorf("at %d: %w", i+1, err)
	}
	i += eq + 1
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i < len(s) && s[i] == '#' {
		return a, 0, fmt.Errorf("at %d: a #hex value: write the value as a string", i+1)
	}
	var v []byte
	kept := 0 // len(v) up to its last escaped byte: trailing spaces after it are dropped
	for ; i < len(s) && s[i] != ',' && s[i] != '+'; i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				return a, 0, fmt.Errorf("at %d: a \\ ends the name", i+1)
			}
			if h, err := hex.DecodeString(s[i+1 : min(i+3, len(s))]); err == nil && len(h) == 1 {
				v = append(v, h[0])
				i += 2
			} else if strings.IndexByte(`,+"\<>;= #`, s[i+1]) >= 0 {
				v = append(v, s[i+1])
				i++
			} else {
				return a, 0, fmt.Errorf("at %d: \\%c: escape only , + \" \\ < > ; = # space, or a byte as two hex digits", i+1, s[i+1])
			}
			kept = len(v)
		case strings.IndexByte(`"<>;`, c) >= 0 || c == 0:
			return a, 0, fmt.Errorf("at %d: %q unescaped in a value (write \\%c)", i+1, c, c)
		default:
			v = append(v, c)
			if c != ' ' {
				kept = len(v)
			}
		}
	}
	v = v[:kept]
	if len(v) == 0 {
		return a, 0, fmt.Errorf("at %d: an empty value", i+1)
	}
	if !utf8.Valid(v) {
		return a, 0, fmt.Errorf("at %d: the value is no UTF-8", i+1)
	}
	a.value, a.str = string(v), true
	return a, i, nil
}

// attrOID is the dotted OID of an attribute type: a name of attrOIDs, or
// a dotted OID (digits, no leading zeros).
func attrOID(typ string) (string, error) {
	if oid, ok := attrOIDs[strings.ToUpper(typ)]; ok {
		return oid, nil
	}
	parts := strings.Split(typ, ".")
	for _, p := range parts {
		if p == "" || len(p) > 1 && p[0] == '0' || strings.Trim(p, "0123456789") != "" {
			return "", fmt.Errorf("unknown attribute type %q (have: C, CN, DC, emailAddress, L, O, OU, postalCode, serialNumber, ST, street, UID, or a dotted OID)", typ)
		}
	}
	if len(parts) < 2 {
		return "", fmt.Errorf("unknown attribute type %q (have: C, CN, DC, emailAddress, L, O, OU, postalCode, serialNumber, ST, street, UID, or a dotted OID)", typ)
	}
	return typ, nil
}

// certDN is the subject of cert, every attribute of every RDN as the
// certificate encodes it (pkix.Name keeps only one CN), and as a string
// for messages (RFC 4514: all of them, most specific first).
func certDN(cert *x509.Certificate) (dn, string, error) {
	var seq pkix.RDNSequence
	if rest, err := asn1.Unmarshal(cert.RawSubject, &seq); err != nil {
		return nil, "", err
	} else if len(rest) > 0 {
		return nil, "", errors.New("trailing data after the subject")
	}
	d := make(dn, 0, len(seq))
	for _, rdn := range seq {
		set := make([]attr, 0, len(rdn))
		for _, tv := range rdn {
			v, ok := tv.Value.(string)
			set = append(set, attr{oid: tv.Type.String(), value: v, str: ok})
		}
		slices.SortFunc(set, attr.cmp)
		d = append(d, set)
	}
	return d, seq.String(), nil
}
