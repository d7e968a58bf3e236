package serve

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHashToken: a token's hash is sha256: and the hex of its SHA-256
// (the vector is sha256sum's).
func TestHashToken(t *testing.T) {
	require.Equal(t, "sha256:1ec1c26b50d5d3c58d9583181af8076655fe00756bf7285940ba3670f99fcba0", HashToken("s3cret"))
	c, err := ParseServerConfig([]byte("access:\n  - {name: a, tokens: [\"" + HashToken("s3cret") + "\"], plugins: [\"*\"]}\n"))
	require.NoError(t, err)
	require.NotNil(t, c.byToken("s3cret"))
	require.Nil(t, c.byToken("s3cre"))
	require.Nil(t, c.byToken(HashToken("s3cret")), "the hash is no token")
}

// TestServerConfigParse: a full file, and identities matched by several
// rules getting the union of what they grant.
func TestServerConfigParse(t *testing.T) {
	_, err := ParseServerConfig([]byte(`
access:
  - name: team-a
    tokens: ["` + HashToken("token-a") + `", "` + HashToken("token-shared") + `"]
    subjects: ["CN=client-a,O=example"]
    plugins: [echo, upper]
  - name: ops
    tokens: ["` + strings.ToUpper(HashToken("token-shared")[7:]) + `"]
    admin: ["*"]
`))
	require.ErrorContains(t, err, `access[1].tokens[0] (line 8): not sha256:<64 hex digits>`, "a bare hex is refused")

	c, err := ParseServerConfig([]byte(`
access:
  - name: team-a
    tokens: ["` + HashToken("token-a") + `", "` + HashToken("token-shared") + `"]
    subjects: ["CN=client-a,O=example"]
    plugins: [echo, upper]
  - name: ops
    tokens: ["sha256:` + strings.ToUpper(HashToken("token-shared")[7:]) + `"]
    admin: ["*"]
  - name: lister
    subjects: ["CN=client-b,O=example"]
    admin: [list, metrics]
`))
	require.NoError(t, err)
	require.Len(t, c.Access, 3)
	require.Equal(t, []string{"echo", "upper"}, c.Access[0].Plugins)
	require.Equal(t, []string{"CN=client-a,O=example"}, c.Access[0].Subjects)

	g := c.byToken("token-a")
	require.Equal(t, "team-a", g.who())
	require.True(t, g.allows(need{kind: needPlugin, name: "echo"}))
	require.False(t, g.allows(need{kind: needPlugin, name: "exit3"}))
	require.False(t, g.allows(need{kind: needAdmin, name: AdminList}))

	g = c.byToken("token-shared") // in team-a and (as upper-case hex) in ops
	require.Equal(t, "team-a+ops", g.who())
	require.True(t, g.allows(need{kind: needPlugin, name: "upper"}))
	require.False(t, g.allows(need{kind: needPlugin, name: "exit3"}))
	for _, a := range []string{AdminReload, AdminList, AdminMetrics} {
		require.True(t, g.allows(need{kind: needAdmin, name: a}), a)
	}

	g = c.bySubject(mustDN(t, "CN=client-b,O=example"))
	require.Equal(t, "lister", g.who())
	require.True(t, g.allows(need{kind: needAdmin, name: AdminMetrics}))
	require.False(t, g.allows(need{kind: needAdmin, name: AdminReload}))
	require.Nil(t, c.bySubject(mustDN(t, "CN=client-b")), "subjects match whole")
	require.Nil(t, c.byToken(""))
}

// mustDN is subject s, parsed as a rule's.
func mustDN(t testing.TB, s string) dn {
	t.Helper()
	d, err := parseDN(s)
	require.NoError(t, err, s)
	return d
}

