package module

import (
	"errors"
	"fmt"
)

// Estimated frame bytes (frameCost): what a compiled function's frame can
// hold at most, written conservatively for wazero's compiler, which spills
// every value live across a call: a fixed part (return address, frame
// pointer, alignment), 16 bytes for each parameter and local (a v128's
// size), and 8 for each byte of code, since an instruction (one byte at
// least) makes at most one value and a value of 16 bytes (v128) takes a
// two-byte instruction at least.
const (
	frameFixed    = 64
	frameLocal    = 16
	frameCodeByte = 8
)

// BoundStack returns wasm with its call stack bounded to limit estimated
// bytes on any engine, and the name of the export of its counter
// ([ExportStack], or a name no export uses): a new
// mutable i32 global counts the estimated frame bytes (frameCost) of the
// calls in progress. Every defined function adds its cost on entry,
// trapping with unreachable first (the counter set to
// engine.StackExhausted) when that would pass limit, and takes it off on every way out but a
// trap: its body is wrapped in a block with the function's results, so
// that falling off its end and a branch to its outermost label (br, br_if,
// br_table) end at the decrement; return becomes a branch to that block;
// return_call and return_call_indirect take it off before the call
// replaces the frame. A trap leaves the count where it was, which does
// not matter: the host ends an instance whose call trapped. Exceptions
// would be the other way out, and they are off on both engines (the
// instruction decoder refuses them).
//
// wazero has no setting for its stack (it grows a Go slice up to 400 MB per
// call); wasmtime has one per engine (max_wasm_stack) but not per
// plugin. The count is the same on both, so a plugin runs as deep on one
// as on the other. A module without functions is returned as is; one the
// rewrite cannot read is an error (the engine's validation names most).
func BoundStack(wasm []byte, limit uint64) ([]byte, string, error) {
	secs, ok := sections(wasm)
	if !ok {
		return wasm, "", nil // not a module: the engine says why
	}
	m, err := readFuncInfo(wasm, secs)
	if err != nil {
		return nil, "", err
	}
	if m.code < 0 {
		return wasm, "", nil
	}
	global := appendUleb(nil, m.globals) // the counter's index
	newTypes := map[string]uint64{}      // multi-value results -> the block type added for them
	var extraTypes []byte
	code, err := rewriteCode(wasm[secs[m.code].body:secs[m.code].end], m, func(ti uint64) ([]byte, error) {
		res := m.types[ti].results
		switch {
		case len(res) == 0:
			return []byte{0x40}, nil
		case m.types[ti].nresults == 1:
			return res, nil
		}
		idx, ok := newTypes[string(res)]
		if !ok {
			idx = uint64(len(m.types)) + uint64(len(newTypes))
			newTypes[string(res)] = idx
			extraTypes = append(extraTypes, 0x60, 0)
			extraTypes = appendUleb(extraTypes, m.types[ti].nresults)
			extraTypes = append(extraTypes, res...)
		}
		return appendSleb(nil, int64(idx)), nil
	}, global, limit)
	if err != nil {
		return nil, "", err
	}
	out := make([]byte, 0, len(wasm)+len(wasm)/8+64)
	out = append(out, wasm[:8]...)
	counter := []byte{0x7f, 1, 0x41, 0, 0x0b} // mut i32 = i32.const 0
	addedGlobal := false
	exportAt := -1 // where a new export section would go
	for k, s := range secs {
		if !addedGlobal && (s.id == 7 || s.id == 8 || s.id == 9 || s.id == 10 || s.id == 11 || s.id == 12) {
			out = appendSection(out, 6, appendUleb(nil, 1), counter)
			addedGlobal = true
		}
		if exportAt < 0 && (s.id == 8 || s.id == 9 || s.id == 10 || s.id == 11 || s.id == 12) {
			exportAt = len(out)
		}
		body := wasm[s.body:s.end]
		switch {
		case s.id == 1 && len(extraTypes) > 0:
			n, k := uleb(body)
			out = appendSection(out, 1, appendUleb(nil, n+uint64(len(newTypes))), body[k:], extraTypes)
		case s.id == 6:
			n, k := uleb(body)
			out = appendSection(out, 6, appendUleb(nil, n+1), body[k:], counter)
			addedGlobal = true
		case k == m.code:
			out = appendSection(out, 10, code)
		default:
			out = append(out, wasm[s.at:s.end]...)
		}
	}
	if exportAt < 0 {
		exportAt = len(out)
	}
	out, name := addExport(out, 3, m.globals, ExportStack, exportAt)
	if name == "" {
		return nil, "", errors.New("stack limit: cannot export the stack counter")
	}
	return out, name, nil
}

