package host

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"

	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Prepared is a run of a command made ahead (Plugin.Prepare): its session
// and instance exist, no guest code has run, and its streams are given
// when it runs. It runs once.
type Prepared struct {
	i       *Instance
	late    *sandbox.Late // its session's streams, bound at the run
	noStats bool          // Config.NoStats
	used    atomic.Bool
}

// Stdio is what a prepared run is given when it runs: Config's fields of
// the same names.
type Stdio struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Logger         *slog.Logger
}

// Prepare makes, within the policy's timeout, what Run makes before the
// guest's first instruction: the session and the instance, with cfg's
// Args, Env, Vars, Name, DeterministicClocks and NoStats. A server that
// runs a command per request can prepare the next run after answering a
// request, so that a request waits for the guest's code alone. cfg's
// Stdin, Stdout, Stderr and Logger must be unset: Prepared.Run gives
// them.
//
// Until it runs or is closed, a prepared run holds its session and guest
// memory, and counts among the plugin's live sessions; Plugin.Close
// closes it. Its trace (WithObserver) begins at its run, and has no
// host calls of the instantiation, which makes none.
func (p *Plugin) Prepare(ctx context.Context, cfg Config) (*Prepared, error) {
	if cfg.Stdin != nil || cfg.Stdout != nil || cfg.Stderr != nil || cfg.Logger != nil {
		return nil, errors.New("host: Prepare: Config.Stdin, Stdout, Stderr and Logger are given to Prepared.Run")
	}
	pr := &preparedMade{}
	i, err := p.instantiate(ctx, cfg, nil, p.policy.Timeout, making{run: true, late: pr})
	if err != nil {
		return nil, err
	}
	i.callMu.Unlock()
	pr.r = Prepared{i: i, late: &pr.late, noStats: cfg.NoStats}
	return &pr.r, nil
}

// Run runs the prepared run as Plugin.Run runs a fresh one (the start
// function, _start, the release), with std's streams, within the policy's
// timeout counted from now: same Result, same errors. It fails with
// ErrClosed once the run was closed (Close, Plugin.Close), and says so
// when called a second time.
func (r *Prepared) Run(ctx context.Context, std Stdio) (Result, error) {
	if r.used.Swap(true) {
		return Result{}, errors.New("host: Prepared.Run: the prepared run already ran")
	}
	i, p := r.i, r.i.p
	deadline := p.runDeadline()
	i.callMu.Lock()
	defer i.callMu.Unlock()
	ro := p.begin(ctx, "_start")
	if _, err := i.arm(ctx, p.policy.Timeout, "_start"); err != nil { // run disarms it
		end(ro, nil, 0, err)
		return Result{}, err
	}
	i.s.observe(ro)
	var in io.Reader
	in, i.stdin = sandbox.NewStdin(std.Stdin)
	i.s.s.Bind(r.late, in, std.Stdout, std.Stderr, std.Logger)
	return p.run(ctx, i, ro, deadline, r.noStats)
}

// Close releases a prepared run that will not run, as Instance.Close
// does; after its run, or a second time, it does nothing.
func (r *Prepared) Close(ctx context.Context) error {
	return r.i.Close(ctx)
}

// preparedMade is a prepared run with its instance, session and late
// streams: one allocation, as they live as long.
type preparedMade struct {
	made
	r    Prepared
	late sandbox.Late
}