// TestServerConfigStrict: every kind of mistake is an error naming the
// field and its line.
func TestServerConfigStrict(t *testing.T) {
	h := HashToken("t")
	for _, tc := range []struct{ name, file, want string }{
		{"empty", "", "access: missing"},
		{"no rules", "access: []\n", "access (line 1): missing or empty"},
		{"unknown top field", "access:\n  - {name: a, tokens: [\"" + h + "\"], plugins: [x]}\nlisten: 1\n", "listen (line 3): no such field (have: access)"},
		{"unknown rule field", "access:\n  - name: a\n    token: [\"" + h + "\"]\n", "access[0].token (line 3): no such field (have: admin, name, plugins, subjects, tokens)"},
		{"plain token", "access:\n  - name: a\n    tokens: [hunter2]\n    plugins: [x]\n", "access[0].tokens[0] (line 3): not sha256:<64 hex digits>: the file keeps token hashes, never tokens (make one with aclwasm serve hash-token)"},
		{"short hash", "access:\n  - name: a\n    plugins: [x]\n    tokens:\n      - " + h[:20] + "\n", "access[0].tokens[0] (line 5): not sha256"},
		{"bad admin action", "access:\n  - name: a\n    tokens: [\"" + h + "\"]\n    admin: [reload, restart]\n", `access[0].admin[1] (line 4): "restart" is no admin action (have: list, metrics, reload, or *)`},
		{"bad plugin", "access:\n  - name: a\n    tokens: [\"" + h + "\"]\n    plugins: [a/b]\n", `access[0].plugins[0] (line 4): "a/b" is no plugin name`},
		{"bad subject", "access:\n  - name: a\n    subjects: [client-a]\n    plugins: [x]\n", `access[0].subjects[0] (line 3): "client-a" is no distinguished name`},
		{"split subject", "access:\n  - name: a\n    subjects: [CN=ops,O=example]\n    plugins: [x]\n", `access[0].subjects[0] (line 3): the unquoted entries CN=ops O=example are one distinguished name that YAML's flow list split at its commas: quote it, subjects: ["CN=ops,O=example"]`},
		{"split subject, spaced", "access:\n  - name: a\n    subjects: [\"CN=a,O=x\", CN=ops, OU=web, O=example]\n    plugins: [x]\n", `access[0].subjects[1] (line 3): the unquoted entries CN=ops OU=web O=example are one distinguished name that YAML's flow list split at its commas: quote it, subjects: ["CN=ops,OU=web,O=example"]`},
		{"no name", "access:\n  - tokens: [\"" + h + "\"]\n    plugins: [x]\n", "access[0].name (line 2): missing"},
		{"empty name", "access:\n  - name: \"\"\n", "access[0].name (line 2): want a nonempty string"},
		{"duplicate name", "access:\n  - {name: a, tokens: [\"" + h + "\"], plugins: [x]}\n  - {name: a, tokens: [\"" + h + "\"], plugins: [y]}\n", `access[1].name (line 3): "a": another rule has that name`},
		{"field twice", "access:\n  - name: a\n    plugins: [x]\n    plugins: [y]\n", "access[0].plugins (line 4): given twice"},
		{"nobody", "access:\n  - name: a\n    plugins: [x]\n", `access[0] (line 2): rule "a" has neither tokens nor subjects`},
		{"nothing granted", "access:\n  - name: a\n    tokens: [\"" + h + "\"]\n", `access[0] (line 2): rule "a" has neither plugins nor admin`},
		{"list as string", "access:\n  - name: a\n    tokens: [\"" + h + "\"]\n    plugins: echo\n", "access[0].plugins (line 4): want a list of strings"},
		{"nested list", "access:\n  - name: a\n    tokens: [\"" + h + "\"]\n    plugins: [[echo]]\n", "access[0].plugins[0] (line 4): want a string"},
		{"access a map", "access:\n  name: a\n", "access (line 2): want a list of rules"},
		{"rule a string", "access:\n  - a\n", "access[0] (line 2): want a mapping"},
		{"not a mapping", "- a\n", "the file (line 1): want a mapping"},
		{"two documents", "access:\n  - {name: a, tokens: [\"" + h + "\"], plugins: [x]}\n---\naccess: []\n", "line 3: a second YAML document"},
		{"bad yaml", "access:\n  - name: [a\n", "yaml: line 1: did not find expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseServerConfig([]byte(tc.file))
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
		})
	}

	// LoadServerConfig names the file by its base name only.
	path := filepath.Join(t.TempDir(), "serve.yaml")
	require.NoError(t, os.WriteFile(path, []byte("access:\n  - name: a\n    token: x\n"), 0o644))
	_, err := LoadServerConfig(path)
	require.EqualError(t, err, "serve.yaml: access[0].token (line 3): no such field (have: admin, name, plugins, subjects, tokens)")
	_, err = LoadServerConfig(filepath.Join(filepath.Dir(path), "nope.yaml"))
	require.EqualError(t, err, "nope.yaml: open: no such file or directory")
}

