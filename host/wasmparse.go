package host

import (
	"errors"
	"fmt"
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

// moduleInfo is what scanModule reads from a module's binary.
type moduleInfo struct {
	imps     []wasmImport // every import, with its kind
	minPages uint64       // the minimum size in pages of memory 0, defined or imported
	hasMem   bool         // false if the module has no memory
	code     codeStats
}

// codeStats are the sizes in a module's code section that decide how
// long its compilation takes (see compileLimits); each maximum comes
// with the index of the first function (in the code section) that has it.
type codeStats struct {
	funcs                int    // function bodies
	maxBody, maxBodyAt   int    // bytes of the largest body
	maxLocals            uint64 // locals declared by one function
	maxLocalsAt          int
	maxDepth, maxDepthAt int // nesting of blocks, loops, ifs and trys in one function
	maxTable, maxTableAt int // targets of one br_table, its default included
	partial              int // bodies whose walk stopped at an opcode it does not know
}

// scanModule reads what the engines do not all show from a module's
// binary: every import with its kind, the minimum size in pages of its
// memory, and the sizes of its code (codeStats) that bound its compile
// time, so that a compile bomb is refused before any engine sees it.
func scanModule(wasm []byte) (moduleInfo, error) {
	var mi moduleInfo
	errBad := errors.New("malformed wasm binary")
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return mi, errBad
	}
	r := byteReader{b: wasm[8:]}
	for !r.done() {
		id := r.byte()
		size := r.uleb()
		sec := byteReader{b: r.take(size)}
		if r.bad {
			return mi, errBad
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
					mi.minPages, mi.hasMem = sec.limits(), true
				case 3: // valtype, mutability
					sec.byte()
					sec.byte()
				case 4: // attribute, type index
					sec.byte()
					sec.uleb()
				default:
					sec.bad = true
				}
				mi.imps = append(mi.imps, im)
			}
		case 5: // memories
			if n := sec.uleb(); n > 0 {
				mi.minPages, mi.hasMem = sec.limits(), true
			}
		case 10: // code
			sec.bad = !mi.code.scan(&sec)
		}
		if sec.bad {
			return mi, errBad
		}
	}
	return mi, nil
}

// scan reads a code section's body into s, or returns false if it is
// malformed. Each body's instructions are walked for their nesting and
// br_table sizes; the walk of a body stops at an opcode it does not know
// (a proposal this reader does not cover: the engine's validation decides,
// and the compile timeout bounds it).
func (s *codeStats) scan(sec *byteReader) bool {
	n := sec.uleb()
	for i := 0; uint64(i) < n && !sec.bad; i++ {
		size := sec.uleb()
		body := byteReader{b: sec.take(size)}
		if sec.bad {
			return false
		}
		s.funcs++
		if int(size) > s.maxBody {
			s.maxBody, s.maxBodyAt = int(size), i
		}
		var locals uint64
		for d := body.uleb(); d > 0 && !body.bad; d-- {
			v := body.uleb()
			if locals += v; locals < v { // saturate: a sum past 2^64 is over any limit
				locals = ^uint64(0)
			}
			body.byte()
			if locals > s.maxLocals {
				s.maxLocals, s.maxLocalsAt = locals, i
			}
		}
		depth, table, whole := walkCode(body.b)
		if !whole {
			s.partial++
		}
		if depth > s.maxDepth {
			s.maxDepth, s.maxDepthAt = depth, i
		}
		if table > s.maxTable {
			s.maxTable, s.maxTableAt = table, i
		}
	}
	return !sec.bad
}

// Immediates of each opcode, for walkCode.
const (
	opUnknown  = iota // a proposal walkCode does not cover: it stops there
	opNone            // no immediates
	opLeb             // one LEB128: an index, or a signed constant
	opLeb2            // two LEB128s
	opBlock           // a block type, and one level deeper
	opEnd             // one level up
	opBrTable         // targets, then the default
	opMemarg          // alignment (bit 6: a memory index follows), offset
	opF32             // 4 bytes
	opF64             // 8 bytes
	opSelect          // a vector of value types
	opTryTable        // a block type, catch clauses, one level deeper
	opHeapType        // a heap type (like a block type)
	opPrefixFC        // saturating truncations, bulk memory, tables
	opPrefixFD        // SIMD
)

var opImmediates = func() (t [256]byte) {
	set := func(k byte, ops ...int) {
		for _, op := range ops {
			t[op] = k
		}
	}
	span := func(from, to int) []int {
		var out []int
		for op := from; op <= to; op++ {
			out = append(out, op)
		}
		return out
	}
	set(opNone, 0x00, 0x01, 0x05, 0x0a, 0x0f, 0x19, 0x1a, 0x1b, 0xd1, 0xd3, 0xd5)
	set(opNone, span(0x45, 0xc4)...) // numeric, sign extension
	set(opLeb, 0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0x18, 0x3f, 0x40, 0x41, 0x42, 0xd2, 0xd4, 0xd6)
	set(opLeb, span(0x20, 0x26)...) // locals, globals, table.get/set
	set(opLeb2, 0x11, 0x13)         // call_indirect, return_call_indirect: type, table
	set(opBlock, 0x02, 0x03, 0x04, 0x06)
	set(opEnd, 0x0b)
	set(opBrTable, 0x0e)
	set(opMemarg, span(0x28, 0x3e)...)
	set(opF32, 0x43)
	set(opF64, 0x44)
	set(opSelect, 0x1c)
	set(opTryTable, 0x1f)
	set(opHeapType, 0xd0)
	set(opPrefixFC, 0xfc)
	set(opPrefixFD, 0xfd)
	return t
}()

