package serve

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// listed is GET /v1/plugins by name.
func (f *fixture) listed() map[string]PluginInfo {
	f.t.Helper()
	r := f.do("GET", "/v1/plugins", "", nil)
	require.Equal(f.t, 200, r.status, "%v", r)
	var l struct{ Plugins []PluginInfo }
	require.NoError(f.t, json.Unmarshal(r.body, &l))
	out := map[string]PluginInfo{}
	for _, p := range l.Plugins {
		out[p.Name] = p
	}
	return out
}

func write(t *testing.T, dir, file, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644))
}

// TestManifestEveryField: NAME.yaml, the manifest of aclwasm run
// --manifest, sets each thing a run gets: argv[0] (name) and args, env
// added to the server's, config read by the guest, the policy fields it
// names over the server's defaults (deny added to the server's), the
// module's sha256, and its serve section (max_concurrent, export).
func TestManifestEveryField(t *testing.T) {
	show := wat2wasm(t, "showcfg", "")
	sum := sha256.Sum256(show)
	dir := plugins(t, map[string][]byte{"show": show, "badsum": show, "upper": wat2wasm(t, "upper", ""),
		"denied": wat2wasm(t, "echo", ""), "elsewhere": show}, nil)
	write(t, dir, "show.yaml", `
name: shown
module:
  path: ./show.wasm
  sha256: `+strings.ToUpper(hex.EncodeToString(sum[:]))+`
policy:
  device_memory: 1MiB
  pinned_memory: 64KiB
  timeout: 3s
  deny: [aclrtHostRegister]
args: [a, "b c"]
env: {K: V, A: "1"}
config: {scale: "0.5"}
serve:
  max_concurrent: 2
`)
	write(t, dir, "badsum.yaml", "name: badsum\nmodule: {path: badsum.wasm, sha256: "+strings.Repeat("ab", 32)+"}\n")
	write(t, dir, "upper.yaml", "name: upper\nmodule: {path: upper.wasm}\nserve: {export: process}\n")
	write(t, dir, "denied.yaml", "name: denied\nmodule: {path: denied.wasm}\npolicy: {deny: [aclrtMemcpy]}\n")
	write(t, dir, "elsewhere.yaml", "name: elsewhere\nmodule: {path: ../show.wasm}\n")
	base := host.Policy{MaxStreams: 5, DeviceMemory: 8 << 20, Deny: []string{"aclrtMemset"}}
	f := start(t, Config{Dir: dir, Env: []string{"BASE=1"}, Policy: base})

	r := f.do("POST", "/v1/plugins/show", "", nil)
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "shown\x00a\x00b c\x00|BASE=1\x00A=1\x00K=V\x00|0.5", string(r.body))
	f.s.mu.RLock()
	p := f.s.plugins["show"].policy
	f.s.mu.RUnlock()
	require.Equal(t, host.Policy{MaxStreams: 5, DeviceMemory: 1 << 20, PinnedMemory: 64 << 10, Timeout: 3 * time.Second,
		Deny: []string{"aclrtMemset", "aclrtHostRegister"}}, p, "the manifest's fields over the server's, deny added")
	l := f.listed()
	require.Equal(t, "ready", l["show"].State)
	require.Equal(t, 2, l["show"].MaxConcurrent)
	require.Equal(t, "3s", l["show"].Timeout)

	e := f.do("POST", "/v1/plugins/badsum", "", nil).err(t)
	require.Equal(t, "load_refused", e.Code)
	require.Equal(t, []string{"module.sha256: badsum.wasm has sha256 " + hex.EncodeToString(sum[:]) + ", the manifest expects " + strings.Repeat("ab", 32)}, e.Problems)
	e = f.do("POST", "/v1/plugins/upper", "", nil).err(t)
	require.Equal(t, "not_servable", e.Code)
	require.Contains(t, e.Message, "nor process (a reactor")
	e = f.do("POST", "/v1/plugins/denied", "", nil).err(t)
	require.Equal(t, []string{"import acl.aclrtMemcpy is denied by the policy"}, e.Problems)
	e = f.do("POST", "/v1/plugins/elsewhere", "", nil).err(t)
	require.Equal(t, "plugin_invalid", e.Code)
	require.Contains(t, e.Message, `elsewhere.yaml: module.path "../show.wasm": the server loads the module next to its manifest, want "elsewhere.wasm"`)
}

