package guestsdk

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/kernels/basic"
	"github.com/aclwasm/aclwasm/host/kernels/cannexamples"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestBuiltGuestImports checks every module that scripts/build-guests.sh
// built (build/wasm, or $ACLWASM_GUEST_DIR): each import from "acl" must be
// a function of the ABI table with exactly its signature, and so must each
// import from the host's "aclwasm" module (abi.IOFuncs: bytes in and out,
// config values); the only other module allowed is wasi_snapshot_preview1
// (and not for the modules listed in freestanding.txt), and every module
// must import from "acl" or "acl32" (not both), with that profile's
// signatures. So an SDK that declares an import with a wrong wire type
// fails here.
//
// Without built modules the test fails, naming the command that builds them.
func TestBuiltGuestImports(t *testing.T) {
	dir := testsupport.GuestDir()
	mods, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(mods) == 0 {
		t.Fatalf("no modules in %s: build the guests first (make guests, or scripts/build-guests.sh)", dir)
	}
	free := map[string]bool{}
	if f, err := os.Open(filepath.Join(dir, "freestanding.txt")); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if s := strings.TrimSpace(sc.Text()); s != "" {
				free[s] = true
			}
		}
		f.Close()
	}
	sort.Strings(mods)
	for _, path := range mods {
		name := filepath.Base(path)
		bin, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		imps, err := readImports(bin)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		acl := map[string]int{}
		for _, p := range checkImports(imps, free[name]) {
			t.Errorf("%s: %s", name, p)
		}
		for _, im := range imps {
			if _, ok := abi.ProfileOf(im.Module); ok {
				acl[im.Module]++
			}
		}
		t.Logf("%s: %d imports, from the ABI: %v", name, len(imps), acl)
	}
}

// TestImportCheckCatchesAWrongWireType feeds the checker a module whose
// aclrtMemcpy takes destMax as i32 (a wasm32 size_t) instead of i64, and
// whose aclwasm.output_write lacks its length.
func TestImportCheckCatchesAWrongWireType(t *testing.T) {
	bin := buildModule(
		[][2][]byte{{{0x7e, 0x7f, 0x7e, 0x7e, 0x7f}, {0x7f}}, {{0x7f}, {0x7f}}, {nil, {0x7f}}},
		[]testImport{{"acl", "aclrtMemcpy", 0}, {"acl", "aclrtSetDevice", 1}, {"env", "abort", 1}, {"acl", "aclrtNoSuch", 1},
			{"aclwasm", "output_write", 1}, {"aclwasm", "input_len", 2}, {"aclwasm", "aclrtMemcpy", 0}},
	)
	imps, err := readImports(bin)
	if err != nil {
		t.Fatal(err)
	}
	probs := strings.Join(checkImports(imps, false), "\n")
	for _, want := range []string{
		"acl.aclrtMemcpy has signature (i64, i32, i64, i64, i32) -> i32, want (i64, i64, i64, i64, i32) -> i32",
		`import from module "env"`,
		"acl.aclrtNoSuch is not a function of the ABI table",
		"aclwasm.output_write has signature (i32) -> i32, want (i32, i32) -> i32",
		`aclwasm.aclrtMemcpy is not a function of module "aclwasm"`,
	} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems do not mention %q:\n%s", want, probs)
		}
	}
	if strings.Contains(probs, "aclrtSetDevice") || strings.Contains(probs, "input_len") {
		t.Errorf("a correct import was reported:\n%s", probs)
	}
	wasi := buildModule([][2][]byte{{{0x7f}, {0x7f}}}, []testImport{{"wasi_snapshot_preview1", "proc_exit", 0}, {"acl", "aclrtSetDevice", 0}})
	imps, err = readImports(wasi)
	if err != nil {
		t.Fatal(err)
	}
	if p := checkImports(imps, false); len(p) != 0 {
		t.Errorf("a WASI module was rejected: %v", p)
	}
	if p := checkImports(imps, true); len(p) != 1 {
		t.Errorf("a freestanding module's WASI import was not reported: %v", p)
	}
}

