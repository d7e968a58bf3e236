package ociplugin

import (
	"errors"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/internal/ociplugin/ocitest"
)

// slowClient is a client without a cache whose requests must make
// progress bytes in each window.
func slowClient(t *testing.T, window time.Duration, progress int64) *Client {
	t.Helper()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	c, err := NewClient(Options{ProgressTimeout: window, ProgressBytes: progress})
	require.NoError(t, err)
	t.Cleanup(c.CloseIdleConnections)
	return c
}

// TestProgressStalled: a registry that stops sending a blob halfway, or
// sends it a byte at a time, fails the pull with ErrStalled (not a
// refusal) after a window without enough progress, long before the
// test's own deadline (ctx, 30 s) or the blob's end.
func TestProgressStalled(t *testing.T) {
	for _, how := range []string{"stall", "trickle"} {
		t.Run(how, func(t *testing.T) {
			reg := ocitest.New(t)
			mod := module(4096, 4)
			r := ref(t, "oci://"+reg.Host+"/p/echo:v1")
			_, err := client(t, "", 0).Push(ctx(t), r, mod, nil)
			require.NoError(t, err)
			md := digest.SHA256.FromBytes(mod)
			if how == "stall" {
				reg.Stall(md.String())
			} else {
				reg.Trickle(md.String(), 10*time.Millisecond) // 41 s for the blob
			}
			_, err = slowClient(t, 3*time.Second, 0).Pull(ctx(t), r)
			require.ErrorIs(t, err, ErrStalled)
			require.False(t, errors.Is(err, ErrRefused))
			require.ErrorContains(t, err, "fetch oci://"+reg.Host+"/p/echo@"+md.String())
			require.ErrorContains(t, err, "fewer than 65536 bytes in 3s")
		})
	}
}

// TestProgressSlowButSteady: a blob that comes slowly but with enough
// bytes in each window is fetched whole, however long it takes in all:
// the window restarts with each ProgressBytes bytes.
func TestProgressSlowButSteady(t *testing.T) {
	reg := ocitest.New(t)
	mod := module(600, 6)
	r := ref(t, "oci://"+reg.Host+"/p/echo:v1")
	_, err := client(t, "", 0).Push(ctx(t), r, mod, nil)
	require.NoError(t, err)
	reg.Trickle(digest.SHA256.FromBytes(mod).String(), 4*time.Millisecond)
	// 10 bytes (about 40 ms) in each window of 2 s; 600 bytes, more than
	// 2.4 s, in all.
	a, err := slowClient(t, 2*time.Second, 10).Pull(ctx(t), r)
	require.NoError(t, err)
	require.Equal(t, mod, a.Module)
}

// TestProgressOptions: negative progress options are refused.
func TestProgressOptions(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	_, err := NewClient(Options{ProgressTimeout: -1})
	require.ErrorContains(t, err, "negative")
	_, err = NewClient(Options{ProgressBytes: -1})
	require.ErrorContains(t, err, "negative")
}
