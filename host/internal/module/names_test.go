package module

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// evilName is a guest function name that, printed raw, clears the screen
// and starts a forged line.
const evilName = "\x1b[2J\r\nFAKE"

// nameSection returns a custom section "name" of the subsections subs.
func nameSection(subs ...[]byte) []byte {
	body := appendName(nil, "name")
	for _, s := range subs {
		body = append(body, s...)
	}
	return sec(0, body)
}

// funcNames returns a function names subsection: function i named names[i].
func funcNames(names ...string) []byte {
	var items [][]byte
	for i, n := range names {
		items = append(items, appendName(appendUleb(nil, uint64(i)), n))
	}
	return appendSection(nil, 1, vec(items...))
}

// namedModule returns a module of len(names) functions of type [] -> [],
// named in a name section, the module named modName; more are the name
// section's further subsections.
func namedModule(modName string, names []string, more ...[]byte) []byte {
	m := []byte(header)
	m = append(m, sec(1, vec([]byte{0x60, 0, 0}))...)
	funcs, bodies := make([][]byte, len(names)), make([][]byte, len(names))
	for i := range names {
		funcs[i], bodies[i] = []byte{0}, []byte{2, 0, 0x0b}
	}
	m = append(m, sec(3, vec(funcs...))...)
	m = append(m, sec(10, vec(bodies...))...)
	subs := append([][]byte{appendSection(nil, 0, appendName(nil, modName)), funcNames(names...)}, more...)
	return append(m, nameSection(subs...)...)
}

// TestSanitizeNamesEverySection: every name section is rewritten (an
// engine may read another than the first), and one this parser cannot
// read is dropped rather than passed on raw.
func TestSanitizeNamesEverySection(t *testing.T) {
	m := namedModule("mod", []string{"deep", "trap"})
	m = append(m, nameSection(funcNames(evilName))...)
	m = append(m, nameSection([]byte{1, 50, 1})...) // a subsection longer than the section
	out := SanitizeNames(m)
	secs, ok := sections(out)
	require.True(t, ok)
	var names int
	for _, s := range secs {
		if s.id == 0 {
			names++
			require.NotContains(t, string(out[s.body:s.end]), "\x1b")
			require.NotContains(t, string(out[s.body:s.end]), "FAKE\n")
		}
	}
	require.Equal(t, 2, names, "the unreadable one is dropped")
	require.Contains(t, string(out), `\x1b[2J\r\nFAKE`)
}

// TestSanitizeNames: the module's name and its functions' are escaped and
// cut short, other subsections kept; a module whose names need neither is
// returned as is, and so is one that cannot be read.
func TestSanitizeNames(t *testing.T) {
	plain := namedModule("mod", []string{"a", "b"})
	out := SanitizeNames(plain)
	require.Equal(t, &plain[0], &out[0], "the same bytes, not a copy")

	long := strings.Repeat("x", 3*MaxNameBytes)
	out = SanitizeNames(namedModule(evilName, []string{"a", long}, appendSection(nil, 2, []byte{0}))) // local names: kept
	c := compiled(t, out)
	require.Equal(t, `\x1b[2J\r\nFAKE`, c.Name())
	require.Contains(t, string(out), strings.Repeat("x", MaxNameBytes-3)+"...")
	require.NotContains(t, string(out), strings.Repeat("x", MaxNameBytes-2))
	require.True(t, strings.HasSuffix(string(out), "\x02\x01\x00"), "the local names subsection is kept")

	for _, bad := range [][]byte{nil, []byte("junk")} {
		require.Equal(t, bad, SanitizeNames(bad))
	}
}

// TestShortName: names are escaped as strconv.Quote escapes them and cut
// at a character boundary to MaxNameBytes, "..." marking the cut.
func TestShortName(t *testing.T) {
	require.Equal(t, "plain_name", ShortName("plain_name"))
	require.Equal(t, "函数", ShortName("函数"))
	require.Equal(t, `\x1b[2J\r\nFAKE`, ShortName(evilName))
	require.Equal(t, `a\u2028b`, ShortName("a\u2028b"), "a line separator")
	require.Equal(t, `\xff`, ShortName("\xff"), "not UTF-8")

	exact := strings.Repeat("y", MaxNameBytes)
	require.Equal(t, exact, ShortName(exact))
	cut := ShortName(exact + "y")
	require.Len(t, cut, MaxNameBytes)
	require.True(t, strings.HasSuffix(cut, "..."))

	wide := ShortName(strings.Repeat("函", MaxNameBytes)) // 3 bytes each: the cut falls inside one
	require.LessOrEqual(t, len(wide), MaxNameBytes)
	require.True(t, utf8.ValidString(wide))
	require.Equal(t, strings.Repeat("函", (MaxNameBytes-3)/3)+"...", wide)

	escaped := ShortName(strings.Repeat("\x00", 10*MaxNameBytes)) // each byte escapes to four
	require.Len(t, escaped, MaxNameBytes, "cut after escaping")
	require.True(t, strings.HasPrefix(escaped, strings.Repeat(`\x00`, (MaxNameBytes-3)/4)))
	require.True(t, strings.HasSuffix(escaped, "..."))
}

// TestSanitizeNamesLengths: a name section declaring a length past its
// bytes (which wazero would allocate before reading it: 2^32 local names
// ask for 128 GiB) is dropped, the engines ignoring it; well-formed local
// names are kept.
func TestSanitizeNamesLengths(t *testing.T) {
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
	for _, c := range []struct {
		name string
		id   byte
		sub  []byte
	}{
		{"module name", 0, huge},
		{"function names", 1, huge},
		{"functions' local names", 2, huge},
		{"one function's local names", 2, append([]byte{1, 0}, huge...)},
		{"a local name", 2, append([]byte{1, 0, 1, 0}, huge...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := namedModule("mod", []string{"a"})
			m = append(m, nameSection(appendSection(nil, c.id, c.sub))...)
			require.Equal(t, namedModule("mod", []string{"a"}), SanitizeNames(m), "the section is dropped")
		})
	}
	ok := nameSection(appendSection(nil, 2, []byte{1, 0, 1, 0, 1, 'x'}))
	m := append(namedModule("mod", []string{"a"}), ok...)
	require.Equal(t, m, SanitizeNames(m), "well-formed local names are kept")
}
