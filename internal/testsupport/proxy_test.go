package testsupport

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
)

// TestProxyIsTheWAT: the binary Proxy writes is the module its text
// describes, byte for byte as wat2wasm assembles it, in both profiles,
// and so is ProxyWAT's text.
func TestProxyIsTheWAT(t *testing.T) {
	tool, err := exec.LookPath("wat2wasm")
	if err != nil {
		t.Fatalf("wat2wasm (wabt) is required: run scripts/install-toolchains.sh: %v", err)
	}
	for _, prof := range abi.Profiles {
		var b strings.Builder
		b.WriteString("(module\n")
		for _, f := range abi.Funcs {
			b.WriteString("  (import \"" + prof.Module() + "\" \"" + f.Name + "\" (func (param" + params(prof, &f) + ") (result i32)))\n")
		}
		b.WriteString("  (memory (export \"memory\") 3)\n")
		for i, f := range abi.Funcs {
			b.WriteString("  (func (export \"" + f.Name + "\") (param" + params(prof, &f) + ") (result i32)")
			for p := range f.Params {
				b.WriteString(" local.get " + itoa(p))
			}
			b.WriteString(" call " + itoa(i) + ")\n")
		}
		b.WriteString("  (func (export \"spin\") (loop $l (br $l)))\n  (func (export \"trap\") unreachable)\n  (func (export \"grow\") (param i32) (result i32) local.get 0 memory.grow)\n  (func (export \"aclwasm_dispatch_callback\") (param i32 i32)))\n")
		dir := t.TempDir()
		in, out := filepath.Join(dir, "m.wat"), filepath.Join(dir, "m.wasm")
		require.NoError(t, os.WriteFile(in, []byte(b.String()), 0o644))
		msg, err := exec.Command(tool, in, "-o", out).CombinedOutput()
		require.NoError(t, err, "%s", msg)
		want, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Equal(t, want, Proxy(prof, 3), "profile %s", prof.Module())
		require.Equal(t, want, WAT(t, ProxyWAT(prof, 3, "")), "profile %s: ProxyWAT", prof.Module())
	}
}

func params(prof abi.Profile, f *abi.Func) string {
	var s string
	for _, p := range f.Params {
		s += " " + prof.Wasm(p.Type)
	}
	return s
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