// funcType is what the rewrite needs of a function type.
type funcType struct {
	params   uint64
	nresults uint64
	results  []byte // the result types as encoded
}

// funcInfo is what the rewrite needs of a module.
type funcInfo struct {
	types      []funcType
	funcTypes  []uint64 // the type of each defined function
	globals    uint64   // globals, imported and defined: the counter's index
	code       int      // the code section's index in the sections, -1 if none
	importFunc uint64
}

var errStackRead = errors.New("stack limit: cannot read the module to bound its stack")

func readFuncInfo(wasm []byte, secs []section) (*funcInfo, error) {
	m := &funcInfo{code: -1}
	for k, s := range secs {
		r := byteReader{b: wasm[s.body:s.end]}
		switch s.id {
		case 1:
			for n := r.uleb(); n > 0 && !r.bad; n-- {
				if r.byte() != 0x60 {
					return nil, fmt.Errorf("stack limit: type section entry is not a function type: %w", errStackRead)
				}
				var t funcType
				for p := r.uleb(); p > 0 && !r.bad; p-- {
					skipValType(&r)
					t.params++
				}
				t.nresults = r.uleb()
				start := r.b
				for p := t.nresults; p > 0 && !r.bad; p-- {
					skipValType(&r)
				}
				t.results = start[:len(start)-len(r.b)]
				m.types = append(m.types, t)
			}
		case 2:
			readImports(&r, func(e importEntry) {
				switch e.kind {
				case 0:
					m.importFunc++
				case 3:
					m.globals++
				}
			})
		case 3:
			for n := r.uleb(); n > 0 && !r.bad; n-- {
				m.funcTypes = append(m.funcTypes, r.uleb())
			}
		case 6:
			m.globals += r.uleb()
			r.b = nil // the count is all the rewrite needs
		case 10:
			m.code = k
			r.b = nil
		default:
			r.b = nil
		}
		if r.bad || len(r.b) != 0 {
			return nil, errStackRead
		}
	}
	for _, ti := range m.funcTypes {
		if ti >= uint64(len(m.types)) {
			return nil, errStackRead
		}
	}
	return m, nil
}

// rewriteCode returns the code section's body with every function
// instrumented (see [BoundStack]); blockType gives the block type for a
// function type's results.
//
// A leaf, a function that calls no function of the module (calls of
// imports, the host's, do not call back into the guest), is left as it is
// when its cost is within the limit: only one leaf frame can be on top of
// the counted ones, so every counted function checks room for its own
// frame plus the largest such leaf's. Leaves are most of a program's
// small, hot functions (the copy loops of the benchmarks among them),
// which then pay nothing.
func rewriteCode(body []byte, m *funcInfo, blockType func(uint64) ([]byte, error), global []byte, limit uint64) ([]byte, error) {
	r := byteReader{b: body}
	n := r.uleb()
	if r.bad || n != uint64(len(m.funcTypes)) {
		return nil, errStackRead
	}
	fns := make([]funcBody, n)
	var leafRoom uint64 // the largest cost of a leaf left as it is
	for i := range fns {
		size := r.uleb()
		b := r.take(size)
		if r.bad {
			return nil, errStackRead
		}
		f, err := readBody(b, m, m.funcTypes[i], limit)
		if err != nil {
			return nil, fmt.Errorf("stack limit: function %d: %w", m.importFunc+uint64(i), err)
		}
		if f.leaf = f.leaf && f.cost <= limit; f.leaf {
			leafRoom = max(leafRoom, f.cost)
		}
		fns[i] = f
	}
	if len(r.b) != 0 {
		return nil, errStackRead
	}
	out := appendUleb(make([]byte, 0, len(body)+len(body)/8+int(n)*48), n)
	var fn []byte
	for i, f := range fns {
		if f.leaf {
			out = appendUleb(out, uint64(len(f.all)))
			out = append(out, f.all...)
			continue
		}
		bt, err := blockType(m.funcTypes[i])
		if err != nil {
			return nil, err
		}
		fn = rewriteFunc(fn[:0], f, bt, global, int64(limit)-int64(f.cost)-int64(leafRoom))
		out = appendUleb(out, uint64(len(fn)))
		out = append(out, fn...)
	}
	return out, nil
}

