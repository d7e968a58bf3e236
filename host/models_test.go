package host

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestPolicyModels: approved models must be nameable by a guest and be
// regular files when the plugin loads; the policy keeps its own copy of
// the map.
func TestPolicyModels(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.onnx")
	require.NoError(t, os.WriteFile(file, []byte("model"), 0o644))
	for _, tc := range []struct {
		models map[string]string
		want   string
	}{
		{map[string]string{"": file}, "policy: Models: an empty model name"},
		{map[string]string{"a\x00b": file}, `policy: Models: model name "a\x00b": a name must not contain NUL`},
		{map[string]string{"a": ""}, `policy: Models: model "a": no file`},
		{map[string]string{"a": filepath.Join(dir, "none.onnx")}, `policy: Models["a"]: stat ` + filepath.Join(dir, "none.onnx") + ": no such file"},
		{map[string]string{"a": dir}, `policy: Models["a"]: ` + dir + " is not a regular file"},
	} {
		_, err := Policy{Models: tc.models}.withDefaults(1)
		require.ErrorContains(t, err, tc.want, "%q", tc.models)
	}
	models := map[string]string{"cnn": file}
	p, err := Policy{Models: models}.withDefaults(1)
	require.NoError(t, err)
	models["cnn"] = "elsewhere"
	models["other"] = file
	require.Equal(t, map[string]string{"cnn": file}, p.Models, "the caller's map changed the policy")
	require.False(t, p.AllowGuestModels, "guest models are refused by default")

	rt := newRuntime(t)
	_, err = rt.Load(context.Background(), testsupport.WAT(t, `(module)`), Policy{Models: map[string]string{"cnn": filepath.Join(dir, "none.onnx")}})
	require.ErrorContains(t, err, `host: policy: Models["cnn"]`)
	_, err = rt.Load(context.Background(), testsupport.WAT(t, `(module)`), Policy{Models: map[string]string{"cnn": file}})
	require.NoError(t, err)
}
