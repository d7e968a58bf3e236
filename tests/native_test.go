package tests

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The native-style programs of tests/native: C and C++ written the way
// native CANN programs are (standard library, pthreads, dlopen probes, DVPP
// buffers, version queries, fp16, and the ABI v1.2 notifies, event extras,
// error state and resource queries), each built here with nothing but the
// target and the SDK's include path, as the guest SDK promises
// (guest-sdk/c/PORTING.md), and run in the sandbox on the engine the tests
// use (ACLWASM_TEST_ENGINE). A missing clang fails the test.

// nativeFlags are the only flags a native program needs, besides -o: the
// target, the SDK's include path and its library, as an installed SDK's
// pkg-config Cflags and Libs give them.
func nativeFlags(t testing.TB) []string {
	return append(nativeCflags(t), sdkLibs(t)...)
}

// nativeCflags are the compiler's part of nativeFlags: the target and the
// SDK's include path.
func nativeCflags(t testing.TB) []string {
	inc, err := filepath.Abs(filepath.Join("..", "guest-sdk", "c", "include"))
	require.NoError(t, err)
	return []string{"--target=wasm32-wasi", "-I", inc}
}

// sdkLib is the C SDK's libaclwasm.a, built once per test process (by the
// SDK's Makefile, into a directory of its own that TestMain removes).
var sdkLib struct {
	once sync.Once
	dir  string
	err  error
}

// sdkLibs are the link flags of the C SDK's library (pkg-config --libs
// aclwasm, less the target): it holds the stream callback dispatcher,
// which only modules that launch a callback link.
func sdkLibs(t testing.TB) []string {
	t.Helper()
	sdkLib.once.Do(func() {
		if sdkLib.dir, sdkLib.err = os.MkdirTemp("", "aclwasm-sdk-lib"); sdkLib.err != nil {
			return
		}
		out, err := exec.Command("make", "--no-print-directory", "-s", "-C", filepath.Join("..", "guest-sdk", "c"), "lib", "BUILD="+sdkLib.dir).CombinedOutput()
		if err != nil {
			sdkLib.err = fmt.Errorf("make -C guest-sdk/c lib (clang for wasm32 and llvm-ar: scripts/install-toolchains.sh): %w\n%s", err, out)
		}
	})
	require.NoError(t, sdkLib.err)
	return []string{"-L", sdkLib.dir, "-laclwasm"}
}

// removeSDKLib removes the directory sdkLibs built the library in.
func removeSDKLib() error {
	if sdkLib.dir == "" {
		return nil
	}
	return os.RemoveAll(sdkLib.dir)
}

// nativeTool is the path of clang or clang++, or fails the test saying how
// to install it.
func nativeTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is missing (needed to build tests/native): run scripts/install-toolchains.sh (clang, lld, wasi-libc, libc++-14-dev-wasm32): %v", name, err)
	}
	return p
}

// buildNative compiles tests/native/SRC into dir with the native flags only
// and returns the module.
func buildNative(t testing.TB, dir, src string, extra ...string) []byte {
	t.Helper()
	cc := "clang"
	if strings.HasSuffix(src, ".cpp") {
		cc = "clang++"
	}
	out := filepath.Join(dir, strings.TrimSuffix(src, filepath.Ext(src))+".wasm")
	args := append(append(nativeFlags(t), extra...), "-o", out, filepath.Join("native", src))
	cmd := exec.Command(nativeTool(t, cc), args...)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", cc, strings.Join(args, " "), b)
	wasm, err := os.ReadFile(out)
	require.NoError(t, err)
	return wasm
}

