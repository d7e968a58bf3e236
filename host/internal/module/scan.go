package module

import "errors"

// Import is one import of a module, as its binary declares it: the host
// refuses a module importing anything but functions, which the engines'
// import lists do not all say.
type Import struct {
	Module, Name string
	Kind         byte // 0 func, 1 table, 2 memory, 3 global, 4 tag
}

var importKinds = [...]string{"function", "table", "memory", "global", "tag"}

// KindName returns the kind of the import in words ("function", "table",
// ...), as the host's refusals name it.
func (im Import) KindName() string {
	if int(im.Kind) < len(importKinds) {
		return importKinds[im.Kind]
	}
	return "unknown import"
}

// Info is what [Scan] reads from a module's binary.
type Info struct {
	Imports   []Import  // every import, with its kind
	MinPages  uint64    // the minimum size in pages of memory 0, defined or imported
	HasMemory bool      // false if the module has no memory
	Code      CodeStats // the sizes of its code section
}

// CodeStats are the sizes in a module's code section that decide how
// long its compilation takes (see [CompileLimits]); each maximum comes
// with the index of the first function (in the code section) that has it.
type CodeStats struct {
	Funcs                int    // function bodies
	MaxBody, MaxBodyAt   int    // bytes of the largest body
	MaxLocals            uint64 // locals declared by one function
	MaxLocalsAt          int
	MaxDepth, MaxDepthAt int // nesting of blocks, loops, ifs and trys in one function
	MaxTable, MaxTableAt int // targets of one br_table, its default included
	Partial              int // bodies whose walk stopped at an opcode it does not know
}

// Scan reads what the engines do not all show from a module's binary:
// every import with its kind, the minimum size in pages of its memory, and
// the sizes of its code ([CodeStats]) that bound its compile time, so that
// a compile bomb is refused before any engine sees it.
func Scan(wasm []byte) (Info, error) {
	var mi Info
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
			readImports(&sec, func(e importEntry) {
				if e.kind == 2 {
					mi.MinPages, mi.HasMemory = e.index, true
				}
				mi.Imports = append(mi.Imports, Import{Module: string(e.module), Name: string(e.name), Kind: e.kind})
			})
		case 5: // memories
			if n := sec.uleb(); n > 0 {
				mi.MinPages, mi.HasMemory = sec.limits(), true
			}
		case 10: // code
			sec.bad = !mi.Code.scan(&sec)
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
func (s *CodeStats) scan(sec *byteReader) bool {
	n := sec.uleb()
	for i := 0; uint64(i) < n && !sec.bad; i++ {
		size := sec.uleb()
		body := byteReader{b: sec.take(size)}
		if sec.bad {
			return false
		}
		s.Funcs++
		if int(size) > s.MaxBody {
			s.MaxBody, s.MaxBodyAt = int(size), i
		}
		var locals uint64
		for d := body.uleb(); d > 0 && !body.bad; d-- {
			v := body.uleb()
			if locals += v; locals < v { // saturate: a sum past 2^64 is over any limit
				locals = ^uint64(0)
			}
			body.byte()
			if locals > s.MaxLocals {
				s.MaxLocals, s.MaxLocalsAt = locals, i
			}
		}
		depth, table, whole := walkCode(body.b)
		if !whole {
			s.Partial++
		}
		if depth > s.MaxDepth {
			s.MaxDepth, s.MaxDepthAt = depth, i
		}
		if table > s.MaxTable {
			s.MaxTable, s.MaxTableAt = table, i
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
