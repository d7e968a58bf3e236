package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"

	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/internal/confschema"
)

// decodeStrict decodes data, a file that must hold one YAML document
// valid under schema, into a new T: the schema's errors name the field
// and its line, then the decoder refuses a field T lacks or a value its
// field cannot hold, and a second document is refused rather than
// ignored. It returns the document's root node too, for the positions
// of the checks that follow. what names the file in the decoder's
// errors ("the manifest"), which would otherwise name Go types.
func decodeStrict[T any](data []byte, schema *confschema.Schema, what string) (*T, *yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, err
	}
	if err := schema.Validate(&doc); err != nil {
		return nil, nil, err
	}
	if len(doc.Content) == 0 { // the schema wants a mapping: not reached
		return nil, nil, errors.New("the file holds no YAML document")
	}
	v := new(T)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return nil, nil, errors.New(goTypeNames(err.Error(), reflect.TypeFor[T]().Name(), what))
	}
	var more yaml.Node
	switch err := dec.Decode(&more); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, nil, fmt.Errorf("the file holds more than one YAML document, the second malformed: %w", err)
	default:
		return nil, nil, fmt.Errorf("the file holds more than one YAML document (the second at line %d)", more.Line)
	}
	return v, doc.Content[0], nil
}

// hostType matches the package's type names in the decoder's errors.
var hostType = regexp.MustCompile(`\bhost\.(\w+)`)

// goTypeNames rewrites the names of this package's types in msg: top,
// the decoded type, becomes what, and any other T becomes "what's T".
func goTypeNames(msg, top, what string) string {
	return hostType.ReplaceAllStringFunc(msg, func(s string) string {
		if name := s[len("host."):]; name != top {
			return what + "'s " + name
		}
		return what
	})
}
