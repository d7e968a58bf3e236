package module

// FuncImport is one function import of a module with its wasm type.
type FuncImport struct {
	Module, Name    string
	Params, Results []byte // value types, by their binary encoding
}

// FuncImports returns the function imports of wasm with their types, in
// the module's order, or false when the module cannot be read (the
// engine's validation then says why).
func FuncImports(wasm []byte) ([]FuncImport, bool) {
	secs, ok := sections(wasm)
	if !ok {
		return nil, false
	}
	type ftype struct{ params, results []byte }
	var types []ftype
	var out []FuncImport
	var idx []uint64
	for _, s := range secs {
		r := byteReader{b: wasm[s.body:s.end]}
		switch s.id {
		case 1:
			for n := r.uleb(); n > 0 && !r.bad; n-- {
				if r.byte() != 0x60 {
					return nil, false
				}
				var t ftype
				t.params = r.take(r.uleb())
				t.results = r.take(r.uleb())
				types = append(types, t)
			}
		case 2:
			if !readImports(&r, func(e importEntry) {
				if e.kind == 0 {
					out = append(out, FuncImport{Module: string(e.module), Name: string(e.name)})
					idx = append(idx, e.index)
				}
			}) {
				return nil, false
			}
		}
		if r.bad {
			return nil, false
		}
	}
	for i, t := range idx {
		if t >= uint64(len(types)) {
			return nil, false
		}
		out[i].Params, out[i].Results = types[t].params, types[t].results
	}
	return out, true
}

// RenameImports returns wasm with the function imports that rename maps
// to a new module and name renamed; the module is returned as is when
// rename renames none, or when it cannot be read.
func RenameImports(wasm []byte, rename func(module, name string) (string, string, bool)) []byte {
	secs, ok := sections(wasm)
	if !ok {
		return wasm
	}
	for _, s := range secs {
		if s.id != 2 {
			continue
		}
		r := byteReader{b: wasm[s.body:s.end]}
		var body []byte
		n := r.uleb()
		body = appendUleb(body, n)
		changed := false
		for ; n > 0 && !r.bad; n-- {
			mod := string(r.take(r.uleb()))
			name := string(r.take(r.uleb()))
			rest := len(wasm[s.body:s.end]) - len(r.b)
			// The description after the names, read as readImports does.
			desc := byteReader{b: wasm[s.body+rest : s.end]}
			kind := desc.byte()
			switch kind {
			case 0:
				desc.uleb()
			case 1:
				skipRefType(&desc)
				desc.limits()
			case 2:
				desc.limits()
			case 3:
				skipValType(&desc)
				desc.byte()
			case 4:
				desc.byte()
				desc.uleb()
			default:
				return wasm
			}
			if desc.bad {
				return wasm
			}
			descBytes := wasm[s.body+rest : s.end-len(desc.b)]
			r.b = desc.b
			if m2, n2, ok := rename(mod, name); ok && kind == 0 {
				mod, name, changed = m2, n2, true
			}
			body = appendName(body, mod)
			body = appendName(body, name)
			body = append(body, descBytes...)
		}
		if r.bad || !changed {
			return wasm
		}
		out := append(make([]byte, 0, len(wasm)+64), wasm[:s.at]...)
		out = appendSection(out, 2, body)
		return append(out, wasm[s.end:]...)
	}
	return wasm
}
