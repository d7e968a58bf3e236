package host_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// TestPrepareRun: a prepared run answers as Plugin.Run does with the
// streams its run gives, its guest reads nothing before; it runs once,
// and releases what it held when it ends.
func TestPrepareRun(t *testing.T) {
	ctx := context.Background()
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, testsupport.DeviceEchoWAT), host.Policy{})
	cfg := host.Config{Args: []string{"echo"}}
	var runs []*host.Prepared
	for range 3 {
		r, err := pl.Prepare(ctx, cfg)
		require.NoError(t, err)
		runs = append(runs, r)
	}
	for k, r := range runs {
		in := fmt.Sprintf("request %d", k)
		var out bytes.Buffer
		res, err := r.Run(ctx, host.Stdio{Stdin: bytes.NewReader([]byte(in)), Stdout: &out})
		require.NoError(t, err)
		require.Zero(t, res.ExitCode)
		require.Equal(t, in, out.String(), "each run reads its own stdin and writes its own stdout")
		require.Equal(t, uint64(3), res.Stats.Funcs["aclrtMemcpy"].Calls, "its own statistics")
		_, err = r.Run(ctx, host.Stdio{})
		require.ErrorContains(t, err, "already ran")
		require.NoError(t, r.Close(ctx), "closing after the run does nothing")
	}
	require.Equal(t, base, proxytest.FreeMem(t, rt))

	// Its answer is Run's, streams and all.
	var fresh, prepared bytes.Buffer
	want, err := pl.Run(ctx, host.Config{Args: cfg.Args, Stdin: bytes.NewReader([]byte("same")), Stdout: &fresh, NoStats: true})
	require.NoError(t, err)
	r, err := pl.Prepare(ctx, host.Config{Args: cfg.Args, NoStats: true})
	require.NoError(t, err)
	got, err := r.Run(ctx, host.Stdio{Stdin: bytes.NewReader([]byte("same")), Stdout: &prepared})
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, fresh.String(), prepared.String())
}

// TestPrepareLogger: a prepared run's stdout, with no Stdout but a
// Logger given at its run, goes to that logger with the plugin's name
// (Config.Name, given at Prepare) and its session; with neither, it is
// dropped.
func TestPrepareLogger(t *testing.T) {
	ctx := context.Background()
	rt := proxytest.Runtime(t)
	pl := proxytest.Load(t, rt, testsupport.WAT(t, testsupport.DeviceEchoWAT), host.Policy{})
	r, err := pl.Prepare(ctx, host.Config{Name: "echoer"})
	require.NoError(t, err)
	var log bytes.Buffer
	_, err = r.Run(ctx, host.Stdio{Stdin: bytes.NewReader([]byte("a line\n")), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	require.NoError(t, err)
	require.Contains(t, log.String(), `msg="a line" plugin=echoer session=`)
	require.Contains(t, log.String(), "stream=stdout")

	r, err = pl.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	res, err := r.Run(ctx, host.Stdio{Stdin: bytes.NewReader([]byte("dropped"))})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode)
}

// TestPrepareRefused: Prepare refuses the streams its run gives, and a
// prepared run closed (by itself or its plugin) does not run.
func TestPrepareRefused(t *testing.T) {
	ctx := context.Background()
	rt := proxytest.Runtime(t)
	base := proxytest.FreeMem(t, rt)
	pl, err := rt.Load(ctx, testsupport.WAT(t, testsupport.DeviceEchoWAT), host.Policy{})
	require.NoError(t, err)
	for _, cfg := range []host.Config{
		{Stdin: bytes.NewReader(nil)}, {Stdout: &bytes.Buffer{}}, {Stderr: &bytes.Buffer{}}, {Logger: slog.New(slog.DiscardHandler)},
	} {
		_, err := pl.Prepare(ctx, cfg)
		require.ErrorContains(t, err, "are given to Prepared.Run")
	}
	_, err = pl.Prepare(ctx, host.Config{Env: []string{"bad"}})
	require.ErrorContains(t, err, "is not KEY=VALUE")

	r, err := pl.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	require.NoError(t, r.Close(ctx))
	_, err = r.Run(ctx, host.Stdio{})
	require.ErrorIs(t, err, host.ErrClosed)

	r, err = pl.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	require.NoError(t, pl.Close(ctx))
	_, err = r.Run(ctx, host.Stdio{})
	require.ErrorIs(t, err, host.ErrClosed, "Plugin.Close closed it")
	require.Equal(t, base, proxytest.FreeMem(t, rt))
	_, err = pl.Prepare(ctx, host.Config{})
	require.ErrorIs(t, err, host.ErrClosed)
}

// TestPrepareTimeout: the policy's timeout bounds a prepared run from its
// run on, not from its preparation: one prepared longer ago than the
// timeout still runs, and a guest that spins is stopped.
func TestPrepareTimeout(t *testing.T) {
	ctx := context.Background()
	rt := proxytest.Runtime(t)
	timeout := 200 * time.Millisecond
	pl := proxytest.Load(t, rt, testsupport.WAT(t, testsupport.DeviceEchoWAT), host.Policy{Timeout: timeout})
	r, err := pl.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	time.Sleep(2 * timeout)
	var out bytes.Buffer
	_, err = r.Run(ctx, host.Stdio{Stdin: bytes.NewReader([]byte("late")), Stdout: &out})
	require.NoError(t, err)
	require.Equal(t, "late", out.String())

	spin := proxytest.Load(t, rt, testsupport.WAT(t, `(module (func (export "_start") (loop (br 0))))`), host.Policy{Timeout: timeout})
	r, err = spin.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	_, err = r.Run(ctx, host.Stdio{})
	require.ErrorIs(t, err, host.ErrTimeout)

	r, err = spin.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = r.Run(cctx, host.Stdio{})
	require.ErrorIs(t, err, host.ErrCanceled, "the run's context, not the preparation's")
}

// TestPrepareCloseDuringRun: closing a prepared run's plugin while it
// runs stops its guest and releases it, as for a Run.
func TestPrepareCloseDuringRun(t *testing.T) {
	ctx := context.Background()
	rt := proxytest.Runtime(t)
	pl, err := rt.Load(ctx, testsupport.WAT(t, `(module (func (export "_start") (loop (br 0))))`), host.Policy{Timeout: host.NoTimeout})
	require.NoError(t, err)
	r, err := pl.Prepare(ctx, host.Config{})
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(ctx, host.Stdio{})
		done <- err
	}()
	// Close cancels the run if it started, or closes the run before it
	// starts: either way it ends with ErrClosed.
	require.NoError(t, pl.Close(ctx))
	err = <-done
	require.ErrorIs(t, err, host.ErrClosed)
}
