package host

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// NoTimeout as Policy.Timeout disables the policy's timeout: runs and calls
// end only by the caller's context (or Close), and releasing a session
// waits for its queued work without a bound. The zero Timeout is the
// default (DefaultTimeout), never "none".
const NoTimeout time.Duration = -1

// errPolicyTimeout is the cause of a context ended by the policy's
// timeout: it tells ErrTimeout (the policy's) from ErrCanceled (the
// caller's deadline or cancellation).
var errPolicyTimeout = errors.New("the policy's timeout expired")

// timeoutCause is errPolicyTimeout with the timeout that expired, so that
// the error names the limit the guest ran into.
type timeoutCause time.Duration

func (c timeoutCause) Error() string {
	return "the policy's timeout of " + time.Duration(c).String() + " expired"
}

// Is makes a timeoutCause errPolicyTimeout.
func (c timeoutCause) Is(target error) bool { return target == errPolicyTimeout }

// withPolicyTimeout returns ctx bounded by the policy's timeout d, whose
// expiry is marked as the policy's (errPolicyTimeout), or only cancelable
// with NoTimeout.
func withPolicyTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d < 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, timeoutCause(d))
}

// doneErr classifies a call whose context is done: the policy's timeout
// is ErrTimeout, anything else (the caller's deadline or cancellation,
// Close) ErrCanceled; both wrap the context's error, so that
// errors.Is(err, context.DeadlineExceeded) or context.Canceled holds too.
func doneErr(ctx context.Context, name string) error {
	cause := context.Cause(ctx)
	if c, ok := ctx.(*callCtx); ok {
		cause = c.Cause()
	}
	var tc timeoutCause
	if errors.As(cause, &tc) {
		return fmt.Errorf("%s: %w after %v (the policy's timeout): %w", name, ErrTimeout, time.Duration(tc), ctx.Err())
	}
	if errors.Is(cause, errPolicyTimeout) {
		return fmt.Errorf("%s: %w: %w", name, ErrTimeout, ctx.Err())
	}
	return fmt.Errorf("%s: %w: %w", name, ErrCanceled, ctx.Err())
}
