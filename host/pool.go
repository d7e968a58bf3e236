package host

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrPoolClosed: the pool was closed. It wraps ErrClosed, so that
// errors.Is(err, ErrClosed) holds for a closed pool as for a closed
// plugin or instance.
var ErrPoolClosed = fmt.Errorf("pool is %w", ErrClosed)

// PoolConfig configures a Pool.
type PoolConfig struct {
	// Size is the most instances the pool holds at once, busy or idle: a
	// call beyond it waits for one to come back (or for its context).
	// It must be at least 1.
	Size int
	// Fresh gives every call a new instance, closed (its session
	// released) when the call returns. Otherwise an instance is kept for
	// the next call with everything its session holds (device memory,
	// streams, its linear memory): faster, but calls see each other's
	// leftovers.
	Fresh bool
	// Config is what each instance gets (arguments, environment, stdio);
	// the writers are shared by concurrent instances and must be safe for
	// concurrent use.
	Config Config
}

// Pool serves concurrent calls of one plugin from a bounded set of
// instances. Each call has an instance to itself for its duration, so a
// pool is safe for concurrent use where an Instance is not. An instance
// that trapped, timed out or was canceled is dropped, never reused.
type Pool struct {
	pl   *Plugin
	cfg  PoolConfig
	sem  chan struct{} // a token per instance in use or being made
	mu   sync.Mutex
	idle []*Instance
	shut bool
}

// NewPool returns a pool of instances of the plugin. It instantiates none
// until a call needs one.
func (p *Plugin) NewPool(cfg PoolConfig) (*Pool, error) {
	if cfg.Size < 1 {
		return nil, fmt.Errorf("host: PoolConfig.Size is %d: it must be at least 1", cfg.Size)
	}
	return &Pool{pl: p, cfg: cfg, sem: make(chan struct{}, cfg.Size)}, nil
}

// Do runs fn with an instance of its own: it may call it, read and write
// its memory, lend it device memory, in any order, and must not keep it
// after returning. The instance goes back to the pool (or is closed, with
// Fresh or once it ended) when fn returns. Do waits for an instance while
// all Size are in use, until ctx is done.
func (p *Pool) Do(ctx context.Context, fn func(*Instance) error) (err error) {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("host: waiting for a pool instance: %w", context.Cause(ctx))
	}
	inst, err := p.get(ctx)
	if err != nil {
		<-p.sem
		return err
	}
	defer func() { err = errors.Join(err, p.put(ctx, inst)) }()
	return fn(inst)
}

// Call is Instance.Call on an instance of the pool.
func (p *Pool) Call(ctx context.Context, name string, args ...uint64) (res []uint64, err error) {
	err = p.Do(ctx, func(i *Instance) error {
		res, err = i.Call(ctx, name, args...)
		return err
	})
	return res, err
}

// CallBytes is Instance.CallBytes on an instance of the pool, with its
// options (MaxOutput).
func (p *Pool) CallBytes(ctx context.Context, name string, in []byte, opts ...BytesOption) (out []byte, err error) {
	err = p.Do(ctx, func(i *Instance) error {
		out, err = i.CallBytes(ctx, name, in, opts...)
		return err
	})
	return out, err
}

// CallBytesTo is Instance.CallBytesTo on an instance of the pool: the
// output appended to out.
func (p *Pool) CallBytesTo(ctx context.Context, name string, in, out []byte, opts ...BytesOption) ([]byte, error) {
	res := out
	err := p.Do(ctx, func(i *Instance) (err error) {
		res, err = i.CallBytesTo(ctx, name, in, out, opts...)
		return err
	})
	return res, err
}

func (p *Pool) get(ctx context.Context) (*Instance, error) {
	p.mu.Lock()
	if p.shut {
		p.mu.Unlock()
		return nil, fmt.Errorf("host: %w", ErrPoolClosed)
	}
	for n := len(p.idle); n > 0; n-- {
		inst := p.idle[n-1]
		p.idle = p.idle[:n-1]
		// Plugin.Close ends idle instances too: one it ended is dropped,
		// and the Instantiate below says ErrClosed.
		if !inst.ended() {
			p.mu.Unlock()
			return inst, nil
		}
	}
	p.mu.Unlock()
	return p.pl.Instantiate(ctx, p.cfg.Config)
}

// put returns inst to the pool and its token with it.
func (p *Pool) put(ctx context.Context, inst *Instance) error {
	defer func() { <-p.sem }()
	if inst.ended() {
		return nil // ended by a trap, timeout, cancellation or Close: already released
	}
	p.mu.Lock()
	if !p.cfg.Fresh && !p.shut {
		if len(p.sem) == 1 {
			p.trimLocked()
		}
		inst.warm = true
		p.idle = append(p.idle, inst)
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	return inst.Close(context.WithoutCancel(ctx))
}

// Close waits for the calls in progress (until ctx is done), then closes
// every idle instance. Calls that have not taken an instance by then, and
// later calls, fail with ErrPoolClosed (errors.Is(err, ErrClosed)). The
// plugin stays open; closing the plugin instead (or too) ends the pool's
// instances, busy and idle, and its calls fail with ErrClosed.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	p.shut = true
	p.mu.Unlock()
	var err error
	taken := 0
wait:
	for ; taken < cap(p.sem); taken++ {
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			err = fmt.Errorf("host: closing the pool: %d calls still in progress: %w", cap(p.sem)-taken, context.Cause(ctx))
			break wait
		}
	}
	p.mu.Lock()
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, inst := range idle {
		err = errors.Join(err, inst.Close(context.WithoutCancel(ctx)))
	}
	for range taken {
		<-p.sem
	}
	return err
}

// trimLocked idles the idle instances that served a call since they were
// last idled (Instance.idle), as the last call in progress returns: the
// pool then waits for calls, and an idle instance holds its state and
// little else. Not at every return: under load the kept instances serve
// call after call, and each would make again what it dropped (on wazero a
// call engine and its stack per export, per call). The instance coming
// back is the next one a call gets (idle is last in, first out) and stays
// warm. p.mu is held: no get can take an instance meanwhile.
func (p *Pool) trimLocked() {
	for _, i := range p.idle {
		if i.warm {
			i.idle()
			i.warm = false
		}
	}
}

// idle lets the engine's instance drop what it made for calls while it
// waits in the pool (engine.Instance.Idle: on wazero a stack of 10 KiB or
// more per export called). Not while a call runs: a function of Do's that
// kept the instance past its return broke Do's contract, and its call is
// left be.
func (i *Instance) idle() {
	if !i.callMu.TryLock() {
		return
	}
	defer i.callMu.Unlock()
	if !i.ended() {
		i.inst.Idle()
	}
}

// ended reports whether the instance has finished: released by a trap, a
// timeout, a cancellation or a Close (its own or its plugin's).
func (i *Instance) ended() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.done || i.closing
}
