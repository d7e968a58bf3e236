package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/internal/confschema"
)

// Admin actions an access rule may grant (AccessRule.Admin); AdminAll
// grants every one.
const (
	// AdminReload is POST /v1/admin/reload: rescan the plugins, re-read
	// the server configuration file.
	AdminReload = "reload"
	// AdminList is GET /v1/plugins: the plugins, versions and states.
	AdminList = "list"
	// AdminMetrics is GET /metrics: every plugin's series.
	AdminMetrics = "metrics"
	// AdminAll stands for every admin action.
	AdminAll = "*"
)

// adminActions are the actions a rule may name, sorted for messages.
var adminActions = []string{AdminList, AdminMetrics, AdminReload}

// TokenHashPrefix starts every token hash of an access rule: the token is
// never stored, only the hex of its SHA-256 (HashToken).
const TokenHashPrefix = "sha256:"

// HashToken is the form of a bearer token that an access rule stores:
// "sha256:" and the hex of the token's SHA-256. A leaked configuration
// file then gives no token away (a token must have enough entropy that
// its hash cannot be reversed by guessing: 32 random bytes, say).
func HashToken(token string) string {
	h := sha256.Sum256([]byte(token))
	return TokenHashPrefix + hex.EncodeToString(h[:])
}

// ServerConfig is the server configuration file (Config.ConfigFile; the
// CLI's serve --config): its access rules. With no rules at all the
// server is open, as it was before rules existed; with rules every
// request but /healthz and /readyz needs an identity they grant.
type ServerConfig struct {
	// Access are the rules, at least one. An identity matched by several
	// rules gets all they grant.
	Access []AccessRule
}

// AccessRule says what the holders of its tokens, or of client
// certificates with its subjects, may do.
type AccessRule struct {
	// Name names the client in logs and in 403 answers; unique.
	Name string
	// Tokens are SHA-256 hashes of bearer tokens (HashToken), compared in
	// constant time with the hash of the token a request presents.
	Tokens [][sha256.Size]byte
	// Subjects are client certificate subjects as RFC 4514 writes
	// distinguished names (the most specific first: "CN=client-a,O=example",
	// as openssl x509 -nameopt RFC2253 prints them), matched against the
	// whole subject of a certificate that the TLS handshake verified
	// (TLSConfig.ClientCAFile): the same RDNs in the same order, each with
	// the same attributes (types by name or OID, case-insensitive; values
	// exactly), so that a certificate with a second CN, or an RDN more,
	// matches no rule written without it.
	Subjects []string
	// dns are Subjects, parsed.
	dns []dn
	// Plugins are the plugins it may call by name; "*" is every plugin.
	Plugins []string
	// Admin are the admin actions it may take: AdminReload, AdminList,
	// AdminMetrics, or AdminAll.
	Admin []string
}

// LoadServerConfig reads and parses the server configuration file at
// path (ParseServerConfig); errors start with the file's base name, so
// that they can be shown to a client without the server's directories.
func LoadServerConfig(path string) (*ServerConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", filepath.Base(path), pathless(err))
	}
	c, err := ParseServerConfig(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return c, nil
}

// ParseServerConfig parses a server configuration file, strictly: an
// unknown field, a field given twice, a wrong type or a bad value is an
// error that names the field and its line
// ("access[0].token (line 3): no such field").
//
//	access:
//	  - name: team-a
//	    tokens: ["sha256:<64 hex digits>"]
//	    subjects: ["CN=client-a,O=example"]
//	    plugins: [echo, upper]     # or ["*"]
//	    admin: [reload, list]      # reload, list, metrics, or "*"
func ParseServerConfig(data []byte) (*ServerConfig, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("access: missing: the file gives no access rules")
		}
		return nil, err
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fmt.Errorf("line %d: a second YAML document: want one", extra.Line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	c := &ServerConfig{}
	err := fields(root, "", map[string]func(*yaml.Node, string) error{
		"access": func(n *yaml.Node, at string) error {
			if n.Kind != yaml.SequenceNode {
				return fmt.Errorf("%s (line %d): want a list of rules", at, n.Line)
			}
			for i, item := range n.Content {
				r, err := parseRule(item, fmt.Sprintf("%s[%d]", at, i))
				if err != nil {
					return err
				}
				c.Access = append(c.Access, r)
			}
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	if len(c.Access) == 0 {
		return nil, fmt.Errorf("access (line %d): missing or empty: the file gives no access rules", root.Line)
	}
	names := map[string]bool{}
	for i, r := range c.Access {
		if names[r.Name] {
			return nil, fmt.Errorf("access[%d].name (line %d): %q: another rule has that name", i, nameLine(root, i), r.Name)
		}
		names[r.Name] = true
	}
	// The file's JSON Schema, the one editors and the Helm chart use
	// (internal/confschema/serve.schema.json), must accept what the
	// decoder does: a file it refuses is refused here too.
	if err := confschema.Serve.Validate(root); err != nil {
		return nil, err
	}
	return c, nil
}

// nameLine is the line of rule i's name in the file whose root is root.
func nameLine(root *yaml.Node, i int) int {
	for k := 0; k+1 < len(root.Content); k += 2 {
		if root.Content[k].Value == "access" && i < len(root.Content[k+1].Content) {
			r := root.Content[k+1].Content[i]
			for j := 0; j+1 < len(r.Content); j += 2 {
				if r.Content[j].Value == "name" {
					return r.Content[j+1].Line
				}
			}
			return r.Line
		}
	}
	return root.Line
}

// fields decodes mapping n (at path at) key by key with the decoder of
// each key, refusing unknown and repeated keys.
func fields(n *yaml.Node, at string, dec map[string]func(*yaml.Node, string) error) error {
	where := at
	if where == "" {
		where = "the file"
	}
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s (line %d): want a mapping", where, n.Line)
	}
	known := make([]string, 0, len(dec))
	for k := range dec {
		known = append(known, k)
	}
	sort.Strings(known)
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		name := key.Value
		if at != "" {
			name = at + "." + key.Value
		}
		d, ok := dec[key.Value]
		switch {
		case !ok:
			return fmt.Errorf("%s (line %d): no such field (have: %s)", name, key.Line, strings.Join(known, ", "))
		case seen[key.Value]:
			return fmt.Errorf("%s (line %d): given twice", name, key.Line)
		}
		seen[key.Value] = true
		if err := d(val, name); err != nil {
			return err
		}
	}
	return nil
}

// strs decodes n, at path at, as a list of nonempty strings, each checked
// by check (nil: any), whose error is reported with its index and line.
func strs(n *yaml.Node, at string, out *[]string, check func(string) error) error {
	if n.Kind != yaml.SequenceNode {
		return fmt.Errorf("%s (line %d): want a list of strings", at, n.Line)
	}
	for i, item := range n.Content {
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" && item.Tag != "!!int" && item.Tag != "!!float" && item.Tag != "!!bool" {
			return fmt.Errorf("%s[%d] (line %d): want a string", at, i, item.Line)
		}
		if item.Value == "" {
			return fmt.Errorf("%s[%d] (line %d): empty", at, i, item.Line)
		}
		if check != nil {
			if err := check(item.Value); err != nil {
				return fmt.Errorf("%s[%d] (line %d): %w", at, i, item.Line, err)
			}
		}
		*out = append(*out, item.Value)
	}
	return nil
}

func parseRule(n *yaml.Node, at string) (AccessRule, error) {
	var r AccessRule
	var tokens []string
	err := fields(n, at, map[string]func(*yaml.Node, string) error{
		"name": func(v *yaml.Node, at string) error {
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return fmt.Errorf("%s (line %d): want a nonempty string", at, v.Line)
			}
			r.Name = v.Value
			return nil
		},
		"tokens": func(v *yaml.Node, at string) error {
			return strs(v, at, &tokens, func(s string) error {
				h, ok := strings.CutPrefix(s, TokenHashPrefix)
				b, err := hex.DecodeString(h)
				if !ok || err != nil || len(b) != sha256.Size {
					return errors.New("not sha256:<64 hex digits>: the file keeps token hashes, never tokens (make one with aclwasm serve hash-token)")
				}
				r.Tokens = append(r.Tokens, [sha256.Size]byte(b))
				return nil
			})
		},
		"subjects": func(v *yaml.Node, at string) error {
			if err := splitSubjects(v, at); err != nil {
				return err
			}
			return strs(v, at, &r.Subjects, func(s string) error {
				d, err := parseDN(s)
				if err != nil {
					return fmt.Errorf("%q is no distinguished name (like CN=client-a,O=example): %w", s, err)
				}
				r.dns = append(r.dns, d)
				return nil
			})
		},
		"plugins": func(v *yaml.Node, at string) error {
			return strs(v, at, &r.Plugins, func(s string) error {
				if strings.ContainsAny(s, "/\x00") {
					return fmt.Errorf("%q is no plugin name (a file name without .wasm, or *)", s)
				}
				return nil
			})
		},
		"admin": func(v *yaml.Node, at string) error {
			return strs(v, at, &r.Admin, func(s string) error {
				if s != AdminAll && !slices.Contains(adminActions, s) {
					return fmt.Errorf("%q is no admin action (have: %s, or *)", s, strings.Join(adminActions, ", "))
				}
				return nil
			})
		},
	})
	switch {
	case err != nil:
		return r, err
	case r.Name == "":
		return r, fmt.Errorf("%s.name (line %d): missing: a rule needs a name", at, n.Line)
	case len(r.Tokens) == 0 && len(r.Subjects) == 0:
		return r, fmt.Errorf("%s (line %d): rule %q has neither tokens nor subjects: nobody holds it", at, n.Line, r.Name)
	case len(r.Plugins) == 0 && len(r.Admin) == 0:
		return r, fmt.Errorf("%s (line %d): rule %q has neither plugins nor admin: it grants nothing", at, n.Line, r.Name)
	}
	return r, nil
}

// splitSubjects refuses a flow list whose unquoted entries are pieces of
// one distinguished name: YAML splits [CN=ops,O=example] at its comma
// into the subjects CN=ops and O=example, each of which would be matched
// on its own, so that the rule would name neither the certificate meant
// nor only it. Two neighbouring unquoted single-RDN entries of a flow
// list are taken for such a split; quoted entries, and those of a block
// list (where a plain scalar keeps its commas), are never split.
func splitSubjects(n *yaml.Node, at string) error {
	if n.Kind != yaml.SequenceNode || n.Style&yaml.FlowStyle == 0 {
		return nil
	}
	piece := func(e *yaml.Node) bool {
		if e.Kind != yaml.ScalarNode || e.Style != 0 || e.Tag != "!!str" {
			return false
		}
		d, err := parseDN(e.Value)
		return err == nil && len(d) == 1
	}
	for i := 0; i+1 < len(n.Content); i++ {
		if !piece(n.Content[i]) || !piece(n.Content[i+1]) {
			continue
		}
		j := i + 2
		for j < len(n.Content) && piece(n.Content[j]) {
			j++
		}
		var parts []string
		for _, e := range n.Content[i:j] {
			parts = append(parts, e.Value)
		}
		whole := strings.Join(parts, ",")
		return fmt.Errorf("%s[%d] (line %d): the unquoted entries %s are one distinguished name that YAML's flow list split at its commas: quote it, %s: [%q] (or quote each entry to mean several subjects)",
			at, i, n.Content[i].Line, strings.Join(parts, " "), at[strings.LastIndex(at, ".")+1:], whole)
	}
	return nil
}

// grant is what one identity may do: the union of the rules that match
// it.
type grant struct {
	rules      []string // their names, for logs and answers
	plugins    map[string]bool
	allPlugins bool
	admin      map[string]bool
}

func (g *grant) add(r *AccessRule) {
	g.rules = append(g.rules, r.Name)
	for _, p := range r.Plugins {
		g.allPlugins = g.allPlugins || p == "*"
		g.plugins[p] = true
	}
	for _, a := range r.Admin {
		if a == AdminAll {
			for _, a := range adminActions {
				g.admin[a] = true
			}
		}
		g.admin[a] = true
	}
}

func (g *grant) who() string { return strings.Join(g.rules, "+") }

func newGrant() *grant { return &grant{plugins: map[string]bool{}, admin: map[string]bool{}} }

// byToken is the grant of a bearer token: every rule holding its hash,
// nil for none. Every stored hash is compared, in constant time, so that
// the time taken says nothing of which hash (or how much of one)
// matched.
func (c *ServerConfig) byToken(token string) *grant {
	h := sha256.Sum256([]byte(token))
	g := newGrant()
	for i := range c.Access {
		hit := 0
		for _, t := range c.Access[i].Tokens {
			hit |= subtle.ConstantTimeCompare(h[:], t[:])
		}
		if hit == 1 {
			g.add(&c.Access[i])
		}
	}
	if len(g.rules) == 0 {
		return nil
	}
	return g
}

// bySubject is the grant of a verified client certificate's subject, nil
// for none: the rules that name the whole subject.
func (c *ServerConfig) bySubject(subject dn) *grant {
	g := newGrant()
	for i := range c.Access {
		for _, d := range c.Access[i].dns {
			if d.equal(subject) {
				g.add(&c.Access[i])
				break
			}
		}
	}
	if len(g.rules) == 0 {
		return nil
	}
	return g
}

