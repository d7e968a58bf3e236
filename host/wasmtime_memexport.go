//go:build wasmtime && cgo

package host

import (
	"bytes"
	"strconv"
)

// memoryExport returns a module whose memory 0 is exported, and the name
// it is exported under. Wasmtime only shows an embedder exported memories,
// while the guest's memory is the sandbox's to check pointers against
// whether or not the guest exports it (wazero shows it either way), so a
// module that defines a memory without exporting it gets one more export:
// "memory", where wasmtime's WASI looks for it (wazero's WASI takes the
// memory whether or not it is exported), or if a function or global already
// has that name, a name no export uses. A module without a defined memory,
// or one that already exports memory 0, is returned as is; so is a module
// this parser cannot read: the engine's validation then says why.
func memoryExport(wasm []byte) ([]byte, string) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return wasm, ""
	}
	var (
		hasMemory bool
		exportAt  = -1 // offset of the export section's id byte
		exportEnd int
		insertAt  = -1 // where a new export section goes
		names     = map[string]bool{}
	)
	for off := 8; off < len(wasm); {
		id := wasm[off]
		size, n := uleb(wasm[off+1:])
		if n == 0 || uint64(len(wasm)-off-1-n) < size {
			return wasm, ""
		}
		body := wasm[off+1+n : off+1+n+int(size)]
		switch {
		case id == 5:
			count, _ := uleb(body)
			hasMemory = count > 0
		case id == 7:
			exportAt, exportEnd = off, off+1+n+int(size)
			count, k := uleb(body)
			p := body[k:]
			for i := uint64(0); i < count; i++ {
				l, m := uleb(p)
				if m == 0 || uint64(len(p)-m) < l {
					return wasm, ""
				}
				name := string(p[m : m+int(l)])
				p = p[m+int(l):]
				if len(p) == 0 {
					return wasm, ""
				}
				kind := p[0]
				idx, m := uleb(p[1:])
				if m == 0 {
					return wasm, ""
				}
				p = p[1+m:]
				if kind == 2 && idx == 0 {
					return wasm, name
				}
				names[name] = true
			}
		case insertAt < 0 && (id == 8 || id == 9 || id == 10 || id == 11 || id == 12):
			insertAt = off // start, element, code, data, data count follow exports
		}
		off += 1 + n + int(size)
	}
	if !hasMemory {
		return wasm, ""
	}
	name := "memory" // where WASI looks for it, if free
	for i := 2; names[name]; i++ {
		name = "aclwasm:memory" + strconv.Itoa(i)
	}
	entry := appendUleb(nil, uint64(len(name)))
	entry = append(entry, name...)
	entry = append(entry, 2, 0) // memory 0
	var out bytes.Buffer
	if exportAt >= 0 {
		size, n := uleb(wasm[exportAt+1:])
		body := wasm[exportAt+1+n : exportAt+1+n+int(size)]
		count, k := uleb(body)
		nb := appendUleb(nil, count+1)
		nb = append(nb, body[k:]...)
		nb = append(nb, entry...)
		out.Write(wasm[:exportAt])
		out.WriteByte(7)
		out.Write(appendUleb(nil, uint64(len(nb))))
		out.Write(nb)
		out.Write(wasm[exportEnd:])
		return out.Bytes(), name
	}
	if insertAt < 0 {
		insertAt = len(wasm)
	}
	nb := append(appendUleb(nil, 1), entry...)
	out.Write(wasm[:insertAt])
	out.WriteByte(7)
	out.Write(appendUleb(nil, uint64(len(nb))))
	out.Write(nb)
	out.Write(wasm[insertAt:])
	return out.Bytes(), name
}

func appendUleb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// uleb decodes an unsigned LEB128 value at the start of b and returns it
// with its length; n is 0 when b is malformed.
func uleb(b []byte) (v uint64, n int) {
	r := byteReader{b: b}
	v = r.uleb()
	if r.bad {
		return 0, 0
	}
	return v, len(b) - len(r.b)
}
