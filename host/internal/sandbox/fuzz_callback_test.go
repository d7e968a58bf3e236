package sandbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
)

// fuzzCallbackPolicy keeps an input short: a wait that never ends (a
// callback waiting for its own stream) ends at the timeout, and the
// limits are reached within an input.
var fuzzCallbackPolicy = host.Policy{Timeout: time.Second, MaxCallbacks: 32, MaxCallbackDepth: 4}

// The steps of FuzzCallbacks' inputs: a step byte, a stream and a record
// (a byte each), then for stepRecord the record's op and x (a byte each).
// A launch's blockType is the step byte's high bit.
const (
	stepCreate = iota
	stepSubscribe
	stepUnsubscribe
	stepLaunch
	stepLaunchHost
	stepProcess
	stepDestroy
	stepDestroyForce
	stepResetForce
	stepSync
	stepRecord
	steps
)

// FuzzCallbacks plays random sequences of stream callback calls on
// actWAT: launches of both kinds (blocking or not), subscriptions,
// aclrtProcessReport, destructions, forced ones and forced resets, from
// the guest and from its callbacks (whose records the input rewrites:
// relaunching, processing, destroying, synchronizing, trapping). Every
// call returns (a watchdog of a minute), none hits a host bug, a run
// ends only by a trap or the timeout, and Close releases the instance
// (TestMain's goleak checks that no goroutine is left).
func FuzzCallbacks(f *testing.F) {
	for _, seed := range [][]byte{
		// A callback that relaunches itself (NO_BLOCK) and processes reports.
		{stepCreate, 0, 0, stepSubscribe, 1, 0, stepRecord, 1, 0, opRelaunch, 0, stepLaunch, 1, 0, stepProcess, 0, 0},
		// Forced destruction, then a forced reset, while a blocking callback is due.
		{stepCreate, 0, 0, stepSubscribe, 1, 0, stepLaunch + 12*steps, 1, 0, stepLaunch + 12*steps, 1, 1, stepDestroyForce, 1, 0,
			stepSubscribe, 0, 0, stepLaunch + 12*steps, 0, 0, stepResetForce, 0, 0},
		// A blocking callback that destroys its own stream.
		{stepCreate, 0, 0, stepSubscribe, 1, 0, stepRecord, 1, 0, opDestroyForce, 0, stepLaunch + 12*steps, 1, 0, stepProcess, 0, 0},
		// Host functions that launch others and trap.
		{stepCreate, 0, 0, stepRecord, 1, 0, opLaunchHost, 1, stepRecord, 1, 1, opTrap, 0, stepLaunchHost, 1, 0, stepSync, 1, 0},
	} {
		f.Add(seed)
	}
	g := newActGuest(f, fuzzCallbackPolicy)
	f.Fuzz(func(t *testing.T, data []byte) { playCallbacks(t, g.pl, data) })
}

// playCallbacks plays one input of FuzzCallbacks on a new instance of pl.
func playCallbacks(t *testing.T, pl *host.Plugin, data []byte) {
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	defer func() { require.NoError(t, inst.Close(ctx)) }()
	g := &actGuest{t: t, pl: pl, inst: inst}
	g.ok("aclrtSetDevice", 0)
	streams := []uint64{0} // NULL: the default stream
	var xs []uint64        // a record's x: another record, a timeout or device, 0
	for k := range 8 {
		xs = append(xs, uint64(0x100+16*k))
	}
	xs = append(xs, 10, 0)
	r := reader{b: data}
	for n := 0; n < 48 && !r.done(); n++ {
		b := r.byte()
		st := streams[int(r.byte())%len(streams)]
		rec := uint64(0x100 + 16*(int(r.byte())%8))
		var name string
		var args []uint64
		switch b % steps {
		case stepCreate:
			name, args = "aclrtCreateStream", []uint64{64}
		case stepSubscribe:
			name, args = "aclrtSubscribeReport", []uint64{1, st}
		case stepUnsubscribe:
			name, args = "aclrtUnSubscribeReport", []uint64{1, st}
		case stepLaunch:
			name, args = "aclrtLaunchCallback", []uint64{1, rec, uint64(b >> 7), st}
		case stepLaunchHost:
			name, args = "aclrtLaunchHostFunc", []uint64{st, 1, rec}
		case stepProcess:
			name, args = "aclrtProcessReport", []uint64{10}
		case stepDestroy:
			name, args = "aclrtDestroyStream", []uint64{st}
		case stepDestroyForce:
			name, args = "aclrtDestroyStreamForce", []uint64{st}
		case stepResetForce:
			name, args = "aclrtResetDeviceForce", []uint64{0}
		case stepSync:
			name, args = "aclrtSynchronizeStream", []uint64{st}
		case stepRecord:
			g.record(uint32(rec), uint64(r.byte()%(opTrap+1)), st, xs[int(r.byte())%len(xs)])
			continue
		}
		code, err := g.callWithin(name, args...)
		if err != nil {
			require.True(t, errors.Is(err, host.ErrTrap) || errors.Is(err, host.ErrTimeout), "%s%v: %v", name, args, err)
			return // the run ended: so did the instance
		}
		require.NotEqual(t, int32(acl.ErrInternal), code, "%s%v hit a host bug: %s", name, args, inst.Session().LastError())
		switch {
		case name == "aclrtCreateStream" && code == 0:
			streams = append(streams, uint64(le.Uint32(proxytest.Mem(inst)[64:])))
		case name == "aclrtResetDeviceForce" && code == 0:
			g.ok("aclrtSetDevice", 0)
		}
	}
}

// reader hands out fuzz bytes; past the end it gives zeros.
type reader struct {
	b []byte
	i int
}

func (r *reader) done() bool { return r.i >= len(r.b) }

func (r *reader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}
