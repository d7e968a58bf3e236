package testsupport

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
)

// Lent allocates n bytes of device 0 on b, as an embedder does for memory
// it lends a guest, fills them with a pattern and returns them and the
// pattern; the test's end frees them (the host never frees lent memory).
func Lent(t *testing.T, b acl.Backend, n uint64) (acl.DevPtr, []byte) {
	t.Helper()
	p, err := b.Malloc(0, n, acl.MemMallocHugeFirst)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Free(context.Background(), p), "the host never frees lent memory") })
	pat := make([]byte, n)
	for i := range pat {
		pat[i] = byte(i*13 + 5)
	}
	require.NoError(t, b.Memcpy(context.Background(), acl.Device(p), acl.Host(pat, 0), n))
	return p, pat
}
