package helm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChartSchemaEmbedsConfigSchemas: the chart's values.schema.json
// holds the manifest's and the server configuration's JSON Schemas
// (internal/confschema, the ones the server validates with) as its
// definitions manifest and serveConfig, so that helm lint refuses what the
// server would: a chart is installed without the repository, so the
// definitions are copies, and this test keeps them equal to the sources
// (less $schema, $id and title, the manifest less its required fields,
// which the chart fills in, and with $refs moved under the definition).
func TestChartSchemaEmbedsConfigSchemas(t *testing.T) {
	var chart map[string]any
	require.NoError(t, json.Unmarshal(must(os.ReadFile(filepath.Join(chartDir, "values.schema.json"))), &chart))
	defs := chart["definitions"].(map[string]any)
	for _, c := range []struct{ file, def string }{
		{"manifest.schema.json", "manifest"},
		{"serve.schema.json", "serveConfig"},
	} {
		var src map[string]any
		require.NoError(t, json.Unmarshal(must(os.ReadFile(filepath.Join("..", "..", "internal", "confschema", c.file))), &src))
		for _, k := range []string{"$schema", "$id", "title"} {
			delete(src, k)
		}
		if c.def == "manifest" {
			delete(src, "required")
		}
		want := moveRefs(src, "#/definitions/"+c.def+"/definitions/")
		require.Equal(t, want, defs[c.def], "values.schema.json's definitions.%s is not internal/confschema/%s: copy it again (see this test for how)", c.def, c.file)
	}
}

// moveRefs rewrites every local "$ref": "#/definitions/X" of v to under.
func moveRefs(v any, under string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, w := range x {
			if s, ok := w.(string); ok && k == "$ref" && strings.HasPrefix(s, "#/definitions/") {
				w = under + strings.TrimPrefix(s, "#/definitions/")
			}
			out[k] = moveRefs(w, under)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, w := range x {
			out[i] = moveRefs(w, under)
		}
		return out
	}
	return v
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
