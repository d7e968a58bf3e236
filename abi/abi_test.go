package abi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// specPath is the ABI contract, docs/ABI.md, relative to this package.
var specPath = filepath.Join("..", "docs", "ABI.md")

// readSpec returns ABI.md, failing the test (never skipping) if it is missing.
func readSpec(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(specPath)
	if err != nil {
		abs, _ := filepath.Abs(specPath)
		t.Fatalf("the ABI contract is missing: %v\n(abi tests compare the table with %s)", err, abs)
	}
	return string(b)
}

// specSection returns the lines of the section whose heading starts with
// "## N." up to the next "## " heading.
func specSection(t *testing.T, spec string, n int) []string {
	t.Helper()
	prefix := fmt.Sprintf("## %d.", n)
	var out []string
	in := false
	for _, line := range strings.Split(spec, "\n") {
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = strings.HasPrefix(line, prefix)
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("%s has no section %q", specPath, prefix)
	}
	return out
}

// specFunc is one function as ABI.md section 5 writes it.
type specFunc struct {
	name   string
	params []specParam
	result string
}

type specParam struct{ name, wire string }

var specSig = regexp.MustCompile(`^(\w+)\((.*)\)\s*->\s*(\w+)$`)

// specFuncs parses every line of the fenced code blocks of section 5.
func specFuncs(t *testing.T) []specFunc {
	t.Helper()
	var fs []specFunc
	fenced, blocks := false, 0
	for _, line := range specSection(t, readSpec(t), 5) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if !fenced {
				blocks++
			}
			fenced = !fenced
			continue
		}
		if !fenced {
			continue
		}
		if i := strings.Index(line, ";"); i >= 0 { // a trailing comment
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		m := specSig.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("ABI.md section 5: cannot parse %q", line)
		}
		f := specFunc{name: m[1], result: m[3]}
		if ps := strings.TrimSpace(m[2]); ps != "" {
			for _, p := range strings.Split(ps, ",") {
				w := strings.Fields(p)
				if len(w) != 2 {
					t.Fatalf("ABI.md section 5: %s: cannot parse parameter %q", f.name, p)
				}
				f.params = append(f.params, specParam{w[0], w[1]})
			}
		}
		fs = append(fs, f)
	}
	require.False(t, fenced, "ABI.md section 5: unterminated code block")
	require.Equal(t, 2, blocks, "ABI.md section 5: want the memcpy family and the support set")
	require.NotEmpty(t, fs)
	return fs
}

func TestTableMatchesSpec(t *testing.T) {
	spec := specFuncs(t)

	// No function missing, none extra, none twice.
	var specNames, tableNames []string
	for _, f := range spec {
		specNames = append(specNames, f.name)
	}
	for _, f := range Funcs {
		tableNames = append(tableNames, f.Name)
	}
	require.ElementsMatch(t, specNames, tableNames, "functions of ABI.md section 5 vs abi.Funcs")
	seen := map[string]bool{}
	for _, n := range tableNames {
		require.False(t, seen[n], "%s is twice in abi.Funcs", n)
		seen[n] = true
	}
	// In the order of section 5.
	require.Equal(t, specNames, tableNames, "abi.Funcs is not in the order of ABI.md section 5")

	for i, sf := range spec {
		t.Run(sf.name, func(t *testing.T) {
			f := Funcs[i]
			require.Equal(t, sf.name, f.Name)
			require.Equal(t, "i32", sf.result, "every function returns i32")
			var got []specParam
			for _, p := range f.Params {
				got = append(got, specParam{p.Name, p.Type.String()})
			}
			require.Equal(t, sf.params, got, "parameters (name, wire type, order)")
		})
	}
}

// TestWireTypesMatchSpec checks Type.String and Type.Wasm against the table
// of ABI.md section 2.
func TestWireTypesMatchSpec(t *testing.T) {
	row := regexp.MustCompile("^\\|\\s*`(\\w+)`\\s*\\|\\s*(i32|i64)\\s*\\|")
	spec := map[string]string{}
	for _, line := range specSection(t, readSpec(t), 2) {
		if m := row.FindStringSubmatch(line); m != nil {
			spec[m[1]] = m[2]
		}
	}
	got := map[string]string{}
	for _, ty := range []Type{Addr, Gptr, Size, Handle, I32} {
		got[ty.String()] = ty.Wasm()
	}
	require.Equal(t, spec, got, "wire types of ABI.md section 2")
}

