package module

// MemoryExport returns a module whose memory 0 is exported, and the name
// it is exported under; the host's Load prepares every module so, whatever
// the engine. Wasmtime only shows an embedder exported memories, while the
// guest's memory is the sandbox's to check pointers against whether or not
// the guest exports it (wazero shows it either way), so a module that
// defines a memory without exporting it gets one more export:
// [ExportMemory], where wasmtime's WASI looks for it (wazero's WASI takes
// the memory whether or not it is exported), or if a function or global
// already has that name, [ExportMemoryHidden] or a name no export uses. A module without a defined memory,
// or one that already exports memory 0, is returned as is; so is a module
// this parser cannot read: the engine's validation then says why.
func MemoryExport(wasm []byte) ([]byte, string) {
	secs, ok := sections(wasm)
	if !ok {
		return wasm, ""
	}
	hasMemory := false
	insertAt := len(wasm) // where a new export section goes
	for _, s := range secs {
		switch {
		case s.id == 5:
			count, _ := uleb(wasm[s.body:s.end])
			hasMemory = count > 0
		case s.id == 7:
			name := ""
			ok := exportNames(wasm[s.body:s.end], func(n string, kind byte, idx uint64) {
				if kind == 2 && idx == 0 && name == "" {
					name = n
				}
			})
			if !ok {
				return wasm, ""
			}
			if name != "" {
				return wasm, name
			}
		case insertAt == len(wasm) && (s.id == 8 || s.id == 9 || s.id == 10 || s.id == 11 || s.id == 12):
			insertAt = s.at // start, element, code, data, data count follow exports
		}
	}
	if !hasMemory {
		return wasm, ""
	}
	// "memory" is where WASI looks for it; if a function or global already
	// has that name, a name no export uses.
	out, name := addExport(wasm, 2, 0, ExportMemory, insertAt)
	if name != ExportMemory {
		out, name = addExport(wasm, 2, 0, ExportMemoryHidden, insertAt)
	}
	return out, name
}
