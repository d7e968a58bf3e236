package tests

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// bytesGuests are the same reactor of the bytes-in, bytes-out convention
// (docs/EMBEDDING.md) written with each SDK's API for it: upper, roundtrip
// (through device memory), config (the value of the key given as input;
// status 1 if unset) and repeat (the input "times" times; status 2 if
// "times" is unset or not a number).
var bytesGuests = []string{"rust-bytes", "as-bytes", "go-bytes", "c-bytes"}

// bytesPages is the guest memory limit of the tests' policy (8 MiB), and
// so the most output the host holds for one call.
const bytesPages = 128

// bytesVars is the configuration the instances read.
var bytesVars = map[string]string{
	"times":    "3",
	"greeting": "grüß dich",
	"empty":    "",
	"long":     strings.Repeat("0123456789", 100), // past the SDKs' first 256-byte read
	"huge":     strings.Repeat("x", 64<<10+1),     // more than config_read reports
}

// TestSDKBytes runs each SDK's bytes reactor (compiled once) through
// Instance.CallBytes and through pools, on the engine the tests run on.
func TestSDKBytes(t *testing.T) {
	for _, name := range bytesGuests {
		t.Run(name, func(t *testing.T) {
			sb := newSandbox(t)
			pl := sb.load(t, name, host.Policy{MemoryPages: bytesPages})
			t.Run("calls", func(t *testing.T) { testBytesCalls(t, sb, pl) })
			t.Run("output-limit", func(t *testing.T) { testBytesOutputLimit(t, pl) })
			for _, fresh := range []bool{false, true} {
				t.Run(fmt.Sprintf("pool/fresh=%v", fresh), func(t *testing.T) { testBytesPool(t, sb, pl, fresh) })
			}
		})
	}
}

// testBytesCalls: exact outputs, then each error case (an unset key, a value
// too long to read) as the status the export returns and the host's
// message. The instance stays usable after each, and closing it releases
// every device byte.
func testBytesCalls(t *testing.T, sb *sandbox, pl *host.Plugin) {
	ctx := context.Background()
	base := sb.freeMem(t)
	inst, err := pl.Instantiate(ctx, host.Config{Vars: bytesVars})
	require.NoError(t, err)
	defer func() { require.NoError(t, inst.Close(ctx)) }()

	mixed := []byte("Hello, plugin! 0-9 [a~z] \x00\xff gr\xc3\xbc\xc3\x9f")
	big := pattern(7, 300_001)
	for _, tc := range []struct {
		export string
		in     []byte
		want   []byte
	}{
		{"upper", mixed, []byte("HELLO, PLUGIN! 0-9 [A~Z] \x00\xff GR\xc3\xbc\xc3\x9f")},
		{"upper", nil, nil},
		{"upper", big, upperASCII(big)},
		{"roundtrip", big, big},
		{"roundtrip", nil, nil},
		{"config", []byte("greeting"), []byte("grüß dich")},
		{"config", []byte("long"), []byte(bytesVars["long"])},
		{"config", []byte("empty"), nil},
		{"repeat", []byte("ab"), []byte("ababab")},
	} {
		out, err := inst.CallBytes(ctx, tc.export, tc.in)
		require.NoError(t, err, "%s(%d bytes)", tc.export, len(tc.in))
		if !bytes.Equal(out, tc.want) {
			t.Errorf("%s(%.40q): got %d bytes %.40q, want %d bytes %.40q", tc.export, tc.in, len(out), out, len(tc.want), tc.want)
		}
	}

	// An unset key: the plugin's own status, no output.
	out, err := inst.CallBytes(ctx, "config", []byte("missing"))
	requireStatus(t, err, "config", 1, "")
	require.Empty(t, out)

	// A value past config_read's limit: the SDK reports the host's
	// code, and the plugin returns it.
	out, err = inst.CallBytes(ctx, "config", []byte("huge"))
	requireStatus(t, err, "config", int32(acl.ErrRTOverLimit), `the value of "huge" has 65537 bytes, more than config_read can report`)
	require.Empty(t, out)

	// The instance still serves calls.
	out, err = inst.CallBytes(ctx, "upper", []byte("still here"))
	require.NoError(t, err)
	require.Equal(t, "STILL HERE", string(out))

	st := inst.Session().Stats()
	require.Equal(t, uint64(1), st.Funcs["aclwasm.config_read"].Errors[acl.ErrRTOverLimit], "config_read errors: %v", st.Funcs["aclwasm.config_read"].Errors)
	require.Zero(t, st.Funcs["aclwasm.output_write"].Errors[acl.ErrRTOverLimit])
	require.NoError(t, inst.Close(ctx))
	require.Equal(t, base, sb.freeMem(t), "the roundtrip buffers are freed")
}

