package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/edgeref"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestEdgeClassifyCLI runs samples/edge-classify as its README says, with
// the model its train.py trains: aclwasm run with --model and the images
// in a --mount, aclwasm call with the image as the input bytes, both
// again from a manifest that approves the model (a path relative to the
// manifest) and mounts the images, and aclwasm serve with the model
// approved in the plugin's manifest and the image as the request body.
// Every answer is checked against internal/edgeref's: the same
// pre-processing in Go and the model run directly through onnx-gomlx.
func TestEdgeClassifyCLI(t *testing.T) {
	wasm := testsupport.GuestPath(t, "edge-classify")
	dir := edgeref.Train(t)
	model := filepath.Join(dir, "shapes.onnx")
	images := filepath.Join(dir, "images")
	require.NoError(t, os.Mkdir(images, 0o755))
	all := edgeref.Images()
	for _, im := range all {
		require.NoError(t, os.WriteFile(filepath.Join(images, im.Name), im.File, 0o644))
	}
	k := len(edgeref.Classes)
	check := func(im edgeref.Image, how, answer string) {
		t.Helper()
		want, err := edgeref.Probabilities(model, im.File)
		require.NoError(t, err)
		labels, err := edgeref.Check(answer, want, k)
		require.NoError(t, err, "%s, %s", im.Name, how)
		if im.Class != "" {
			require.Equal(t, im.Class, labels[0], "%s, %s: the class drawn", im.Name, how)
		}
	}
	man := filepath.Join(dir, "edge-classify.yaml")
	require.NoError(t, os.WriteFile(man, []byte(fmt.Sprintf(`name: edge-classify
module: {path: %s}
policy:
  models: {shapes: shapes.onnx}
  mounts: [images:/data]
env: {TOP_K: "5"}
`, wasm)), 0o644))

	for _, im := range all[:3] {
		in := filepath.Join(images, im.Name)
		r := cli(t, "run", "--model", "shapes="+model, "--mount", images+":/data", "--env", "TOP_K=5", wasm, "/data/"+im.Name)
		require.Zero(t, r.code, "%+v", r)
		check(im, "run --mount", r.stdout)
		r = cli(t, "call", "--model", "shapes="+model, "--env", "TOP_K=5", "--input-file", in, wasm, "classify")
		require.Zero(t, r.code, "%+v", r)
		check(im, "call", r.stdout)
		r = cli(t, "run", "--manifest", man, "/data/"+im.Name)
		require.Zero(t, r.code, "%+v", r)
		check(im, "run --manifest", r.stdout)
		r = cli(t, "call", "--manifest", man, "--input-file", in, "classify")
		require.Zero(t, r.code, "%+v", r)
		check(im, "call --manifest", r.stdout)
	}
	// Without the model approved, the load of "shapes" fails with the
	// native code for a missing model, and the sample exits 2.
	r := cli(t, "run", "--mount", images+":/data", wasm, "/data/"+all[0].Name)
	require.Equal(t, 2, r.code, "%+v", r)
	require.Contains(t, r.stderr, "aclmdlLoadFromFile(MODEL, &r->id): 145002")

	// serve: a command gets the request body on stdin and answers on
	// stdout; the model is approved in the plugin's manifest.
	sdir := t.TempDir()
	b, err := os.ReadFile(wasm)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(sdir, "edge-classify.wasm"), b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(sdir, "edge-classify.yaml"), []byte(fmt.Sprintf(`name: edge-classify
module: {path: edge-classify.wasm}
policy:
  models: {shapes: %s}
env: {TOP_K: "5"}
`, model)), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv := exec.CommandContext(ctx, bin, "serve", "--listen", "127.0.0.1:0", "--poll", "0", "--log-format", "json", sdir)
	stderr, err := srv.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, srv.Start())
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	log := readLog(stderr)
	addr, _ := log.wait(t, "listening")["addr"].(string)
	require.NotEmpty(t, addr)
	log.wait(t, "plugins loaded")
	hc := &http.Client{Timeout: 30 * time.Second}
	for _, im := range all {
		resp, err := hc.Post("http://"+addr+"/v1/plugins/edge-classify", "image/x-portable-anymap", bytes.NewReader(im.File))
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", im.Name, body)
		check(im, "serve", string(body))
	}
	require.NoError(t, srv.Process.Signal(syscall.SIGTERM))
	require.NoError(t, srv.Wait())
}
