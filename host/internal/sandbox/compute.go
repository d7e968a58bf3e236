package sandbox

import "context"

// launchBounds returns how a compute launch queued by the call in progress
// bounds its Run: by the stream's cancellation (the ctx Run receives), the
// end of the session (s.halt) and the run's time limit. The limit is read
// now, at queue time: the call's own context is re-armed for the guest's
// next call and must not be held by queued work.
func (c *Call) launchBounds() func(ctx context.Context) (context.Context, context.CancelFunc) {
	s := c.s
	deadline, hasDL := c.ctx.Deadline()
	return func(ctx context.Context) (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(ctx)
		stopHalt := context.AfterFunc(s.halt, cancel)
		if !hasDL {
			return ctx, func() { stopHalt(); cancel() }
		}
		ctx, stop := context.WithDeadline(ctx, deadline)
		return ctx, func() { stop(); stopHalt(); cancel() }
	}
}