func TestNativePrograms(t *testing.T) {
	dir := t.TempDir()
	sb := newSandbox(t)
	load := func(t *testing.T, src string) *host.Plugin {
		t.Helper()
		pl, err := sb.rt.Load(context.Background(), buildNative(t, dir, src), testCompile(host.Policy{}))
		require.NoError(t, err, src)
		t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
		return pl
	}

	t.Run("containers", func(t *testing.T) {
		o := mustRun(t, load(t, "containers.cpp"), "containers")
		require.Contains(t, o.stdout, "copied: copy-1=1 copy-100=100 copy-4096=4096 copy-65543=65543 \n", "%v", o)
		require.Equal(t, "containers: OK (4 sizes)", lastLine(o.stdout))
		total := uint64(1 + 100 + 4096 + 65543)
		require.Equal(t, map[string]uint64{"H2D": total, "D2H": total}, o.res.Stats.Bytes)
		noErrors(t, o.res.Stats)
	})

	t.Run("throw", func(t *testing.T) {
		pl := load(t, "throw.cpp")
		for _, tc := range []struct{ arg, typ string }{
			{"at", "std::out_of_range"},       // thrown inside libc++
			{"custom", "native::DeviceError"}, // the program's own type
			{"caught", "std::logic_error"},    // a catch block cannot catch it
		} {
			t.Run(tc.arg, func(t *testing.T) {
				o := run(context.Background(), pl, "throw", tc.arg)
				require.ErrorIs(t, o.err, host.ErrTrap, "%v", o)
				require.Contains(t, o.stdout, "throw: about to throw ("+tc.arg+")")
				require.Contains(t, o.stderr, "aclwasm: C++ exception of type "+tc.typ+" thrown; the sandbox cannot unwind, so it aborts\n", "%v", o)
				require.NotContains(t, o.stdout, "throw: caught", "nothing can catch the exception")
				var te *host.TrapError
				require.True(t, errors.As(o.err, &te), "%v", o.err)
				var frames []string
				for _, f := range te.Frames {
					frames = append(frames, f.Func)
				}
				require.Contains(t, frames, "__cxa_throw", "the trap's backtrace")
			})
		}
		o := mustRun(t, pl, "throw", "none")
		require.Equal(t, "throw: nothing thrown", lastLine(o.stdout))

		// ACLWASM_CXXABI_MANGLED leaves the demangler out: the mangled name.
		wasm := buildNative(t, t.TempDir(), "throw.cpp", "-DACLWASM_CXXABI_MANGLED")
		mangled, err := sb.rt.Load(context.Background(), wasm, testCompile(host.Policy{}))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, mangled.Close(context.Background())) })
		o = run(context.Background(), mangled, "throw", "at")
		require.ErrorIs(t, o.err, host.ErrTrap, "%v", o)
		require.Contains(t, o.stderr, "aclwasm: C++ exception of type St12out_of_range thrown;", "%v", o)
	})

	t.Run("dlfcn", func(t *testing.T) {
		o := mustRun(t, load(t, "dlfcn.c"), "dlfcn")
		require.Contains(t, o.stdout, "dlopen: dynamic loading is not available in the aclwasm sandbox: link the code into the module\n", "%v", o)
		require.Contains(t, o.stdout, "dlsym: invalid handle: only dlopen(NULL, ...) and the native runtime's libraries have one in the aclwasm sandbox\n")
		require.Contains(t, o.stdout, "dlsym: aclrtNoSuchFunction: undefined symbol: the aclwasm sandbox looks up only the SDK's own functions by name\n")
		require.Equal(t, "dlfcn: OK (no plugin, copied 300 bytes and ran a callback through dlsym, float is 4 bytes)", lastLine(o.stdout))
		require.Equal(t, uint64(1), o.res.Stats.Funcs["aclrtLaunchHostFunc"].Calls, "looked up by name: the module has the dispatcher")
		require.Equal(t, uint64(2), o.res.Stats.Funcs["aclrtMalloc"].Calls, "aclrtMalloc and acldvppMalloc (an SDK function over it), both looked up by name, %v", o.res.Stats.Funcs)
		require.Equal(t, uint64(2), o.res.Stats.Funcs["aclrtMemcpy"].Calls)
		noErrors(t, o.res.Stats)
	})

	// <signal.h> and <csignal> with no flag (the SDK's signal.h defines
	// what wasi-libc's asks for); a program that calls the emulated
	// functions links them, and nothing else.
	t.Run("signal", func(t *testing.T) {
		o := mustRun(t, load(t, "signal.c"), "signal")
		require.Regexp(t, `^signal: OK \(SIGINT=2 SIGTERM=15, stop=0, [1-9][0-9]* device\(s\)\)$`, lastLine(o.stdout), "%v", o)
		o = mustRun(t, load(t, "csignal.cpp"), "csignal")
		require.Regexp(t, `^csignal: OK \(SIGINT=2, stop=0, [1-9][0-9]* device\(s\)\)$`, lastLine(o.stdout), "%v", o)

		pl, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "signal.c", "-DRAISE", "-lwasi-emulated-signal"), testCompile(host.Policy{}))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
		o = mustRun(t, pl, "signal")
		require.Contains(t, o.stdout, "raised: stop=2\n", "the handler ran inside the guest")
		require.Regexp(t, `^signal: OK \(SIGINT=2 SIGTERM=15, stop=2, [1-9][0-9]* device\(s\)\)$`, lastLine(o.stdout))
	})

	t.Run("pthread", func(t *testing.T) {
		o := mustRun(t, load(t, "pthread.c"), "pthread")
		require.Contains(t, o.stdout, "pthread_create: Resource temporarily unavailable\n", "EAGAIN")
		require.Equal(t, "pthread: OK (one thread, 1024 bytes copied)", lastLine(o.stdout))
		require.Equal(t, uint64(2), o.res.Stats.Funcs["aclrtMalloc"].Calls, "the job ran twice, on the one thread")
		noErrors(t, o.res.Stats)
	})

	t.Run("dvpp", func(t *testing.T) {
		o := mustRun(t, load(t, "dvpp.c"), "dvpp")
		// 900 bytes round up to 928, plus 32: 960 bytes, and a copy of 961
		// is refused as one past the allocation.
		require.Contains(t, o.stdout, "dvpp: a copy of 961 bytes from a 900-byte request: ACL_ERROR_RT_PARAM_INVALID (107000)\n", "%v", o)
		require.Equal(t, "dvpp: OK (900-byte image in 960 bytes of DVPP memory)", lastLine(o.stdout))
		require.Equal(t, uint64(2), o.res.Stats.Funcs["aclrtMalloc"].Calls)
		require.Equal(t, uint64(2), o.res.Stats.Funcs["aclrtFree"].Calls)
		// The argument checks failed in the guest, without calling the host;
		// the one host error is the copy past the end.
		require.Equal(t, map[acl.Error]uint64{acl.ErrRTParamInvalid: 1}, o.res.Stats.Funcs["aclrtMemcpy"].Errors)
	})

	t.Run("sysinfo", func(t *testing.T) {
		o := mustRun(t, load(t, "sysinfo.c"), "sysinfo")
		require.Equal(t, sysinfoWant(), o.stdout)
		noErrors(t, o.res.Stats)
	})

	t.Run("fp16", func(t *testing.T) {
		o := mustRun(t, load(t, "fp16.c"), "fp16")
		checkFP16(t, []byte(o.stdout))
	})

	// ABI v1.2 section 12, the table rows of the functions beyond the
	// callbacks: notifies, the event extras, the error state and the
	// resource queries, aclInit with a configuration path.
	t.Run("notify", func(t *testing.T) {
		o := mustRun(t, load(t, "notify.c"), "notify")
		require.Equal(t, nativeNotifyWant, o.stdout, "%v", o)
		require.Equal(t, uint64(4), o.res.Stats.Funcs["aclrtWaitAndResetNotify"].Calls)
	})

	t.Run("events", func(t *testing.T) {
		o := mustRun(t, load(t, "events.c"), "events")
		require.Equal(t, nativeEventsWant, o.stdout, "%v", o)
		st := o.res.Stats.Funcs["aclrtSynchronizeEventWithTimeout"]
		require.Equal(t, map[acl.Error]uint64{acl.ErrRTParamInvalid: 2, acl.ErrInvalidParam: 1, acl.ErrRTInvalidHandle: 1, acl.Error(507047): 1}, st.Errors)
	})

	t.Run("errstate", func(t *testing.T) {
		pl := load(t, "errstate.c")
		o := mustRun(t, pl, "errstate")
		require.Equal(t, nativeErrstateWant, o.stdout, "%v", o)
		o = mustRun(t, pl, "errstate", "/etc/ascend/acl.json")
		require.Equal(t, strings.Replace(nativeErrstateWant, "./acl.json", "/etc/ascend/acl.json", 1), o.stdout)

		// The policy that refuses configuration files: 100003.
		wasm := buildNative(t, t.TempDir(), "errstate.c")
		refusing, err := sb.rt.Load(context.Background(), wasm, testCompile(host.Policy{RefuseInitConfig: true}))
		require.NoError(t, err)
		t.Cleanup(func() { require.NoError(t, refusing.Close(context.Background())) })
		o = run(context.Background(), refusing, "errstate")
		require.NoError(t, o.err)
		require.Equal(t, uint32(1), o.res.ExitCode)
		require.Equal(t, "aclInit(./acl.json): 100003\n", o.stdout)
	})
}

