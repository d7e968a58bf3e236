package tests

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// TestNativeStreams runs tests/native/streams.c: the ABI v1.3 stream
// functions through the C SDK as a native program calls them, built with
// the SDK's include path only.
func TestNativeStreams(t *testing.T) {
	sb := newSandbox(t)
	pl, err := sb.rt.Load(context.Background(), buildNative(t, t.TempDir(), "streams.c"), testCompile(host.Policy{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(context.Background())) })
	o := mustRun(t, pl, "streams")
	require.Equal(t, nativeStreamsWant, o.stdout, "%v", o)
}

var nativeStreamsWant = `limit of NULL before aclrtSetDevice: 107002
cube cores of a new stream: 24
after setting 8: 8
set 1000: 107000
bad type: 107000
thread, stream in use: 8
thread, none in use: 24
after reset: 24
priority 8: 100000
priority of 2 bytes: 100000
attribute 9: 100000
V2 stream: priority 6, flags 0x3
ids distinct: 1
create NULL: 100000
after abort and stop the stream works: 1
stop NULL: 107000
register: 207000
unregister: 0
no name: 100000
streams: OK
`
