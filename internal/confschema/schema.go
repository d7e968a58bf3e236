// Package confschema checks aclwasm's YAML configuration files against
// their JSON Schemas: the plugin manifest (manifest.schema.json,
// host.ParseManifest), the kernels file (kernels.schema.json,
// host.ReadKernelFile) and the server's configuration file
// (serve.schema.json, serve.ParseServerConfig). The same files serve
// editors (a yaml-language-server modeline, docs/EMBEDDING.md and
// docs/SERVING.md) and the Helm chart's values.schema.json, so that an
// editor, helm lint and the server refuse the same mistakes.
//
// A validation error names the field as a path (access[0].tokens[1]) and
// its line in the YAML file, mapped back from the error's JSON pointer.
package confschema

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"go.yaml.in/yaml/v3"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var (
	//go:embed manifest.schema.json
	manifestJSON []byte
	//go:embed serve.schema.json
	serveJSON []byte
	//go:embed kernels.schema.json
	kernelsJSON []byte
)

// The schemas, compiled once.
var (
	Manifest = mustCompile("https://aclwasm.invalid/manifest.schema.json", manifestJSON) // absolute: a relative name is resolved against the working directory, which a chroot may lack
	Serve    = mustCompile("https://aclwasm.invalid/serve.schema.json", serveJSON)
	Kernels  = mustCompile("https://aclwasm.invalid/kernels.schema.json", kernelsJSON)
)

// Schema is a compiled JSON Schema and its source, whose annotations
// (properties, x-want) word the errors.
type Schema struct {
	s   *jsonschema.Schema
	raw any // the schema document, as JSON decodes it
}

// Source returns the schema document's JSON.
func (s *Schema) Source() any { return s.raw }

func mustCompile(name string, src []byte) *Schema {
	s, err := Compile(name, src)
	if err != nil {
		panic(err)
	}
	return s
}

// Compile compiles the JSON Schema src, known by name in its errors.
func Compile(name string, src []byte) (*Schema, error) {
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("confschema: %s: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, raw); err != nil {
		return nil, fmt.Errorf("confschema: %s: %w", name, err)
	}
	s, err := c.Compile(name)
	if err != nil {
		return nil, fmt.Errorf("confschema: %s: %w", name, err)
	}
	return &Schema{s: s, raw: raw}, nil
}

// Validate checks the YAML document n (a document node, or its root)
// against the schema. Its error names the first mistake, by line, as
// "path (line N): what is wrong"; a key given twice is one too. A scalar
// that YAML reads as a number or a boolean where the schema wants a
// string is taken as its text, as Go's decoding takes it.
func (s *Schema) Validate(n *yaml.Node) error {
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	t := tree{nodes: map[string]*yaml.Node{}, keys: map[string]*yaml.Node{}, paths: map[string]string{}}
	v, err := t.value(n, "", "")
	if err != nil {
		return err
	}
	err = s.s.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return err
	}
	var all []problem
	for _, l := range leaves(ve, nil) {
		all = append(all, s.problems(&t, l)...)
	}
	if len(all) == 0 {
		return nil
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].line < all[j].line })
	return all[0]
}

// tree maps the JSON pointers of the instance back to its YAML nodes.
type tree struct {
	nodes map[string]*yaml.Node // a value's node
	keys  map[string]*yaml.Node // a mapping value's key
	paths map[string]string     // the pointer as messages write it: a.b[0].c
}

// value converts n, at JSON pointer ptr and message path, to what
// encoding/json would give for the same document.
func (t *tree) value(n *yaml.Node, ptr, path string) (any, error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	t.nodes[ptr], t.paths[ptr] = n, path
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			kp, p := ptr+"/"+escape(k.Value), k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("%s (line %d): given twice", p, k.Line)
			}
			t.keys[kp] = k
			v, err := t.value(n.Content[i+1], kp, p)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, err := t.value(item, ptr+"/"+strconv.Itoa(i), fmt.Sprintf("%s[%d]", path, i))
			if err != nil {
				return nil, err
			}
			l[i] = v
		}
		return l, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			if n.Decode(&b) == nil {
				return b, nil
			}
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				return json.Number(strconv.FormatInt(i, 10)), nil
			}
			var u uint64
			if n.Decode(&u) == nil {
				return json.Number(strconv.FormatUint(u, 10)), nil
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
			}
		}
		return n.Value, nil
	}
	return nil, nil // an empty document
}