// nativeDataTypeSizes are the native aclDataTypeSize's answers for every
// aclDataType value of the public acl_base.h (and one it does not name,
// which gets the native default of 8), in sysinfo.c's order.
var nativeDataTypeSizes = []struct {
	name string
	v    int
	size int
}{
	{"ACL_DT_UNDEFINED", -1, 0}, {"ACL_FLOAT", 0, 4}, {"ACL_FLOAT16", 1, 2}, {"ACL_INT8", 2, 1},
	{"ACL_INT32", 3, 4}, {"ACL_UINT8", 4, 1}, {"ACL_INT16", 6, 2}, {"ACL_UINT16", 7, 2},
	{"ACL_UINT32", 8, 4}, {"ACL_INT64", 9, 8}, {"ACL_UINT64", 10, 8}, {"ACL_DOUBLE", 11, 8},
	{"ACL_BOOL", 12, 1}, {"ACL_STRING", 13, 0}, {"ACL_COMPLEX64", 16, 8}, {"ACL_COMPLEX128", 17, 16},
	{"ACL_BF16", 27, 2}, {"ACL_INT4", 29, 1}, {"ACL_UINT1", 30, 1}, {"ACL_COMPLEX32", 33, 4},
	{"ACL_HIFLOAT8", 34, 1}, {"ACL_FLOAT8_E5M2", 35, 1}, {"ACL_FLOAT8_E4M3FN", 36, 1},
	{"ACL_FLOAT8_E8M0", 37, 1}, {"ACL_FLOAT6_E3M2", 38, 8}, {"ACL_FLOAT6_E2M3", 39, 8},
	{"ACL_FLOAT4_E2M1", 40, 8}, {"ACL_FLOAT4_E1M2", 41, 8}, {"1000", 1000, 8},
}

