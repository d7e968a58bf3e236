package tests

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/edgeref"
)

// TestEdgeClassify runs samples/edge-classify, the edge-inference sample,
// with the model its train.py trains approved as "shapes": on every test
// image of internal/edgeref, read from a mount (the command's argv[1]),
// from stdin (as aclwasm serve gives a command its request) and as the
// input bytes of its export "classify" (aclwasm call). Each answer is
// checked against edgeref's, computed without the sample: the same
// pre-processing in Go and the model run directly through onnx-gomlx. The
// drawn images must come out as their class; the sample's device work
// (the upload, the model, the softmax operator, the download) is checked
// in the run's accounting, and its device memory is all given back.
func TestEdgeClassify(t *testing.T) {
	model := filepath.Join(edgeref.Train(t), "shapes.onnx")
	images := t.TempDir()
	for _, im := range edgeref.Images() {
		require.NoError(t, os.WriteFile(filepath.Join(images, im.Name), im.File, 0o644))
	}
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "edge-classify", host.Policy{
		Models: map[string]string{edgeref.Model: model},
		Mounts: []host.Mount{{HostDir: images, GuestDir: "/data"}},
	})
	k := len(edgeref.Classes)
	env := []string{"TOP_K=5"}
	ctx := context.Background()
	for _, im := range edgeref.Images() {
		want, err := edgeref.Probabilities(model, im.File)
		require.NoError(t, err, im.Name)
		check := func(how, answer string) {
			t.Helper()
			labels, err := edgeref.Check(answer, want, k)
			require.NoError(t, err, "%s, %s", im.Name, how)
			if im.Class != "" {
				require.Equal(t, im.Class, labels[0], "%s, %s: the class drawn", im.Name, how)
			}
		}

		var stdout, stderr bytes.Buffer
		res, err := pl.Run(ctx, host.Config{Args: []string{"edge-classify", "/data/" + im.Name}, Env: env, Stdout: &stdout, Stderr: &stderr})
		require.NoError(t, err, im.Name)
		require.Zero(t, res.ExitCode, "%s\nstdout:\n%s\nstderr:\n%s", im.Name, &stdout, &stderr)
		check("mounted", stdout.String())
		noErrors(t, res.Stats)
		for _, fn := range []string{"aclmdlExecuteAsync", "aclnnSoftmax"} {
			require.Equal(t, uint64(1), res.Stats.Funcs[fn].Launches, fn)
		}
		require.Equal(t, base, sb.freeMem(t), "device memory after %s", im.Name)

		stdout.Reset()
		res, err = pl.Run(ctx, host.Config{Args: []string{"edge-classify"}, Env: env, Stdin: bytes.NewReader(im.File), Stdout: &stdout, Stderr: &stderr})
		require.NoError(t, err, im.Name)
		require.Zero(t, res.ExitCode, "%s\nstderr:\n%s", im.Name, &stderr)
		check("stdin", stdout.String())

		out := callClassify(t, pl, env, im.File)
		check("bytes", out)
		require.Equal(t, base, sb.freeMem(t), "device memory after %s", im.Name)
	}

	// TOP_K: 3 by default, at most the classes.
	im := edgeref.Images()[0]
	want, err := edgeref.Probabilities(model, im.File)
	require.NoError(t, err)
	for _, c := range []struct {
		env []string
		k   int
	}{{nil, 3}, {[]string{"TOP_K=1"}, 1}, {[]string{"TOP_K=99"}, k}} {
		_, err := edgeref.Check(callClassify(t, pl, c.env, im.File), want, c.k)
		require.NoError(t, err, "%v", c.env)
	}
}

// callClassify calls the export "classify" of a fresh instance on file.
func callClassify(t *testing.T, pl *host.Plugin, env []string, file []byte) string {
	t.Helper()
	ctx := context.Background()
	var stderr bytes.Buffer
	inst, err := pl.Instantiate(ctx, host.Config{Args: []string{"edge-classify"}, Env: env, Stderr: &stderr})
	require.NoError(t, err)
	defer func() { require.NoError(t, inst.Close(ctx)) }()
	out, err := inst.CallBytes(ctx, "classify", file)
	require.NoError(t, err, "stderr:\n%s", &stderr)
	return string(out)
}

// TestEdgeClassifyRefuses: what the sample cannot use ends it with status
// 1 and the reason, before any device work: a file that is no PGM or
// PPM, one shorter than its header says, a file outside the mount; and a
// model that is not approved fails aclmdlLoadFromFile with the native
// code for a missing model, status 2.
func TestEdgeClassifyRefuses(t *testing.T) {
	images := t.TempDir()
	good := edgeref.Images()[0].File
	require.NoError(t, os.WriteFile(filepath.Join(images, "good.pgm"), good, 0o644))
	sb := newSandbox(t)
	pl := sb.load(t, "edge-classify", host.Policy{
		Mounts: []host.Mount{{HostDir: images, GuestDir: "/data"}},
	})
	ctx := context.Background()
	for _, c := range []struct {
		in     []byte
		status int32
		says   string
	}{
		{[]byte("GIF89a"), 1, "not a binary PGM (P5) or PPM (P6) image"},
		{good[:len(good)-1], 1, "the image data is shorter than its header says"},
		{[]byte("P5\n16 16\n65535\n"), 1, "only 8-bit samples"},
		{good, 2, "aclmdlLoadFromFile(MODEL, &r->id): 145002"},
	} {
		var stderr bytes.Buffer
		inst, err := pl.Instantiate(ctx, host.Config{Stderr: &stderr})
		require.NoError(t, err)
		out, err := inst.CallBytes(ctx, "classify", c.in)
		require.NoError(t, inst.Close(ctx))
		var se *host.StatusError
		require.True(t, errors.As(err, &se), "%q: %v", c.says, err)
		require.Equal(t, c.status, se.Status, c.says)
		require.Empty(t, out)
		require.Contains(t, stderr.String(), c.says)
	}
	for _, path := range []string{"/etc/passwd", "/data/missing.pgm", "/data/../../etc/passwd"} {
		o := run(ctx, pl, "edge-classify", path)
		require.NoError(t, o.err)
		require.Equal(t, uint32(1), o.res.ExitCode, "%v", o)
		require.True(t, strings.HasPrefix(o.stderr, "edge-classify: "+path+": "), "%v", o)
		require.Empty(t, o.stdout)
	}
}
