package sandbox_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// The tests of this package's imports drive them as a guest does, through
// the embedding API (package host) and the proxy guest, as wazero's WASI
// tests drive its imports through its runtime; sandbox.Peek and
// export_test.go show them what that API keeps inside.

func TestMain(m *testing.M) { goleak.VerifyTestMain(cleanupM{m}) }

// cleanupM removes what the tests share across cases (the test models)
// once they have run.
type cleanupM struct{ *testing.M }

func (m cleanupM) Run() int {
	defer removeSharedModels()
	return m.M.Run()
}

// testEngine is the engine the guest tests run on: wazero, or the one
// named by ACLWASM_TEST_ENGINE (CI runs the suite once per engine).
var testEngine = testsupport.Engine()

// harness is one reactor instance of the proxy guest (proxytest.Harness),
// with the helpers of this package's tests as its methods.
type harness struct {
	*proxytest.Harness
	peer *harness // the harness of the case's own that bareHarness made, if any
}

var le = binary.LittleEndian

// Scratch addresses in guest memory (testsupport's).
const (
	outA  = testsupport.OutA
	outB  = testsupport.OutB
	outC  = testsupport.OutC
	data  = testsupport.Data
	data2 = testsupport.Data2
)

// newHarness is proxytest.New as this package's harness.
func newHarness(t *testing.T, p host.Policy, opts ...host.Option) *harness {
	t.Helper()
	return &harness{Harness: proxytest.New(t, p, opts...)}
}

// newHarnessIn is proxytest.NewIn as this package's harness.
func newHarnessIn(t *testing.T, prof abi.Profile, p host.Policy, opts ...host.Option) *harness {
	t.Helper()
	return &harness{Harness: proxytest.NewIn(t, prof, p, opts...)}
}

// newHarnessCfg is proxytest.NewCfg as this package's harness.
func newHarnessCfg(t *testing.T, prof abi.Profile, p host.Policy, cfg host.Config, opts ...host.Option) *harness {
	t.Helper()
	return &harness{Harness: proxytest.NewCfg(t, prof, p, cfg, opts...)}
}

// shared returns what the sessions of the harness's runtime share.
func (h *harness) shared() *sandbox.Shared { _, sh, _ := sandbox.Peek(h.RT); return sh }

const sizeMax = math.MaxUint64

// nnProfiles runs f on a harness of each profile, device 0 current.
func nnProfiles(t *testing.T, f func(t *testing.T, h *harness)) {
	for _, prof := range abi.Profiles {
		t.Run(prof.Module(), func(t *testing.T) {
			h := newHarnessIn(t, prof, host.Policy{})
			h.OK("aclrtSetDevice", 0)
			f(t, h)
		})
	}
}

// hexs is v in hex without a prefix, as messages show addresses after "0x".
func hexs(v uint64) string { return strconv.FormatUint(v, 16) }

// series returns the series of metric name that reg holds, keyed by their
// labels ("[function=aclnnAdd outcome=ok plugin=]"): a histogram's sample
// count, a gauge's or a counter's value.
func series(t *testing.T, reg prometheus.Gatherer, name string) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	require.NoError(t, err)
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, mt := range mf.GetMetric() {
			var labels []string
			for _, l := range mt.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			v := mt.GetGauge().GetValue() + mt.GetCounter().GetValue() + float64(mt.GetHistogram().GetSampleCount())
			out[fmt.Sprint(labels)] = v
		}
	}
	return out
}
