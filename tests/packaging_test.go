package tests

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"

	"github.com/aclwasm/aclwasm/host"
)

// The packaged SDKs: each SDK is packaged as a plugin author gets it (a Go
// module zip served by a file:// GOPROXY, a .crate from `cargo package
// --offline`, a tarball from `npm pack`, the C headers and pkg-config files
// from `make install PREFIX=...`); the SDK's bytes example is built against
// that package alone, in a temporary directory outside the repository, and
// must pass the same calls as the in-tree build (testBytesCalls). A missing
// toolchain fails the test: scripts/install-toolchains.sh installs them.

// sdkVersion is the version every SDK package has (Cargo.toml,
// package.json, guest-sdk/c/Makefile, and the Go module's first tag).
const sdkVersion = "0.1.0"

// goSDKPath is the Go guest SDK's module path.
const goSDKPath = "github.com/aclwasm/aclwasm/guest-sdk/go"

func TestPackagedSDKs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func(t *testing.T, dir string) string // the bytes example's module
	}{
		{"go", buildPackagedGo},
		{"rust", buildPackagedRust},
		{"assemblyscript", buildPackagedAS},
		{"c", buildPackagedC},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wasm := tc.build(t, t.TempDir())
			b, err := os.ReadFile(wasm)
			require.NoError(t, err)
			sb := newSandbox(t)
			pl, err := sb.rt.Load(context.Background(), b, host.Policy{MemoryPages: bytesPages})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
			testBytesCalls(t, sb, pl)
		})
	}
}