// TestIsLoopback: the addresses the CLI serves without TLS and rules.
// Nothing listens: the decision alone is tested.
func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8080": true, "127.0.0.2:0": true, "[::1]:8080": true, "localhost:8080": true,
		"0.0.0.0:8080": false, "[::]:8080": false, ":8080": false, "10.0.0.1:8080": false,
		"example.com:8080": false, "[fe80::1%eth0]:8080": false, "127.0.0.1": false, "": false,
		"[::ffff:127.0.0.1]:80": true,
	} {
		require.Equal(t, want, IsLoopback(addr), addr)
	}
}

// rulesFile writes a server configuration file of rules into a
// directory of its own and returns its path.
func rulesFile(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "serve.yaml")
	writeFile(t, path, []byte(text))
	return path
}

const (
	tokenA     = "token-a-0123456789"
	tokenOps   = "token-ops-0123456789"
	tokenAll   = "token-all-0123456789"
	adminToken = "admin-token-0123456789"
)

// accessRules grants team-a echo (by token, or certificate CN=client-a),
// ops every admin action and no plugin, all every plugin.
func accessRules(extra string) string {
	return fmt.Sprintf(`access:
  - name: team-a
    tokens: [%q]
    subjects: ["CN=client-a,O=example"]
    plugins: [echo]
  - name: ops
    tokens: [%q]
    admin: [reload, list, metrics]
  - name: all
    tokens: [%q]
    plugins: ["*"]
%s`, HashToken(tokenA), HashToken(tokenOps), HashToken(tokenAll), extra)
}

