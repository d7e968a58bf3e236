package host_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestCancelSemantics: whose deadline ended a call decides the error.
// The policy's is ErrTimeout, the caller's own deadline or cancellation
// ErrCanceled; both wrap the context's error.
func TestCancelSemantics(t *testing.T) {
	rt := proxytest.Runtime(t)
	wasm := testsupport.Proxy(abi.Wide, 1)
	for _, tc := range []struct {
		name    string
		policy  time.Duration
		caller  func() (context.Context, context.CancelFunc)
		want    error
		wantCtx error
	}{
		{"policy timeout", 100 * time.Millisecond, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Hour)
		}, host.ErrTimeout, context.DeadlineExceeded},
		{"caller deadline", time.Hour, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, host.ErrCanceled, context.DeadlineExceeded},
		{"caller cancel", time.Hour, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}, host.ErrCanceled, context.Canceled},
		{"no timeout, caller deadline", host.NoTimeout, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, host.ErrCanceled, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := proxytest.Load(t, rt, wasm, host.Policy{Timeout: tc.policy})
			require.Equal(t, tc.policy, pl.Policy().Timeout)
			inst, err := pl.Instantiate(context.Background(), host.Config{})
			require.NoError(t, err)
			ctx, cancel := tc.caller()
			defer cancel()
			_, err = inst.Call(ctx, "spin")
			require.ErrorIs(t, err, tc.want)
			require.ErrorIs(t, err, tc.wantCtx)
			for _, other := range []error{host.ErrTimeout, host.ErrCanceled} {
				if other != tc.want {
					require.NotErrorIs(t, err, other)
				}
			}
			require.NoError(t, inst.Close(context.Background()))
		})
	}
}

// TestNoTimeout: with NoTimeout a call and the release of its session's
// queued work are unbounded by the policy, yet complete normally.
func TestNoTimeout(t *testing.T) {
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.Proxy(abi.Wide, 1), host.Policy{Timeout: host.NoTimeout})
	inst, err := pl.Instantiate(context.Background(), host.Config{})
	require.NoError(t, err)
	h := &proxytest.Harness{T: t, RT: rt, Inst: inst}
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	dev := h.Malloc(4096)
	h.OK("aclrtMemsetAsync", dev, 4096, 7, 4096, s) // queued: Close finishes it
	require.NoError(t, inst.Close(context.Background()))

	_, err = rt.Load(context.Background(), testsupport.Proxy(abi.Wide, 1), host.Policy{Timeout: -2 * time.Second})
	require.ErrorContains(t, err, "Timeout -2s: want a positive duration, 0 for the default or NoTimeout")
	require.False(t, errors.Is(err, host.ErrLoad))
}