func TestType(t *testing.T) {
	for _, tc := range []struct {
		t    Type
		name string
		wasm string
		is64 bool
	}{
		{Addr, "addr", "i64", true},
		{Gptr, "gptr", "i32", false},
		{Size, "size", "i64", true},
		{Handle, "handle", "i32", false},
		{I32, "i32", "i32", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.name, tc.t.String())
			require.Equal(t, tc.wasm, tc.t.Wasm())
			require.Equal(t, tc.is64, tc.t.Is64())
			txt, err := tc.t.MarshalText()
			require.NoError(t, err)
			require.Equal(t, tc.name, string(txt))
			var back Type
			require.NoError(t, back.UnmarshalText(txt))
			require.Equal(t, tc.t, back)
		})
	}
	require.Equal(t, "Type(9)", Type(9).String())
	var bad Type
	require.ErrorContains(t, bad.UnmarshalText([]byte("i64")), `"i64"`)
}

func TestSignature(t *testing.T) {
	for _, tc := range []struct{ name, sig string }{
		{"aclrtMemcpy", "(i64, i64, i64, i64, i32) -> i32"},
		{"aclrtMemcpyAsync", "(i64, i64, i64, i64, i32, i32) -> i32"},
		{"aclrtMemcpyBatch", "(i32, i32, i32, i32, i64, i32, i32, i64, i32) -> i32"},
		{"aclrtMemcpyBatchAsyncV2", "(i32, i32, i32, i32, i64, i32, i32, i64, i32) -> i32"},
		{"aclrtMemcpy2d", "(i64, i64, i64, i64, i64, i64, i32) -> i32"},
		{"aclrtSetMemcpyDesc", "(i64, i32, i64, i64, i64, i32) -> i32"},
		{"aclrtMemcpyAsyncWithOffset", "(i64, i64, i64, i64, i64, i64, i32, i32) -> i32"},
		{"aclrtMemset", "(i64, i64, i32, i64) -> i32"},
		{"aclFinalize", "() -> i32"},
		{"aclrtSynchronizeDevice", "() -> i32"},
		{"aclrtSetDevice", "(i32) -> i32"},
		{"aclrtMalloc", "(i32, i64, i32) -> i32"},
		{"aclrtFree", "(i64) -> i32"},
		{"aclrtHostRegister", "(i64, i64, i32, i32) -> i32"},
		{"aclrtEventElapsedTime", "(i32, i32, i32) -> i32"},
		{"aclGetRecentErrMsg", "(i32, i32) -> i32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Lookup(tc.name)
			require.NotNil(t, f)
			require.Equal(t, tc.sig, f.Signature())
		})
	}
	// Every signature is the wasm types of its wire types, in order.
	for i := range Funcs {
		f := &Funcs[i]
		ts := make([]string, len(f.Params))
		for k, p := range f.Params {
			ts[k] = p.Type.Wasm()
		}
		require.Equal(t, "("+strings.Join(ts, ", ")+") -> i32", f.Signature(), f.Name)
	}
}

func TestLookupAndIndex(t *testing.T) {
	for i := range Funcs {
		f := Lookup(Funcs[i].Name)
		require.Same(t, &Funcs[i], f, Funcs[i].Name)
		require.Equal(t, i, f.Index(), Funcs[i].Name)
		cp := Funcs[i] // a copy finds its place by name
		require.Equal(t, i, cp.Index())
	}
	for _, name := range []string{"", "aclrtmemcpy", "aclrtMemcpy ", "aclrtMallocHost", "aclrtFreeHost", "memcpy"} {
		require.Nil(t, Lookup(name), "%q", name)
		require.Equal(t, -1, (&Func{Name: name}).Index(), "%q", name)
	}
}

