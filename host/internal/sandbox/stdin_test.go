package sandbox

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStdinKeepsLateBytes: bytes that arrive after a read was interrupted
// are delivered to the next read, in order.
func TestStdinKeepsLateBytes(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	r, s := NewStdin(pr)
	require.NotNil(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	s.Watch(ctx)
	cancel()
	n, err := r.Read(make([]byte, 8))
	require.Zero(t, n)
	require.ErrorIs(t, err, ErrInterrupted)
	s.Watch(context.Background())
	go func() { pw.Write([]byte("abcdef")); pw.Close() }()
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, "abcdef", string(got))
	for _, plain := range []io.Reader{nil, strings.NewReader("x")} {
		_, s := NewStdin(plain)
		require.Nil(t, s, "a reader that never blocks is used as is")
	}
}
