package serve

import "errors"

// funcExports returns the names of the functions a wasm binary exports
// (section 7). The host checks imports, not exports; the server needs to
// know whether a module is a command (exports _start) before any request
// runs it. The host's load check has already refused a malformed binary.
func funcExports(wasm []byte) (map[string]bool, error) {
	errBad := errors.New("malformed wasm binary")
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errBad
	}
	out := map[string]bool{}
	r := reader{b: wasm[8:]}
	for len(r.b) > 0 && !r.bad {
		id := r.byte()
		sec := reader{b: r.take(r.uleb())}
		if id != 7 {
			continue
		}
		for n := sec.uleb(); n > 0 && !sec.bad; n-- {
			name := string(sec.take(sec.uleb()))
			kind := sec.byte()
			sec.uleb() // index
			if kind == 0 {
				out[name] = true
			}
		}
		r.bad = r.bad || sec.bad
	}
	if r.bad {
		return nil, errBad
	}
	return out, nil
}

// reader reads a wasm binary; bad records a read past the end or a
// malformed LEB128, after which every read gives zero.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) take(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) uleb() uint64 {
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
