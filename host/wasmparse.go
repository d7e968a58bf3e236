package host

import "errors"

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
