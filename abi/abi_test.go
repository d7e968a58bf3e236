package abi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
	for _, ty := range []Type{Addr, Gptr, Size, Handle, I32, U64} {
		got[ty.String()] = ty.Wasm()
	}
	require.Equal(t, spec, got, "wire types of ABI.md section 2")
}

// TestProfiles checks the two wire forms of ABI.md section 9: in acl32
// addr and size are i32 and 4 bytes wide, U64 stays i64 and 8 bytes.
func TestProfiles(t *testing.T) {
	for _, tc := range []struct {
		p            Profile
		module       string
		wasm, widths map[Type]string
	}{
		{Wide, "acl", map[Type]string{Addr: "i64", Gptr: "i32", Size: "i64", Handle: "i32", I32: "i32", U64: "i64"}, map[Type]string{Addr: "8", Size: "8", U64: "8", Gptr: "4", Handle: "4", I32: "4"}},
		{Native32, "acl32", map[Type]string{Addr: "i32", Gptr: "i32", Size: "i32", Handle: "i32", I32: "i32", U64: "i64"}, map[Type]string{Addr: "4", Size: "4", U64: "8", Gptr: "4", Handle: "4", I32: "4"}},
	} {
		t.Run(tc.module, func(t *testing.T) {
			require.Equal(t, tc.module, tc.p.Module())
			require.Equal(t, tc.module, tc.p.String())
			p, ok := ProfileOf(tc.module)
			require.True(t, ok)
			require.Equal(t, tc.p, p)
			for ty, w := range tc.wasm {
				require.Equal(t, w, tc.p.Wasm(ty), "%s", ty)
				require.Equal(t, w == "i64", tc.p.Is64(ty), "%s", ty)
				require.Equal(t, tc.widths[ty], fmt.Sprint(tc.p.Width(ty)), "%s", ty)
			}
		})
	}
	for _, m := range []string{"", "ACL", "acl64", "aclwasm", "wasi_snapshot_preview1"} {
		_, ok := ProfileOf(m)
		require.False(t, ok, "%q", m)
	}
	require.Equal(t, []Profile{Wide, Native32}, Profiles)
}

// TestElems pins the gptr parameters whose pointee or array elements are
// addresses, sizes or uint64_t values, the ones whose width a profile
// decides. A gptr missing from here holds int32 values, handles, structs,
// floats or strings. Functions added later annotate theirs in the table;
// every annotation must be on a gptr and name addr, size or i64.
func TestElems(t *testing.T) {
	want := map[string]Type{
		"aclrtGetMemcpyDescSize.descSize": Size,
		"aclrtGetMemInfo.free":            Size,
		"aclrtGetMemInfo.total":           Size,
		"aclrtMalloc.devPtr":              Addr,
		"aclrtHostRegister.devPtr":        Addr,
	}
	for _, f := range []string{"aclrtMemcpyBatch", "aclrtMemcpyBatchAsync", "aclrtMemcpyBatchV2", "aclrtMemcpyBatchAsyncV2"} {
		for p, ty := range map[string]Type{"dsts": Addr, "srcs": Addr, "destMaxs": Size, "sizes": Size, "attrsIndexes": Size} {
			want[f+"."+p] = ty
		}
		if !strings.HasSuffix(f, "V2") {
			want[f+".failIndex"] = Size
		}
	}
	for _, f := range Funcs {
		for _, p := range f.Params {
			key := f.Name + "." + p.Name
			if ty, ok := want[key]; ok {
				require.Equal(t, ty, p.Elem, key)
				delete(want, key)
				require.Equal(t, map[Profile]uint64{Wide: 8, Native32: 4}, map[Profile]uint64{Wide: p.ElemSize(Wide), Native32: p.ElemSize(Native32)}, key)
				continue
			}
			if p.Elem == 0 {
				require.Zero(t, p.ElemSize(Wide), key)
				continue
			}
			require.Equal(t, Gptr, p.Type, "%s: only a gptr has an Elem", key)
			require.Contains(t, []Type{Addr, Size, U64}, p.Elem, key)
			if p.Elem == U64 {
				require.Equal(t, uint64(8), p.ElemSize(Native32), key)
			}
		}
	}
	require.Empty(t, want, "annotations missing from the table")
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
		{U64, "i64", "i64", true},
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
	require.Equal(t, "Type(0)", Type(0).String(), "the zero Type is none")
	var bad Type
	require.ErrorContains(t, bad.UnmarshalText([]byte("u64")), `"u64"`)
}

