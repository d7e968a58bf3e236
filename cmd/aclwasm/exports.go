package main

import (
	"bytes"
	"errors"
)

// funcExports returns the names of the functions a wasm module exports, in
// the order of its export section. It reads only the section headers and
// the export section; a module it cannot read gives an error (Load then
// says what is wrong with it).
func funcExports(wasm []byte) ([]string, error) {
	if !bytes.HasPrefix(wasm, []byte("\x00asm\x01\x00\x00\x00")) {
		return nil, errors.New("not a wasm module")
	}
	r := wasmReader{b: wasm[8:]}
	for len(r.b) > 0 {
		id := r.byte()
		size := r.uleb()
		if r.err != nil || size > uint64(len(r.b)) {
			return nil, errors.New("truncated section")
		}
		body := wasmReader{b: r.b[:size]}
		r.b = r.b[size:]
		if id != 7 { // not the export section
			continue
		}
		var names []string
		for n := body.uleb(); n > 0 && body.err == nil; n-- {
			name := body.bytes(body.uleb())
			kind := body.byte()
			body.uleb() // the index
			if kind == 0 {
				names = append(names, string(name))
			}
		}
		return names, body.err
	}
	return nil, nil
}

// wasmReader reads LEB128 numbers and bytes, remembering the first error.
type wasmReader struct {
	b   []byte
	err error
}

var errTruncated = errors.New("truncated module")

func (r *wasmReader) byte() byte {
	if len(r.b) == 0 {
		r.err = errTruncated
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *wasmReader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errTruncated
	return 0
}

func (r *wasmReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.err = errTruncated
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}
