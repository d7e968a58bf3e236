package module

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

func appendSection(out []byte, id byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out = append(out, id)
	out = appendUleb(out, uint64(n))
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func appendSleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	b = appendUleb(b, uint64(len(s)))
	return append(b, s...)
}

// importEntry is one entry of an import section: its names, its kind (0
// function, 1 table, 2 memory, 3 global, 4 tag) and what the readers of
// this package need of its description: a function's type index, a
// memory's minimum size in pages.
type importEntry struct {
	module, name []byte
	kind         byte
	index        uint64 // a function's type index; a memory's minimum pages
}

// readImports reads the entries of an import section from r, calling each
// for every one, and reports whether they were well formed: the one reader
// of import descriptions, so that every pass over a module agrees on them.
func readImports(r *byteReader, each func(importEntry)) bool {
	for n := r.uleb(); n > 0 && !r.bad; n-- {
		e := importEntry{module: r.take(r.uleb()), name: r.take(r.uleb()), kind: r.byte()}
		switch e.kind {
		case 0: // type index
			e.index = r.uleb()
		case 1: // reftype, limits
			skipRefType(r)
			r.limits()
		case 2:
			e.index = r.limits()
		case 3: // valtype, mutability
			skipValType(r)
			r.byte()
		case 4: // attribute, type index
			r.byte()
			r.uleb()
		default:
			r.bad = true
		}
		if r.bad {
			return false
		}
		each(e)
	}
	return !r.bad
}