func TestTableWellFormed(t *testing.T) {
	groups := map[Group]bool{Memcpy: true, Batch: true, Memcpy2D: true, Descriptor: true, Memset: true, Runtime: true, Device: true, Memory: true, Stream: true, Event: true}
	for _, f := range Funcs {
		require.True(t, groups[f.Group], "%s: group %q", f.Name, f.Group)
		require.NotEmpty(t, f.Doc, f.Name)
		require.NotContains(t, f.Doc, "|", "%s: the doc would break the Markdown table", f.Name)
		require.NotContains(t, f.Doc, "\n", f.Name)
		require.NotNil(t, f.Params, "%s: Params must be non-nil so JSON says []", f.Name)
		names := map[string]bool{}
		for _, p := range f.Params {
			require.NotEmpty(t, p.Name, f.Name)
			require.False(t, names[p.Name], "%s: parameter %s twice", f.Name, p.Name)
			names[p.Name] = true
			require.LessOrEqual(t, p.Type, I32, "%s.%s", f.Name, p.Name)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteMarkdown(&buf))
	out := buf.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	require.Equal(t, `# Guest ABI v1: imports from module "acl"`, lines[0])
	require.Equal(t, "", lines[1])
	require.Equal(t, "| function | parameters | wasm signature | what it does |", lines[2])
	require.Equal(t, "|---|---|---|---|", lines[3])
	rows := lines[4:]
	require.Len(t, rows, len(Funcs), "one row per function")
	for i, row := range rows {
		f := &Funcs[i]
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(row, "| "), " |"), " | ")
		require.Len(t, cells, 4, row)
		require.Equal(t, "`"+f.Name+"`", cells[0])
		var ps []string
		for _, p := range f.Params {
			ps = append(ps, p.Name+" "+p.Type.String())
		}
		require.Equal(t, strings.Join(ps, ", "), strings.TrimSpace(cells[1]), f.Name)
		require.Equal(t, "`"+f.Signature()+"`", cells[2])
		require.Equal(t, f.Doc, cells[3])
	}
	require.Contains(t, out, "| `aclrtMemcpy` | dst addr, destMax size, src addr, count size, kind i32 | `(i64, i64, i64, i64, i32) -> i32` | ")
}

func TestWriteJSON(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, WriteJSON(&buf))
	require.True(t, json.Valid(buf.Bytes()))

	// Wire types are strings, and every function is there.
	var raw struct {
		Module    string `json:"module"`
		Version   int    `json:"version"`
		Functions []struct {
			Name   string `json:"name"`
			Group  string `json:"group"`
			Params []struct {
				Name string `json:"name"`
				Type string `json:"type"`
			} `json:"params"`
			Doc string `json:"doc"`
		} `json:"functions"`
	}
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&raw))
	require.Equal(t, Module, raw.Module)
	require.Equal(t, Version, raw.Version)
	require.Len(t, raw.Functions, len(Funcs))
	for i, f := range raw.Functions {
		want := &Funcs[i]
		require.Equal(t, want.Name, f.Name)
		require.Equal(t, string(want.Group), f.Group)
		require.Equal(t, want.Doc, f.Doc)
		require.Len(t, f.Params, len(want.Params), f.Name)
		for k, p := range f.Params {
			require.Equal(t, want.Params[k].Name, p.Name)
			require.Equal(t, want.Params[k].Type.String(), p.Type)
		}
	}
	require.Contains(t, buf.String(), `"type": "addr"`)
	require.NotRegexp(t, `"type": \d`, buf.String())

	// The JSON round-trips into the table's own types.
	var back struct {
		Module  string `json:"module"`
		Version int    `json:"version"`
		Funcs   []Func `json:"functions"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	require.Equal(t, Module, back.Module)
	require.Equal(t, Version, back.Version)
	require.Equal(t, Funcs, back.Funcs)
}

func TestWriteErrors(t *testing.T) {
	// A failing writer's error comes back, at whatever point it fails.
	for _, n := range []int{0, 100, 5000} {
		w := &failWriter{left: n}
		require.ErrorIs(t, WriteMarkdown(w), errFull, "after %d bytes", n)
	}
	require.ErrorIs(t, WriteJSON(&failWriter{left: 100}), errFull)
}

var errFull = fmt.Errorf("writer full")

type failWriter struct{ left int }

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.left {
		n := w.left
		w.left = 0
		return n, errFull
	}
	w.left -= len(p)
	return len(p), nil
}
