package engine

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRoutes: a route reads or writes what it is bound to, and before
// that reads as the end of input and drops what it is given.
func TestRoutes(t *testing.T) {
	var in InRoute
	n, err := in.Read(make([]byte, 4))
	require.Zero(t, n)
	require.ErrorIs(t, err, io.EOF)
	in.R = strings.NewReader("abc")
	b, err := io.ReadAll(&in)
	require.NoError(t, err)
	require.Equal(t, "abc", string(b))

	var out OutRoute
	n, err = out.Write([]byte("dropped"))
	require.NoError(t, err)
	require.Equal(t, 7, n)
	var buf bytes.Buffer
	out.W = &buf
	_, err = out.Write([]byte("kept"))
	require.NoError(t, err)
	require.Equal(t, "kept", buf.String())
}
