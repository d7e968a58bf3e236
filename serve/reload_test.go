package serve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// echoSaying is the echo plugin answering with prefix (5 bytes) in place
// of "echo:": a new version of it.
func echoSaying(t *testing.T, prefix string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "echo.wat"))
	require.NoError(t, err)
	return wat2wasm(t, "", strings.Replace(string(src), `(data (i32.const 0x100) "echo:")`, `(data (i32.const 0x100) "`+prefix+`")`, 1))
}

// replace writes a plugin's module atomically, as documented.
func replace(t *testing.T, dir, name string, wasm []byte) {
	t.Helper()
	tmp := filepath.Join(dir, name+".tmp")
	require.NoError(t, os.WriteFile(tmp, wasm, 0o644))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, name+".wasm")))
}

// TestSlowLoadStallsNoOther: while one plugin's compilation is stuck (a
// load hook holds it), another plugin's new version becomes available as
// soon as it is compiled, a second reload of that other plugin completes,
// and the stuck plugin's old version keeps serving; once released, the
// stuck plugin's new version is swapped in. (Loads one after another, each
// reload under one lock, held everything behind the stuck one.)
func TestSlowLoadStallsNoOther(t *testing.T) {
	dir := plugins(t, map[string][]byte{"slow": wat2wasm(t, "echo", ""), "fast": wat2wasm(t, "echo", "")}, nil)
	stuck, unstick := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(unstick) })
	t.Cleanup(release) // before the fixture's shutdown, if the test fails early
	var armed sync.Once
	var arm bool
	var armMu sync.Mutex
	f := start(t, Config{Dir: dir, testHookLoad: func(name string) {
		armMu.Lock()
		a := arm
		armMu.Unlock()
		if a && name == "slow" {
			armed.Do(func() { close(stuck) })
			<-unstick
		}
	}})
	armMu.Lock()
	arm = true
	armMu.Unlock()
	say := func(name string) string {
		r := f.do("POST", "/v1/plugins/"+name, "", []byte("hi"))
		require.Equal(t, 200, r.status, "%v", r)
		return string(r.body)
	}
	require.Equal(t, "echo:hi", say("slow"))

	replace(t, dir, "slow", echoSaying(t, "SLOW:"))
	replace(t, dir, "fast", echoSaying(t, "FAST:"))
	first := make(chan ReloadReport, 1)
	go func() { rep, _ := f.s.Reload(context.Background()); first <- rep }()
	select {
	case <-stuck:
	case <-time.After(watchdog):
		t.Fatal("the slow plugin's load did not start")
	}
	var got string
	for deadline := time.Now().Add(watchdog); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got = say("fast"); got == "FAST:hi" {
			break
		}
	}
	require.Equal(t, "FAST:hi", got, "the fast plugin's new version waits for the slow one")
	require.Equal(t, "echo:hi", say("slow"), "the old version serves while the new one compiles")

	// A second reload, the slow load still stuck, reloads the fast one.
	replace(t, dir, "fast", echoSaying(t, "Fast:"))
	second := make(chan ReloadReport, 1)
	go func() { rep, _ := f.s.Reload(context.Background()); second <- rep }()
	select {
	case rep := <-second:
		require.Equal(t, []string{"fast"}, rep.Changed)
		require.Equal(t, []string{"slow"}, rep.Loading)
	case <-time.After(watchdog):
		t.Fatal("a reload waits for another plugin's stuck compilation")
	}
	require.Equal(t, "Fast:hi", say("fast"))
	select {
	case <-first:
		t.Fatal("the first reload returned before its loads were done")
	default:
	}

	release()
	rep := <-first
	require.Equal(t, []string{"fast", "slow"}, rep.Changed)
	require.Equal(t, "SLOW:hi", say("slow"))
	require.Equal(t, 2, f.s.OpenPlugins(), "every replaced version closed")
}

// TestRemovedWhileLoading: a plugin removed while its load is under way
// stays removed when the load ends.
func TestRemovedWhileLoading(t *testing.T) {
	dir := plugins(t, nil, nil)
	stuck, unstick := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(unstick) })
	t.Cleanup(release)
	f := start(t, Config{Dir: dir, testHookLoad: func(string) { close(stuck); <-unstick }})
	replace(t, dir, "late", wat2wasm(t, "echo", ""))
	done := make(chan ReloadReport, 1)
	go func() { rep, _ := f.s.Reload(context.Background()); done <- rep }()
	<-stuck
	require.NoError(t, os.Remove(filepath.Join(dir, "late.wasm")))
	rep, err := f.s.Reload(context.Background())
	require.NoError(t, err)
	require.Empty(t, rep.Removed, "never installed")
	release()
	require.Equal(t, []string{"late"}, (<-done).Added)
	require.Equal(t, 404, f.do("POST", "/v1/plugins/late", "", nil).status)
	require.Zero(t, f.s.OpenPlugins())
}

// TestAnswersWhileLoading: the server answers before its plugins are
// compiled. A plugin still in its first compilation gets 503 loading
// (Retry-After), and /readyz says loading, while a plugin already compiled
// is served; once the slow one is compiled, it is served and /readyz is
// 200.
func TestAnswersWhileLoading(t *testing.T) {
	dir := plugins(t, map[string][]byte{"slow": wat2wasm(t, "echo", ""), "fast": wat2wasm(t, "echo", "")}, nil)
	stuck, unstick := make(chan struct{}), make(chan struct{})
	release := sync.OnceFunc(func() { close(unstick) })
	t.Cleanup(release)
	f := startAll(t, Config{Dir: dir, testHookLoad: func(name string) {
		if name == "slow" {
			close(stuck)
			<-unstick
		}
	}}, nil, false)
	select {
	case <-stuck:
	case <-time.After(watchdog):
		t.Fatal("the slow plugin's load did not start")
	}
	r := f.do("POST", "/v1/plugins/slow", "", []byte("hi"))
	require.Equal(t, 503, r.status, "%v", r)
	require.Contains(t, string(r.body), `"code":"loading"`)
	require.Equal(t, "1", r.header.Get("Retry-After"))
	r = f.do("GET", "/readyz", "", nil)
	require.Equal(t, 503, r.status)
	require.Contains(t, string(r.body), `"code":"loading"`)
	var got reply
	for deadline := time.Now().Add(watchdog); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if got = f.do("POST", "/v1/plugins/fast", "", []byte("hi")); got.status == 200 {
			break
		}
	}
	require.Equal(t, 200, got.status, "the compiled plugin is served while the other compiles: %v", got)
	release()
	require.NoError(t, f.s.WaitLoaded(context.Background()))
	require.Equal(t, 200, f.do("GET", "/readyz", "", nil).status)
	r = f.do("POST", "/v1/plugins/slow", "", []byte("hi"))
	require.Equal(t, 200, r.status, "%v", r)
	require.Equal(t, "echo:hi", string(r.body))
}

// TestStampSeesRename: a module replaced by a rename with one of the same
// size and modification time (written within one tick of a coarse file
// system clock) is still a change: its inode is new.
func TestStampSeesRename(t *testing.T) {
	dir := t.TempDir()
	path, tmp := filepath.Join(dir, "echo.wasm"), filepath.Join(dir, "echo.tmp")
	require.NoError(t, os.WriteFile(path, []byte("version 1"), 0o644))
	before := statFile(path)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(tmp, []byte("version 2"), 0o644))
	require.NoError(t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
	require.NoError(t, os.Rename(tmp, path))
	after := statFile(path)
	require.Equal(t, before.size, after.size)
	require.True(t, before.mod.Equal(after.mod))
	require.NotEqual(t, before, after, "the same size and time, another file")
}
