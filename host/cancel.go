package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// NoTimeout as Policy.Timeout disables the policy's timeout: runs and calls
// end only by the caller's context (or Close), and releasing a session
// waits for its queued work without a bound. The zero Timeout is the
// default (DefaultTimeout), never "none".
const NoTimeout time.Duration = -1

// doneErr classifies a call whose context is done: the policy's timeout
// is ErrTimeout, anything else (the caller's deadline or cancellation,
// Close) ErrCanceled; both wrap the context's error, so that
// errors.Is(err, context.DeadlineExceeded) or context.Canceled holds too.
func doneErr(ctx context.Context, name string) error {
	cause := context.Cause(ctx)
	if c, ok := ctx.(*sandbox.CallCtx); ok {
		cause = c.Cause()
	}
	var tc sandbox.TimeoutCause
	if errors.As(cause, &tc) {
		return fmt.Errorf("%s: %w after %v (the policy's timeout): %w", name, ErrTimeout, time.Duration(tc), ctx.Err())
	}
	if errors.Is(cause, sandbox.ErrPolicyTimeout) {
		return fmt.Errorf("%s: %w: %w", name, ErrTimeout, ctx.Err())
	}
	return fmt.Errorf("%s: %w: %w", name, ErrCanceled, ctx.Err())
}