// TestImportCheckProfiles: an acl32 import is checked against the acl32
// signature (aclrtMemcpy takes i32 addresses and sizes there), and a module
// that imports from both profiles is reported.
func TestImportCheckProfiles(t *testing.T) {
	narrow := buildModule(
		[][2][]byte{{{0x7f, 0x7f, 0x7f, 0x7f, 0x7f}, {0x7f}}, {{0x7e, 0x7f, 0x7e, 0x7e, 0x7f}, {0x7f}}},
		[]testImport{{"acl32", "aclrtMemcpy", 0}, {"acl32", "aclrtMemcpyAsyncWithCondition", 1}},
	)
	imps, err := readImports(narrow)
	if err != nil {
		t.Fatal(err)
	}
	probs := strings.Join(checkImports(imps, false), "\n")
	if strings.Contains(probs, "aclrtMemcpy has") || !strings.Contains(probs,
		"acl32.aclrtMemcpyAsyncWithCondition has signature (i64, i32, i64, i64, i32) -> i32") {
		t.Errorf("acl32 signatures not checked as acl32's:\n%s", probs)
	}
	mixed := buildModule([][2][]byte{{{0x7f}, {0x7f}}}, []testImport{{"acl", "aclrtSetDevice", 0}, {"acl32", "aclrtSetDevice", 0}})
	if imps, err = readImports(mixed); err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(checkImports(imps, false), "\n"); !strings.Contains(p, `imports from both "acl" and "acl32"`) {
		t.Errorf("a module mixing the profiles was not reported: %q", p)
	}
}

// checkImports returns one line per import the ABI does not allow: each
// import from "acl" or "acl32" must be a function of the table with its
// signature in that profile, a module imports from one of the two only, and
// from at least one; an import from "env" must be a kernel launcher
// (checkLauncher).
func checkImports(imps []wasmImport, freestanding bool) []string {
	var probs []string
	used := map[abi.Profile]bool{}
	modProf := abi.Wide
	for _, im := range imps {
		if p, ok := abi.ProfileOf(im.Module); ok {
			modProf = p
		}
	}
	for _, im := range imps {
		prof, isACL := abi.ProfileOf(im.Module)
		switch {
		case isACL:
			used[prof] = true
			if im.Kind != 0 {
				probs = append(probs, fmt.Sprintf("%s.%s is not a function import", im.Module, im.Name))
				continue
			}
			f := abi.Lookup(im.Name)
			if f == nil {
				probs = append(probs, fmt.Sprintf("%s.%s is not a function of the ABI table", im.Module, im.Name))
				continue
			}
			if got, want := im.Sig, f.SignatureIn(prof); got != want {
				probs = append(probs, fmt.Sprintf("%s.%s has signature %s, want %s", im.Module, im.Name, got, want))
			}
		case im.Module == abi.IOModule:
			if im.Kind != 0 {
				probs = append(probs, fmt.Sprintf("%s.%s is not a function import", im.Module, im.Name))
				continue
			}
			f := abi.LookupIO(im.Name)
			if f == nil {
				probs = append(probs, fmt.Sprintf("%s.%s is not a function of module %q", im.Module, im.Name, abi.IOModule))
				continue
			}
			if got, want := im.Sig, f.Signature(); got != want {
				probs = append(probs, fmt.Sprintf("%s.%s has signature %s, want %s", im.Module, im.Name, got, want))
			}
		case im.Module == "env" && im.Kind == 0:
			if p := checkLauncher(im, modProf); p != "" {
				probs = append(probs, p)
			}
		case im.Module == "wasi_snapshot_preview1" && !freestanding:
			if im.Kind != 0 {
				probs = append(probs, fmt.Sprintf("%s.%s is not a function import", im.Module, im.Name))
			}
		case im.Module == "wasi_snapshot_preview1":
			probs = append(probs, fmt.Sprintf("%s.%s: a freestanding module imports WASI", im.Module, im.Name))
		default:
			probs = append(probs, fmt.Sprintf("%s.%s: import from module %q, which the sandbox does not provide", im.Module, im.Name, im.Module))
		}
	}
	switch len(used) {
	case 0:
		probs = append(probs, fmt.Sprintf("imports nothing from %q or %q", abi.Module, abi.Module32))
	case 2:
		probs = append(probs, fmt.Sprintf("imports from both %q and %q (one profile per module)", abi.Module, abi.Module32))
	}
	return probs
}

