package edgeref

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestTrainedOnce: trained runs the script once for the same inputs and
// again when the script changes; what it returns holds the script's whole
// output. The script here stands in for train.py: it writes shapes.onnx
// and counts its runs in a file beside the cache.
func TestTrainedOnce(t *testing.T) {
	py := testsupport.Python(t)
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	script := filepath.Join(dir, "train.py")
	write := func(model string) {
		require.NoError(t, os.WriteFile(script, []byte(`import sys
open(sys.argv[1] + "/shapes.onnx", "w").write("`+model+`")
open(`+"\""+runs+"\""+`, "a").write("x")
`), 0o644))
	}
	cache := filepath.Join(dir, "cache")
	check := func(model string, n int) string {
		t.Helper()
		got, err := trained(py, script, cache)
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(got, "shapes.onnx"))
		require.NoError(t, err)
		require.Equal(t, model, string(b))
		b, err = os.ReadFile(runs)
		require.NoError(t, err)
		require.Len(t, b, n, "runs of the script")
		return got
	}
	write("one")
	first := check("one", 1)
	require.Equal(t, first, check("one", 1), "the same inputs, the same directory, no second run")
	write("two")
	require.NotEqual(t, first, check("two", 2), "a changed script trains again")
	left, err := filepath.Glob(filepath.Join(cache, "train-*"))
	require.NoError(t, err)
	require.Empty(t, left, "no partial output left behind")

	// A failing script is the test's failure, not the cache's.
	require.NoError(t, os.WriteFile(script, []byte("raise SystemExit(3)\n"), 0o644))
	_, err = trained(py, script, cache)
	var te trainError
	require.ErrorAs(t, err, &te)
}
