package sandbox_test

import (
	"testing"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// One fuzz target per import family. Each input plays on a session that
// fuzzPrepare made ready (a device, allocations on two devices, a pinned
// range, a stream and an event, batch arrays, a genuine descriptor and
// offset slots), so short inputs reach the family's deep paths. Three calls
// in four go to the family, the rest to any import (a free, a destroy, a
// synchronize in between), all checked by the shared player (fuzz_test.go).

// fuzzFamilyOf is the family of the groups, mixed with every other import.
func fuzzFamilyOf(groups ...abi.Group) fuzzFamily {
	fam, all := funcsOf(groups...), funcsOf()
	var funcs []int
	for len(funcs) < 3*len(all) { // the family, three times as often as the rest
		funcs = append(funcs, fam...)
	}
	return fuzzFamily{funcs: append(funcs, all...), prepare: true}
}

func fuzzTarget(f *testing.F, fam fuzzFamily) {
	e := newFuzzEnv(f, fuzzPolicy, append(proxytest.Backend(f), host.WithEngine(testEngine)))
	f.Fuzz(func(t *testing.T, data []byte) { e.play(t, data, fam) })
}

// FuzzCopies: aclrtMemcpy, the async copies and memset.
func FuzzCopies(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Memcpy, abi.Memset)) }

// FuzzBatches: the four batch copies over the prepared arrays.
func FuzzBatches(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Batch)) }

// Fuzz2D: aclrtMemcpy2d and aclrtMemcpy2dAsync.
func Fuzz2D(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Memcpy2D)) }

// FuzzDescriptors: descriptor and offset copies, over the prepared
// descriptor and slots, which scribbles tamper with.
func FuzzDescriptors(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Descriptor)) }

// FuzzMemory: allocation, registration, attributes, memory info.
func FuzzMemory(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Memory)) }

// FuzzStreams: streams and events.
func FuzzStreams(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Stream, abi.Event)) }

// FuzzDevice: devices, peers, contexts and the runtime functions.
func FuzzDevice(f *testing.F) { fuzzTarget(f, fuzzFamilyOf(abi.Device, abi.Runtime, abi.Context)) }