// wasmImport is one entry of a module's import section.
type wasmImport struct {
	Module, Name string
	Kind         byte   // 0 function, 1 table, 2 memory, 3 global, 4 tag
	Sig          string // for functions: "(i64, i32) -> i32", as abi.Func.Signature writes it
}

// TestImportCheckLaunchers: a launcher import of a kernel of the CLI's
// sets passes with the wire types of its declaration in the module's
// profile, and fails with others or under a name no set has.
func TestImportCheckLaunchers(t *testing.T) {
	const i32, i64 = 0x7f, 0x7e
	bin := buildModule(
		[][2][]byte{{{i32}, {i32}}, {{i32, i32, i64, i64, i64, i32}, {i32}}, {{i32, i32, i32, i32, i32, i32}, nil}},
		[]testImport{{"acl", "aclrtSetDevice", 0}, {"env", "AddF32", 1}, {"env", "MulF32", 2}, {"env", "NoSuchKernel", 1}},
	)
	imps, err := readImports(bin)
	if err != nil {
		t.Fatal(err)
	}
	probs := strings.Join(checkImports(imps, false), "\n")
	for _, want := range []string{
		"env.MulF32 has signature (i32, i32, i32, i32, i32, i32) -> (), but kernel MulF32 is launched as (i32, i32, i64, i64, i64, i32) -> i32 (or -> ())",
		`env.NoSuchKernel: import from module "env" that is no kernel launcher`,
	} {
		if !strings.Contains(probs, want) {
			t.Errorf("problems do not mention %q:\n%s", want, probs)
		}
	}
	if strings.Contains(probs, "AddF32") {
		t.Errorf("a correct launcher was reported:\n%s", probs)
	}
}

// cliKernels are the kernels of the sets the CLI links (--kernels), by
// name: the launchers a built guest may import from "env".
var cliKernels = func() map[string]host.Kernel {
	m := map[string]host.Kernel{}
	for _, k := range append(basic.Kernels(), cannexamples.Kernels()...) {
		m[k.Name] = k
	}
	return m
}()

// checkLauncher checks an import from "env", a kernel launcher (ABI
// section 13.3): a C-named launcher of a kernel of the CLI's sets, with
// the wasm type the host binds it by in profile prof (blockDim and the
// stream as i32, a buffer as an address of the profile, a scalar by its
// type; an i32 status or nothing). The host's own binding (host.Load)
// decides for C++ names, which are left to it.
func checkLauncher(im wasmImport, prof abi.Profile) string {
	if strings.HasPrefix(im.Name, "_Z") {
		return ""
	}
	k, ok := cliKernels[im.Name]
	if !ok {
		return fmt.Sprintf("env.%s: import from module \"env\" that is no kernel launcher of the CLI's kernel sets", im.Name)
	}
	ps := []string{"i32", "i32"}
	for _, p := range k.Params {
		switch {
		case p.Access != 0 && prof == abi.Native32:
			ps = append(ps, "i32")
		case p.Access != 0:
			ps = append(ps, "i64")
		case p.Type == acl.DTInt64 || p.Type == acl.DTUint64:
			ps = append(ps, "i64")
		case p.Type == acl.DTFloat:
			ps = append(ps, "f32")
		case p.Type == acl.DTDouble:
			ps = append(ps, "f64")
		default:
			ps = append(ps, "i32")
		}
	}
	sig := "(" + strings.Join(ps, ", ") + ")"
	if im.Sig != sig+" -> i32" && im.Sig != sig+" -> ()" {
		return fmt.Sprintf("env.%s has signature %s, but kernel %s is launched as %s -> i32 (or -> ())", im.Name, im.Sig, k.Name, sig)
	}
	return ""
}

