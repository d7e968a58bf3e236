package host

import (
	"errors"
	"strconv"
)

// wasmImport is one import of a module, as its binary declares it.
type wasmImport struct {
	module, name string
	kind         byte // 0 func, 1 table, 2 memory, 3 global, 4 tag
}

var importKinds = [...]string{"function", "table", "memory", "global", "tag"}

func (im wasmImport) kindName() string {
	if int(im.kind) < len(importKinds) {
		return importKinds[im.kind]
	}
	return "unknown import"
}

// scanModule reads what the engines do not all show from a module's
// binary: every import with its kind, and the minimum size in pages of its
// memory, defined or imported (hasMem false if it has none).
func scanModule(wasm []byte) (imps []wasmImport, minPages uint64, hasMem bool, err error) {
	errBad := errors.New("malformed wasm binary")
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, 0, false, errBad
	}
	r := byteReader{b: wasm[8:]}
	for !r.done() {
		id := r.byte()
		size := r.uleb()
		sec := byteReader{b: r.take(size)}
		if r.bad {
			return nil, 0, false, errBad
		}
		switch id {
		case 2: // imports
			for n := sec.uleb(); n > 0 && !sec.bad; n-- {
				im := wasmImport{module: string(sec.take(sec.uleb()))}
				im.name = string(sec.take(sec.uleb()))
				im.kind = sec.byte()
				switch im.kind {
				case 0: // type index
					sec.uleb()
				case 1: // reftype, limits
					sec.byte()
					sec.limits()
				case 2:
					minPages, hasMem = sec.limits(), true
				case 3: // valtype, mutability
					sec.byte()
					sec.byte()
				case 4: // attribute, type index
					sec.byte()
					sec.uleb()
				default:
					sec.bad = true
				}
				imps = append(imps, im)
			}
		case 5: // memories
			if n := sec.uleb(); n > 0 {
				minPages, hasMem = sec.limits(), true
			}
		}
		if sec.bad {
			return nil, 0, false, errBad
		}
	}
	return imps, minPages, hasMem, nil
}

// byteReader reads a wasm binary; bad records a read past the end or a
// malformed LEB128, after which every read gives zero.
type byteReader struct {
	b   []byte
	bad bool
}

func (r *byteReader) done() bool { return len(r.b) == 0 || r.bad }

func (r *byteReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *byteReader) take(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *byteReader) uleb() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.bad = true
	return 0
}

// limits reads a limits record and returns its minimum.
func (r *byteReader) limits() uint64 {
	flags := r.byte()
	min := r.uleb()
	if flags&1 != 0 {
		r.uleb()
	}
	return min
}

// startExport is the name hoistStart exports a start function under, or
// the stem of one when the module already has an export of that name.
const startExport = "aclwasm:start"

// hoistStart returns the module without its start section, the start
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
func hoistStart(wasm []byte) ([]byte, string) {
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
	out := make([]byte, 0, len(wasm)+len(startExport)+16)
	out = append(out, wasm[:secs[start].at]...)
	out = append(out, wasm[secs[start].end:]...)
	return addExport(out, 0, fn, startExport, secs[start].at)
}

// section is where one section of a module is: its id byte at at, its
// body from body to end.
type section struct {
	id            byte
	at, body, end int
}

// sections lists the sections of wasm, or false if it cannot be read.
func sections(wasm []byte) ([]section, bool) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, false
	}
	var out []section
	for off := 8; off < len(wasm); {
		size, n := uleb(wasm[off+1:])
		if n == 0 || uint64(len(wasm)-off-1-n) < size {
			return nil, false
		}
		s := section{id: wasm[off], at: off, body: off + 1 + n}
		s.end = s.body + int(size)
		out = append(out, s)
		off = s.end
	}
	return out, true
}

// funcExports returns the names of the functions wasm exports, in the
// order of its export section (none if it cannot be read).
func funcExports(wasm []byte) []string {
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
