package serve

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// TestServingDocManifest: the manifest of docs/SERVING.md is one that
// host.ParseManifest accepts and the server serves: every section set,
// the module path its file name.
func TestServingDocManifest(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "SERVING.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
	require.Len(t, blocks, 1)
	m, err := host.ParseManifest(blocks[0][1])
	require.NoError(t, err)
	require.Equal(t, host.ServeManifest{MaxConcurrent: 4, Export: "handle"}, m.Serve)
	require.Equal(t, m.Name+".wasm", m.Path)
	require.NotEmpty(t, m.SHA256)
	require.NotEmpty(t, m.Args)
	require.NotEmpty(t, m.Env)
	require.NotEmpty(t, m.Vars)
	p, err := mergePolicy(host.Policy{Deny: []string{"aclrtMemset"}}, m.Policy, blocks[0][1])
	require.NoError(t, err)
	require.Equal(t, []string{"aclrtMemset", "aclrtMemcpyBatch"}, p.Deny)
	require.Equal(t, uint64(64<<20), p.DeviceMemory)
}