// readImports parses a wasm binary's type and import sections.
func readImports(bin []byte) ([]wasmImport, error) {
	r := &wasmReader{b: bin}
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" || string(bin[4:8]) != "\x01\x00\x00\x00" {
		return nil, errors.New("not a wasm 1 binary")
	}
	r.i = 8
	var types []string
	var imps []wasmImport
	for r.i < len(r.b) {
		id := r.byte()
		size := int(r.uleb())
		end := r.i + size
		if r.err != nil || end > len(r.b) {
			return nil, errors.New("truncated section")
		}
		switch id {
		case 1: // type
			for n := r.uleb(); n > 0 && r.err == nil; n-- {
				if f := r.byte(); f != 0x60 {
					return nil, fmt.Errorf("type form %#x is not a function type", f)
				}
				params := r.valtypes()
				results := r.valtypes()
				sig := "(" + strings.Join(params, ", ") + ") -> " + strings.Join(results, ", ")
				if len(results) == 0 {
					sig = "(" + strings.Join(params, ", ") + ") -> ()"
				}
				types = append(types, sig)
			}
		case 2: // import
			for n := r.uleb(); n > 0 && r.err == nil; n-- {
				im := wasmImport{Module: r.name(), Name: r.name(), Kind: r.byte()}
				switch im.Kind {
				case 0:
					ti := int(r.uleb())
					if ti >= len(types) {
						return nil, fmt.Errorf("import %s.%s names type %d of %d", im.Module, im.Name, ti, len(types))
					}
					im.Sig = types[ti]
				case 1:
					r.byte()
					r.limits()
				case 2:
					r.limits()
				case 3:
					r.byte()
					r.byte()
				case 4:
					r.byte()
					r.uleb()
				default:
					return nil, fmt.Errorf("import kind %#x", im.Kind)
				}
				imps = append(imps, im)
			}
			return imps, r.err
		}
		r.i = end
	}
	return imps, r.err
}

type wasmReader struct {
	b   []byte
	i   int
	err error
}

func (r *wasmReader) byte() byte {
	if r.i >= len(r.b) {
		r.err = errors.New("unexpected end of module")
		return 0
	}
	c := r.b[r.i]
	r.i++
	return c
}

func (r *wasmReader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("LEB128 too long")
	return 0
}

func (r *wasmReader) name() string {
	n := int(r.uleb())
	if r.i+n > len(r.b) {
		r.err = errors.New("name past the end of the module")
		return ""
	}
	s := string(r.b[r.i : r.i+n])
	r.i += n
	return s
}

func (r *wasmReader) valtypes() []string {
	var ts []string
	for n := r.uleb(); n > 0 && r.err == nil; n-- {
		switch c := r.byte(); c {
		case 0x7f:
			ts = append(ts, "i32")
		case 0x7e:
			ts = append(ts, "i64")
		case 0x7d:
			ts = append(ts, "f32")
		case 0x7c:
			ts = append(ts, "f64")
		case 0x7b:
			ts = append(ts, "v128")
		default:
			ts = append(ts, fmt.Sprintf("type%#x", c))
		}
	}
	return ts
}

func (r *wasmReader) limits() {
	flags := r.byte()
	r.uleb()
	if flags&1 != 0 {
		r.uleb()
	}
}

type testImport struct {
	module, name string
	typ          int
}

// buildModule assembles a module with the given function types (params,
// results as valtype bytes) and function imports.
func buildModule(types [][2][]byte, imps []testImport) []byte {
	uleb := func(n int) []byte {
		var b []byte
		for ; n >= 0x80; n >>= 7 {
			b = append(b, byte(n)|0x80)
		}
		return append(b, byte(n))
	}
	vec := func(n int, body []byte) []byte { return append(uleb(n), body...) }
	section := func(id byte, body []byte) []byte { return append(append([]byte{id}, uleb(len(body))...), body...) }
	var ts []byte
	for _, t := range types {
		ts = append(ts, 0x60)
		ts = append(ts, vec(len(t[0]), t[0])...)
		ts = append(ts, vec(len(t[1]), t[1])...)
	}
	var is []byte
	for _, im := range imps {
		is = append(is, vec(len(im.module), []byte(im.module))...)
		is = append(is, vec(len(im.name), []byte(im.name))...)
		is = append(is, 0, byte(im.typ))
	}
	bin := []byte("\x00asm\x01\x00\x00\x00")
	bin = append(bin, section(1, vec(len(types), ts))...)
	bin = append(bin, section(2, vec(len(imps), is))...)
	return bin
}
