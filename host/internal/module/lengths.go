package module

import "fmt"

// Lengths returns the problem of a module that declares a length longer
// than the bytes left in it (as wazero reads them: a section's entries on
// past its end): a vector of a section's entries, of a
// function type's parameters or results, of an element or data segment,
// of a code body's local declarations or of the name section's names, or
// a name's, a code body's or a custom section's bytes. Such a module is
// malformed (every element takes a byte at least), and it is refused
// before any engine reads it because wazero allocates what a length
// declares before reading the elements: a module of 45 bytes declaring
// 2^32 tables makes it ask for 80 GiB, a fatal error of the whole host
// process, which no recover stops. The walk stops, with no problem, at
// the first thing it does not know (the engine's validation decides). The
// engines ignore a malformed name section, which SanitizeNames drops:
// the host checks the lengths of a module's sanitized bytes.
func Lengths(wasm []byte) []string {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil
	}
	var prob string
	r := byteReader{b: wasm[8:]}
	for !r.done() && prob == "" {
		id := r.byte()
		size := r.uleb()
		if r.bad {
			return nil
		}
		if id == 0 && size > uint64(len(r.b)) { // wazero allocates a custom section's size
			return []string{fmt.Sprintf("custom section: size %d, more than the %d bytes left in the module (malformed)", size, len(r.b))}
		}
		// wazero reads a section's entries on from its body, past its
		// end if they go on, and checks its size only after.
		l := lengthReader{r: byteReader{b: r.b}, size: size, sec: id}
		l.section()
		prob = l.prob
		r.take(size)
	}
	if prob == "" {
		return nil
	}
	return []string{prob}
}

// sectionNames name the sections in Lengths' problems.
var sectionNames = [...]string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count", "tag"}

// lengthReader walks one section for Lengths: prob is its first problem,
// and a read that fails otherwise (r.bad) ends the walk.
type lengthReader struct {
	r    byteReader // the module's bytes from the section's body on
	size uint64     // the section's declared size
	sec  byte
	prob string
}

// n reads a length of what and reports whether it fits the bytes left.
func (l *lengthReader) n(what string) (uint64, bool) {
	n := l.r.uleb()
	if l.r.bad {
		return 0, false
	}
	if n > uint64(len(l.r.b)) {
		name := fmt.Sprintf("section %d", l.sec)
		if int(l.sec) < len(sectionNames) {
			name = sectionNames[l.sec] + " section"
		}
		l.prob = fmt.Sprintf("%s: %s %d, more than the %d bytes left in the module (malformed)", name, what, n, len(l.r.b))
		return 0, false
	}
	return n, true
}

// bytes reads a vector of bytes (a name, a body, a segment's data).
func (l *lengthReader) bytes(what string) bool {
	n, ok := l.n(what)
	if ok {
		l.r.take(n)
	}
	return ok
}

// each reads a vector's length and calls f for each element while f and
// the reads succeed.
func (l *lengthReader) each(what string, f func() bool) bool {
	n, ok := l.n(what)
	for ; ok && n > 0; n-- {
		ok = f() && !l.r.bad
	}
	return ok
}

func (l *lengthReader) section() {
	r := &l.r
	switch l.sec {
	case 0: // custom: its name, and the name section's lengths
		before := len(r.b)
		n, ok := l.n("name length")
		if ok && string(r.take(n)) == "name" && uint64(before-len(r.b)) <= l.size {
			l.names(l.size - uint64(before-len(r.b)))
		}
	case 1:
		l.each("function types", func() bool {
			if r.byte() != 0x60 {
				return false
			}
			vt := func() bool { skipValType(r); return true }
			return l.each("parameters", vt) && l.each("results", vt)
		})
	case 2:
		l.each("imports", func() bool {
			if !l.bytes("module name length") || !l.bytes("name length") {
				return false
			}
			switch r.byte() {
			case 0:
				r.uleb()
			case 1:
				skipRefType(r)
				r.limits()
			case 2:
				r.limits()
			case 3:
				skipValType(r)
				r.byte()
			case 4:
				r.byte()
				r.uleb()
			default:
				return false
			}
			return true
		})
	case 3, 4, 5, 6, 13:
		l.n("entries")
	case 7:
		l.each("exports", func() bool {
			if !l.bytes("name length") {
				return false
			}
			r.byte()
			r.uleb()
			return true
		})
	case 9:
		l.each("element segments", l.element)
	case 10:
		l.each("function bodies", func() bool {
			n, ok := l.n("body size")
			if !ok {
				return false
			}
			body := lengthReader{r: byteReader{b: r.take(n)}, sec: l.sec}
			body.each("local declarations", func() bool { body.r.uleb(); skipValType(&body.r); return true })
			l.prob = body.prob
			return body.prob == ""
		})
	case 11:
		l.each("data segments", func() bool {
			switch r.uleb() {
			case 0:
				skipConstExpr(r)
			case 1:
			case 2:
				r.uleb()
				skipConstExpr(r)
			default:
				return false
			}
			return !r.bad && l.bytes("data length")
		})
	}
}

// element reads an element segment (its 8 encodings).
func (l *lengthReader) element() bool {
	r := &l.r
	flags := r.uleb()
	if flags > 7 {
		return false
	}
	if flags&3 == 2 { // a table index
		r.uleb()
	}
	if flags&1 == 0 && !skipConstExpr(r) { // active: the offset
		return false
	}
	if flags&3 != 0 { // an element kind or a reference type
		if flags&4 == 0 {
			r.byte()
		} else if !skipRefType(r) {
			return false
		}
	}
	if flags&4 == 0 {
		return l.each("function indices", func() bool { r.uleb(); return true })
	}
	return l.each("element expressions", func() bool { return skipConstExpr(r) })
}

// names walks a name section's subsections of names as wazero does: while
// the section's size left, limit, lasts (its arithmetic wrapping as
// wazero's), each read from the bytes that follow whatever its declared
// size, up to the module's end.
func (l *lengthReader) names(limit uint64) {
	r := &l.r
	name := func() bool { r.uleb(); return l.bytes("name length") }
	for limit > 0 && !r.done() && l.prob == "" {
		id := r.byte()
		before := len(r.b)
		size := r.uleb()
		limit -= 1 + uint64(before-len(r.b))
		switch id {
		case 0:
			l.bytes("module name length")
		case 1:
			l.each("function names", name)
		case 2:
			l.each("functions' local names", func() bool { r.uleb(); return l.each("local names", name) })
		default:
			r.take(size)
		}
		limit -= size
	}
}

// localNames checks the lengths of a name section's local names
// (subsection 2), which wazero allocates before reading: sanitizeNameSection
// drops a section with a problem, as the engines ignore it.
func localNames(sub []byte) bool {
	l := lengthReader{r: byteReader{b: sub}}
	r := &l.r
	name := func() bool { r.uleb(); return l.bytes("name length") }
	l.each("functions' local names", func() bool { r.uleb(); return l.each("local names", name) })
	return l.prob == ""
}
