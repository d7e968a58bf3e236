package guestsdk

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// tsFunc is a function signature as TypeScript writes it: the name, then
// its parameters and result up to the body (or the line's end).
var tsFunc = regexp.MustCompile(`^(?:export\s+|declare\s+)?function\s+(\w+)\s*(\(.*\)\s*:\s*[^{]+?)\s*;?\s*(?:\{.*)?$`)

// TestASReadmeSignatures: each function signature the AssemblyScript
// README lists (a line "declare function name(...): type;" in a ts block) is
// exactly that of the SDK's export of that name, so that the docs cannot
// say a result is never null when it may be.
func TestASReadmeSignatures(t *testing.T) {
	dir := filepath.Join("assemblyscript")
	exported := map[string]string{}
	srcs, err := filepath.Glob(filepath.Join(dir, "assembly", "*.ts"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no AssemblyScript sources in %s/assembly: %v", dir, err)
	}
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if m := tsFunc.FindStringSubmatch(l); m != nil && strings.HasPrefix(l, "export ") {
				exported[m[1]] = normSig(m[2])
			}
		}
	}
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	documented := 0
	for _, block := range codeBlocks(string(readme), "ts") {
		for _, l := range strings.Split(block, "\n") {
			m := tsFunc.FindStringSubmatch(l)
			if m == nil || strings.HasPrefix(l, "export ") {
				continue // code, not a listed signature
			}
			documented++
			got, ok := exported[m[1]]
			switch {
			case !ok:
				t.Errorf("README.md documents function %s, which assembly/*.ts does not export", m[1])
			case got != normSig(m[2]):
				t.Errorf("README.md documents %s%s; the SDK's is %s%s", m[1], normSig(m[2]), m[1], got)
			}
		}
	}
	// The bytes functions are listed: a README that lists none would
	// pass vacuously.
	if documented < 8 {
		t.Errorf("README.md lists %d function signatures in its ts blocks, want the bytes functions' 8 at least", documented)
	}
}

// normSig is a signature with its spaces normalized: none after "(" or
// before ")", one after ",", ":" and around "|".
func normSig(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for _, r := range []struct{ from, to string }{{"( ", "("}, {" )", ")"}, {" ,", ","}, {" :", ":"}, {" |", "|"}, {"| ", "|"}} {
		s = strings.ReplaceAll(s, r.from, r.to)
	}
	return strings.ReplaceAll(s, "|", " | ")
}

// codeBlocks returns the fenced code blocks of Markdown text in language lang.
func codeBlocks(md, lang string) []string {
	var out []string
	var cur []string
	in := false
	for _, l := range strings.Split(md, "\n") {
		switch {
		case !in && strings.TrimSpace(l) == "```"+lang:
			in, cur = true, nil
		case in && strings.TrimSpace(l) == "```":
			in = false
			out = append(out, strings.Join(cur, "\n"))
		case in:
			cur = append(cur, l)
		}
	}
	return out
}
