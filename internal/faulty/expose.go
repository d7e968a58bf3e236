package faulty

import (
	"context"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// The optional interfaces that the simulator and the native backend both
// implement, forwarded as one block, with their names for Wrap's panic.
var sharedNames = []string{"Completer", "MemsetD32er", "EventResetter", "TimedWaiter", "OpTimeouts",
	"StreamForcer", "StreamConfigurer", "FailureModer", "RunModer"}

// sharedOf reports, in the order of sharedNames, which of them b implements.
func sharedOf(b acl.Backend) []bool {
	_, c := b.(acl.Completer)
	_, m := b.(acl.MemsetD32er)
	_, e := b.(acl.EventResetter)
	_, t := b.(acl.TimedWaiter)
	_, o := b.(acl.OpTimeouts)
	_, f := b.(acl.StreamForcer)
	_, sc := b.(acl.StreamConfigurer)
	_, fm := b.(acl.FailureModer)
	_, r := b.(acl.RunModer)
	return []bool{c, m, e, t, o, f, sc, fm, r}
}

// shared forwards the block to the wrapped backend, which implements all
// of it (Wrap checked).
type shared struct{ b *wrapper }

// OnComplete implements [acl.Completer].
func (w shared) OnComplete(s acl.Stream, fn func()) error {
	return w.b.Backend.(acl.Completer).OnComplete(s, fn)
}

// MemsetD32 implements [acl.MemsetD32er].
func (w shared) MemsetD32(ctx context.Context, dst acl.Buf, value uint32, n uint64) error {
	return w.b.Backend.(acl.MemsetD32er).MemsetD32(ctx, dst, value, n)
}

// MemsetD32Async implements [acl.MemsetD32er].
func (w shared) MemsetD32Async(ctx context.Context, dst acl.Buf, value uint32, n uint64, s acl.Stream) error {
	return w.b.Backend.(acl.MemsetD32er).MemsetD32Async(ctx, dst, value, n, s)
}

// ResetEvent implements [acl.EventResetter].
func (w shared) ResetEvent(e acl.Event, s acl.Stream) error {
	return w.b.Backend.(acl.EventResetter).ResetEvent(e, s)
}

// StreamWaitEventTimeout implements [acl.TimedWaiter].
func (w shared) StreamWaitEventTimeout(s acl.Stream, e acl.Event, timeout time.Duration) error {
	return w.b.Backend.(acl.TimedWaiter).StreamWaitEventTimeout(s, e, timeout)
}

// OpTimeoutInterval implements [acl.OpTimeouts].
func (w shared) OpTimeoutInterval() (uint64, error) {
	return w.b.Backend.(acl.OpTimeouts).OpTimeoutInterval()
}

// DestroyStreamForce implements [acl.StreamForcer].
func (w shared) DestroyStreamForce(s acl.Stream) error {
	return w.b.Backend.(acl.StreamForcer).DestroyStreamForce(s)
}

// CreateStreamWithConfig implements [acl.StreamConfigurer].
func (w shared) CreateStreamWithConfig(dev int32, priority uint32, flags acl.StreamFlag) (acl.Stream, error) {
	return w.b.Backend.(acl.StreamConfigurer).CreateStreamWithConfig(dev, priority, flags)
}

// SetStreamFailureMode implements [acl.FailureModer].
func (w shared) SetStreamFailureMode(s acl.Stream, mode acl.FailureMode) error {
	return w.b.Backend.(acl.FailureModer).SetStreamFailureMode(s, mode)
}

// RunMode implements [acl.RunModer].
func (w shared) RunMode() (acl.RunMode, error) { return w.b.Backend.(acl.RunModer).RunMode() }

// zeroer forwards [acl.Zeroer].
type zeroer struct{ z acl.Zeroer }

// ZeroesAllocations implements [acl.Zeroer].
func (w zeroer) ZeroesAllocations() bool { return w.z.ZeroesAllocations() }

// peerRule forwards [acl.PeerRule].
type peerRule struct{ p acl.PeerRule }

// PeerAccessRequired implements [acl.PeerRule].
func (w peerRule) PeerAccessRequired() bool { return w.p.PeerAccessRequired() }

// The wrapper types, one per supported set of optional interfaces.
type (
	sharedOnly struct {
		*wrapper
		shared
	}
	sharedZ struct {
		*wrapper
		shared
		zeroer
	}
	sharedP struct {
		*wrapper
		shared
		peerRule
	}
	sharedZP struct {
		*wrapper
		shared
		zeroer
		peerRule
	}
	plainZ struct {
		*wrapper
		zeroer
	}
	plainP struct {
		*wrapper
		peerRule
	}
	plainZP struct {
		*wrapper
		zeroer
		peerRule
	}
)

// Interfaces names the optional interfaces of acl that b implements, in a
// fixed order: what Wrap preserves, for tests that check it.
func Interfaces(b acl.Backend) []string {
	var out []string
	for i, has := range sharedOf(b) {
		if has {
			out = append(out, sharedNames[i])
		}
	}
	if _, ok := b.(acl.Zeroer); ok {
		out = append(out, "Zeroer")
	}
	if _, ok := b.(acl.PeerRule); ok {
		out = append(out, "PeerRule")
	}
	return out
}