func escape(k string) string { return strings.NewReplacer("~", "~0", "/", "~1").Replace(k) }

// leaves are the errors of e without causes: those that say what is wrong.
func leaves(e *jsonschema.ValidationError, out []*jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return append(out, e)
	}
	for _, c := range e.Causes {
		out = leaves(c, out)
	}
	return out
}

// problem is one mistake, at its line.
type problem struct {
	path string
	line int
	msg  string
}

func (p problem) Error() string {
	if p.path == "" {
		p.path = "the file"
	}
	return fmt.Sprintf("%s (line %d): %s", p.path, p.line, p.msg)
}

var printer = message.NewPrinter(language.English)

// problems words the leaf error e of document t.
func (s *Schema) problems(t *tree, e *jsonschema.ValidationError) []problem {
	ptr := ""
	for _, tok := range e.InstanceLocation {
		ptr += "/" + escape(tok)
	}
	n := t.nodes[ptr]
	line := 0
	if n != nil {
		line = n.Line
	}
	at := t.paths[ptr]
	sub := func(name string) string {
		if at == "" {
			return name
		}
		return at + "." + name
	}
	sch := s.at(e.SchemaURL)
	switch k := e.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		var out []problem
		for _, name := range k.Properties {
			l := line
			if key := t.keys[ptr+"/"+escape(name)]; key != nil {
				l = key.Line
			}
			msg := "no such field (have: " + strings.Join(propNames(sch), ", ") + ")"
			if want, ok := sch["x-want-key"].(string); ok { // a mapping of names: a bad name
				msg = "want " + want
			}
			out = append(out, problem{sub(name), l, msg})
		}
		return out
	case *kind.Type:
		if slices.Contains(k.Want, "string") && n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			return nil // a plain 0123 or true is read as its text, as Go's decoding reads it into a string
		}
		if _, ok := sch["x-want"]; ok && n != nil && n.Kind == yaml.ScalarNode {
			break // worded below
		}
		return []problem{{at, line, "want " + typeNames(k.Want) + ", not " + typeNames([]string{k.Got})}}
	case *kind.Required:
		var out []problem
		for _, name := range k.Missing {
			out = append(out, problem{sub(name), line, "missing"})
		}
		return out
	}
	if want, ok := sch["x-want"].(string); ok && n != nil {
		shown := n.Value
		if n.Kind != yaml.ScalarNode {
			shown = map[yaml.Kind]string{yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list"}[n.Kind]
			return []problem{{at, line, shown + " is not " + want}}
		}
		return []problem{{at, line, strconv.Quote(shown) + " is not " + want}}
	}
	return []problem{{at, line, e.ErrorKind.LocalizedString(printer)}}
}

// at is the schema object at url, a location in the schema document
// ("name.json#/properties/policy"); nil if none.
func (s *Schema) at(loc string) map[string]any {
	_, frag, _ := strings.Cut(loc, "#")
	var v any = s.raw
	if frag != "" {
		for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
			tok, _ = url.PathUnescape(tok)
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
			switch x := v.(type) {
			case map[string]any:
				v = x[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					return nil
				}
				v = x[i]
			default:
				return nil
			}
		}
	}
	m, _ := v.(map[string]any)
	return m
}

// propNames are the names of a schema object's properties, sorted.
func propNames(sch map[string]any) []string {
	props, _ := sch["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// typeNames words JSON types as YAML writes them.
func typeNames(types []string) string {
	words := map[string]string{"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
		"number": "a number", "boolean": "true or false", "null": "nothing"}
	var out []string
	for _, t := range types {
		if w, ok := words[t]; ok {
			t = w
		}
		out = append(out, t)
	}
	return strings.Join(out, " or ")
}
