package serve

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// TestServingDocManifest: the manifests of docs/SERVING.md are ones that
// host.ParseManifest accepts and the server serves: every section set,
// the module path its file name; the kept-instances example sets
// reuse_instances.
func TestServingDocManifest(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "SERVING.md"))
	require.NoError(t, err)
	blocks := yamlBlocks(t, doc)
	require.Len(t, blocks, 4, "the manifest, the kept-instances manifest, the models manifest, the server configuration file")
	m, err := host.ParseManifest(blocks[0][1])
	require.NoError(t, err)
	no, yes := false, true
	require.Equal(t, host.ServeManifest{MaxConcurrent: 4, Export: "handle", ReuseInstances: &no}, m.Serve)
	require.Equal(t, m.Name+".wasm", m.Path)
	require.NotEmpty(t, m.SHA256)
	require.NotEmpty(t, m.Args)
	require.NotEmpty(t, m.Env)
	require.NotEmpty(t, m.Vars)
	p, err := mergePolicy(host.Policy{Deny: []string{"aclrtMemset"}}, m.Policy, blocks[0][1])
	require.NoError(t, err)
	require.Equal(t, []string{"aclrtMemset", "aclrtMemcpyBatch"}, p.Deny)
	require.Equal(t, uint64(64<<20), p.DeviceMemory)

	m, err = host.ParseManifest(blocks[1][1])
	require.NoError(t, err)
	require.Equal(t, host.ServeManifest{MaxConcurrent: 8, ReuseInstances: &yes}, m.Serve)
	require.Equal(t, m.Name+".wasm", m.Path)

	m, err = host.ParseManifest(blocks[2][1])
	require.NoError(t, err)
	require.Equal(t, map[string]string{"classifier": "models/cnn.onnx"}, m.Policy.Models)
	require.Equal(t, m.Name+".wasm", m.Path)
}

func yamlBlocks(t *testing.T, doc []byte) [][][]byte {
	t.Helper()
	return regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllSubmatch(doc, -1)
}

// TestServingDocAccess: the configuration file of docs/SERVING.md parses,
// its hashes are those of the tokens s3cret (team-a) and token-a (ops),
// and its 401 and 403 bodies are the server's.
func TestServingDocAccess(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "SERVING.md"))
	require.NoError(t, err)
	blocks := yamlBlocks(t, doc)
	require.Len(t, blocks, 4)
	c, err := ParseServerConfig(blocks[3][1])
	require.NoError(t, err)
	require.Equal(t, "team-a", c.byToken("s3cret").who())
	require.Equal(t, "ops", c.byToken("token-a").who())
	require.Equal(t, "team-a", c.bySubject(mustDN(t, "CN=client-a,O=example")).who())

	dir := plugins(t, map[string][]byte{"echo": wat2wasm(t, "echo", ""), "upper": wat2wasm(t, "upper", "")}, nil)
	path := filepath.Join(t.TempDir(), "serve.yaml")
	require.NoError(t, os.WriteFile(path, blocks[3][1], 0o644))
	f := start(t, Config{Dir: dir, ConfigFile: path})
	js := regexp.MustCompile("(?s)```json\n(.*?)```").FindSubmatch(doc)
	require.NotNil(t, js)
	lines := strings.Split(strings.TrimSpace(string(js[1])), "\n")
	require.Len(t, lines, 5)
	for i, got := range map[int]reply{
		0: f.do("POST", "/v1/plugins/echo", "", nil),
		1: f.do("POST", "/v1/plugins/echo", "wrong", nil),
		3: f.do("POST", "/v1/plugins/resize", "s3cret", nil),
		4: f.do("GET", "/v1/plugins", "s3cret", nil),
	} {
		require.JSONEq(t, lines[i], string(got.body), "line %d", i)
	}
	// A certificate's 401, as TestAccessClientCertificates gets it.
	require.JSONEq(t, `{"code":"unauthorized","message":"the client certificate's subject \"CN=client-z,O=example\" is not one of the access rules'"}`, lines[2])
}
