package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/aclwasm/aclwasm/host"
)

// The documentation's code blocks are built: every fenced block of
// README.md, docs/*.md and the SDK READMEs names its language in the info
// string, and is checked as that language:
//
//   - go: a complete file (it has a package clause) is built as it is, for
//     GOOS=wasip1 GOARCH=wasm when it says //go:build wasip1. A block marked
//     "go fragment" is a function body: it is built inside
//     func fragment(ctx context.Context, wasm []byte, inst *host.Instance,
//     ptr acl.DevPtr, size uint64, tracerProvider trace.TracerProvider,
//     reg prometheus.Registerer) in a file importing context, encoding/binary, fmt, os, time,
//     acl, host and host/otelhost; the variables it declares at its top level
//     may go unused.
//   - c, cpp: compiled and linked with clang/clang++ --target=wasm32-wasi
//     against guest-sdk/c/include and the SDK's libaclwasm.a; words of the
//     info string that start with -D or -m are flags (```c -DACLWASM_WIDE).
//   - rust: compiled with Debian's rustc (as scripts/build-guests.sh builds)
//     for wasm32-wasi against the SDK crate (feature std).
//   - ts: compiled with the pinned asc, "@aclwasm/sdk" resolving to the SDK.
//   - sh: every `aclwasm SUBCOMMAND --flag` (also `./aclwasm` and `go run
//     ./cmd/aclwasm`) names a real subcommand and flag, every `make TARGET`
//     a Makefile target, and every ./path argument an existing path.
//   - yaml, json, toml: parse; a YAML block with a module and a policy is a
//     manifest and decodes with host.ParseManifest.
//   - text: output and tables, not checked.

// docFiles are the Markdown files whose blocks are checked, from the
// repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "guest-sdk/README.md", "guest-sdk/c/PORTING.md"}
	for _, pat := range []string{"docs/*.md", "guest-sdk/*/README.md"} {
		m, err := filepath.Glob(filepath.Join("..", pat))
		require.NoError(t, err)
		for _, f := range m {
			rel, err := filepath.Rel("..", f)
			require.NoError(t, err)
			files = append(files, filepath.ToSlash(rel))
		}
	}
	sort.Strings(files)
	return files
}

// docBlock is one fenced code block.
type docBlock struct {
	file  string   // relative to the repository root
	line  int      // of the opening fence
	lang  string   // the info string's first word
	attrs []string // its other words
	code  string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d (```%s)", b.file, b.line, b.lang) }

func (b docBlock) has(attr string) bool {
	for _, a := range b.attrs {
		if a == attr {
			return true
		}
	}
	return false
}

// fenceRE is a fence line: three or more backticks, indented by at most
// three spaces (CommonMark), and an info string.
var fenceRE = regexp.MustCompile("^ {0,3}(```+)\\s*(.*)$")

// parseBlocks returns the fenced blocks of a Markdown file.
func parseBlocks(t *testing.T, file string) []docBlock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", file))
	require.NoError(t, err)
	var (
		out   []docBlock
		cur   *docBlock
		fence string
		body  strings.Builder
	)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		m := fenceRE.FindStringSubmatch(line)
		switch {
		case cur == nil && m != nil:
			words := strings.Fields(m[2])
			cur = &docBlock{file: file, line: n}
			if len(words) > 0 {
				cur.lang, cur.attrs = words[0], words[1:]
			}
			fence = m[1]
			body.Reset()
		case cur != nil && m != nil && m[2] == "" && len(m[1]) >= len(fence):
			cur.code = body.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(line)
			body.WriteByte('\n')
		}
	}
	require.NoError(t, sc.Err())
	require.Nil(t, cur, "%s: a code block is not closed", file)
	return out
}