// buildPackagedGo serves the SDK's module zip from a file:// GOPROXY and
// builds a plugin module that requires the SDK by its path (go get, no
// replace, no workspace), with a module cache of its own so that nothing
// comes from this tree.
func buildPackagedGo(t *testing.T, dir string) string {
	proxy := filepath.Join(dir, "proxy")
	escaped, err := module.EscapePath(goSDKPath)
	require.NoError(t, err)
	at := filepath.Join(proxy, filepath.FromSlash(escaped), "@v")
	require.NoError(t, os.MkdirAll(at, 0o755))
	v := "v" + sdkVersion
	zf, err := os.Create(filepath.Join(at, v+".zip"))
	require.NoError(t, err)
	require.NoError(t, modzip.CreateFromDir(zf, module.Version{Path: goSDKPath, Version: v}, filepath.Join("..", "guest-sdk", "go")))
	require.NoError(t, zf.Close())
	gomod, err := os.ReadFile(filepath.Join("..", "guest-sdk", "go", "go.mod"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(at, v+".mod"), gomod, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, v+".info"), []byte(`{"Version":"`+v+`","Time":"2026-01-01T00:00:00Z"}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(at, "list"), []byte(v+"\n"), 0o644))

	plugin := filepath.Join(dir, "plugin")
	copyFile(t, filepath.Join("..", "guest-sdk", "go", "examples", "bytes", "main.go"), filepath.Join(plugin, "main.go"))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "go.mod"), []byte("module example.com/plugin\n\ngo 1.24\n"), 0o644))
	env := []string{
		"GOPROXY=file://" + filepath.ToSlash(proxy),
		"GOSUMDB=off", // the zip is not in the checksum database; go.sum still records it
		"GOWORK=off",
		"GOFLAGS=-modcacherw", // so that the test's cleanup can remove the cache
		"GOMODCACHE=" + filepath.Join(dir, "modcache"),
		"GOTOOLCHAIN=local",
	}
	runIn(t, plugin, env, "go", "get", goSDKPath+"@"+v)
	out := filepath.Join(dir, "plugin.wasm")
	runIn(t, plugin, append(env, "GOOS=wasip1", "GOARCH=wasm"), "go", "build", "-buildmode=c-shared", "-o", out, ".")
	sum, err := os.ReadFile(filepath.Join(plugin, "go.sum"))
	require.NoError(t, err)
	require.Contains(t, string(sum), goSDKPath+" "+v+" h1:", "go.sum records the SDK module")
	return out
}

// buildPackagedRust packages the crate with `cargo package --offline` (in a
// copy outside the repository, so that cargo checks the package and not
// the work tree's git state), unpacks the .crate and builds a cdylib that
// depends on the unpacked crate by path, as a vendored dependency is; like
// scripts/build-guests.sh's, for wasm32-unknown-unknown (the README says
// why a wasm32-wasi cdylib of Rust 1.63 is not a reactor).
func buildPackagedRust(t *testing.T, dir string) string {
	cargo, rustc := rustTools(t)
	src := filepath.Join(dir, "sdk")
	for _, f := range []string{"Cargo.toml", "Cargo.lock", "README.md", "LICENSE", "src", "examples"} {
		copyTree(t, filepath.Join("..", "guest-sdk", "rust", f), filepath.Join(src, f))
	}
	env := []string{"RUSTC=" + rustc, "CARGO_TARGET_DIR=" + filepath.Join(dir, "target")}
	runIn(t, src, env, cargo, "package", "--offline")
	crate := filepath.Join(dir, "target", "package", "aclwasm-"+sdkVersion+".crate")
	untar(t, crate, filepath.Join(dir, "vendor"))
	unpacked := filepath.Join(dir, "vendor", "aclwasm-"+sdkVersion)
	manifest, err := os.ReadFile(filepath.Join(unpacked, "Cargo.toml"))
	require.NoError(t, err)
	for _, key := range []string{"description", "license", "repository", "readme", "keywords"} {
		require.Contains(t, string(manifest), "\n"+key+" = ", "the packaged Cargo.toml has %s", key)
	}

	plugin := filepath.Join(dir, "plugin")
	require.NoError(t, os.MkdirAll(filepath.Join(plugin, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "Cargo.toml"), []byte(`[package]
name = "plugin"
version = "0.1.0"
edition = "2021"

[lib]
crate-type = ["cdylib"]

[dependencies]
aclwasm = { path = "../vendor/aclwasm-`+sdkVersion+`" }

[profile.release]
opt-level = "s"
panic = "abort"
`), 0o644))
	copyFile(t, filepath.Join("..", "guest-sdk", "rust", "examples", "bytes.rs"), filepath.Join(plugin, "src", "lib.rs"))
	runIn(t, plugin, []string{"RUSTC=" + rustc, "CARGO_TARGET_DIR=" + filepath.Join(dir, "plugin-target")},
		cargo, "build", "--offline", "--release", "--target", "wasm32-unknown-unknown")
	return filepath.Join(dir, "plugin-target", "wasm32-unknown-unknown", "release", "plugin.wasm")
}

// rustTools are the cargo and rustc scripts/build-guests.sh builds with:
// $CARGO and $RUSTC, or Debian's (rustc 1.63, with the wasm32-wasi target).
func rustTools(t *testing.T) (cargo, rustc string) {
	cargo, rustc = os.Getenv("CARGO"), os.Getenv("RUSTC")
	if cargo == "" {
		cargo = "/usr/bin/cargo"
	}
	if rustc == "" {
		rustc = "/usr/bin/rustc"
	}
	for _, p := range []string{cargo, rustc} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: %v (scripts/install-toolchains.sh installs Debian's Rust)", p, err)
		}
	}
	return cargo, rustc
}

// buildPackagedAS packs the package with `npm pack`, installs the tarball
// into a plugin directory (offline: the package has no dependencies) and
// compiles the bytes example, importing "@aclwasm/sdk", with the pinned asc.
func buildPackagedAS(t *testing.T, dir string) string {
	sdk := filepath.Join("..", "guest-sdk", "assemblyscript")
	asc, err := filepath.Abs(filepath.Join(sdk, "node_modules", ".bin", "asc"))
	require.NoError(t, err)
	if _, err := os.Stat(asc); err != nil {
		t.Fatalf("%v: run scripts/install-toolchains.sh (npm ci in guest-sdk/assemblyscript)", err)
	}
	runIn(t, sdk, nil, "npm", "pack", "--silent", "--pack-destination", dir)
	tgz := filepath.Join(dir, "aclwasm-sdk-"+sdkVersion+".tgz")

	plugin := filepath.Join(dir, "plugin")
	require.NoError(t, os.MkdirAll(plugin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "package.json"), []byte(`{"name": "plugin", "private": true}`+"\n"), 0o644))
	runIn(t, plugin, nil, "npm", "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tgz)
	installed := filepath.Join(plugin, "node_modules", "@aclwasm", "sdk")
	var pkg struct {
		Types string   `json:"types"`
		Files []string `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(installed, "package.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &pkg))
	require.NotEmpty(t, pkg.Files, "package.json names its files")
	require.NotEmpty(t, pkg.Types, "package.json names its types")
	require.FileExists(t, filepath.Join(installed, pkg.Types), "the types file is in the package")

	ex, err := os.ReadFile(filepath.Join(sdk, "examples", "bytes.ts"))
	require.NoError(t, err)
	const inTree = `from "../assembly";`
	require.Contains(t, string(ex), inTree)
	src := strings.Replace(string(ex), inTree, `from "@aclwasm/sdk";`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(plugin, "bytes.ts"), []byte(src), 0o644))
	runIn(t, plugin, nil, asc, "bytes.ts", "-O3", "--runtime", "incremental", "--use", "abort=", "--exportStart", "_initialize", "-o", "plugin.wasm")
	return filepath.Join(plugin, "plugin.wasm")
}

// buildPackagedC installs the headers, the library and the pkg-config files
// with `make install PREFIX=...` and compiles the bytes example (a reactor)
// with the flags pkg-config gives for the wide profile, no -I or -L into
// this tree.
func buildPackagedC(t *testing.T, dir string) string {
	prefix := filepath.Join(dir, "prefix")
	runIn(t, filepath.Join("..", "guest-sdk", "c"), nil, "make", "--no-print-directory", "-s", "install", "PREFIX="+prefix, "BUILD="+filepath.Join(dir, "build"))
	for _, h := range []string{"acl/acl.h", "acl/acl_base.h", "acl/acl_rt.h", "acl/error_codes/rt_error_codes.h", "aclwasm/io.h",
		"acl/ops/acl_dvpp.h", "acl/aclwasm_sys.h", "acl/aclwasm_cxxabi.h", "aclwasm/compat/pthread.h", "aclwasm/compat/dlfcn.h", "aclwasm/compat/signal.h"} {
		require.FileExists(t, filepath.Join(prefix, "include", filepath.FromSlash(h)))
	}
	require.FileExists(t, filepath.Join(prefix, "lib", "aclwasm", "libaclwasm.a"))
	pcEnv := []string{"PKG_CONFIG_PATH=" + filepath.Join(prefix, "lib", "pkgconfig")}
	cflags := strings.Fields(runIn(t, dir, pcEnv, "pkg-config", "--cflags", "aclwasm-wide"))
	require.Contains(t, cflags, "--target=wasm32-wasi")
	require.Contains(t, cflags, "-DACLWASM_WIDE")
	native := strings.Fields(runIn(t, dir, pcEnv, "pkg-config", "--cflags", "aclwasm"))
	require.NotContains(t, native, "-DACLWASM_WIDE", "aclwasm.pc is the native layout")
	libs := map[string][]string{}
	for _, pc := range []string{"aclwasm", "aclwasm-wide"} {
		libs[pc] = strings.Fields(runIn(t, dir, pcEnv, "pkg-config", "--libs", pc))
		require.Contains(t, libs[pc], "-laclwasm", "%s.pc links the SDK's library", pc)
	}
	// The native-layout flags find the whole native surface: the DVPP
	// header, the single-threaded pthread.h, dlfcn.h and signal.h, and the
	// callback dispatcher in the library.
	for _, prog := range []string{"pthread.c", "dlfcn.c", "dvpp.c", "signal.c", "callback.c"} {
		src := filepath.Join(dir, prog)
		copyFile(t, filepath.Join("native", prog), src)
		runIn(t, dir, nil, "clang", slices.Concat(native, []string{"-o", src + ".wasm", src}, libs["aclwasm"])...)
	}

	src := filepath.Join(dir, "bytes.c")
	copyFile(t, filepath.Join("..", "guest-sdk", "c", "examples", "bytes.c"), src)
	out := filepath.Join(dir, "plugin.wasm")
	runIn(t, dir, nil, "clang", slices.Concat(cflags, []string{"-O2", "-Wall", "-Werror", "-mexec-model=reactor", "-o", out, src}, libs["aclwasm-wide"])...)
	return out
}

// runIn runs a command in dir with env added to the test's environment, and
// returns its standard output; a failure fails the test with its output.
func runIn(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %s in %s:\n%s%s", name, strings.Join(args, " "), dir, out, stderr.String())
	return string(out)
}

// copyFile copies src to dst, making dst's directory.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
	require.NoError(t, os.WriteFile(dst, b, 0o644))
}

// copyTree copies a file or a directory's regular files, following
// symbolic links (guest-sdk/rust/LICENSE is one).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	fi, err := os.Stat(src)
	require.NoError(t, err)
	if !fi.IsDir() {
		copyFile(t, src, dst)
		return
	}
	require.NoError(t, filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		copyFile(t, p, filepath.Join(dst, rel))
		return nil
	}))
}

// untar unpacks a .tar.gz (a .crate) into dir, refusing paths that leave it.
func untar(t *testing.T, file, dir string) {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := filepath.Clean(filepath.FromSlash(h.Name))
		require.False(t, filepath.IsAbs(name) || strings.HasPrefix(name, ".."), "crate entry %q leaves the directory", h.Name)
		dst := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(dst, b, 0o644))
	}
}