// sysinfoWant is sysinfo.c's whole output: every package has the host's
// ACL version.
func sysinfoWant() string {
	maj, mnr, pat := acl.VersionMajor, acl.VersionMinor, acl.VersionPatch
	ver := fmt.Sprintf("%d.%d.%d", maj, mnr, pat)
	num := maj*10000000 + mnr*100000 + pat*1000
	var b strings.Builder
	fmt.Fprintf(&b, "aclrtGetVersion 0 %s\n", ver)
	for _, p := range []string{"cann", "runtime", "driver"} {
		fmt.Fprintf(&b, "aclsysGetCANNVersion %s 0 version=%s major=%d minor=%d release=%d patch=0\n", p, ver, maj, mnr, pat)
	}
	b.WriteString("aclsysGetCANNVersion 99 100000\naclsysGetCANNVersion NULL 100000\n")
	fmt.Fprintf(&b, "aclsysGetVersion runtime 0 %s 0 %d\n", ver, num)
	fmt.Fprintf(&b, "aclsysGetVersion opp-kernel 0 %s 0 %d\n", ver, num)
	b.WriteString("aclsysGetVersion nosuchpkg 100003 - 100003 -1\naclsysGetVersionNum NULL 100000\n")
	for _, d := range nativeDataTypeSizes {
		fmt.Fprintf(&b, "aclDataTypeSize %s %d %d\n", d.name, d.v, d.size)
	}
	b.WriteString("sysinfo: OK\n")
	return b.String()
}

// halfValue is the reference value of a binary16 encoding, from its fields
// (IEEE 754): ±Inf, NaN, ±m·2^-24 (subnormal) or ±(1+m/1024)·2^(e-15).
func halfValue(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10)&0x1f, float64(h&0x3ff)
	switch {
	case e == 0x1f && m == 0:
		return math.Inf(int(sign))
	case e == 0x1f:
		return math.NaN()
	case e == 0:
		return sign * math.Ldexp(m, -24)
	default:
		return sign * math.Ldexp(1+m/1024, e-15)
	}
}