func TestDocBlocks(t *testing.T) {
	var all []docBlock
	for _, f := range docFiles(t) {
		all = append(all, parseBlocks(t, f)...)
	}
	byLang := map[string][]docBlock{}
	for _, b := range all {
		switch b.lang {
		case "go", "c", "cpp", "rust", "ts", "sh", "yaml", "json", "toml", "text":
			byLang[b.lang] = append(byLang[b.lang], b)
		case "":
			t.Errorf("%s: the block names no language (text for output and tables)", b)
		default:
			t.Errorf("%s: language %q is not one the docs test checks", b, b.lang)
		}
	}
	// The languages in parallel: each waits on its own toolchain's
	// processes (go build, clang, rustc, asc), and they share nothing.
	for _, c := range []struct {
		lang  string
		check func(t *testing.T)
	}{
		{"go", func(t *testing.T) { checkGoBlocks(t, byLang["go"]) }},
		{"c", func(t *testing.T) { checkCBlocks(t, append(byLang["c"], byLang["cpp"]...)) }},
		{"rust", func(t *testing.T) { checkRustBlocks(t, byLang["rust"]) }},
		{"ts", func(t *testing.T) { checkTSBlocks(t, byLang["ts"]) }},
		{"sh", func(t *testing.T) { checkShBlocks(t, byLang["sh"]) }},
		{"data", func(t *testing.T) {
			for _, b := range append(append(byLang["yaml"], byLang["json"]...), byLang["toml"]...) {
				checkDataBlock(t, b)
			}
		}},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
}

// fragmentPrelude is what a "go fragment" block is built inside (see the
// comment at the top of this file).
const fragmentPrelude = `package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/otelhost"
)

var (
	_ = binary.LittleEndian
	_ = fmt.Sprint
	_ = os.Stdout
	_ = time.Second
	_ = otelhost.Option
)

func main() {}

func fragment(ctx context.Context, wasm []byte, inst *host.Instance, ptr acl.DevPtr, size uint64, tracerProvider trace.TracerProvider, reg prometheus.Registerer) {
`

// goFragment wraps a fragment, and uses each variable it declares at its
// top level so that a sketch may leave one unused.
func goFragment(code string) (string, error) {
	src := fragmentPrelude + code + "\n}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "fragment.go", src, 0)
	if err != nil {
		return "", err
	}
	var uses strings.Builder
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "fragment" {
			continue
		}
		for _, st := range fn.Body.List {
			var names []*ast.Ident
			switch st := st.(type) {
			case *ast.AssignStmt:
				if st.Tok == token.DEFINE {
					for _, e := range st.Lhs {
						if id, ok := e.(*ast.Ident); ok {
							names = append(names, id)
						}
					}
				}
			case *ast.DeclStmt:
				if g, ok := st.Decl.(*ast.GenDecl); ok && g.Tok == token.VAR {
					for _, s := range g.Specs {
						names = append(names, s.(*ast.ValueSpec).Names...)
					}
				}
			}
			for _, id := range names {
				if id.Name != "_" {
					fmt.Fprintf(&uses, "\t_ = %s\n", id.Name)
				}
			}
		}
	}
	return fragmentPrelude + code + "\n" + uses.String() + "}\n", nil
}

