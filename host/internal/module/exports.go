package module

import "strconv"

// The names of the exports the rewrites add, each the stem of another
// (a number appended, see addExport) when the module already has an
// export of that name. The engines and the host's tests find the hidden
// ones under these names.
const (
	// ExportStart is the name [HoistStart] exports a start function under.
	ExportStart = "aclwasm:start"
	// ExportStack is the name [BoundStack] exports its stack counter
	// under. After a trap the engines read it: engine.StackExhausted (-1,
	// which no count reaches, whatever the guest does) in it means the
	// trap was the limit's.
	ExportStack = "aclwasm:stack"
	// ExportMemory is the name [MemoryExport] exports memory 0 under:
	// where wasmtime's WASI looks for it.
	ExportMemory = "memory"
	// ExportMemoryHidden is the name [MemoryExport] exports memory 0 under
	// when a function or global of the module is already named
	// [ExportMemory].
	ExportMemoryHidden = "aclwasm:memory"
)

// HoistStart returns the module without its start section, the start
// function exported instead, and that export's name ("" and the module as
// is when it has no start section, or when this parser cannot read it: the
// engine's validation then says why).
//
// The host runs the start function itself, as the first call of the new
// instance, instead of letting the engine run it inside instantiation: so
// an exit, a trap or a timeout in it ends like the same end of any other
// call (the engines report them differently from inside instantiation, and
// wazero neither returns nor closes a module whose start function failed,
// leaking its memory), and the instance it ran in is there to be released.
// The start function must still have type [] -> []; the engines' compile
// adapters check the export's type, as validation would have.
func HoistStart(wasm []byte) ([]byte, string) {
	secs, ok := sections(wasm)
	if !ok {
		return wasm, ""
	}
	start := -1
	var fn uint64
	for k, s := range secs {
		if s.id == 8 {
			v, n := uleb(wasm[s.body:s.end])
			if n == 0 || s.body+n != s.end {
				return wasm, ""
			}
			start, fn = k, v
		}
	}
	if start < 0 {
		return wasm, ""
	}
	// The new export section, if the module has none, goes where the start
	// section was: after globals, before elements.
	out := make([]byte, 0, len(wasm)+len(ExportStart)+16)
	out = append(out, wasm[:secs[start].at]...)
	out = append(out, wasm[secs[start].end:]...)
	return addExport(out, 0, fn, ExportStart, secs[start].at)
}

// FuncExports returns the names of the functions wasm exports, in the
// order of its export section (none if it cannot be read).
func FuncExports(wasm []byte) []string {
	secs, _ := sections(wasm)
	var names []string
	for _, s := range secs {
		if s.id == 7 {
			exportNames(wasm[s.body:s.end], func(name string, kind byte, _ uint64) {
				if kind == 0 {
					names = append(names, name)
				}
			})
		}
	}
	return names
}

// FuncExportType returns the type of the function wasm exports as name,
// written as "(i32, i32) -> ()", and whether it found one: the host checks
// the type of an export it calls from inside a host call (the callback
// dispatcher) at load time, since such a call cannot convert arguments.
// A module this parser cannot read gives false: the engine's validation
// refuses it.
func FuncExportType(wasm []byte, name string) (string, bool) {
	secs, ok := sections(wasm)
	if !ok {
		return "", false
	}
	var types []string
	var funcs []uint64 // the type of each function, imported ones first
	idx, found := uint64(0), false
	for _, s := range secs {
		r := byteReader{b: wasm[s.body:s.end]}
		switch s.id {
		case 1:
			for n := r.uleb(); n > 0 && !r.bad; n-- {
				if r.byte() != 0x60 {
					return "", false
				}
				params := valTypes(&r)
				types = append(types, "("+params+") -> ("+valTypes(&r)+")")
			}
		case 2:
			readImports(&r, func(e importEntry) {
				if e.kind == 0 {
					funcs = append(funcs, e.index)
				}
			})
		case 3:
			for n := r.uleb(); n > 0 && !r.bad; n-- {
				funcs = append(funcs, r.uleb())
			}
		case 7:
			ok = exportNames(wasm[s.body:s.end], func(n string, kind byte, i uint64) {
				if kind == 0 && n == name && !found {
					idx, found = i, true
				}
			})
			if !ok {
				return "", false
			}
		}
		if r.bad {
			return "", false
		}
	}
	if !found || idx >= uint64(len(funcs)) || funcs[idx] >= uint64(len(types)) {
		return "", false
	}
	return types[funcs[idx]], true
}

