package testsupport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// fatal runs f with a testing.TB whose Fatal and Fatalf end f's goroutine
// as they end a test's, and returns what they said ("" when f returned).
func fatal(t *testing.T, f func(tb testing.TB)) string {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r.msg
}

type recorder struct {
	testing.TB
	msg string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) { r.msg = fmt.Sprint(args...); runtime.Goexit() }

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestGuestDir: ACLWASM_GUEST_DIR, when set, is where Guest and GuestPath
// look; a missing guest fails the test naming the command that builds it.
func TestGuestDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("ACLWASM_GUEST_DIR", dir)
	require.Equal(t, dir, GuestDir())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.wasm"), []byte("\x00asm"), 0o644))
	require.Equal(t, []byte("\x00asm"), Guest(t, "g"))
	require.Equal(t, filepath.Join(dir, "g.wasm"), GuestPath(t, "g"))
	msg := fatal(t, func(tb testing.TB) { Guest(tb, "absent") })
	require.Contains(t, msg, filepath.Join(dir, "absent.wasm")+" is missing: run make guests")

	t.Setenv("ACLWASM_GUEST_DIR", "")
	_, file, _, _ := runtime.Caller(0)
	require.Equal(t, filepath.Join(filepath.Dir(file), "..", "..", "build", "wasm"), GuestDir())
}

// TestWAT: WAT, WATFile and CompileWAT make the same module of the same
// text; CompileWAT passes its flags on (--debug-names adds the name
// section); a text that does not compile fails the test with wat2wasm's
// message and the text.
func TestWAT(t *testing.T) {
	const src = `(module (func $named (export "f")))`
	b := WAT(t, src)
	require.True(t, bytes.HasPrefix(b, []byte("\x00asm\x01\x00\x00\x00")))
	in := filepath.Join(t.TempDir(), "f.wat")
	require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
	require.Equal(t, b, WATFile(t, in))
	require.NotContains(t, string(b), "named")
	out := filepath.Join(t.TempDir(), "f.wasm")
	CompileWAT(t, in, out, "--debug-names")
	named, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(named), "\x04name")
	require.Contains(t, string(named), "named")

	msg := fatal(t, func(tb testing.TB) { WAT(tb, "(module (func (export \"f\") i32.bogus))") })
	require.Contains(t, msg, "wat2wasm ")
	require.Contains(t, msg, "i32.bogus")
}

// TestNative: without ACLWASM_TEST_ACL_LIB the tests run on their
// default (nil); a library that does not open fails the test naming the
// variables.
func TestNative(t *testing.T) {
	if NativeLib() != "" { // the stand-in run: the backend opens and answers
		b := Native(t)
		require.NotNil(t, b)
		require.Positive(t, b.DeviceCount())
	}
	t.Setenv("ACLWASM_TEST_ACL_LIB", "")
	require.Nil(t, Native(t))
	t.Setenv("ACLWASM_TEST_ACL_LIB", filepath.Join(t.TempDir(), "libnone.so"))
	msg := fatal(t, func(tb testing.TB) { Native(tb) })
	require.Contains(t, msg, "ACLWASM_TEST_ACL_LIB="+NativeLib())
}

// TestLogs: Logs decodes the JSON records written to it, without their
// time, and forgets them on Reset.
func TestLogs(t *testing.T) {
	var l Logs
	require.Empty(t, l.Records(t))
	_, err := l.Write([]byte(`{"time":"x","msg":"a"}` + "\n" + `{"time":"y","msg":"b","n":1}` + "\n"))
	require.NoError(t, err)
	require.Equal(t, []map[string]any{{"msg": "a"}, {"msg": "b", "n": 1.0}}, l.Records(t))
	require.Contains(t, l.String(), `"time":"x"`)
	l.Reset()
	require.Empty(t, l.String())
}