// checkGoBlocks builds each block as a package of this module (through an
// overlay: nothing is written into the tree), grouped by GOOS.
func checkGoBlocks(t *testing.T, blocks []docBlock) {
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	dir := t.TempDir()
	type group struct {
		overlay map[string]string
		pkgs    []string
		blocks  map[string]docBlock
	}
	groups := map[string]*group{}
	for i, b := range blocks {
		src := b.code
		if b.has("fragment") {
			if src, err = goFragment(b.code); err != nil {
				t.Errorf("%s: %v", b, err)
				continue
			}
		} else if !regexp.MustCompile(`(?m)^package \w+`).MatchString(src) {
			t.Errorf("%s: a Go block is a whole file (with its package clause) or marked ```go fragment", b)
			continue
		}
		goos := ""
		if strings.Contains(src, "//go:build wasip1") {
			goos = "wasip1"
		}
		g := groups[goos]
		if g == nil {
			g = &group{overlay: map[string]string{}, blocks: map[string]docBlock{}}
			groups[goos] = g
		}
		tmp := filepath.Join(dir, fmt.Sprintf("block%d.go", i))
		require.NoError(t, os.WriteFile(tmp, []byte(src), 0o644))
		pkg := fmt.Sprintf("tests/internal/docblocks/b%d", i)
		g.overlay[filepath.Join(root, filepath.FromSlash(pkg), "main.go")] = tmp
		g.pkgs = append(g.pkgs, "./"+pkg)
		g.blocks[pkg] = b
	}
	for goos, g := range groups {
		ov, err := json.Marshal(map[string]any{"Replace": g.overlay})
		require.NoError(t, err)
		ovFile := filepath.Join(dir, "overlay-"+goos+".json")
		require.NoError(t, os.WriteFile(ovFile, ov, 0o644))
		// -o a directory of its own: a group of one main package would
		// otherwise leave its binary in the repository root.
		bin := filepath.Join(dir, "bin-"+goos)
		require.NoError(t, os.Mkdir(bin, 0o755))
		cmd := exec.Command("go", append([]string{"build", "-overlay", ovFile, "-o", bin}, g.pkgs...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOWORK=off")
		if goos != "" {
			cmd.Env = append(cmd.Env, "GOOS="+goos, "GOARCH=wasm")
		}
		out, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		// Name the block of each failing package.
		msg := string(out)
		for pkg, b := range g.blocks {
			if strings.Contains(msg, pkg) {
				t.Errorf("%s does not build:\n%s", b, pkgLines(msg, pkg))
			}
		}
		t.Errorf("go build (GOOS=%s): %v\n%s", goos, err, msg)
	}
}

// pkgLines are the lines of go build's output about pkg.
func pkgLines(out, pkg string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "# ") {
			in = strings.Contains(l, pkg)
		}
		if in || strings.Contains(l, pkg) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// checkCBlocks compiles and links each block for wasm32-wasi.
func checkCBlocks(t *testing.T, blocks []docBlock) {
	inc, err := filepath.Abs(filepath.Join("..", "guest-sdk", "c", "include"))
	require.NoError(t, err)
	dir := t.TempDir()
	for i, b := range blocks {
		cc, ext := "clang", ".c"
		args := []string{"--target=wasm32-wasi", "-O2", "-Wall", "-Werror", "-I" + inc}
		if b.lang == "cpp" {
			cc, ext = "clang++", ".cpp"
			args = append(args, "-std=c++17", "-fno-exceptions")
		}
		for _, a := range b.attrs {
			if strings.HasPrefix(a, "-D") || strings.HasPrefix(a, "-m") {
				args = append(args, a)
			}
		}
		src := filepath.Join(dir, fmt.Sprintf("block%d%s", i, ext))
		require.NoError(t, os.WriteFile(src, []byte(b.code), 0o644))
		args = append(append(args, "-o", src+".wasm", src), sdkLibs(t)...)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Errorf("%s does not compile (%s %s): %v\n%s", b, cc, strings.Join(args, " "), err, out)
		}
	}
}

// checkRustBlocks builds the SDK crate as an rlib, then each block against
// it.
func checkRustBlocks(t *testing.T, blocks []docBlock) {
	if len(blocks) == 0 {
		return
	}
	_, rustc := rustTools(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libaclwasm.rlib")
	runIn(t, "..", nil, rustc, "--edition", "2021", "--crate-type", "rlib", "--crate-name", "aclwasm",
		"--target", "wasm32-wasi", "-O", "--cfg", `feature="std"`, "-o", lib, filepath.Join("guest-sdk", "rust", "src", "lib.rs"))
	for i, b := range blocks {
		src := filepath.Join(dir, fmt.Sprintf("block%d.rs", i))
		require.NoError(t, os.WriteFile(src, []byte(b.code), 0o644))
		args := []string{"--edition", "2021", "--target", "wasm32-wasi", "-O",
			"--extern", "aclwasm=" + lib, "-L", dir, "-o", src + ".wasm", src}
		if out, err := exec.Command(rustc, args...).CombinedOutput(); err != nil {
			t.Errorf("%s does not compile: %v\n%s", b, err, out)
		}
	}
}

// checkTSBlocks compiles each block as a command module with the pinned
// asc, importing "@aclwasm/sdk" from node_modules as a plugin does.
func checkTSBlocks(t *testing.T, blocks []docBlock) {
	if len(blocks) == 0 {
		return
	}
	sdk, err := filepath.Abs(filepath.Join("..", "guest-sdk", "assemblyscript"))
	require.NoError(t, err)
	asc := filepath.Join(sdk, "node_modules", ".bin", "asc")
	if _, err := os.Stat(asc); err != nil {
		t.Fatalf("%v: run scripts/install-toolchains.sh (npm ci in guest-sdk/assemblyscript)", err)
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "node_modules", "@aclwasm"), 0o755))
	require.NoError(t, os.Symlink(sdk, filepath.Join(dir, "node_modules", "@aclwasm", "sdk")))
	for i, b := range blocks {
		name := fmt.Sprintf("block%d.ts", i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(b.code), 0o644))
		cmd := exec.Command(asc, name, "-O3", "--runtime", "stub", "--use", "abort=", "--exportStart", "_start", "-o", name+".wasm")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s does not compile: %v\n%s", b, err, out)
		}
	}
}