// TestAccessStatuses: with rules, each endpoint answers 200, 401 or 403
// by the identity and what its rules grant, with JSON bodies; the probes
// stay open; refusals are logged and counted.
func TestAccessStatuses(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", "")}, nil)
	log := &jsonLog{}
	f := start(t, Config{Dir: dir, ConfigFile: rulesFile(t, accessRules("")), AdminToken: adminToken, Logger: log.logger()})

	for _, tc := range []struct {
		name, method, path, token string
		status                    int
		code, msg, plugin         string
	}{
		{"healthz open", "GET", "/healthz", "", 200, "", "", ""},
		{"readyz open", "GET", "/readyz", "", 200, "", "", ""},
		{"readyz ignores a bad token", "GET", "/readyz", "wrong", 200, "", "", ""},
		{"plugin", "POST", "/v1/plugins/echo", tokenA, 200, "", "", ""},
		{"plugin by wildcard", "POST", "/v1/plugins/upper", tokenAll, 200, "", "", ""},
		{"escaped name", "POST", "/v1/plugins/%65cho", tokenA, 200, "", "", ""},
		{"no token", "POST", "/v1/plugins/echo", "", 401, "unauthorized", "want Authorization: Bearer <token>", ""},
		{"wrong token", "POST", "/v1/plugins/echo", "wrong", 401, "unauthorized", "the bearer token is not one of the access rules'", ""},
		{"token of A on B", "POST", "/v1/plugins/upper", tokenA, 403, "forbidden", `client team-a may not call plugin "upper"`, "upper"},
		{"escaped name of B", "POST", "/v1/plugins/%75pper", tokenA, 403, "forbidden", `client team-a may not call plugin "upper"`, "upper"},
		{"unknown plugin", "POST", "/v1/plugins/nope", tokenA, 403, "forbidden", `client team-a may not call plugin "nope"`, "nope"},
		{"unknown plugin, wildcard", "POST", "/v1/plugins/nope", tokenAll, 404, "not_found", `no plugin "nope"`, ""},
		{"admin has no plugins", "POST", "/v1/plugins/echo", tokenOps, 403, "forbidden", `client ops may not call plugin "echo"`, "echo"},
		{"list not granted", "GET", "/v1/plugins", tokenA, 403, "forbidden", `client team-a may not take the admin action "list"`, ""},
		{"list", "GET", "/v1/plugins", tokenOps, 200, "", "", ""},
		{"list without token", "GET", "/v1/plugins", "", 401, "unauthorized", "", ""},
		{"metrics not granted", "GET", "/metrics", tokenAll, 403, "forbidden", `client all may not take the admin action "metrics"`, ""},
		{"metrics", "GET", "/metrics", tokenOps, 200, "", "", ""},
		{"reload not granted", "POST", "/v1/admin/reload", tokenA, 403, "forbidden", `client team-a may not take the admin action "reload"`, ""},
		{"reload", "POST", "/v1/admin/reload", tokenOps, 200, "", "", ""},
		{"reload by the admin token", "POST", "/v1/admin/reload", adminToken, 200, "", "", ""},
		{"the admin token runs no plugin", "POST", "/v1/plugins/echo", adminToken, 403, "forbidden", `client admin-token may not call plugin "echo"`, "echo"},
		{"unknown endpoint without identity", "GET", "/v2/x", "", 401, "unauthorized", "", ""},
		{"unknown endpoint", "GET", "/v2/x", tokenA, 404, "not_found", "", ""},
		{"wrong method after identity", "GET", "/v1/plugins/echo", tokenA, 405, "method_not_allowed", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := f.do(tc.method, tc.path, tc.token, []byte("hi"))
			require.Equal(t, tc.status, r.status, "%v", r)
			require.NotEmpty(t, r.header.Get(RequestIDHeader))
			if tc.status == 200 {
				return
			}
			e := r.err(t)
			require.Equal(t, tc.code, e.Code)
			require.Contains(t, e.Message, tc.msg)
			require.Equal(t, tc.plugin, e.Plugin)
			if tc.status == 401 {
				want := `Bearer realm="aclwasm"`
				if tc.token != "" {
					want += `, error="invalid_token"`
				}
				require.Equal(t, want, r.header.Get("WWW-Authenticate"))
			} else {
				require.Empty(t, r.header.Get("WWW-Authenticate"))
			}
		})
	}

	// The exact bodies of a 401 and a 403, as documented.
	r := f.do("POST", "/v1/plugins/echo", "", []byte("hi"))
	require.JSONEq(t, `{"code":"unauthorized","message":"want Authorization: Bearer <token>"}`, string(r.body))
	r = f.do("POST", "/v1/plugins/upper", tokenA, []byte("hi"))
	require.JSONEq(t, `{"code":"forbidden","message":"client team-a may not call plugin \"upper\"","plugin":"upper"}`, string(r.body))
	require.True(t, r.close, "a refusal before the body is read closes the connection")

	// Refusals are counted under an empty plugin label; runs under theirs.
	m := string(f.do("GET", "/metrics", tokenOps, nil).body)
	require.Regexp(t, `(?m)^aclwasm_http_requests_total\{outcome="unauthorized",plugin="",status="401"\} [1-9]`, m)
	require.Regexp(t, `(?m)^aclwasm_http_requests_total\{outcome="forbidden",plugin="",status="403"\} [1-9]`, m)
	require.Regexp(t, `(?m)^aclwasm_http_requests_total\{outcome="ok",plugin="echo",status="200"\} [1-9]`, m)

	// The request's records name the client; refusals are logged.
	var ran, refused bool
	for _, rec := range log.Records(t) {
		switch {
		case rec["msg"] == "request" && rec["plugin"] == "echo" && rec["client"] == "team-a":
			ran = true
		case rec["msg"] == "access refused" && rec["code"] == "forbidden" && rec["client"] == "team-a" && rec["path"] == "/v1/plugins/upper":
			refused = true
		}
		require.NotContains(t, fmt.Sprint(rec), tokenA, "a token in the log")
	}
	require.True(t, ran, "no request record with client team-a")
	require.True(t, refused, "no access refused record")
}

