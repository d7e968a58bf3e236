package sim

import (
	"sync"
	"time"

	"github.com/aclwasm/aclwasm/acl"
)

// notify is a one-bit flag in stream order (aclrtNotify): a record sets
// it when it runs; a wait blocks its stream until the flag is set, then
// clears it, so that each record releases one wait. Several records before
// a wait set it once.
type notify struct {
	h    acl.Notify
	mu   sync.Mutex
	set  bool
	ch   chan struct{} // closed when set becomes true; a new one after each reset
	gone chan struct{} // closed by DestroyNotify: waits on it end
	once sync.Once
}

// take clears the flag when it is set and reports whether it was; if not,
// it returns the channel that the next record closes.
func (n *notify) take() (bool, <-chan struct{}) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.set {
		n.set, n.ch = false, make(chan struct{})
		return true, nil
	}
	return false, n.ch
}

// raise sets the flag, waking the waits.
func (n *notify) raise() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.set {
		n.set = true
		close(n.ch)
	}
}

func (n *notify) destroy() { n.once.Do(func() { close(n.gone) }) }

// notify returns the live notify h, or 107017.
func (b *Backend) notify(h acl.Notify) (*notify, error) {
	n := b.notifies.get(uint64(h))
	switch {
	case b.shut.Load():
		return nil, errClosed()
	case n == nil:
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "notify %d is not a live notify", h)
	}
	return n, nil
}

// CreateNotify implements [acl.Backend]. dev must exist; flag is taken as
// it is (ACL_NOTIFY_DEVICE_USE_ONLY changes nothing on the simulator).
func (b *Backend) CreateNotify(dev int32, flag uint64) (acl.Notify, error) {
	if err := acl.CheckNotifyFlag(flag); err != nil {
		return 0, err
	}
	if _, err := b.device(dev); err != nil {
		return 0, err
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return 0, errClosed()
	}
	n := &notify{h: acl.Notify(b.nextH.Add(1)), ch: make(chan struct{}), gone: make(chan struct{})}
	b.notifies.put(uint64(n.h), n)
	return n.h, nil
}

// DestroyNotify implements [acl.Backend]. Streams waiting for the notify
// go on; a queued record of it still runs, to no effect.
func (b *Backend) DestroyNotify(h acl.Notify) error {
	n, err := remove(b, &b.notifies, uint64(h), "notify")
	if err != nil {
		return err
	}
	n.destroy()
	return nil
}

// RecordNotify implements [acl.Backend]. The notify and the stream may
// belong to different devices.
func (b *Backend) RecordNotify(nh acl.Notify, sh acl.Stream) error {
	n, err := b.notify(nh)
	if err != nil {
		return err
	}
	s, err := b.stream(sh)
	if err != nil {
		return err
	}
	return s.pushNow(op{work: opFunc(func(*stream) error {
		n.raise()
		return nil
	})})
}

// WaitAndResetNotify implements [acl.Backend]. The wait takes no modeled
// time of its own: with the timing model on, it lasts as long as it
// really waits.
func (b *Backend) WaitAndResetNotify(nh acl.Notify, sh acl.Stream, timeout time.Duration) error {
	if timeout < 0 {
		return acl.Errorf(acl.ErrRTParamInvalid, "wait timeout %v is negative", timeout)
	}
	n, err := b.notify(nh)
	if err != nil {
		return err
	}
	s, err := b.stream(sh)
	if err != nil {
		return err
	}
	return s.pushNow(op{work: opFunc(func(s *stream) error {
		var tmo <-chan time.Time
		if timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			tmo = t.C
		}
		for {
			ok, ch := n.take()
			if ok {
				return nil
			}
			select {
			case <-ch:
			case <-n.gone:
				return nil
			case <-s.abort:
				return nil
			case <-tmo:
				return acl.Errorf(acl.ErrRTWaitTimeout, "stream %d: notify %d was not recorded within the wait's timeout (%v)", sh, nh, timeout)
			}
		}
	})})
}

// ResetNotify implements [acl.Backend]: the flag is cleared, so that only
// a record that runs after it releases a wait.
func (b *Backend) ResetNotify(h acl.Notify) error {
	n, err := b.notify(h)
	if err != nil {
		return err
	}
	n.take()
	return nil
}
