package module

import "fmt"

// BoundTables returns wasm with every table it defines given a maximum, so
// that table.grow past the policy returns -1 as past any declared maximum:
// the tables together may hold at most maxEntries entries. The first
// tables get the headroom first: table i's maximum is its minimum plus
// what is left of maxEntries after every table's minimum, up to its own
// declared maximum. A module whose tables need more than maxEntries at
// start gets a problem instead. Without a table section, or with one this
// parser cannot read, the module is returned as is (the engine's
// validation then says why; imported tables are refused by the import
// check).
func BoundTables(wasm []byte, maxEntries uint64) ([]byte, []string) {
	secs, ok := sections(wasm)
	if !ok {
		return wasm, nil
	}
	for _, s := range secs {
		if s.id != 4 {
			continue
		}
		tabs, ok := readTables(wasm[s.body:s.end])
		if !ok {
			return wasm, nil
		}
		var need uint64
		for _, t := range tabs {
			need = min(need+min(t.min, 1<<40), 1<<62) // saturating: no overflow
		}
		if need > maxEntries {
			return wasm, []string{fmt.Sprintf("tables need %d entries at start, the policy allows %d (MaxTableEntries)", need, maxEntries)}
		}
		left := maxEntries - need
		body := appendUleb(nil, uint64(len(tabs)))
		for _, t := range tabs {
			extra := left
			if t.hasMax {
				extra = min(extra, t.max-min(t.max, t.min))
			}
			left -= extra
			body = append(body, t.prefix...)
			body = append(body, 1) // limits with a maximum
			body = appendUleb(body, t.min)
			body = appendUleb(body, t.min+extra)
			body = append(body, t.init...)
		}
		out := make([]byte, 0, len(wasm)+8*len(tabs))
		out = append(out, wasm[:s.at]...)
		out = append(out, 4)
		out = appendUleb(out, uint64(len(body)))
		out = append(out, body...)
		return append(out, wasm[s.end:]...), nil
	}
	return wasm, nil
}

// table is one table of a table section: the bytes before its limits
// (the reference type, with the 0x40 0x00 form's prefix), its limits, and
// the bytes after them (the 0x40 form's initializer).
type table struct {
	prefix, init []byte
	min, max     uint64
	hasMax       bool
}

// readTables reads a table section's body, or reports false.
func readTables(body []byte) ([]table, bool) {
	r := byteReader{b: body}
	n := r.uleb()
	var tabs []table
	for ; n > 0 && !r.bad; n-- {
		var t table
		start := r.b
		withInit := len(r.b) > 1 && r.b[0] == 0x40 && r.b[1] == 0x00
		if withInit {
			r.take(2)
		}
		if !skipRefType(&r) {
			return nil, false
		}
		t.prefix = start[:len(start)-len(r.b)]
		switch flags := r.byte(); flags {
		case 0:
			t.min = r.uleb()
		case 1:
			t.min, t.max, t.hasMax = r.uleb(), r.uleb(), true
		default: // 64-bit tables and shared tables: off on both engines
			return nil, false
		}
		if withInit {
			rest := r.b
			if !skipConstExpr(&r) {
				return nil, false
			}
			t.init = rest[:len(rest)-len(r.b)]
		}
		tabs = append(tabs, t)
	}
	if r.bad || len(r.b) != 0 {
		return nil, false
	}
	return tabs, true
}

// skipRefType reads a reference type: funcref or externref (0x70, 0x6f),
// or a (ref null? ht) of the function references proposal.
func skipRefType(r *byteReader) bool {
	switch r.byte() {
	case 0x70, 0x6f:
		return !r.bad
	case 0x63, 0x64: // (ref null ht), (ref ht): the heap type, an s33
		r.uleb()
		return !r.bad
	}
	return false
}

// skipConstExpr reads a constant expression up to its end (0x0b) with the
// instruction decoder the stack rewrite uses.
func skipConstExpr(r *byteReader) bool {
	for !r.bad {
		op := r.byte()
		if op == 0x0b {
			return !r.bad
		}
		if !skipImmediates(r, op) {
			return false
		}
	}
	return false
}