// frameCost is the estimated frame bytes of a function (see the constants),
// at most limit+1: past limit every call of it traps.
func frameCost(params, locals uint64, codeBytes int, limit uint64) uint64 {
	cost := frameFixed + frameLocal*(min(params, 1<<32)+min(locals, 1<<32)) + frameCodeByte*uint64(codeBytes)
	return min(cost, limit+1)
}

// funcBody is one function's body read apart.
type funcBody struct {
	all, decl, expr []byte // the body; its locals; its code
	cost            uint64 // frameCost
	leaf            bool   // calls no function of the module
}

// readBody reads a function body: its locals, its cost, whether it is a
// leaf; and checks that the decoder knows every instruction of it and
// that it ends where its size says.
func readBody(b []byte, m *funcInfo, ti uint64, limit uint64) (funcBody, error) {
	f := funcBody{all: b, leaf: true}
	r := byteReader{b: b}
	var locals uint64
	for n := r.uleb(); n > 0 && !r.bad; n-- {
		locals += min(r.uleb(), 1<<32)
		skipValType(&r)
	}
	if r.bad {
		return f, errStackRead
	}
	f.decl, f.expr = b[:len(b)-len(r.b)], r.b
	f.cost = frameCost(m.types[ti].params, locals, len(f.expr), limit)
	depth := 0
	for {
		at := len(b) - len(r.b)
		op := r.byte()
		if r.bad {
			return f, errors.New("the body does not end")
		}
		imm := r.b
		if !skipImmediates(&r, op) {
			return f, fmt.Errorf("instruction 0x%02x at byte %d is not one the stack limit can instrument", op, at)
		}
		switch op {
		case 0x10, 0x12: // call, return_call: of a defined function?
			if idx, _ := uleb(imm); idx >= m.importFunc {
				f.leaf = false
			}
		case 0x11, 0x13: // call_indirect, return_call_indirect: any function
			f.leaf = false
		case 0x02, 0x03, 0x04:
			depth++
		case 0x0b:
			if depth == 0 {
				if len(r.b) != 0 {
					return f, errors.New("code after the body's end")
				}
				return f, nil
			}
			depth--
		}
	}
}

// rewriteFunc appends f instrumented to out: a call traps when the count
// is above threshold (limit less f's cost and the room kept for a leaf).
func rewriteFunc(out []byte, f funcBody, bt, global []byte, threshold int64) []byte {
	// Trap past the limit, leaving the mark; else count the frame.
	out = append(out, f.decl...)
	out = append(out, 0x23)
	out = append(out, global...)
	out = append(out, 0x41)
	out = appendSleb(out, max(threshold, -1))
	out = append(out, 0x4a, 0x04, 0x40, 0x41, 0x7f, 0x24) // i32.gt_s; if; i32.const -1; global.set
	out = append(out, global...)
	out = append(out, 0x00, 0x0b) // unreachable; end
	count := func(out []byte, op byte) []byte {
		out = append(out, 0x23)
		out = append(out, global...)
		out = append(out, 0x41)
		out = appendSleb(out, int64(f.cost))
		out = append(out, op, 0x24)
		return append(out, global...)
	}
	out = count(out, 0x6a) // i32.add
	out = append(out, 0x02)
	out = append(out, bt...)
	r := byteReader{b: f.expr}
	depth := uint64(0) // blocks open inside the body
	for {
		at := len(f.expr) - len(r.b)
		op := r.byte()
		switch op {
		case 0x0f: // return: to the wrapping block, whose end takes the frame off
			out = append(out, 0x0c)
			out = appendUleb(out, depth)
			continue
		case 0x12, 0x13: // return_call*: the callee replaces this frame
			out = count(out, 0x6b)
		}
		skipImmediates(&r, op) // readBody has read it all
		out = append(out, f.expr[at:len(f.expr)-len(r.b)]...)
		switch op {
		case 0x02, 0x03, 0x04:
			depth++
		case 0x0b:
			if depth == 0 { // the body's end, now the wrapping block's
				out = count(out, 0x6b) // i32.sub
				return append(out, 0x0b)
			}
			depth--
		}
	}
}