// hasSubjects reports whether any rule names a certificate subject.
func (c *ServerConfig) hasSubjects() bool {
	for _, r := range c.Access {
		if len(r.Subjects) > 0 {
			return true
		}
	}
	return false
}

// accessState is the server's current rules: nil for none (no
// Config.ConfigFile), replaced whole by ReloadConfig.
type accessState struct{ atomic.Pointer[ServerConfig] }

func (a *accessState) get() *ServerConfig { return a.Load() }

func (a *accessState) set(c *ServerConfig) { a.Store(c) }

// loadAccess reads Config.ConfigFile when there is one (New).
func (s *Server) loadAccess() error {
	if s.cfg.ConfigFile == "" {
		return nil
	}
	c, err := LoadServerConfig(s.cfg.ConfigFile)
	if err != nil {
		return fmt.Errorf("serve: config: %w", err)
	}
	s.access.set(c)
	if c.hasSubjects() && (s.cfg.TLS == nil || s.cfg.TLS.ClientCAFile == "") {
		s.log.Warn("access rules name certificate subjects, but no client CA verifies certificates: only tokens can match", "config", s.cfg.ConfigFile)
	}
	return nil
}

// ReloadConfig re-reads Config.ConfigFile, the access rules; the admin
// reload endpoint calls it before it rescans the plugins (the CLI also on
// SIGHUP). A file that no longer parses leaves the rules in force as
// they were, and its error (with the field and line) is returned and
// logged. Without a ConfigFile it does nothing.
func (s *Server) ReloadConfig() error {
	if s.cfg.ConfigFile == "" {
		return nil
	}
	c, err := LoadServerConfig(s.cfg.ConfigFile)
	s.metrics.configReloaded(err)
	if err != nil {
		s.log.Error("server configuration reload failed: the rules in force are kept", "config", s.cfg.ConfigFile, "error", err)
		return err
	}
	s.access.set(c)
	s.log.Info("server configuration reloaded", "config", s.cfg.ConfigFile, "rules", len(c.Access))
	return nil
}

// need is what a route needs, decided on the request as the router
// routed it (Server.routes).
type need struct {
	kind needKind
	name string // the plugin (needPlugin) or the admin action (needAdmin)
}

type needKind uint8

const (
	// needIdentity: any client the rules know. The catch-all route: an
	// unknown path gets 404 once the client is known, so that paths cannot
	// be probed without an identity.
	needIdentity needKind = iota
	needOpen              // nothing: the probes
	needPlugin            // a grant of the plugin name
	needAdmin             // a grant of the admin action name
)

// needs is what a route needs of a request the mux routed to it.
type needs func(*http.Request) need

func fixed(n need) needs { return func(*http.Request) need { return n } }

// pluginNeed is the plugin route's need: the plugin it serves, the very
// value (r.PathValue, unescaped by the mux) that the handler runs.
func pluginNeed(r *http.Request) need { return need{kind: needPlugin, name: r.PathValue("name")} }

func (g *grant) allows(n need) bool {
	switch n.kind {
	case needPlugin:
		return g.allPlugins || g.plugins[n.name]
	case needAdmin:
		return g.admin[n.name]
	}
	return true
}

// bearer is the request's bearer token; present says whether it has an
// Authorization header at all.
func bearer(r *http.Request) (token string, present bool) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", false
	}
	scheme, tok, _ := strings.Cut(h, " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", true
	}
	return strings.TrimSpace(tok), true
}

// clientCert is the client certificate the handshake verified (nil
// without one). Only a verified chain counts: a server that merely
// requested a certificate (tls.RequestClientCert) proves nothing.
func clientCert(r *http.Request) *x509.Certificate {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return nil
	}
	return r.TLS.VerifiedChains[0][0]
}