func TestSignature(t *testing.T) {
	for _, tc := range []struct{ name, sig, sig32 string }{
		{"aclrtMemcpy", "(i64, i64, i64, i64, i32) -> i32", "(i32, i32, i32, i32, i32) -> i32"},
		{"aclrtMemcpyAsync", "(i64, i64, i64, i64, i32, i32) -> i32", "(i32, i32, i32, i32, i32, i32) -> i32"},
		{"aclrtMemcpyBatch", "(i32, i32, i32, i32, i64, i32, i32, i64, i32) -> i32", "(i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32"},
		{"aclrtMemcpyBatchAsyncV2", "(i32, i32, i32, i32, i64, i32, i32, i64, i32) -> i32", "(i32, i32, i32, i32, i32, i32, i32, i32, i32) -> i32"},
		{"aclrtMemcpy2d", "(i64, i64, i64, i64, i64, i64, i32) -> i32", "(i32, i32, i32, i32, i32, i32, i32) -> i32"},
		{"aclrtSetMemcpyDesc", "(i64, i32, i64, i64, i64, i32) -> i32", "(i32, i32, i32, i32, i32, i32) -> i32"},
		{"aclrtMemcpyAsyncWithOffset", "(i64, i64, i64, i64, i64, i64, i32, i32) -> i32", "(i32, i32, i32, i32, i32, i32, i32, i32) -> i32"},
		{"aclrtMemset", "(i64, i64, i32, i64) -> i32", "(i32, i32, i32, i32) -> i32"},
		{"aclFinalize", "() -> i32", "() -> i32"},
		{"aclrtSynchronizeDevice", "() -> i32", "() -> i32"},
		{"aclrtSetDevice", "(i32) -> i32", "(i32) -> i32"},
		{"aclrtMalloc", "(i32, i64, i32) -> i32", "(i32, i32, i32) -> i32"},
		{"aclrtFree", "(i64) -> i32", "(i32) -> i32"},
		{"aclrtHostRegister", "(i64, i64, i32, i32) -> i32", "(i32, i64, i32, i32) -> i32"}, // size is uint64_t natively,
		{"aclrtEventElapsedTime", "(i32, i32, i32) -> i32", "(i32, i32, i32) -> i32"},
		{"aclGetRecentErrMsg", "(i32, i32) -> i32", "(i32, i32) -> i32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := Lookup(tc.name)
			require.NotNil(t, f)
			require.Equal(t, tc.sig, f.Signature())
			require.Equal(t, tc.sig, f.SignatureIn(Wide))
			require.Equal(t, tc.sig32, f.SignatureIn(Native32))
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
		for k, p := range f.Params {
			ts[k] = Native32.Wasm(p.Type)
		}
		require.Equal(t, "("+strings.Join(ts, ", ")+") -> i32", f.SignatureIn(Native32), f.Name)
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
	groups := map[Group]bool{Memcpy: true, Batch: true, Memcpy2D: true, Descriptor: true, Memset: true, Runtime: true, Device: true, Memory: true, Stream: true, Event: true, Context: true, Tensor: true, Operator: true, Model: true, Kernel: true, Prof: true}
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
			require.Contains(t, []Type{Addr, Gptr, Size, Handle, I32, U64}, p.Type, "%s.%s", f.Name, p.Name)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	for _, p := range Profiles {
		t.Run(p.Module(), func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteMarkdown(&buf, p))
			out := buf.String()
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.Equal(t, `# Guest ABI v1: imports from module "`+p.Module()+`"`, lines[0])
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
				for _, q := range f.Params {
					s := q.Name + " " + q.Type.String()
					if q.Elem != 0 {
						s += "(" + q.Elem.String() + ")"
					}
					ps = append(ps, s)
				}
				require.Equal(t, strings.Join(ps, ", "), strings.TrimSpace(cells[1]), f.Name)
				require.Equal(t, "`"+f.SignatureIn(p)+"`", cells[2])
				require.Equal(t, f.Doc, cells[3])
			}
			if p == Wide {
				require.Contains(t, out, "| `aclrtMemcpy` | dst addr, destMax size, src addr, count size, kind i32 | `(i64, i64, i64, i64, i32) -> i32` | ")
			} else {
				require.Contains(t, out, "| `aclrtMemcpy` | dst addr, destMax size, src addr, count size, kind i32 | `(i32, i32, i32, i32, i32) -> i32` | ")
			}
			require.Contains(t, out, "| `aclrtMalloc` | devPtr gptr(addr), size size, policy i32 | ")
		})
	}
}