// valTypes reads a vector of value types and writes them as wasm text
// does, separated by commas.
func valTypes(r *byteReader) string {
	var out []byte
	for n := r.uleb(); n > 0 && !r.bad; n-- {
		if len(out) > 0 {
			out = append(out, ", "...)
		}
		switch b := r.byte(); b {
		case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
			out = append(out, valTypeNames[b]...)
		case 0x63, 0x64: // (ref null? ht)
			r.uleb()
			out = append(out, "ref"...)
		default:
			out = append(out, "0x"+strconv.FormatUint(uint64(b), 16)...)
		}
	}
	return string(out)
}

var valTypeNames = map[byte]string{0x7f: "i32", 0x7e: "i64", 0x7d: "f32", 0x7c: "f64", 0x7b: "v128", 0x70: "funcref", 0x6f: "externref"}

// exportNames returns the names an export section's body declares, or
// false if it cannot be read; kind and idx name what each exports.
func exportNames(body []byte, each func(name string, kind byte, idx uint64)) bool {
	count, k := uleb(body)
	if k == 0 {
		return false
	}
	p := body[k:]
	for i := uint64(0); i < count; i++ {
		l, m := uleb(p)
		if m == 0 || uint64(len(p)-m) < l {
			return false
		}
		name := string(p[m : m+int(l)])
		p = p[m+int(l):]
		if len(p) == 0 {
			return false
		}
		kind := p[0]
		idx, m := uleb(p[1:])
		if m == 0 {
			return false
		}
		p = p[1+m:]
		each(name, kind, idx)
	}
	return true
}

// addExport returns wasm with one more export, of item idx of kind (0
// function, 2 memory), named name or, if an export already has that name,
// name followed by a number no export uses; and the name chosen. A module
// without an export section gets one at offset insertAt. A module this
// parser cannot read is returned as is, with "".
func addExport(wasm []byte, kind byte, idx uint64, name string, insertAt int) ([]byte, string) {
	secs, ok := sections(wasm)
	if !ok {
		return wasm, ""
	}
	names := map[string]bool{}
	exp := -1
	for k, s := range secs {
		if s.id == 7 {
			exp = k
			if !exportNames(wasm[s.body:s.end], func(n string, _ byte, _ uint64) { names[n] = true }) {
				return wasm, ""
			}
		}
	}
	stem := name
	for i := 2; names[name]; i++ {
		name = stem + strconv.Itoa(i)
	}
	entry := appendUleb(nil, uint64(len(name)))
	entry = append(entry, name...)
	entry = append(entry, kind)
	entry = appendUleb(entry, idx)
	var body []byte
	at, end := insertAt, insertAt
	if exp >= 0 {
		s := secs[exp]
		count, k := uleb(wasm[s.body:s.end])
		body = appendUleb(nil, count+1)
		body = append(body, wasm[s.body+k:s.end]...)
		at, end = s.at, s.end
	} else {
		body = appendUleb(nil, 1)
	}
	body = append(body, entry...)
	out := make([]byte, 0, len(wasm)+len(entry)+8)
	out = append(out, wasm[:at]...)
	out = append(out, 7)
	out = appendUleb(out, uint64(len(body)))
	out = append(out, body...)
	out = append(out, wasm[end:]...)
	return out, name
}