// identify finds the grant of r under rules c: its bearer token when it
// has an Authorization header (a wrong one is refused even with a
// certificate, so that a client sees its mistake), else its verified
// client certificate. nil and the failure (401) when neither is known.
func (s *Server) identify(r *http.Request, c *ServerConfig) (*grant, *apiError, bool) {
	tok, present := bearer(r)
	if present {
		if tok != "" {
			g := c.byToken(tok)
			if s.adminToken(tok) { // the reload action, as before access rules existed
				if g == nil {
					g = newGrant()
				}
				g.rules = append(g.rules, "admin-token")
				g.admin[AdminReload] = true
			}
			if g != nil {
				return g, nil, true
			}
		}
		return nil, &apiError{status: http.StatusUnauthorized, Code: "unauthorized", Message: "the bearer token is not one of the access rules'"}, true
	}
	if cert := clientCert(r); cert != nil {
		sub, name, err := certDN(cert)
		if err != nil { // x509 parsed it: cannot happen
			return nil, &apiError{status: http.StatusUnauthorized, Code: "unauthorized", Message: "the client certificate's subject cannot be read: " + err.Error()}, false
		}
		if g := c.bySubject(sub); g != nil {
			return g, nil, false
		}
		return nil, &apiError{status: http.StatusUnauthorized, Code: "unauthorized", Message: fmt.Sprintf("the client certificate's subject %q is not one of the access rules'", name)}, false
	}
	return nil, &apiError{status: http.StatusUnauthorized, Code: "unauthorized", Message: "want Authorization: Bearer <token>"}, false
}

// adminToken reports whether tok is Config.AdminToken (constant time).
func (s *Server) adminToken(tok string) bool {
	return s.cfg.AdminToken != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.AdminToken)) == 1
}

type grantKey struct{}

// reloadAllowed reports whether r may use the admin reload endpoint: the
// access rules granted it (authorize), or, without rules, its bearer
// token is Config.AdminToken.
func (s *Server) reloadAllowed(r *http.Request) bool {
	if g, ok := r.Context().Value(grantKey{}).(*grant); ok {
		return g.admin[AdminReload]
	}
	tok, _ := bearer(r)
	return s.adminToken(tok)
}

// authorize puts route h behind mutual TLS (a verified client
// certificate) and the access rules, if there are any, for what it needs
// (n), on every route but the probes: 401 (WWW-Authenticate: Bearer)
// without an identity the rules know, 403 for a plugin or admin action its
// rules do not grant. The decision is made inside the route the mux
// chose, on the values it handed the route (r.PathValue), so that every
// spelling of a path that reaches a handler is decided as that handler
// reads it. Refused plugin requests are counted in the request metrics
// with an empty plugin label (names in URLs are anyone's); every refusal
// is logged. The request's logger gets the client's rule names (client).
func (s *Server) authorize(n needs, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nd := n(r)
		if nd.kind == needOpen {
			h.ServeHTTP(w, r)
			return
		}
		if s.tls != nil && s.tls.requireClient && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="aclwasm"`)
			writeErr(w, r, &apiError{status: http.StatusUnauthorized, Code: "unauthorized", Message: "mutual TLS: a client certificate the server's client CA signed is required"})
			s.logFor(r).Info("access refused", "status", http.StatusUnauthorized, "code", "unauthorized", "error", "no client certificate", "path", r.URL.Path, "remote", r.RemoteAddr)
			return
		}
		c := s.access.get()
		if c == nil {
			h.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		g, fail, withToken := s.identify(r, c)
		if fail == nil && !g.allows(nd) {
			fail = &apiError{status: http.StatusForbidden, Code: "forbidden"}
			if nd.kind == needPlugin {
				fail.Plugin = nd.name
				fail.Message = fmt.Sprintf("client %s may not call plugin %q", g.who(), nd.name)
			} else {
				fail.Message = fmt.Sprintf("client %s may not take the admin action %q", g.who(), nd.name)
			}
		}
		log := s.logFor(r)
		if fail != nil {
			if fail.status == http.StatusUnauthorized {
				v := `Bearer realm="aclwasm"`
				if withToken {
					v += `, error="invalid_token"`
				}
				w.Header().Set("WWW-Authenticate", v)
			}
			writeErr(w, r, fail)
			if nd.kind == needPlugin {
				s.metrics.observe(nil, "", fail.status, fail.Code, time.Since(start))
			}
			attrs := []any{"status", fail.status, "code", fail.Code, "error", fail.Message, "path", r.URL.Path, "remote", r.RemoteAddr}
			if g != nil {
				attrs = append(attrs, "client", g.who())
			}
			log.Info("access refused", attrs...)
			return
		}
		ctx := context.WithValue(r.Context(), grantKey{}, g)
		ctx = context.WithValue(ctx, logKey{}, log.With("client", g.who()))
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// IsLoopback reports whether addr (host:port, as for net.Listen) listens
// on a loopback address only: 127.0.0.0/8, ::1 or localhost. An empty
// host (every interface), any other name and anything unparsable is not:
// the CLI serves those only with TLS and access rules, or when told it is
// insecure.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
