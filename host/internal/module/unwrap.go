package module

// UnwrapCommandExport returns wasm with export name pointing past
// wasm-ld's command wrapper, when it has one: in a command module (one
// with _start) wasm-ld exports every function through a wrapper that
// runs __wasm_call_ctors before it and __wasm_call_dtors after it, which
// for an export the host calls while the command runs (the stream
// callback dispatcher) would run the constructors again and the atexit
// handlers and stdio shutdown at every call. The wrapper is recognized by
// its exact body (no locals; call; local.get 0; local.get 1; call F;
// call; end): the export then names F. Anything else, or a module this
// parser cannot read, is returned as is.
func UnwrapCommandExport(wasm []byte, name string) []byte {
	secs, ok := sections(wasm)
	if !ok {
		return wasm
	}
	exp, code := -1, -1
	var imported uint64
	for k, s := range secs {
		switch s.id {
		case 2:
			n, ok := importedFuncs(wasm[s.body:s.end])
			if !ok {
				return wasm
			}
			imported = n
		case 7:
			exp = k
		case 10:
			code = k
		}
	}
	if exp < 0 || code < 0 {
		return wasm
	}
	var fn uint64
	found := false
	if !exportNames(wasm[secs[exp].body:secs[exp].end], func(n string, kind byte, idx uint64) {
		if n == name && kind == 0 {
			fn, found = idx, true
		}
	}) || !found || fn < imported {
		return wasm
	}
	inner, ok := wrapped(wasm[secs[code].body:secs[code].end], fn-imported)
	if !ok {
		return wasm
	}
	// The export section again, with the export's index replaced.
	var entries []byte
	count := uint64(0)
	exportNames(wasm[secs[exp].body:secs[exp].end], func(n string, kind byte, idx uint64) {
		if n == name && kind == 0 {
			idx = inner
		}
		entries = appendName(entries, n)
		entries = append(entries, kind)
		entries = appendUleb(entries, idx)
		count++
	})
	out := make([]byte, 0, len(wasm)+8)
	out = append(out, wasm[:secs[exp].at]...)
	out = appendSection(out, 7, appendUleb(nil, count), entries)
	return append(out, wasm[secs[exp].end:]...)
}

// importedFuncs counts the function imports of an import section's body.
func importedFuncs(body []byte) (uint64, bool) {
	var n uint64
	ok := readImports(&byteReader{b: body}, func(e importEntry) {
		if e.kind == 0 {
			n++
		}
	})
	return n, ok
}

// wrapped returns the function that body number k of a code section's
// body calls, if that body is wasm-ld's command export wrapper of a
// function of two parameters.
func wrapped(code []byte, k uint64) (uint64, bool) {
	r := &byteReader{b: code}
	count := r.uleb()
	if k >= count {
		return 0, false
	}
	for i := uint64(0); i < k && !r.bad; i++ {
		r.take(r.uleb())
	}
	b := &byteReader{b: r.take(r.uleb())}
	if r.bad || b.uleb() != 0 || b.byte() != 0x10 { // no locals; call ctors
		return 0, false
	}
	ctors := b.uleb()
	if b.byte() != 0x20 || b.uleb() != 0 || b.byte() != 0x20 || b.uleb() != 1 || b.byte() != 0x10 {
		return 0, false
	}
	inner := b.uleb()
	if b.byte() != 0x10 {
		return 0, false
	}
	dtors := b.uleb()
	if b.byte() != 0x0b || !b.done() || b.bad || inner == ctors || inner == dtors {
		return 0, false
	}
	return inner, true
}