// halfOf is the reference conversion of a float to binary16, round to
// nearest, ties to even, by search: the two finite halves around |x| (or
// 65536, where the exponent would go on, for the largest), the nearer one,
// the even one on a tie; 0x7c00 (Inf) beyond. ok is false for a NaN.
func halfOf(x float32) (h uint16, ok bool) {
	if x != x {
		return 0, false
	}
	var sign uint16
	if math.Signbit(float64(x)) {
		sign = 0x8000
	}
	a := math.Abs(float64(x))
	// The largest finite positive half at or below a.
	lo := uint16(sort.Search(0x7c00, func(i int) bool { return halfValue(uint16(i)) > a }) - 1)
	if halfValue(lo) == a {
		return sign | lo, true
	}
	next := 65536.0
	if lo < 0x7bff {
		next = halfValue(lo + 1)
	}
	dlo, dhi := a-halfValue(lo), next-a
	if dlo < dhi || (dlo == dhi && lo&1 == 0) {
		return sign | lo, true
	}
	return sign | (lo + 1), true // 0x7c00 is Inf
}

// fp16Edges are fp16.c's edge list.
var fp16Edges = []uint32{
	0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fbfffff,
	0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0x7f7fffff, 0xff7fffff,
	0x33000000, 0x33000001, 0x32ffffff, 0x00000001, 0x80000001, 0x00800000,
	0x33c00000, 0x38800000, 0x387fc000, 0x387fe000,
	0x3f800000, 0xbf800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x40490fdb, 0xc0490fdb, 0x3dcccccd,
}

// checkFP16 checks fp16.c's output (see the comment at its top) against the
// reference conversions.
func checkFP16(t *testing.T, out []byte) {
	want := 65536*6 + 0x7bff*12 + len(fp16Edges)*2
	require.Len(t, out, want, "fp16.c's output")
	isNaN16 := func(h uint16) bool { return h&0x7c00 == 0x7c00 && h&0x3ff != 0 }
	checkTo := func(what string, x float32, got uint16) {
		t.Helper()
		exp, ok := halfOf(x)
		if !ok {
			if !isNaN16(got) || got&0x8000 != uint16(math.Float32bits(x)>>16)&0x8000 {
				t.Errorf("%s: aclFloatToFloat16(NaN %#08x) = %#04x, want a NaN of the same sign", what, math.Float32bits(x), got)
			}
			return
		}
		if got != exp {
			t.Errorf("%s: aclFloatToFloat16(%g = %#08x) = %#04x, want %#04x", what, x, math.Float32bits(x), got, exp)
		}
	}
	var failures int
	// 1. Every half to float, and back.
	for h := 0; h < 65536 && failures < 20; h++ {
		rec := out[h*6:]
		bits := binary.LittleEndian.Uint32(rec)
		back := binary.LittleEndian.Uint16(rec[4:])
		f := math.Float32frombits(bits)
		ref := halfValue(uint16(h))
		if math.IsNaN(ref) {
			wantBits := uint32(h&0x8000)<<16 | 0x7f800000 | uint32(h&0x3ff)<<13
			if bits != wantBits {
				t.Errorf("aclFloat16ToFloat(%#04x) = %#08x, want the NaN %#08x", h, bits, wantBits)
				failures++
			}
			if !isNaN16(back) {
				t.Errorf("the round trip of NaN %#04x gave %#04x", h, back)
				failures++
			}
			continue
		}
		if float64(f) != ref || math.Signbit(float64(f)) != math.Signbit(ref) {
			t.Errorf("aclFloat16ToFloat(%#04x) = %g (%#08x), want %g", h, f, bits, ref)
			failures++
		}
		if back != uint16(h) {
			t.Errorf("round trip of %#04x gave %#04x", h, back)
			failures++
		}
	}
	require.Zero(t, failures, "half to float")
	// 2. Midpoints and their neighbours: the ties and the rounding.
	base := 65536 * 6
	for h := 0; h < 0x7bff && !t.Failed(); h++ {
		v, w := float32(halfValue(uint16(h))), float32(halfValue(uint16(h+1)))
		m := (v + w) / 2
		below, above := math.Float32frombits(math.Float32bits(m)-1), math.Float32frombits(math.Float32bits(m)+1)
		rec := out[base+h*12:]
		for k, x := range []float32{m, below, above, -m, -below, -above} {
			checkTo(fmt.Sprintf("between %#04x and %#04x", h, h+1), x, binary.LittleEndian.Uint16(rec[2*k:]))
		}
	}
	// 3. The edges.
	base += 0x7bff * 12
	for i, e := range fp16Edges {
		checkTo("edge", math.Float32frombits(e), binary.LittleEndian.Uint16(out[base+2*i:]))
	}
}

