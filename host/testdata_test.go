package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestTestdataWasmMatchesWat: each committed testdata/*.wasm is what its
// .wat source compiles to, so the examples run what their sources say.
func TestTestdataWasmMatchesWat(t *testing.T) {
	wats, err := filepath.Glob("testdata/*.wat")
	require.NoError(t, err)
	require.NotEmpty(t, wats)
	for _, w := range wats {
		src, err := os.ReadFile(w)
		require.NoError(t, err)
		bin, err := os.ReadFile(strings.TrimSuffix(w, ".wat") + ".wasm")
		require.NoError(t, err)
		require.Equal(t, testsupport.WAT(t, string(src)), bin, "%s is stale: rebuild it with wat2wasm", w)
	}
}
