package host

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/confschema"
)

// KernelFile is a kernels file: kernels that exist only as native
// binaries, declared in YAML (docs/EMBEDDING.md), registered as a set with
// WithKernelSet(f.Set, f.Kernels...). Their Run is nil: the native backend
// runs them, and the simulator refuses their launches (Kernel.Run).
//
//	set: vecops                   # a policy grants them all by this name
//	kernels:
//	  - name: VecAdd              # the launcher's name, and a grant's
//	    binary: vec_add.o         # relative to the file's directory, or absolute
//	    entry: vec_add            # its function in the binary, or a decimal tiling key
//	    params:                   # after blockDim and the stream
//	      - {name: a, buffer: ACL_FLOAT, access: read, extent: n}
//	      - {name: b, buffer: ACL_FLOAT, access: read, extent: n}
//	      - {name: c, buffer: ACL_FLOAT, access: write, extent: n}
//	      - {name: n, scalar: ACL_UINT32}
type KernelFile struct {
	// Set is the set the kernels are registered as.
	Set string
	// Kernels are the declarations, in the file's order, each Binary an
	// absolute path or one relative to the working directory.
	Kernels []Kernel
}

// The file's layout, decoded strictly.
type (
	kernelFileDoc struct {
		Set     string      `yaml:"set"`
		Kernels []kernelDoc `yaml:"kernels"`
	}
	kernelDoc struct {
		Name   string           `yaml:"name"`
		Binary string           `yaml:"binary"`
		Entry  string           `yaml:"entry"`
		Params []kernelParamDoc `yaml:"params"`
	}
	kernelParamDoc struct {
		Name   string `yaml:"name"`
		Buffer string `yaml:"buffer"`
		Access string `yaml:"access"`
		Extent string `yaml:"extent"`
		Scalar string `yaml:"scalar"`
	}
)

// fileAccesses are the file's spellings of the fileAccesses.
var fileAccesses = map[string]Access{"read": Read, "write": Write, "read-write": ReadWrite}

// ReadKernelFile reads and checks the kernels file at path. The file is
// checked against its JSON Schema (internal/confschema/kernels.schema.json,
// for editors too), then decoded strictly: an unknown field, a missing
// or mistyped one, a bad name, type, access or extent formula, a kernel
// or parameter given twice or a binary that is not a file gives an error
// naming the file, the field and its line. A relative binary is taken
// from the file's directory.
func ReadKernelFile(path string) (*KernelFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("host: kernels file: %w", err)
	}
	f, err := parseKernelFile(b, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("host: kernels file %s: %w", path, err)
	}
	return f, nil
}

// parseKernelFile parses a kernels file whose relative binaries are in dir.
func parseKernelFile(data []byte, dir string) (*KernelFile, error) {
	d, root, err := decodeStrict[kernelFileDoc](data, confschema.Kernels, "the kernels file")
	if err != nil {
		return nil, err
	}
	// The schema reads a plain scalar (12, 1.5) as the text a string
	// field gets, and checks no pattern on it: the names are checked here.
	if !setName(d.Set) {
		return nil, fmt.Errorf("%s: %q is not a set name (letters, digits, _ . -; not starting with . or -)", fieldAt(root, "set"), d.Set)
	}
	f := &KernelFile{Set: d.Set}
	first := map[string]int{} // a kernel's name -> its line
	for i, kd := range d.Kernels {
		at := func(path ...any) string { return fieldAt(root, append([]any{"kernels", i}, path...)...) }
		if !cIdent(kd.Name) {
			return nil, fmt.Errorf("%s: %q is not a C identifier", at("name"), kd.Name)
		}
		if _, err := strconv.ParseUint(kd.Entry, 10, 64); err != nil && !cIdent(kd.Entry) {
			return nil, fmt.Errorf("%s: %q is not a C identifier or a decimal number", at("entry"), kd.Entry)
		}
		if l, dup := first[kd.Name]; dup {
			return nil, fmt.Errorf("%s: kernel %s is declared twice (first at line %d)", at("name"), kd.Name, l)
		}
		first[kd.Name] = nodeAt(root, "kernels", i, "name").Line
		if kd.Name == d.Set {
			return nil, fmt.Errorf("%s: %s is the set's name too: a grant must name one or the other", at("name"), kd.Name)
		}
		bin := kd.Binary
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(dir, bin)
		}
		if st, err := os.Stat(bin); err != nil {
			return nil, fmt.Errorf("%s: %w", at("binary"), err)
		} else if !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s: %s is not a regular file", at("binary"), bin)
		}
		k := Kernel{Name: kd.Name, Binary: bin, Entry: kd.Entry, Params: make([]KernelParam, len(kd.Params))}
		for j, pd := range kd.Params {
			p, field, err := kernelParamOf(pd)
			if err != nil {
				path := []any{"params", j}
				if field != "" {
					path = append(path, field)
				}
				return nil, fmt.Errorf("%s: %w", at(path...), err)
			}
			if !cIdent(p.Name) {
				return nil, fmt.Errorf("%s: %q is not a C identifier", at("params", j, "name"), p.Name)
			}
			if slices.ContainsFunc(k.Params[:j], func(q KernelParam) bool { return q.Name == p.Name }) || p.Name == "blockDim" || p.Name == "stream" {
				return nil, fmt.Errorf("%s: %s is another parameter's name, or blockDim or stream", at("params", j, "name"), p.Name)
			}
			k.Params[j] = p
		}
		for j, p := range k.Params { // the names an extent uses are all declared now
			if p.Access == 0 {
				continue
			}
			if _, err := parseExtent(p.Extent, func(name string) (int, error) {
				s := slices.IndexFunc(k.Params, func(q KernelParam) bool { return q.Name == name })
				switch {
				case s < 0:
					return 0, fmt.Errorf("%s is neither blockDim nor a parameter", name)
				case k.Params[s].Access != 0 || !intScalar(k.Params[s].Type):
					return 0, fmt.Errorf("%s is not an integer scalar", name)
				}
				return s, nil
			}); err != nil {
				return nil, fmt.Errorf("%s: %q: %w", at("params", j, "extent"), p.Extent, errors.Unwrap(err))
			}
		}
		if _, err := compileKernel(k); err != nil { // what is left to check, as registration will
			return nil, fmt.Errorf("%s: %w", at(), err)
		}
		f.Kernels = append(f.Kernels, k)
	}
	return f, nil
}

