package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// watVecAddServe is a reactor whose handle launches VecAdd (vecKernels)
// on the request's 8 float32s, a then b, on two blocks (wide profile),
// and answers c = a + b. A failed call returns its code as the status.
const watVecAddServe = `(module
  (import "acl" "aclrtSetDevice" (func $setDevice (param i32) (result i32)))
  (import "acl" "aclrtMalloc" (func $malloc (param i32 i64 i32) (result i32)))
  (import "acl" "aclrtFree" (func $free (param i64) (result i32)))
  (import "acl" "aclrtMemcpy" (func $memcpy (param i64 i64 i64 i64 i32) (result i32)))
  (import "acl" "aclrtSynchronizeDevice" (func $sync (result i32)))
  (import "env" "VecAdd" (func $VecAdd (param i32 i32 i64 i64 i64 i32) (result i32)))
  (import "aclwasm" "input_len" (func $inputLen (result i32)))
  (import "aclwasm" "input_read" (func $inputRead (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func $freeAll
    (drop (call $free (i64.load (i32.const 8))))
    (drop (call $free (i64.load (i32.const 16))))
    (drop (call $free (i64.load (i32.const 24)))))
  (func (export "handle") (result i32) (local $r i32)
    (if (i32.ne (call $inputLen) (i32.const 32)) (then (return (i32.const 1))))
    (if (local.tee $r (call $inputRead (i32.const 64) (i32.const 32))) (then (return (local.get $r))))
    (if (local.tee $r (call $setDevice (i32.const 0))) (then (return (local.get $r))))
    (if (local.tee $r (call $malloc (i32.const 8) (i64.const 16) (i32.const 0))) (then (return (local.get $r))))
    (if (local.tee $r (call $malloc (i32.const 16) (i64.const 16) (i32.const 0))) (then (return (local.get $r))))
    (if (local.tee $r (call $malloc (i32.const 24) (i64.const 16) (i32.const 0))) (then (return (local.get $r))))
    (if (local.tee $r (call $memcpy (i64.load (i32.const 8)) (i64.const 16) (i64.const 64) (i64.const 16) (i32.const 1))) (then (return (local.get $r))))
    (if (local.tee $r (call $memcpy (i64.load (i32.const 16)) (i64.const 16) (i64.const 80) (i64.const 16) (i32.const 1))) (then (return (local.get $r))))
    (if (local.tee $r (call $VecAdd (i32.const 2) (i32.const 0) (i64.load (i32.const 8)) (i64.load (i32.const 16)) (i64.load (i32.const 24)) (i32.const 4)))
      (then (call $freeAll) (return (local.get $r))))
    (if (local.tee $r (call $sync)) (then (return (local.get $r))))
    (if (local.tee $r (call $memcpy (i64.const 128) (i64.const 16) (i64.load (i32.const 24)) (i64.const 16) (i32.const 2))) (then (return (local.get $r))))
    (call $freeAll)
    (call $write (i32.const 128) (i32.const 16))))`

// TestKernelFileServe: aclwasm serve --kernel-file registers the file's
// kernels for the plugins of DIR, whose manifests grant them by the set's
// name. On the native backend (the stand-in ACLWASM_TEST_ACL_LIB names;
// make unit-cann) each request's launch runs the file's binary on the
// request's numbers and the answer holds their sums; on the simulator
// the launch is refused (207000) and the request fails with that status.
func TestKernelFileServe(t *testing.T) {
	g := wat(t, "vecadd", watVecAddServe)
	dir := t.TempDir()
	b, err := os.ReadFile(g)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "vecadd.wasm"), b, 0o644))
	writeFile(t, dir, "vecadd.yaml", "name: vecadd\nmodule: {path: vecadd.wasm}\npolicy: {kernels: [vecops]}\n")
	kdir := t.TempDir() // the kernels file and its binary, outside the plugins' directory
	writeFile(t, kdir, "vec.o", "aclwasm-standin-kernels\nvec_add standin_add_f32\n")
	kf := writeFile(t, kdir, "vec.yaml", vecKernels)

	backend := []string{"--backend", "sim"}
	lib := testsupport.NativeLib()
	if lib != "" {
		backend = []string{"--backend", "cann", "--acl-lib", lib}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--poll", "0", "--log-format", "json", "--kernel-file", kf}, backend...)
	srv := exec.CommandContext(ctx, bin, append(args, dir)...)
	srv.Env = append(os.Environ(), "ACLWASM_ACL_LIB=")
	stderr, err := srv.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	log := readLog(stderr)
	addr, _ := log.wait(t, "listening")["addr"].(string)
	require.NotEmpty(t, addr)
	log.wait(t, "plugins loaded")

	floats := func(v ...float32) []byte {
		var out []byte
		for _, f := range v {
			out = binary.LittleEndian.AppendUint32(out, math.Float32bits(f))
		}
		return out
	}
	hc := &http.Client{Timeout: 30 * time.Second}
	post := func(body []byte) (int, []byte) {
		resp, err := hc.Post("http://"+addr+"/v1/plugins/vecadd", "application/octet-stream", bytes.NewReader(body))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, b
	}
	for _, c := range []struct{ a, b, sum []float32 }{
		{[]float32{1, 2, 3, 4}, []float32{10, 20, 30, 40}, []float32{11, 22, 33, 44}},
		{[]float32{0.5, -1, 1e6, 7}, []float32{0.25, 1, 1, -7}, []float32{0.75, 0, 1e6 + 1, 0}},
	} {
		code, body := post(append(floats(c.a...), floats(c.b...)...))
		if lib == "" {
			require.Equal(t, http.StatusBadGateway, code, "%s", body)
			var e struct {
				Code     string `json:"code"`
				ExitCode uint32 `json:"exit_code"`
			}
			require.NoError(t, json.Unmarshal(body, &e), "%s", body)
			require.Equal(t, "plugin_failed", e.Code, "%s", body)
			require.EqualValues(t, 207000, e.ExitCode, "the simulator refuses a native-only kernel: %s", body)
			continue
		}
		require.Equal(t, http.StatusOK, code, "%s", body)
		require.Equal(t, floats(c.sum...), body, "the file's binary ran on the request's numbers")
	}
	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
	require.NoError(t, srv.Wait())
}