// TestAccessReload: the admin reload re-reads the rules: a grant added
// takes effect at once; a file that no longer parses is answered 422
// with its field and line, and the rules in force stay.
func TestAccessReload(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", "")}, nil)
	path := rulesFile(t, accessRules(""))
	f := start(t, Config{Dir: dir, ConfigFile: path})
	require.Equal(t, 403, f.do("POST", "/v1/plugins/upper", tokenA, []byte("x")).status)
	m := gathered(t, f.s.cfg.Gatherer)
	loaded := m.sum("aclwasm_config_last_reload_success_timestamp_seconds")
	require.Positive(t, loaded, "New's read")
	require.Zero(t, m.sum("aclwasm_config_reload_failures_total"))

	tokenB := "token-b-0123456789"
	writeFile(t, path, []byte(strings.Replace(accessRules(fmt.Sprintf("  - {name: team-b, tokens: [%q], plugins: [upper]}\n", HashToken(tokenB))),
		"plugins: [echo]", "plugins: [echo, upper]", 1)))
	require.Equal(t, 401, f.do("POST", "/v1/plugins/upper", tokenB, []byte("x")).status, "the file is not read before a reload")
	r := f.do("POST", "/v1/admin/reload", tokenOps, nil)
	require.Equal(t, 200, r.status, "%v", r)
	r = f.do("POST", "/v1/plugins/upper", tokenA, []byte("x"))
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "X", string(r.body))
	require.Equal(t, 200, f.do("POST", "/v1/plugins/upper", tokenB, []byte("x")).status)
	reloaded := gathered(t, f.s.cfg.Gatherer).sum("aclwasm_config_last_reload_success_timestamp_seconds")
	require.GreaterOrEqual(t, reloaded, loaded)
	require.Zero(t, gathered(t, f.s.cfg.Gatherer).sum("aclwasm_config_reload_failures_total"))

	writeFile(t, path, []byte(accessRules("    admin: [restart]\n")))
	r = f.do("POST", "/v1/admin/reload", tokenOps, nil)
	require.Equal(t, 422, r.status, "%v", r)
	require.JSONEq(t, `{"code":"config_invalid","message":"serve.yaml: access[2].admin[0] (line 12): \"restart\" is no admin action (have: list, metrics, reload, or *)"}`, string(r.body))
	require.Equal(t, 200, f.do("POST", "/v1/plugins/upper", tokenB, []byte("x")).status, "the rules in force stay")
	require.NotContains(t, string(r.body), filepath.Dir(path))
	m = gathered(t, f.s.cfg.Gatherer)
	require.Equal(t, 1.0, m.sum("aclwasm_config_reload_failures_total"))
	require.Equal(t, reloaded, m.sum("aclwasm_config_last_reload_success_timestamp_seconds"), "the last good reload's")
	require.Zero(t, m.sum("aclwasm_tls_certificate_expiry_timestamp_seconds"), "no TLS, no certificate series")
}

// TestAccessOff: without a ConfigFile everything is open as before, and
// the admin reload takes only the admin token.
func TestAccessOff(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", "")}, nil)
	f := start(t, Config{Dir: dir, AdminToken: adminToken})
	require.Equal(t, 200, f.do("POST", "/v1/plugins/echo", "", nil).status)
	require.Equal(t, 200, f.do("POST", "/v1/plugins/echo", "anything", nil).status)
	require.Equal(t, 200, f.do("GET", "/v1/plugins", "", nil).status)
	require.Equal(t, 200, f.do("GET", "/metrics", "", nil).status)
	r := f.do("POST", "/v1/admin/reload", tokenOps, nil)
	require.Equal(t, 401, r.status)
	require.Equal(t, "unauthorized", r.err(t).Code)
	require.Equal(t, 200, f.do("POST", "/v1/admin/reload", adminToken, nil).status)
	f.shutdown(time.Minute)

	// An admin token that a rule holds too gets both grants.
	f = start(t, Config{Dir: dir, AdminToken: tokenA, ConfigFile: rulesFile(t, accessRules(""))})
	require.Equal(t, 200, f.do("POST", "/v1/plugins/echo", tokenA, nil).status)
	r = f.do("POST", "/v1/admin/reload", tokenA, nil)
	require.Equal(t, 200, r.status, "%v", r)
	r = f.do("GET", "/v1/plugins", tokenA, nil)
	require.Equal(t, `client team-a+admin-token may not take the admin action "list"`, r.err(t).Message)

	require.ErrorContains(t, newFails(t, Config{Dir: dir, ConfigFile: rulesFile(t, "access: []\n")}), "serve: config: serve.yaml: access (line 1): missing or empty")
	require.ErrorContains(t, newFails(t, Config{Dir: dir, ConfigFile: filepath.Join(t.TempDir(), "none.yaml")}), "none.yaml: open: no such file")
}

// TestAccessClientCertificates: under mutual TLS a verified certificate's
// subject is an identity: its rules' plugins are served, others 403; a
// certificate no rule names is 401; a bearer token, when given, is the
// identity instead (a wrong one is 401 even with a good certificate).
func TestAccessClientCertificates(t *testing.T) {
	p := newPKI(t)
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", "")}, nil)
	f := startTLS(t, Config{Dir: dir, ConfigFile: rulesFile(t, accessRules("")),
		TLS: &TLSConfig{CertFile: p.certFile, KeyFile: p.keyFile, ClientCAFile: p.caFile}})
	a := tlsClient(t, p.serverPool, &p.clientA.tls, false)
	z := tlsClient(t, p.serverPool, &p.stranger.tls, false)

	for _, tc := range []struct {
		name   string
		c      *http.Client
		path   string
		token  string
		status int
		msg    string
	}{
		{"subject's plugin", a, "/v1/plugins/echo", "", 200, ""},
		{"not the subject's plugin", a, "/v1/plugins/upper", "", 403, `client team-a may not call plugin "upper"`},
		{"no rule names the subject", z, "/v1/plugins/echo", "", 401, `the client certificate's subject "CN=client-z,O=example" is not one of the access rules'`},
		{"a token over the subject", z, "/v1/plugins/upper", tokenAll, 200, ""},
		{"a wrong token over a good subject", a, "/v1/plugins/echo", "wrong", 401, "the bearer token is not one of the access rules'"},
		{"an escaped route", a, "/v1/plugin%73/upper", "", 403, `client team-a may not call plugin "upper"`},
		{"probes", z, "/readyz", "", 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, err := call(tc.c, "POST", f.url+tc.path, tc.token, []byte("x"))
			if tc.path == "/readyz" {
				r, _, err = call(tc.c, "GET", f.url+tc.path, tc.token, nil)
			}
			require.NoError(t, err)
			require.Equal(t, tc.status, r.status, "%v", r)
			if tc.status != 200 {
				require.Equal(t, tc.msg, r.err(t).Message)
			}
		})
	}
}