// kernelParamOf is the parameter pd declares, or an error and the field
// at fault ("" for the parameter as a whole).
func kernelParamOf(pd kernelParamDoc) (KernelParam, string, error) {
	switch {
	case pd.Buffer == "" && pd.Scalar == "":
		return KernelParam{}, "", fmt.Errorf("%s is neither a buffer nor a scalar: give buffer: TYPE with access and extent, or scalar: TYPE", pd.Name)
	case pd.Buffer != "" && pd.Scalar != "":
		return KernelParam{}, "", fmt.Errorf("%s is given both buffer and scalar: a parameter is one or the other", pd.Name)
	case pd.Scalar != "" && pd.Access != "":
		return KernelParam{}, "access", fmt.Errorf("scalar %s has an access: only a buffer has one", pd.Name)
	case pd.Scalar != "" && pd.Extent != "":
		return KernelParam{}, "extent", fmt.Errorf("scalar %s has an extent: only a buffer has one", pd.Name)
	case pd.Scalar != "":
		t, ok := dataTypeNamed(pd.Scalar)
		if _, scalar := scalarTypes[t]; !ok || !scalar {
			return KernelParam{}, "scalar", fmt.Errorf("%q is not a scalar type", pd.Scalar)
		}
		return Scalar(pd.Name, t), "", nil
	}
	t, ok := dataTypeNamed(pd.Buffer)
	if !ok || t.Size() == 0 {
		return KernelParam{}, "buffer", fmt.Errorf("%q is not an element type", pd.Buffer)
	}
	a, ok := fileAccesses[pd.Access]
	if !ok {
		return KernelParam{}, "", fmt.Errorf("buffer %s needs its access: read, write or read-write", pd.Name)
	}
	if pd.Extent == "" {
		return KernelParam{}, "", fmt.Errorf("buffer %s needs its extent: a formula over blockDim and the integer scalars", pd.Name)
	}
	return Buffer(pd.Name, t, a, pd.Extent), "", nil
}

// setName reports whether s may name a kernel set: what a grant (a
// --kernels list) can spell.
func setName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// dataTypeNamed returns the data type the header names name (ACL_FLOAT).
func dataTypeNamed(name string) (acl.DataType, bool) {
	for _, t := range acl.DataTypes {
		if t.String() == name {
			return t, true
		}
	}
	return 0, false
}

// nodeAt returns the node at path (mapping keys and sequence indexes)
// below n, or the deepest node on the way that exists.
func nodeAt(n *yaml.Node, path ...any) *yaml.Node {
	for _, p := range path {
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		var next *yaml.Node
		switch p := p.(type) {
		case string:
			for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					next = n.Content[i+1]
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && p < len(n.Content) {
				next = n.Content[p]
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

// fieldAt names the field at path below root as the schema's errors do,
// with its line: "kernels[0].params[1].extent (line 9)".
func fieldAt(root *yaml.Node, path ...any) string {
	var b strings.Builder
	for _, p := range path {
		switch p := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		}
	}
	return fmt.Sprintf("%s (line %d)", b.String(), nodeAt(root, path...).Line)
}
