package bench

import (
	"fmt"

	"github.com/aclwasm/aclwasm/abi"
)

// The guest is built here, in Go, rather than from a .wat file: the suite
// must run where no wat2wasm is installed, and its module depends on the
// largest size (its memory's initial pages).

// imports are the ACL functions the guest calls; the first five are also
// exported unchanged ("proxies"), so that the host sets up the session
// through the sandbox as a guest would.
var imports = []string{
	"aclrtSetDevice", "aclrtMalloc", "aclrtFree", "aclrtCreateStream", "aclrtDestroyStream",
	"aclrtMemcpy", "aclrtMemcpyAsync", "aclrtSynchronizeStream", "aclrtMemcpy2d",
	"aclrtMemcpyBatch",
}

const (
	proxies    = 5
	fnMemcpy   = 5
	fnAsync    = 6
	fnSync     = 7
	fn2D       = 8
	fnBatch    = 9
	loopExport = "copy_loop"
	// headerSize is the guest memory before the data area: output slots.
	headerSize = 64 << 10
	pageSize   = 64 << 10
)

// guestPages returns the linear memory pages a guest copying up to max
// bytes needs: the header and one data area.
func guestPages(max uint64) uint64 { return (headerSize + max + pageSize - 1) / pageSize }

// guestModule returns a module whose memory has pages pages and whose
// export copy_loop(dst, src, n i64, kind, iters, stream, mode i32, w, h i64)
// -> i32 calls aclrtMemcpy (mode 0), aclrtMemcpyAsync on stream (mode 1) or
// aclrtMemcpy2d of h rows of w bytes, pitch w (mode 2) or aclrtMemcpyBatch
// of h entries whose arrays the host wrote at batchArrays (mode 3) iters times,
// stopping at the first error, then for mode 1 synchronizes the stream. It
// returns the first ACL status that is not 0, or 0.
func guestModule(pages uint64) ([]byte, error) {
	const (
		i32 = 0x7f
		i64 = 0x7e
	)
	var types [][]byte // func types, index = import index, then the loop
	for _, name := range imports {
		f := abi.Lookup(name)
		if f == nil {
			return nil, fmt.Errorf("bench: the ABI has no %s", name)
		}
		var ps []byte
		for _, p := range f.Params {
			if p.Type.Is64() {
				ps = append(ps, i64)
			} else {
				ps = append(ps, i32)
			}
		}
		types = append(types, funcType(ps, i32))
	}
	loopType := len(types)
	types = append(types, funcType([]byte{i64, i64, i64, i32, i32, i32, i32, i64, i64}, i32))

	var m []byte
	m = append(m, 0, 'a', 's', 'm', 1, 0, 0, 0)
	m = section(m, 1, vec(types))
	var imps [][]byte
	for i, name := range imports {
		e := append(str(abi.Module), str(name)...)
		imps = append(imps, append(append(e, 0x00), uleb(uint64(i))...))
	}
	m = section(m, 2, vec(imps))
	var funcs [][]byte
	for i := 0; i < proxies; i++ {
		funcs = append(funcs, uleb(uint64(i)))
	}
	funcs = append(funcs, uleb(uint64(loopType)))
	m = section(m, 3, vec(funcs))
	m = section(m, 5, vec([][]byte{append([]byte{0x00}, uleb(pages)...)}))
	exps := [][]byte{append(str("memory"), 0x02, 0x00)}
	for i := 0; i < proxies; i++ {
		exps = append(exps, append(append(str(imports[i]), 0x00), uleb(uint64(len(imports)+i))...))
	}
	exps = append(exps, append(append(str(loopExport), 0x00), uleb(uint64(len(imports)+proxies))...))
	m = section(m, 7, vec(exps))

	var codes [][]byte
	for i := 0; i < proxies; i++ {
		var body []byte
		for p := range abi.Lookup(imports[i]).Params {
			body = append(body, 0x20, byte(p)) // local.get p
		}
		body = append(body, 0x10, byte(i), 0x0b) // call i; end
		codes = append(codes, code(nil, body))
	}
	// Locals: 0 dst, 1 src, 2 n, 3 kind, 4 iters, 5 stream, 6 mode, 7 w,
	// 8 h; 9 r.
	get := func(l byte) []byte { return []byte{0x20, l} }
	var b []byte
	b = append(b, 0x02, 0x40, 0x03, 0x40) // block, loop
	b = append(b, get(6)...)
	b = append(b, 0x04, i32) // if mode != 0 (result i32)
	b = append(b, get(6)...)
	b = append(b, 0x41, 2, 0x46, 0x04, i32) // if mode == 2 (result i32)
	b = append(b, cat(get(0), get(7), get(1), get(7), get(7), get(8), get(3))...)
	b = append(b, 0x10, fn2D)
	b = append(b, 0x05) // else
	b = append(b, get(6)...)
	b = append(b, 0x41, 3, 0x46, 0x04, i32) // if mode == 3 (result i32)
	i32c := func(v int64) []byte { return append([]byte{0x41}, sleb(v)...) }
	b = append(b, cat(i32c(batchDsts), i32c(batchDestMaxs), i32c(batchSrcs), i32c(batchSizes), get(8),
		i32c(batchAttrs), i32c(batchAttrIdx), []byte{0x42, 1}, i32c(batchFail))...)
	b = append(b, 0x10, fnBatch)
	b = append(b, 0x05) // else: async
	b = append(b, cat(get(0), get(2), get(1), get(2), get(3), get(5))...)
	b = append(b, 0x10, fnAsync, 0x0b, 0x0b)
	b = append(b, 0x05) // else: sync
	b = append(b, cat(get(0), get(2), get(1), get(2), get(3))...)
	b = append(b, 0x10, fnMemcpy, 0x0b) // end if
	b = append(b, 0x22, 9, 0x0d, 1)     // local.tee r; br_if block
	b = append(b, get(4)...)
	b = append(b, 0x41, 1, 0x6b, 0x22, 4, 0x0d, 0) // iters-1, tee, br_if loop
	b = append(b, 0x0b, 0x0b)                      // end loop, end block
	b = append(b, get(9)...)
	b = append(b, 0x04, 0x40) // if r != 0: return r
	b = append(b, get(9)...)
	b = append(b, 0x0f, 0x0b)
	b = append(b, get(6)...)
	b = append(b, 0x41, 1, 0x46, 0x04, i32) // if mode == 1: synchronize
	b = append(b, get(5)...)
	b = append(b, 0x10, fnSync, 0x05, 0x41, 0, 0x0b)
	b = append(b, 0x0b) // end func
	codes = append(codes, code([]byte{1, 1, i32}, b))
	m = section(m, 10, vec(codes))
	return m, nil
}

func funcType(params []byte, result byte) []byte {
	t := append([]byte{0x60}, uleb(uint64(len(params)))...)
	t = append(t, params...)
	return append(t, 1, result)
}

// code encodes a function body; locals is its encoded local declarations
// (nil for none).
func code(locals, body []byte) []byte {
	if locals == nil {
		locals = []byte{0}
	}
	c := append(append([]byte(nil), locals...), body...)
	return append(uleb(uint64(len(c))), c...)
}

func section(m []byte, id byte, content []byte) []byte {
	m = append(m, id)
	m = append(m, uleb(uint64(len(content)))...)
	return append(m, content...)
}

func vec(items [][]byte) []byte {
	v := uleb(uint64(len(items)))
	for _, it := range items {
		v = append(v, it...)
	}
	return v
}

func str(s string) []byte { return append(uleb(uint64(len(s))), s...) }

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func sleb(v int64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 && c&0x40 == 0 || v == -1 && c&0x40 != 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func uleb(v uint64) []byte {
	var b []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}