// TestAccessSpellings: a request is decided on the route and the plugin
// the router serves, however its path is spelled: an escaped letter in
// the route's fixed segments or in the name, case, dot segments, double
// and escaped slashes. team-a (echo only) is refused upper in every
// spelling that reaches it, and all (every plugin) is served there, so
// that the refusal is no accident of the spelling; a spelling that
// reaches no route is 404 for both.
func TestAccessSpellings(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", "")}, nil)
	f := start(t, Config{Dir: dir, ConfigFile: rulesFile(t, accessRules(""))})

	const upper, nowhere = "upper", ""
	for _, tc := range []struct{ path, reaches string }{
		{"/v1/plugins/upper", upper},
		{"/v1/plugin%73/upper", upper},
		{"/v%31/plugins/upper", upper},
		{"/%761/plugins/upper", upper},
		{"/v1/plugins/%75pper", upper},
		{"/v1/plugins/upp%65r", upper},
		{"/%76%31/%70%6c%75%67%69%6e%73/%75%70%70%65%72", upper},
		{"/v1/plugin%73/%55pper", "Upper"}, // %55 is U: another name
		{"/v1/plugins/UPPER", "UPPER"},
		{"/V1/plugins/upper", nowhere},
		{"/v1/Plugins/upper", nowhere},
		{"/v1/plugin%53/upper", nowhere}, // %53 is S
		{"/v1//plugins/upper", nowhere},
		{"//v1/plugins/upper", nowhere},
		{"/v1/plugins//upper", nowhere},
		{"/v1/plugins/upper/", nowhere},
		{"/v1/plugins/./upper", nowhere},
		{"/v1/plugins/echo/../upper", nowhere},
		{"/v1/plugins/echo/%2e%2e/upper", nowhere},
		{"/v1/plugins/%2e%2e/plugins/upper", nowhere},
		{"/v1/plugins/echo%2F..%2Fupper", nowhere},
		{"/v1/plugins/echo%2fupper", nowhere},
		{"/v1%2Fplugins/upper", nowhere},
		{"/v1/plugins/upper%00", "upper\x00"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			a := f.do("POST", tc.path, tokenA, []byte("x"))
			all := f.do("POST", tc.path, tokenAll, []byte("x"))
			switch tc.reaches {
			case nowhere:
				require.Equal(t, 404, a.status, "%v", a)
				require.Equal(t, 404, all.status, "%v", all)
				require.Empty(t, a.header.Get("X-Aclwasm-Plugin-Version"))
			case upper:
				require.Equal(t, 403, a.status, "team-a reached upper: %v", a)
				require.Equal(t, "upper", a.err(t).Plugin)
				require.Equal(t, 200, all.status, "%v", all)
				require.Equal(t, "X", string(all.body))
			default: // a plugin that does not exist, named as the route reads it
				require.Equal(t, 403, a.status, "%v", a)
				require.Equal(t, tc.reaches, a.err(t).Plugin)
				require.Equal(t, 404, all.status, "%v", all)
				require.Equal(t, fmt.Sprintf("no plugin %q", tc.reaches), all.err(t).Message)
			}
		})
	}

	// The admin routes and the probes, spelled otherwise.
	for _, tc := range []struct {
		method, path, action string
	}{
		{"GET", "/v1/plugin%73", AdminList},
		{"GET", "/%761/plugins", AdminList},
		{"GET", "/metric%73", AdminMetrics},
		{"POST", "/v1/admin/reloa%64", AdminReload},
		{"POST", "/v1/%61dmin/reload", AdminReload},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := f.do(tc.method, tc.path, tokenA, nil)
			require.Equal(t, 403, r.status, "%v", r)
			require.Equal(t, fmt.Sprintf("client team-a may not take the admin action %q", tc.action), r.err(t).Message)
			require.Equal(t, 401, f.do(tc.method, tc.path, "", nil).status)
			require.Equal(t, 200, f.do(tc.method, tc.path, tokenOps, nil).status)
		})
	}
	require.Equal(t, 200, f.do("GET", "/health%7a", "", nil).status, "a probe in any spelling is a probe")
	require.Equal(t, 200, f.do("GET", "/%72eadyz", "", nil).status)
}

// TestServerConfigSubjectForms: the forms of a subject list that keep a
// DN whole parse; only an unquoted flow list that splits one is refused
// (TestServerConfigStrict).
func TestServerConfigSubjectForms(t *testing.T) {
	for _, list := range []string{
		`["CN=ops,O=example", "CN=dev,O=example"]`,
		"\n      - CN=ops,O=example\n      - CN=dev,O=example",
		`['CN=ops,O=example', 'CN=dev,O=example']`,
	} {
		c, err := ParseServerConfig([]byte("access:\n  - name: a\n    plugins: [x]\n    subjects: " + list + "\n"))
		require.NoError(t, err, list)
		require.Equal(t, []string{"CN=ops,O=example", "CN=dev,O=example"}, c.Access[0].Subjects, list)
	}
	c, err := ParseServerConfig([]byte("access:\n  - name: a\n    plugins: [x]\n    subjects: [CN=ops, \"O=example\"]\n"))
	require.NoError(t, err, "one unquoted RDN beside a quoted one: two subjects meant")
	require.Equal(t, []string{"CN=ops", "O=example"}, c.Access[0].Subjects)
}
