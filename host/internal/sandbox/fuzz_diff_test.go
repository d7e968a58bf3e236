package sandbox_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// FuzzDifferential plays each input on every configuration this build and
// environment offer and requires the same outcome from all: every call's
// arguments, result, code and message, the statistics, the device bytes
// the session held, and guest and device memory once queued work has
// finished.
// Configurations: wazero over the simulator always; wasmtime over the
// simulator when built with -tags wasmtime (fuzz_wasmtime_test.go); wazero
// over the native backend when ACLWASM_TEST_ACL_LIB names a libascendcl.so
// (the stand-in in CI, make unit-cann). With only the first, it runs twice
// on two runtimes: the outcome must not depend on timing either.
//
// The family leaves out what depends on timing by nature: whether queued
// work is complete yet (aclrtStreamQuery, aclrtQueryEventStatus,
// aclrtEventElapsedTime), and finite timeouts shorter than the policy's.
func FuzzDifferential(f *testing.F) {
	cfgs := slices.Clone(diffConfigs)
	if testsupport.NativeLib() != "" {
		cfgs = append(cfgs, diffConfig{"wazero/cann", func(tb testing.TB) []host.Option { return append(proxytest.Backend(tb), host.WithEngine("wazero")) }})
	}
	if len(cfgs) == 1 {
		cfgs = append(cfgs, cfgs[0])
	}
	var envs []*fuzzEnv
	for _, c := range cfgs {
		envs = append(envs, newFuzzEnv(f, diffPolicy, c.opts(f)))
	}
	fam := fuzzFamily{funcs: diffFuncs(), prepare: true, untimed: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		first := envs[0].play(t, data, fam)
		for i, e := range envs[1:] {
			requireSameFuzzOutcome(t, [2]string{cfgs[0].name, cfgs[i+1].name}, first, e.play(t, data, fam))
		}
	})
}

// diffFuncs are the imports the differential target calls: all but those
// whose outcome depends on timing by nature.
func diffFuncs() []int {
	var out []int
	for i, fn := range abi.Funcs {
		switch fn.Name {
		case "aclrtStreamQuery", "aclrtQueryEventStatus", "aclrtEventElapsedTime",
			"aclrtDestroyStreamForce", "aclrtResetDeviceForce", // what a cancellation stops depends on timing
			"aclrtSetStreamFailureMode", // natively a host function's error does not stop the stream (acl/cann/README.md)
			"aclrtEventGetTimestamp":    // when a record ran, and whether it has yet, is timing
		default:
			out = append(out, i)
		}
	}
	return out
}

// diffConfig is an engine and a backend the differential target runs on.
type diffConfig struct {
	name string
	opts func(testing.TB) []host.Option
}

// diffConfigs are the configurations of this build.
var diffConfigs = []diffConfig{{"wazero/sim", func(testing.TB) []host.Option { return []host.Option{host.WithEngine("wazero")} }}}

// diffPolicy is fuzzPolicy with queue limits no input can reach, since how
// many operations are still queued depends on timing.
var diffPolicy = func() host.Policy {
	p := fuzzPolicy
	p.MaxQueued = 8 * maxFuzzCalls
	p.MaxBatchEntries = 1 << 30
	return p
}()

func requireSameFuzzOutcome(t *testing.T, names [2]string, a, b fuzzOutcome) {
	t.Helper()
	if a.TimedOut != b.TimedOut {
		// On a loaded machine the policy's timeout can end one run before
		// the other: up to where the shorter run stopped, they must agree.
		short, long := a.Calls, b.Calls
		if len(short) > len(long) {
			short, long = long, short
		}
		requireSameCalls(t, short, long[:len(short)])
		return
	}
	requireSameCalls(t, a.Calls, b.Calls)
	require.Equal(t, a.Stats, b.Stats, "statistics")
	require.Equal(t, a.LastError, b.LastError)
	require.Equal(t, a.Held, b.Held, "device bytes held by the session")
	requireSameMemory(t, names, a.Memory, b.Memory)
	require.Equal(t, len(a.Device), len(b.Device), "device bytes held")
	require.True(t, bytes.Equal(a.Device, b.Device), "the bytes of the live allocations differ between %s and %s", names[0], names[1])
}
