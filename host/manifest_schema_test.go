package host

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/internal/confschema"
)

// TestManifestSchemaInSync: the manifest's JSON Schema
// (internal/confschema/manifest.schema.json) and the Go types that decode
// a manifest name the same fields, each way: a field added to Policy,
// ServeManifest or the manifest's layout needs its schema property, and
// a property its field.
func TestManifestSchemaInSync(t *testing.T) {
	root := confschema.Manifest.Source().(map[string]any)
	props := func(at string) map[string]any {
		v := any(root)
		for _, p := range strings.Split(at, ".") {
			if p == "" {
				continue
			}
			v = v.(map[string]any)["properties"].(map[string]any)[p]
		}
		return v.(map[string]any)["properties"].(map[string]any)
	}
	tags := func(typ reflect.Type) []string {
		var out []string
		for i := 0; i < typ.NumField(); i++ {
			if tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
				out = append(out, tag)
			}
		}
		return out
	}
	var policy []string
	for i := 0; i < reflect.TypeFor[Policy]().NumField(); i++ {
		policy = append(policy, snake(reflect.TypeFor[Policy]().Field(i).Name)) // decodePolicy's names
	}
	mf := reflect.TypeFor[manifestFile]()
	module, _ := mf.FieldByName("Module")
	for _, c := range []struct {
		at, goType string
		fields     []string
	}{
		{"", "host.manifestFile (yaml tags)", tags(mf)},
		{"module", "host.manifestFile.Module (yaml tags)", tags(module.Type)},
		{"policy", "host.Policy (fields in snake_case)", policy},
		{"serve", "host.ServeManifest (yaml tags)", tags(reflect.TypeFor[ServeManifest]())},
	} {
		where := "properties"
		if c.at != "" {
			where = "properties." + strings.ReplaceAll(c.at, ".", ".properties.") + ".properties"
		}
		schema := props(c.at)
		for _, f := range c.fields {
			if _, ok := schema[f]; !ok {
				t.Errorf("manifest field %s of %s is missing from internal/confschema/manifest.schema.json at %s: add its property", join(c.at, f), c.goType, where)
			}
		}
		for p := range schema {
			if !slices.Contains(c.fields, p) {
				t.Errorf("manifest.schema.json's %s.%s has no field in %s: remove the property or add the field", where, p, c.goType)
			}
		}
	}
}

func join(at, f string) string {
	if at == "" {
		return f
	}
	return at + "." + f
}