// walkCode reads a function's instructions and returns their deepest
// nesting of blocks and the most targets of one br_table, and whether it
// read them all (false: it stopped at an opcode it does not know). It reads each
// opcode's immediates and nothing else (validation is the engine's), on
// bytes directly: it runs on every Load.
func walkCode(b []byte) (maxDepth, maxTable int, whole bool) {
	depth := 0
	skip := func(i int) int { // past one LEB128
		for i < len(b) && b[i]&0x80 != 0 {
			i++
		}
		return i + 1
	}
	leb := func(i int) (uint64, int) {
		var v uint64
		for shift := uint(0); i < len(b); shift += 7 {
			c := b[i]
			i++
			if shift < 64 {
				v |= uint64(c&0x7f) << shift
			}
			if c&0x80 == 0 {
				return v, i
			}
		}
		return v, i
	}
	blockType := func(i int) int {
		if i < len(b) && (b[i] == 0x40 || b[i] >= 0x6f && b[i] <= 0x7f) {
			return i + 1
		}
		return skip(i)
	}
	memarg := func(i int) int {
		if i < len(b) && b[i]&0x40 != 0 {
			i = skip(i)
		}
		return skip(skip(i))
	}
	for i := 0; i < len(b); {
		op := b[i]
		i++
		switch opImmediates[op] {
		case opNone:
		case opLeb:
			i = skip(i)
		case opLeb2:
			i = skip(skip(i))
		case opBlock:
			i = blockType(i)
			if depth++; depth > maxDepth {
				maxDepth = depth
			}
		case opEnd:
			depth--
		case opBrTable:
			var n uint64
			n, i = leb(i)
			if n >= uint64(maxTable) {
				maxTable = int(min(n+1, 1<<32))
			}
			for ; n > 0 && i < len(b); n-- {
				i = skip(i)
			}
			i = skip(i)
		case opMemarg:
			i = memarg(i)
		case opF32:
			i += 4
		case opF64:
			i += 8
		case opSelect:
			var n uint64
			n, i = leb(i)
			i += int(min(n, uint64(len(b))))
		case opTryTable:
			i = blockType(i)
			var n uint64
			for n, i = leb(i); n > 0 && i < len(b); n-- {
				if b[i] < 2 { // catch, catch_ref: a tag, then the label
					i = skip(i + 1)
				} else {
					i++
				}
				i = skip(i)
			}
			if depth++; depth > maxDepth {
				maxDepth = depth
			}
		case opHeapType:
			i = blockType(i)
		case opPrefixFC:
			var sub uint64
			switch sub, i = leb(i); {
			case sub <= 7: // trunc_sat
			case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init, memory.copy, table.init, table.copy
				i = skip(skip(i))
			case sub == 9 || sub == 11 || sub == 13 || sub >= 15 && sub <= 17: // data.drop, memory.fill, elem.drop, table.grow/size/fill
				i = skip(i)
			default:
				return maxDepth, maxTable, false
			}
		case opPrefixFD:
			var sub uint64
			switch sub, i = leb(i); {
			case sub <= 11 || sub == 92 || sub == 93: // loads and stores
				i = memarg(i)
			case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
				i += 16
			case sub >= 21 && sub <= 34: // extract and replace lane
				i++
			case sub >= 84 && sub <= 91: // load and store lane
				i = memarg(i) + 1
			case sub > 275: // past relaxed SIMD
				return maxDepth, maxTable, false
			}
		default: // GC, threads, or not wasm at all
			return maxDepth, maxTable, false
		}
	}
	return maxDepth, maxTable, true
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

// Defaults of the compile limits, Policy's MaxModuleBytes to
// MaxBrTableTargets: Load checks them before compiling, because neither
// engine can stop a compilation in progress and some modules take minutes
// (a function of 100,000 nested blocks, a br_table of a million targets).
// They are generous for real plugins: the Go, Rust, C, C++ and
// AssemblyScript samples stay far below each (TestCompileLimitsSamples);
// the compile timeout (Policy.CompileTimeout) bounds what stays within
// them.
const (
	DefaultMaxModuleBytes       = 64 << 20
	DefaultMaxFunctions         = 1_000_000
	DefaultMaxFunctionBodyBytes = 8 << 20
	DefaultMaxLocals            = 50_000
	DefaultMaxBlockDepth        = 10_000
	DefaultMaxBrTableTargets    = 16_384
)

// compileLimits returns the problems of a module of size bytes whose code
// has the sizes c under the limits of p, one per limit exceeded.
func compileLimits(size int, c codeStats, p *Policy) []string {
	var probs []string
	over := func(what string, v uint64, limit uint64, name string) {
		if v > limit {
			probs = append(probs, fmt.Sprintf("%s: %d, more than the limit %d (%s)", what, v, limit, name))
		}
	}
	over("module size in bytes", uint64(size), p.MaxModuleBytes, "MaxModuleBytes")
	over("function bodies", uint64(c.funcs), uint64(p.MaxFunctions), "MaxFunctions")
	over(fmt.Sprintf("function %d: body size in bytes", c.maxBodyAt), uint64(c.maxBody), p.MaxFunctionBodyBytes, "MaxFunctionBodyBytes")
	over(fmt.Sprintf("function %d: locals", c.maxLocalsAt), c.maxLocals, uint64(p.MaxLocals), "MaxLocals")
	over(fmt.Sprintf("function %d: nesting depth of blocks", c.maxDepthAt), uint64(c.maxDepth), uint64(p.MaxBlockDepth), "MaxBlockDepth")
	over(fmt.Sprintf("function %d: br_table targets", c.maxTableAt), uint64(c.maxTable), uint64(p.MaxBrTableTargets), "MaxBrTableTargets")
	return probs
}
