package testsupport

import (
	"fmt"
	"strings"

	"github.com/aclwasm/aclwasm/abi"
)

// Scratch addresses in the proxy guest's memory that the tests which
// drive it (host/internal/proxytest) use: out-parameters and data.
const (
	OutA  = 0x100
	OutB  = 0x108
	OutC  = 0x110
	Data  = 0x1000
	Data2 = 0x9000
)

// Proxy returns the proxy guest of profile prof with pages pages of
// memory, exported as "memory": it imports every function of the ABI from
// prof's module and exports a function of the same name and signature
// that calls it, plus "spin" (loops forever), "trap" (unreachable) and
// "grow" (memory.grow by its i32 argument). It is written in the binary
// format here, the bytes wat2wasm makes of the module's text (see the
// test), so that the tests that use it need no wabt.
func Proxy(prof abi.Profile, pages int) []byte {
	var t typeTable
	valType := func(wt abi.Type) byte {
		if prof.Wasm(wt) == "i64" {
			return 0x7e
		}
		return 0x7f
	}
	sigs := make([]uint64, len(abi.Funcs))
	for i, f := range abi.Funcs {
		sig := []byte{0x60}
		sig = uleb(sig, uint64(len(f.Params)))
		for _, p := range f.Params {
			sig = append(sig, valType(p.Type))
		}
		sigs[i] = t.index(append(sig, 1, 0x7f))
	}
	helpers := []struct {
		name string
		sig  []byte
		body []byte
	}{
		{"spin", []byte{0x60, 0, 0}, []byte{0, 0x03, 0x40, 0x0c, 0x00, 0x0b, 0x0b}},       // loop br 0 end end
		{"trap", []byte{0x60, 0, 0}, []byte{0, 0x00, 0x0b}},                               // unreachable end
		{"grow", []byte{0x60, 1, 0x7f, 1, 0x7f}, []byte{0, 0x20, 0x00, 0x40, 0x00, 0x0b}}, // local.get 0 memory.grow end
		// The stream callback dispatcher (ABI section 12), which the host
		// requires of a module importing aclrtLaunchHostFunc: the proxy
		// has no table, so its callbacks run nothing.
		{"aclwasm_dispatch_callback", []byte{0x60, 2, 0x7f, 0x7f, 0}, []byte{0, 0x0b}},
	}
	n := uint64(len(abi.Funcs))
	var imports, funcs, code []byte
	for i, f := range abi.Funcs {
		imports = name(imports, prof.Module())
		imports = name(imports, f.Name)
		imports = append(imports, 0x00)
		imports = uleb(imports, sigs[i])
	}
	exports := name(nil, "memory")
	exports = append(exports, 0x02, 0x00)
	for i, f := range abi.Funcs {
		funcs = uleb(funcs, sigs[i])
		exports = name(exports, f.Name)
		exports = append(exports, 0x00)
		exports = uleb(exports, n+uint64(i))
		body := []byte{0} // no locals
		for p := range f.Params {
			body = append(body, 0x20) // local.get
			body = uleb(body, uint64(p))
		}
		body = append(body, 0x10) // call
		body = uleb(body, uint64(i))
		body = append(body, 0x0b)
		code = uleb(code, uint64(len(body)))
		code = append(code, body...)
	}
	for k, h := range helpers {
		funcs = uleb(funcs, t.index(h.sig))
		exports = name(exports, h.name)
		exports = append(exports, 0x00)
		exports = uleb(exports, 2*n+uint64(k))
		code = uleb(code, uint64(len(h.body)))
		code = append(code, h.body...)
	}
	defined := n + uint64(len(helpers))
	out := []byte{0x00, 'a', 's', 'm', 0x01, 0x00, 0x00, 0x00}
	out = section(out, 1, uint64(len(t.sigs)), t.bytes)
	out = section(out, 2, n, imports)
	out = section(out, 3, defined, funcs)
	out = section(out, 5, 1, uleb([]byte{0x00}, uint64(pages))) // a minimum, no maximum
	out = section(out, 7, defined+1, exports)
	out = section(out, 10, defined, code)
	return out
}

// typeTable is the type section, each signature once, in the order of
// first use.
type typeTable struct {
	sigs  []string
	bytes []byte
}

func (t *typeTable) index(sig []byte) uint64 {
	for i, s := range t.sigs {
		if s == string(sig) {
			return uint64(i)
		}
	}
	t.sigs = append(t.sigs, string(sig))
	t.bytes = append(t.bytes, sig...)
	return uint64(len(t.sigs) - 1)
}

// section appends section id holding count entries, body.
func section(out []byte, id byte, count uint64, body []byte) []byte {
	content := append(uleb(nil, count), body...)
	out = append(out, id)
	out = uleb(out, uint64(len(content)))
	return append(out, content...)
}

func name(b []byte, s string) []byte {
	b = uleb(b, uint64(len(s)))
	return append(b, s...)
}

func uleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// ProxyWAT is the text of the proxy guest [Proxy] makes, with extra (more
// module fields, which may call the imports as $NAME) before its end, for
// tests that add exports of their own; it compiles to Proxy's bytes when
// extra is empty (the test holds the two equal).
func ProxyWAT(prof abi.Profile, pages int, extra string) string {
	var b strings.Builder
	b.WriteString("(module\n")
	for _, f := range abi.Funcs {
		fmt.Fprintf(&b, "  (import %q %q (func $%s (param%s) (result i32)))\n", prof.Module(), f.Name, f.Name, WATParams(prof, &f))
	}
	fmt.Fprintf(&b, "  (memory (export \"memory\") %d)\n", pages)
	for _, f := range abi.Funcs {
		fmt.Fprintf(&b, "  (func (export %q) (param%s) (result i32)", f.Name, WATParams(prof, &f))
		for i := range f.Params {
			fmt.Fprintf(&b, " local.get %d", i)
		}
		fmt.Fprintf(&b, " call $%s)\n", f.Name)
	}
	b.WriteString(`  (func (export "spin") (loop $l (br $l)))
  (func (export "trap") unreachable)
  (func (export "grow") (param i32) (result i32) local.get 0 memory.grow)
  (func (export "aclwasm_dispatch_callback") (param i32 i32))
`)
	b.WriteString(extra)
	b.WriteString(")\n")
	return b.String()
}

// WATParams is the WebAssembly text of f's parameter types in profile
// prof, each after a space.
func WATParams(prof abi.Profile, f *abi.Func) string {
	var s string
	for _, p := range f.Params {
		s += " " + prof.Wasm(p.Type)
	}
	return s
}