// testBytesOutputLimit: the output of one call is bounded by the policy's
// guest memory limit. Each copy of the input fits until the next would pass
// it; that write fails with ACL_ERROR_RT_OVER_LIMIT, the export returns the
// code, and the host returns the copies written before, exactly.
func testBytesOutputLimit(t *testing.T, pl *host.Plugin) {
	const limit = bytesPages << 16
	in := pattern(11, 256<<10+7)
	fit := limit / len(in) // 31 copies fit, the 32nd does not
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{Vars: map[string]string{"times": fmt.Sprint(fit + 9)}})
	require.NoError(t, err)
	defer func() { require.NoError(t, inst.Close(ctx)) }()

	out, err := inst.CallBytes(ctx, "repeat", in)
	requireStatus(t, err, "repeat", int32(acl.ErrRTOverLimit),
		fmt.Sprintf("the output would reach %d bytes, beyond the policy's limit of %d", (fit+1)*len(in), limit))
	require.Len(t, out, fit*len(in))
	require.Equal(t, bytes.Repeat(in, fit), out)
	st := inst.Session().Stats()
	require.Equal(t, uint64(1), st.Funcs["aclwasm.output_write"].Errors[acl.ErrRTOverLimit])

	// The next call starts with an empty output.
	out, err = inst.CallBytes(ctx, "upper", []byte("ok"))
	require.NoError(t, err)
	require.Equal(t, "OK", string(out))
}

// testBytesPool serves concurrent calls through a Plugin pool, of reused or
// fresh instances: every caller gets exactly its own output, a call with a
// bad configuration gets the plugin's status, and the device memory is all
// back once the pool is closed.
func testBytesPool(t *testing.T, sb *sandbox, pl *host.Plugin, fresh bool) {
	ctx := context.Background()
	base := sb.freeMem(t)
	pool, err := pl.NewPool(host.PoolConfig{Size: 3, Fresh: fresh, Config: host.Config{Vars: map[string]string{"times": "many"}}})
	require.NoError(t, err)
	const callers, calls = 8, 4
	var wg sync.WaitGroup
	errs := make(chan error, callers*calls)
	for g := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range calls {
				in := pattern(uint32(g*calls+k), 1000+g*997+k)
				export := []string{"upper", "roundtrip"}[k%2]
				want := in
				if export == "upper" {
					want = upperASCII(in)
				}
				out, err := pool.CallBytes(ctx, export, in)
				if err == nil && !bytes.Equal(out, want) {
					err = fmt.Errorf("%s: caller %d call %d: got %d bytes, want %d, first difference at %d", export, g, k, len(out), len(want), firstDiff(out, want))
				}
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	// "times" is not a number: the plugin says so with status 2.
	_, err = pool.CallBytes(ctx, "repeat", []byte("x"))
	requireStatus(t, err, "repeat", 2, "")

	require.NoError(t, pool.Close(ctx))
	require.Equal(t, base, sb.freeMem(t))
}

// requireStatus checks that err is a *host.StatusError of export with
// status, whose message contains msg.
func requireStatus(t *testing.T, err error, export string, status int32, msg string) {
	t.Helper()
	var se *host.StatusError
	require.True(t, errors.As(err, &se), "want a *host.StatusError, got %v", err)
	require.Equal(t, export, se.Export)
	require.Equal(t, status, se.Status, "status (message %q)", se.Msg)
	require.Contains(t, se.Msg, msg)
}

// upperASCII returns a copy of b with the ASCII letters upper-cased and
// every other byte as it was, as the plugins do (bytes.ToUpper would also
// map non-ASCII letters and replace invalid UTF-8).
func upperASCII(b []byte) []byte {
	out := bytes.Clone(b)
	for i, c := range out {
		if 'a' <= c && c <= 'z' {
			out[i] = c - 'a' + 'A'
		}
	}
	return out
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