// TestNativeHeadersDeferToLibc checks that the SDK's dlfcn.h and pthread.h
// stand aside when the C library has its own: with a sysroot that ships
// both (next to its wasi/ directory, as newer wasi-libc releases do), a
// program gets that sysroot's headers, not the SDK's.
func TestNativeHeadersDeferToLibc(t *testing.T) {
	dir := t.TempDir()
	sys := filepath.Join(dir, "sysroot-include")
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "wasi"), 0o755))
	for _, h := range []string{"dlfcn", "pthread"} {
		require.NoError(t, os.WriteFile(filepath.Join(sys, h+".h"),
			[]byte("#define LIBC_OWN_"+strings.ToUpper(h)+" 1\n"), 0o644))
	}
	src := filepath.Join(dir, "probe.c")
	require.NoError(t, os.WriteFile(src, []byte(`#include <dlfcn.h>
#include <pthread.h>
#if !defined(LIBC_OWN_DLFCN) || !defined(LIBC_OWN_PTHREAD)
#error "the SDK's header shadowed the C library's"
#endif
#ifdef ACLWASM_DLFCN_H_
#error "the SDK's dlfcn.h was used"
#endif
int main(void) { return 0; }
`), 0o644))
	args := append(nativeFlags(t), "-isystem", sys, "-c", "-o", filepath.Join(dir, "probe.o"), src)
	out, err := exec.Command(nativeTool(t, "clang"), args...).CombinedOutput()
	require.NoError(t, err, "clang %s:\n%s", strings.Join(args, " "), out)

	// Without that sysroot, the SDK's headers are the ones used.
	require.NoError(t, os.WriteFile(src, []byte(`#include <dlfcn.h>
#include <pthread.h>
#if !defined(ACLWASM_DLFCN_H_) || !defined(ACLWASM_PTHREAD_H_)
#error "the SDK's headers were not used"
#endif
int main(void) { return 0; }
`), 0o644))
	args = append(nativeFlags(t), "-c", "-o", filepath.Join(dir, "probe.o"), src)
	out, err = exec.Command(nativeTool(t, "clang"), args...).CombinedOutput()
	require.NoError(t, err, "clang %s:\n%s", strings.Join(args, " "), out)
}

// nativeNotifyWant, nativeEventsWant and nativeErrstateWant are the whole
// outputs of tests/native/notify.c, events.c and errstate.c: the native
// codes of ABI section 12 (docs/ABI.md), step by step.
var nativeNotifyWant = `create before aclrtSetDevice: 107002
create NULL: 100000
create flag 2: 107000
ids: nonzero 1, distinct 1
id NULL out: 100000
id NULL notify: 100000
ordered copy: 5a5a5a5a
timed-out wait, synchronize: 107019
stream goes on: 11
record then wait, synchronize: 0
record NULL notify: 100000
record an event as notify: 107017
record on an event as stream: 107017
wait NULL notify: 100000
notify as stream: 107017
destroy NULL: 100000
record destroyed: 107017
destroy destroyed: 107017
notify: OK
`

var nativeEventsWant = `avail before aclrtSetDevice: 107002
flag 0: 107000
flag DEVICE_USE_ONLY|SYNC: 107000
flag EXTERNAL: 107000
flag IPC: 207000
flag 0x80: 107000
NULL event: 100000
avail: one fewer after a create 1
avail NULL: 100000
id before a record: 507000
id NULL out: 100000
id NULL event: 100000
wait on unrecorded ex event: 0
wait on unrecorded plain event: 107000
synchronize: 0
timestamp never recorded: 507000
timestamp NULL out: 100000
timestamp NULL event: 100000
sync never recorded: 0
timestamps ordered: 1
ids: nonzero 1, distinct 1
sync timeout -2: 107000
sync timeout 0: 107000
sync NULL: 100000
sync a stream as event: 107017
sync pending record, 20 ms: 507047
timestamp pending record: 107006
sync after the gate opened: 0
timestamp after: not earlier 1
avail back: 1
events: OK
`

