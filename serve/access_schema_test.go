package serve

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/internal/confschema"
)

// TestServerConfigSchemaInSync: the server configuration's JSON Schema
// (internal/confschema/serve.schema.json) and the Go types of the file
// name the same fields, each way (an exported field Foo is the key foo,
// FooBar foo_bar), so that a field added to ServerConfig or AccessRule
// needs its schema property, and a property its field.
func TestServerConfigSchemaInSync(t *testing.T) {
	root := confschema.Serve.Source().(map[string]any)
	props := func(v any) map[string]any { return v.(map[string]any)["properties"].(map[string]any) }
	access := props(root)["access"].(map[string]any)["items"]
	for _, c := range []struct {
		where string
		typ   reflect.Type
		props map[string]any
	}{
		{"properties", reflect.TypeFor[ServerConfig](), props(root)},
		{"properties.access.items.properties", reflect.TypeFor[AccessRule](), props(access)},
	} {
		var fields []string
		for i := 0; i < c.typ.NumField(); i++ {
			if f := c.typ.Field(i); f.IsExported() {
				fields = append(fields, snakeCase(f.Name))
				if _, ok := c.props[snakeCase(f.Name)]; !ok {
					t.Errorf("field %s.%s (key %s) is missing from internal/confschema/serve.schema.json at %s: add its property", c.typ, f.Name, snakeCase(f.Name), c.where)
				}
			}
		}
		for p := range c.props {
			if !slices.Contains(fields, p) {
				t.Errorf("serve.schema.json's %s.%s has no field in %s: remove the property or add the field", c.where, p, c.typ)
			}
		}
	}
}

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