// checkShBlocks checks the commands a shell block names.
func checkShBlocks(t *testing.T, blocks []docBlock) {
	root := ".."
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	cli := filepath.Join(t.TempDir(), "aclwasm")
	runIn(t, root, nil, "go", "build", "-o", cli, "./cmd/aclwasm")
	flags := map[string]map[string]bool{} // by subcommand, from its --help
	flagRE := regexp.MustCompile(`(?m)^\s+(?:-(\w), )?--([a-z0-9][a-z0-9-]*)`)
	subFlags := func(sub string) (map[string]bool, error) {
		if f, ok := flags[sub]; ok {
			return f, nil
		}
		out, err := exec.Command(cli, sub, "--help").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "aclwasm "+sub) {
			return nil, fmt.Errorf("aclwasm %s --help: %v\n%s", sub, err, out)
		}
		f := map[string]bool{}
		for _, m := range flagRE.FindAllStringSubmatch(string(out), -1) {
			f["--"+m[2]] = true
			if m[1] != "" {
				f["-"+m[1]] = true
			}
		}
		flags[sub] = f
		return f, nil
	}
	for _, b := range blocks {
		for n, line := range strings.Split(b.code, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			words := strings.Fields(line)
			if len(words) == 0 || strings.HasPrefix(words[0], "#") {
				continue
			}
			where := fmt.Sprintf("%s:%d", b.file, b.line+1+n)
			for k, w := range words {
				if strings.HasPrefix(w, "./") && w != "./aclwasm" && !strings.HasPrefix(w, "./cmd/aclwasm") {
					if _, err := os.Stat(filepath.Join(root, strings.TrimSuffix(w, "/..."))); err != nil {
						t.Errorf("%s: %s names a path that does not exist", where, w)
					}
				}
				if w == "make" && k+1 < len(words) && !strings.HasPrefix(words[k+1], "-") {
					target := words[k+1]
					if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).Match(mk) {
						t.Errorf("%s: make %s: the Makefile has no such target", where, target)
					}
				}
			}
			for k, w := range words {
				// The CLI in command position: first, or after a pipe or
				// environment assignments, or as go run's package.
				first := true
				for _, p := range words[:k] {
					first = strings.Contains(p, "=") || p == "|" || p == "&&" || p == ";"
				}
				isCLI := (first && (w == "aclwasm" || w == "./aclwasm")) || (w == "./cmd/aclwasm" && k > 1 && words[k-1] == "run" && words[k-2] == "go")
				if !isCLI || k+1 >= len(words) || strings.HasPrefix(words[k+1], "-") {
					continue
				}
				sub := words[k+1]
				f, err := subFlags(sub)
				if err != nil {
					t.Errorf("%s: aclwasm %s is not a subcommand: %v", where, sub, err)
					break
				}
				for _, a := range words[k+2:] {
					if a == "|" || a == "&&" || a == ";" {
						break
					}
					if strings.HasPrefix(a, "-") && a != "-" {
						name, _, _ := strings.Cut(a, "=")
						if !f[name] {
							t.Errorf("%s: aclwasm %s has no flag %s", where, sub, name)
						}
					}
				}
				break
			}
		}
	}
}

// checkDataBlock parses a YAML, JSON (one value, or JSON Lines) or TOML block; a YAML manifest must
// decode with the host's strict manifest decoder.
func checkDataBlock(t *testing.T, b docBlock) {
	switch b.lang {
	case "json": // one value, or one per line (response bodies, log records)
		if json.Valid([]byte(b.code)) {
			return
		}
		for i, line := range strings.Split(strings.TrimSpace(b.code), "\n") {
			if !json.Valid([]byte(line)) {
				t.Errorf("%s: not valid JSON (nor one value per line: line %d)", b, i+1)
				return
			}
		}
	case "toml":
		var v map[string]any
		if _, err := toml.Decode(b.code, &v); err != nil {
			t.Errorf("%s: %v", b, err)
		}
	case "yaml":
		var v map[string]any
		if err := yaml.Unmarshal([]byte(b.code), &v); err != nil {
			t.Errorf("%s: %v", b, err)
			return
		}
		if _, ok := v["module"]; ok {
			if _, err := host.ParseManifest([]byte(b.code)); err != nil {
				t.Errorf("%s: the manifest does not decode: %v", b, err)
			}
		}
	}
}