// TestManifestErrorsNamed: a manifest that does not decode makes its
// plugin invalid with the manifest's own message (field, line), without
// the server's directory; both NAME.yaml and NAME.json is an error.
func TestManifestErrorsNamed(t *testing.T) {
	dir := plugins(t, map[string][]byte{"typo": wat2wasm(t, "echo", ""), "units": wat2wasm(t, "echo", ""), "both": wat2wasm(t, "echo", "")},
		map[string]string{"both": `{}`})
	write(t, dir, "typo.yaml", "name: typo\nmodule: {path: typo.wasm}\npolicy:\n  max_stream: 3\n")
	write(t, dir, "units.yaml", "name: units\nmodule: {path: units.wasm}\npolicy:\n  device_memory: 1TB\n")
	write(t, dir, "both.yaml", "name: both\nmodule: {path: both.wasm}\n")
	f := start(t, Config{Dir: dir})
	for name, want := range map[string]string{
		"typo":  "typo.yaml: policy.max_stream (line 4): no such field",
		"units": `units.yaml: policy.device_memory (line 4): "1TB" is not a byte count`,
		"both":  "both both.yaml and both.json: the JSON sidecar is deprecated, remove it",
	} {
		r := f.do("POST", "/v1/plugins/"+name, "", nil)
		require.Equal(t, 500, r.status, "%v", r)
		e := r.err(t)
		require.Equal(t, "plugin_invalid", e.Code)
		require.Contains(t, e.Message, want)
		require.NotContains(t, string(r.body), dir)
	}
}

// TestJSONSidecarDeprecated: NAME.json still configures its plugin, and
// the log says once per plugin, not once per load, that it is deprecated.
func TestJSONSidecarDeprecated(t *testing.T) {
	dir := plugins(t, map[string][]byte{"old": wat2wasm(t, "showcfg", ""), "other": wat2wasm(t, "echo", "")},
		map[string]string{"old": `{"args": ["x"], "env": ["E=1"], "timeout": "2s"}`, "other": `{}`})
	var logs testsupport.Logs
	f := start(t, Config{Dir: dir, Logger: newTestLogger(&logs)})
	r := f.do("POST", "/v1/plugins/old", "", nil)
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "old\x00x\x00|E=1\x00|", string(r.body))
	require.Equal(t, "2s", f.listed()["old"].Timeout)

	// A changed sidecar loads again, and warns no more.
	write(t, dir, "old.json", `{"args": ["y"]}`)
	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "old.json"), future, future)) // a new stamp even on a coarse clock
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Equal(t, []string{"old"}, rep.Changed)
	require.Equal(t, "old\x00y\x00||", string(f.do("POST", "/v1/plugins/old", "", nil).body))
	require.Equal(t, 1, strings.Count(logs.String(), "deprecated: the JSON sidecar old.json"), "%s", logs.String())
	require.Equal(t, 1, strings.Count(logs.String(), "deprecated: the JSON sidecar other.json"), "%s", logs.String())
}

// TestLastGoodServes: a manifest, then a module, that fails to load
// leaves the version before it serving; the failure is in the log, in
// GET /v1/plugins (state stale, the reason without the directory) and in
// the metrics, and is not retried until the files change. A plugin with
// no good version answers with its failure.
func TestLastGoodServes(t *testing.T) {
	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "fresh": []byte("\x00asm junk")}, nil)
	write(t, dir, "echo.yaml", "name: echo\nmodule: {path: echo.wasm}\n")
	var logs testsupport.Logs
	f := start(t, Config{Dir: dir, Logger: newTestLogger(&logs)})
	good := f.do("POST", "/v1/plugins/echo", "", []byte("x"))
	require.Equal(t, "echo:x", string(good.body))
	version := good.header.Get("X-Aclwasm-Plugin-Version")
	reload := func() ReloadReport {
		t.Helper()
		rep, err := f.s.Reload(context.Background())
		require.NoError(t, err)
		return rep
	}
	touch := func(file string, d time.Duration) { // a new stamp even on a coarse clock
		t.Helper()
		at := time.Now().Add(d)
		require.NoError(t, os.Chtimes(filepath.Join(dir, file), at, at))
	}
	stillServes := func() {
		t.Helper()
		r := f.do("POST", "/v1/plugins/echo", "", []byte("x"))
		require.Equal(t, 200, r.status, "%v", r)
		require.Equal(t, "echo:x", string(r.body))
		require.Equal(t, version, r.header.Get("X-Aclwasm-Plugin-Version"))
	}

	write(t, dir, "echo.yaml", "name: echo\nmodule: {path: echo.wasm}\npolicy: {max_stream: 3}\n")
	touch("echo.yaml", time.Hour)
	require.Equal(t, []string{"echo"}, reload().Changed)
	stillServes()
	p := f.listed()["echo"]
	require.Equal(t, "stale", p.State)
	require.Equal(t, version, p.Version, "the version listed is the one serving")
	require.Equal(t, "plugin_invalid", p.Error.Code)
	require.Contains(t, p.Error.Message, "echo.yaml: policy.max_stream (line 3): no such field")
	require.NotContains(t, p.Error.Message, dir)
	m := scrape(t, f.url+"/metrics")
	require.Equal(t, 1.0, m.sum("aclwasm_plugin_load_failures_total", `plugin="echo"`))
	require.Equal(t, 1.0, m.sum("aclwasm_plugin_state", `plugin="echo"`, `state="stale"`))
	require.Zero(t, m.sum("aclwasm_plugin_state", `plugin="echo"`, `state="ready"`))
	require.Equal(t, 1.0, m.sum("aclwasm_plugin_state", `plugin="fresh"`, `state="refused"`))

	require.Empty(t, reload().Changed, "the files that failed are not loaded again")
	require.Equal(t, 1.0, scrape(t, f.url+"/metrics").sum("aclwasm_plugin_load_failures_total", `plugin="echo"`))

	// Repaired: the new version serves, ready again.
	write(t, dir, "echo.yaml", "name: echo\nmodule: {path: echo.wasm}\npolicy: {max_streams: 3}\n")
	touch("echo.yaml", 2*time.Hour)
	require.Equal(t, []string{"echo"}, reload().Changed)
	r := f.do("POST", "/v1/plugins/echo", "", []byte("x"))
	require.Equal(t, "echo:x", string(r.body))
	require.NotEqual(t, version, r.header.Get("X-Aclwasm-Plugin-Version"))
	version = r.header.Get("X-Aclwasm-Plugin-Version")
	require.Equal(t, "ready", f.listed()["echo"].State)
	require.Nil(t, f.listed()["echo"].Error)

	// A module that does not compile: the same.
	write(t, dir, "echo.wasm", "\x00asm not a module")
	touch("echo.wasm", 3*time.Hour)
	require.Equal(t, []string{"echo"}, reload().Changed)
	stillServes()
	p = f.listed()["echo"]
	require.Equal(t, "stale", p.State)
	require.Equal(t, "load_refused", p.Error.Code)
	m = scrape(t, f.url+"/metrics")
	require.Equal(t, 2.0, m.sum("aclwasm_plugin_load_failures_total", `plugin="echo"`))
	require.Equal(t, 2.0, m.sum("aclwasm_plugin_loads_total", `plugin="echo"`))
	require.Equal(t, 5.0, m.sum("aclwasm_reloads_total", `result="ok"`), "New's scan and four reloads")

	// Without a good version, the failure answers.
	require.Equal(t, 422, f.do("POST", "/v1/plugins/fresh", "", nil).status)
	require.Equal(t, "refused", f.listed()["fresh"].State)

	require.Equal(t, 2, strings.Count(logs.String(), `msg="plugin reload failed: the last good version serves on" plugin=echo`), "%s", logs.String())
}

// TestManifestMounts: a manifest of the plugin directory mounts host
// directories relative to it; an artifact's manifest from a registry may
// not mount any.
func TestManifestMounts(t *testing.T) {
	dir := plugins(t, map[string][]byte{"show": wat2wasm(t, "showcfg", "")}, nil)
	require.NoError(t, os.Mkdir(filepath.Join(dir, "data"), 0o755))
	write(t, dir, "show.yaml", "name: show\nmodule: {path: show.wasm}\npolicy:\n  mounts: [data:/data]\n")
	reg := ocitest.New(t)
	ref := "oci://" + reg.Host + "/plugins/echo:v1"
	push(t, pusher(t), ref, wat2wasm(t, "echo", ""), []byte("name: echo\nmodule: {path: echo.wasm}\npolicy:\n  mounts: [/:/host:rw]\n"))
	write(t, dir, "pulled.yaml", "source: "+ref+"\n")
	f := start(t, Config{Dir: dir})
	ls := f.listed()
	require.Equal(t, "ready", ls["show"].State, "%+v", ls["show"].Error)
	f.s.mu.RLock()
	p := f.s.plugins["show"].policy
	f.s.mu.RUnlock()
	require.Equal(t, []host.Mount{{HostDir: filepath.Join(dir, "data"), GuestDir: "/data"}}, p.Mounts)
	require.Equal(t, "invalid", ls["pulled"].State)
	require.Contains(t, ls["pulled"].Error.Message, "the artifact's manifest: policy.mounts: a plugin pulled from a registry cannot mount directories of the server's host")
}