func TestWriteJSON(t *testing.T) {
	for _, pr := range Profiles {
		t.Run(pr.Module(), func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteJSON(&buf, pr))
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
						Elem string `json:"elem"`
					} `json:"params"`
					Doc       string `json:"doc"`
					Result    string `json:"result"`
					Op        string `json:"op"`
					Launch    bool   `json:"launch"`
					Signature string `json:"signature"`
				} `json:"functions"`
			}
			dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
			dec.DisallowUnknownFields()
			require.NoError(t, dec.Decode(&raw))
			require.Equal(t, pr.Module(), raw.Module)
			require.Equal(t, Version, raw.Version)
			require.Len(t, raw.Functions, len(Funcs))
			for i, f := range raw.Functions {
				want := &Funcs[i]
				require.Equal(t, want.Name, f.Name)
				require.Equal(t, string(want.Group), f.Group)
				require.Equal(t, want.Doc, f.Doc)
				if want.Result != 0 {
					require.Equal(t, want.Result.String(), f.Result)
				}
				require.Equal(t, want.Op, f.Op)
				require.Equal(t, want.Launch, f.Launch)
				require.Equal(t, want.SignatureIn(pr), f.Signature)
				require.Len(t, f.Params, len(want.Params), f.Name)
				for k, p := range f.Params {
					require.Equal(t, want.Params[k].Name, p.Name)
					require.Equal(t, want.Params[k].Type.String(), p.Type)
					if want.Params[k].Elem == 0 {
						require.Empty(t, p.Elem)
					} else {
						require.Equal(t, want.Params[k].Elem.String(), p.Elem)
					}
				}
			}
			require.Contains(t, buf.String(), `"type": "addr"`)
			require.Contains(t, buf.String(), `"elem": "size"`)
			require.NotRegexp(t, `"(type|elem)": \d`, buf.String())

			// The JSON round-trips into the table's own types: the wire
			// form of each parameter (name, type, elem); what it means
			// beyond that stays in Go.
			var back struct {
				Module  string `json:"module"`
				Version int    `json:"version"`
				Funcs   []Func `json:"functions"`
			}
			require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
			require.Equal(t, pr.Module(), back.Module)
			require.Equal(t, Version, back.Version)
			wire := slices.Clone(Funcs)
			for i := range wire {
				wire[i].Params = slices.Clone(wire[i].Params)
				for k, q := range wire[i].Params {
					wire[i].Params[k] = Param{Name: q.Name, Type: q.Type, Elem: q.Elem}
				}
			}
			require.Equal(t, wire, back.Funcs)
		})
	}
}

func TestWriteErrors(t *testing.T) {
	// A failing writer's error comes back, at whatever point it fails.
	for _, n := range []int{0, 100, 5000} {
		w := &failWriter{left: n}
		require.ErrorIs(t, WriteMarkdown(w, Wide), errFull, "after %d bytes", n)
	}
	require.ErrorIs(t, WriteJSON(&failWriter{left: 100}, Native32), errFull)
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