var nativeErrstateWant = `aclInit(./acl.json): 0
last error at start: 0
default stream without a context: 107002
peek: 107002
peek again: 107002
get: 107002
get again: 0
bad level: 100000
copy past the allocation: 107000
NULL out (ACL layer): 100000
last error kept: 107000
get: 107000
after get: 0
error info: sizeof 1292 tryRepair 0 hasDetail 0 errorType 0 aicoreErrType 0
error info NULL: 100000
default stream: NULL
default stream NULL out: 100000
cores: cube 24 vector 48
device limit cube: 24
after set 8: device 8 thread 8
set above the device's: 107000
bad type: 107000
device never set: 507033
negative device: 107001
thread bad type: 107000
streams available: one fewer 1
streams available: back 1
errstate: OK
`

// TestNativeSection12Backends runs notify.c, events.c and errstate.c again
// on the native backend over the library ACLWASM_TEST_ACL_LIB names (the
// stand-in in CI), when it names one: the output is the simulator's, code
// for code.
func TestNativeSection12Backends(t *testing.T) {
	b := testsupport.Native(t) // closed when the test ends
	if b == nil {
		t.Skip("ACLWASM_TEST_ACL_LIB names no libascendcl.so")
	}
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithBackend(b), host.WithEngine(engine))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
	dir := t.TempDir()
	for _, tc := range []struct{ src, want string }{
		{"notify.c", nativeNotifyWant}, {"events.c", nativeEventsWant}, {"errstate.c", nativeErrstateWant},
	} {
		t.Run(tc.src, func(t *testing.T) {
			pl, err := rt.Load(ctx, buildNative(t, dir, tc.src), testCompile(host.Policy{}))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
			o := mustRun(t, pl, strings.TrimSuffix(tc.src, ".c"))
			require.Equal(t, tc.want, o.stdout, "%v", o)
		})
	}
}

// TestNativeDlsymProfiles: dlsym's table of the SDK's functions compiles
// without a warning in both profiles, as C and as C++, and in the wide
// profile finds the wide functions: a program looks aclrtSetDevice and
// aclrtGetDeviceCount up by name and calls them.
func TestNativeDlsymProfiles(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "dlsym.c")
	require.NoError(t, os.WriteFile(src, []byte(`#include <dlfcn.h>
#include <stdio.h>
#include <acl/acl.h>

int main(void)
{
    void *rt = dlopen("libascendcl.so", RTLD_NOW);
    aclError (*setDevice)(int32_t) = (aclError (*)(int32_t))dlsym(rt, "aclrtSetDevice");
    aclError (*count)(uint32_t *) = (aclError (*)(uint32_t *))dlsym(rt, "aclrtGetDeviceCount");
    uint32_t n = 0;
    if (setDevice == NULL || count == NULL || setDevice(0) != ACL_SUCCESS || count(&n) != ACL_SUCCESS || n == 0) {
        printf("dlsym: %s\n", dlerror());
        return 1;
    }
    printf("dlsym: OK\n");
    return 0;
}
`), 0o644))
	sb := newSandbox(t)
	for _, tc := range []struct {
		name, cc string
		flags    []string
	}{
		{"c", "clang", nil},
		{"c-wide", "clang", []string{"-DACLWASM_WIDE"}},
		{"c++", "clang++", []string{"-x", "c++"}},
		{"c++-wide", "clang++", []string{"-x", "c++", "-DACLWASM_WIDE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".wasm")
			args := append(append(nativeFlags(t), tc.flags...), "-O2", "-Wall", "-Wextra", "-Werror", "-o", out, src)
			b, err := exec.Command(nativeTool(t, tc.cc), args...).CombinedOutput()
			require.NoError(t, err, "%s %s:\n%s", tc.cc, strings.Join(args, " "), b)
			wasm, err := os.ReadFile(out)
			require.NoError(t, err)
			pl, err := sb.rt.Load(context.Background(), wasm, testCompile(host.Policy{}))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
			o := mustRun(t, pl, "dlsym")
			require.Equal(t, "dlsym: OK", lastLine(o.stdout), "%v", o)
		})
	}
}
