//go:build darwin || freebsd || linux || netbsd

package cann

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The stand-in libascendcl.so (testdata/standin/standin.c) in its four
// builds: with every symbol, without the V2 batch copies, like an older
// runtime without any optional symbol, and with every symbol on a node
// whose driver lacks the asynchronous batch and offset copies and
// device-only notifies.
const (
	full      = "full"
	noV2      = "nov2"
	older     = "old"
	oldDriver = "olddriver" // every symbol, on a node whose driver lacks some features
)

var variantFlags = map[string][]string{
	full:      nil,
	noV2:      {"-DNO_V2"},
	older:     {"-DNO_V2", "-DOLD_RUNTIME"},
	oldDriver: {"-DOLD_DRIVER"},
}

// standinQueue is how many operations a stand-in stream holds.
const standinQueue = 1024

// libPaths holds the built stand-ins, by variant.
var libPaths = map[string]string{}

// TestMain builds the stand-ins with gcc, which these tests need: without
// it they fail rather than skip, since skipping would hide that the native
// path is untested.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "aclwasm-standin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "cann tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := buildStandins(dir); err != nil {
		fmt.Fprintln(os.Stderr, "cann tests:", err)
		return 1
	}
	// Two devices with 64 MiB each; the stand-in reads these at aclInit.
	os.Setenv("ACLWASM_STANDIN_DEVICES", "2")
	os.Setenv("ACLWASM_STANDIN_MEM", "67108864")
	// Streams hold a bounded queue, as natively: a call that queues past it
	// waits for room (acltest's NoCrossTenantConvoy fills one).
	os.Setenv("ACLWASM_STANDIN_QUEUE", strconv.Itoa(standinQueue))
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "cann tests: goroutine leak:", err)
			code = 1
		}
	}
	return code
}

func buildStandins(dir string) error {
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		return errors.New("gcc is required to build the stand-in libascendcl.so (testdata/standin/standin.c); install gcc (Debian: apt-get install gcc)")
	}
	src, err := filepath.Abs("testdata/standin/standin.c")
	if err != nil {
		return err
	}
	for variant, flags := range variantFlags {
		out := filepath.Join(dir, variant, "libascendcl.so")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		args := append([]string{"-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall", "-o", out, src, "-lpthread"}, flags...)
		if msg, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("building the %s stand-in: %v\n%s", variant, err, msg)
		}
		libPaths[variant] = out
	}
	return buildOpLibrary(gcc, filepath.Dir(libPaths[full]))
}

// buildOpLibrary builds the stand-in operator library beside the full
// stand-in, as the toolkit lays it out: libnnopbase.so and libopapi.so,
// which links libnnopbase.so through its $ORIGIN and finds the
// libascendcl.so beside it. The other
// variants have none: their backends run no operators.
func buildOpLibrary(gcc, dir string) error {
	src, err := filepath.Abs("testdata/standin")
	if err != nil {
		return err
	}
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "libnnopbase.so"), filepath.Join(src, "nnopbase.c")},
		{"-o", filepath.Join(dir, "libopapi.so"), filepath.Join(src, "opapi.c"), "-L" + dir, "-lnnopbase", "-Wl,-rpath,$ORIGIN", "-ldl", "-lpthread", "-lm"},
	} {
		args = append([]string{"-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-Wall"}, args...)
		if msg, err := exec.Command(gcc, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("building the stand-in operator library: %v\n%s", err, msg)
		}
	}
	return nil
}

// standin is the test's view of one loaded stand-in: its call log and
// live-object counts.
type standin struct {
	path     string
	callLog  func(buf *byte, n uint64) uint64
	logReset func()
	stats    func(out *int64)
	regDev   func(p uintptr) int32 // the device a host address is registered for, -1 if none
}

var standins = map[string]*standin{}

func getStandin(t testing.TB, variant string) *standin {
	t.Helper()
	if s := standins[variant]; s != nil {
		return s
	}
	path := libPaths[variant]
	// The same file the backend loads: dlopen returns the same handle.
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	s := &standin{path: path}
	purego.RegisterLibFunc(&s.callLog, h, "aclwasmStandinCallLog")
	purego.RegisterLibFunc(&s.logReset, h, "aclwasmStandinCallLogReset")
	purego.RegisterLibFunc(&s.stats, h, "aclwasmStandinStats")
	purego.RegisterLibFunc(&s.regDev, h, "aclwasmStandinRegDevice")
	standins[variant] = s
	return s
}

// stats is what the stand-in reports as alive.
type stats struct {
	Allocs, Streams, Events, Regs, DeviceRefs, Inited, Leaked int64
}

func (s *standin) Stats() stats {
	var out [7]int64
	s.stats(&out[0])
	return stats{out[0], out[1], out[2], out[3], out[4], out[5], out[6]}
}

// calls returns the logged calls since the last reset, one per line,
// leaving out the context switches and report polls that every call or
// report thread makes, unless they are asked for by name.
func (s *standin) calls(names ...string) []string {
	n := s.callLog(nil, 0)
	buf := make([]byte, n+1)
	n = s.callLog(&buf[0], uint64(len(buf)))
	var out []string
	for _, line := range strings.Split(strings.TrimRight(string(buf[:n]), "\n"), "\n") {
		name, _, _ := strings.Cut(line, "(")
		switch {
		case line == "":
		case len(names) > 0:
			for _, want := range names {
				if name == want {
					out = append(out, line)
				}
			}
		case name != "aclrtSetCurrentContext" && name != "aclrtProcessReport":
			out = append(out, line)
		}
	}
	return out
}

// open opens a backend on the stand-in variant and, when the test ends,
// closes it and checks that the stand-in holds nothing more than before.
func open(t *testing.T, variant string) (*Backend, *standin) {
	t.Helper()
	s := getStandin(t, variant)
	before := s.Stats()
	b, err := Open(s.path)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, b.Close())
		after := s.Stats()
		require.Equal(t, before, after, "the stand-in must hold what it held before the backend opened")
	})
	s.logReset()
	return b, s
}

// hexp prints a pointer as the stand-in logs it.
func hexp[T ~uint64 | ~uintptr](p T) string { return fmt.Sprintf("0x%x", uint64(p)) }

func addrOf(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }
