package host

import (
	"errors"
)

// memoryMinPages returns the minimum size in pages of the module's memory,
// defined or imported, read straight from the binary: an engine only shows
// exported and imported memories, and a minimum above the policy must be
// refused before instantiation.
func memoryMinPages(wasm []byte) (uint64, bool, error) {
	errBad := errors.New("malformed wasm binary")
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return 0, false, errBad
	}
	p := wasm[8:]
	for len(p) > 0 {
		id := p[0]
		size, n := uleb(p[1:])
		if n == 0 || uint64(len(p)-1-n) < size {
			return 0, false, errBad
		}
		sec := p[1+n : 1+n+int(size)]
		p = p[1+n+int(size):]
		switch id {
		case 2: // imports: skip to a memory import
			count, k := uleb(sec)
			sec = sec[k:]
			for i := uint64(0); i < count && k > 0; i++ {
				for j := 0; j < 2; j++ { // module and field names
					l, m := uleb(sec)
					if m == 0 || uint64(len(sec)-m) < l {
						return 0, false, errBad
					}
					sec = sec[m+int(l):]
				}
				if len(sec) == 0 {
					return 0, false, errBad
				}
				kind := sec[0]
				sec = sec[1:]
				switch kind {
				case 0: // func: type index
					_, k = uleb(sec)
					sec = sec[k:]
				case 1: // table: reftype + limits
					if len(sec) == 0 {
						return 0, false, errBad
					}
					sec, k = skipLimits(sec[1:])
				case 2: // memory
					min, _ := limitsMin(sec)
					return min, true, nil
				case 3: // global: valtype + mut
					if len(sec) < 2 {
						return 0, false, errBad
					}
					sec = sec[2:]
				default:
					return 0, false, errBad
				}
			}
		case 5: // memories
			count, k := uleb(sec)
			if count == 0 {
				return 0, false, nil
			}
			min, _ := limitsMin(sec[k:])
			return min, true, nil
		}
	}
	return 0, false, nil
}

func limitsMin(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	v, n := uleb(b[1:])
	return v, n
}

func skipLimits(b []byte) ([]byte, int) {
	if len(b) == 0 {
		return b, 0
	}
	flags := b[0]
	b = b[1:]
	_, n := uleb(b)
	b = b[n:]
	if flags&1 != 0 {
		_, m := uleb(b)
		b = b[m:]
	}
	return b, 1
}

// uleb decodes an unsigned LEB128 value; n is 0 when b is malformed.
func uleb(b []byte) (v uint64, n int) {
	for shift := uint(0); n < len(b) && shift < 64; shift += 7 {
		c := b[n]
		n++
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, n
		}
	}
	return 0, 0
}
