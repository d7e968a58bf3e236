package module

import (
	"strconv"
	"unicode/utf8"
)

// MaxNameBytes is the most bytes of a guest function's (or module's) name
// that reach a backtrace: longer names are cut to it at load time
// ([SanitizeNames]) and again when a trap is read (engine.MaxNameBytes), so
// that a trap of a deep recursion through functions with huge names cannot
// make the engine build a huge backtrace.
const MaxNameBytes = 256

// printable returns s as it may be printed to a terminal or a log line:
// unchanged when it is valid UTF-8 without control characters, otherwise
// escaped as strconv.Quote escapes (\x1b, \r, \n, \u2028...) without the
// quotes. A guest names its functions, and its names reach stderr, slog
// records and HTTP error bodies in backtraces: raw, an ESC or a newline
// would let it forge terminal output and log lines.
func printable(s string) string {
	for _, r := range s {
		if r == utf8.RuneError || !strconv.IsPrint(r) {
			q := strconv.Quote(s)
			return q[1 : len(q)-1]
		}
	}
	return s
}

// ShortName returns printable(s) cut to at most [MaxNameBytes] bytes, at a
// character boundary and ending in "..." when it was cut. The host shows a
// guest's names (of imports, of trap frames) only through it.
func ShortName(s string) string {
	if len(s) > 4*MaxNameBytes {
		s = s[:4*MaxNameBytes] // printable's escapes at most quadruple a byte
	}
	s = printable(s)
	if len(s) <= MaxNameBytes {
		return s
	}
	cut := MaxNameBytes - len("...")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// SanitizeNames returns wasm with the module name and the function names
// of its name sections made printable and short ([ShortName]); the
// sections' other subsections are kept as they are. Both engines print
// these names in trap backtraces: escaping them here keeps a name from
// splitting a backtrace line (wazero's is text, one frame a line) and
// keeps the backtrace small, whatever the engine does with it. Every
// section named "name" is rewritten, whichever one an engine reads; one
// this parser cannot read is dropped (the engines ignore a malformed name
// section, so nothing is lost but what they would have ignored). A module
// whose names are all short and printable is returned as is.
func SanitizeNames(wasm []byte) []byte {
	secs, ok := sections(wasm)
	if !ok {
		return wasm
	}
	var out []byte // nil until a section changes
	for _, s := range secs {
		if s.id == 0 {
			r := byteReader{b: wasm[s.body:s.end]}
			if string(r.take(r.uleb())) == "name" && !r.bad {
				sub, changed := sanitizeNameSection(r.b)
				if changed && out == nil {
					out = append(make([]byte, 0, len(wasm)), wasm[:s.at]...)
				}
				if changed {
					if sub != nil { // nil: unreadable, dropped
						sec := appendName(nil, "name")
						out = appendSection(out, 0, sec, sub)
					}
					continue
				}
			}
		}
		if out != nil {
			out = append(out, wasm[s.at:s.end]...)
		}
	}
	if out == nil {
		return wasm
	}
	return out
}

// sanitizeNameSection rewrites the subsections of a name section's body
// (after its "name"), and reports whether any name changed; a body it
// cannot read gives nil and true (the section is to be dropped).
func sanitizeNameSection(b []byte) ([]byte, bool) {
	r := byteReader{b: b}
	var out []byte
	changed := false
	for !r.done() {
		id := r.byte()
		sub := r.take(r.uleb())
		if r.bad {
			return nil, true
		}
		var nb []byte
		switch id {
		case 0: // module name
			sr := byteReader{b: sub}
			name := string(sr.take(sr.uleb()))
			if sr.bad || len(sr.b) != 0 {
				return nil, true
			}
			short := ShortName(name)
			changed = changed || short != name
			nb = appendName(nil, short)
		case 1: // function names: vec of (index, name)
			sr := byteReader{b: sub}
			n := sr.uleb()
			nb = appendUleb(nil, n)
			for ; n > 0 && !sr.bad; n-- {
				idx := sr.uleb()
				name := string(sr.take(sr.uleb()))
				short := ShortName(name)
				changed = changed || short != name
				nb = appendUleb(nb, idx)
				nb = appendName(nb, short)
			}
			if sr.bad || len(sr.b) != 0 {
				return nil, true
			}
		case 2: // local names: kept, unless a length overruns (wazero would allocate it)
			if !localNames(sub) {
				return nil, true
			}
			nb = sub
		default:
			nb = sub
		}
		out = append(out, id)
		out = appendUleb(out, uint64(len(nb)))
		out = append(out, nb...)
	}
	return out, changed
}
