package tests

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
)

// hostilePolicy is what the hostile plugin runs under: small quotas, so that
// the quota mode reaches every limit quickly.
var hostilePolicy = host.Policy{
	DeviceMemory: 1 << 20, PinnedMemory: 128 << 10,
	MaxAllocations: 16, MaxRegistrations: 4, MaxStreams: 4, MaxEvents: 8, MaxQueued: 32,
}

// attempt is one line the hostile plugin must print: an attempt whose label
// starts with label, refused by fn with code and a host message containing
// msg. code 0 marks a property the guest checks itself, which must read "yes".
type attempt struct {
	label string
	fn    string
	code  acl.Error
	msg   string
}

const (
	paramInvalid = acl.ErrRTParamInvalid     // 107000
	badHandle    = acl.ErrRTInvalidHandle    // 107017
	invalidParam = acl.ErrInvalidParam       // 100000
	noMemory     = acl.ErrRTMemoryAllocation // 207001
	overLimit    = acl.ErrRTOverLimit        // 207012
	notLive      = "is not in guest memory or a live device allocation of this session"
	tampered     = "is not valid: never set, or tampered with"
)

func guestChecks(labels ...string) []attempt {
	var out []attempt
	for _, l := range labels {
		out = append(out, attempt{label: l})
	}
	return out
}

// hostileModes are the documented failures (guest ABI v1 sections 3, 4, 6
// and 7) of every mode of samples/hostile that ends by itself.
var hostileModes = map[string][]attempt{
	"forged-addr": append([]attempt{
		{"copy into address 2^32", "aclrtMemcpy", paramInvalid, "dst 0x100000000 " + notLive},
		{"copy from a made-up address", "aclrtMemcpy", paramInvalid, "src 0xdead00000000 " + notLive},
		{"copy from just past an allocation", "aclrtMemcpy", paramInvalid, notLive},
		{"copy from just before an allocation", "aclrtMemcpy", paramInvalid, notLive},
		{"copy into an address with bit 63 set", "aclrtMemcpy", paramInvalid, "dst 0x8"},
		{"async copy into a made-up address", "aclrtMemcpyAsync", paramInvalid, "dst 0xdead00000000 " + notLive},
		{"memset a made-up address", "aclrtMemset", paramInvalid, "devPtr 0xdead00000000 " + notLive},
		{label: "memset plain (unregistered) guest memory sets it"},
		{"free a made-up address", "aclrtFree", paramInvalid, "devPtr 0xdead00000000 is not a live device allocation of this session"},
		{"free an interior pointer", "aclrtFree", paramInvalid, "not its base"},
		{"free guest memory", "aclrtFree", paramInvalid, "is not a live device allocation of this session"},
		{"attributes of a made-up address", "aclrtPointerGetAttributes", paramInvalid, "ptr 0xdead00000000 " + notLive},
		{"batch entry 1 reads a made-up address", "aclrtMemcpyBatch", paramInvalid, "srcs[1] 0xdead00000000 " + notLive},
	}, guestChecks("failIndex names entry 1", "the guest's own allocation is intact")...),
	"stale-addr": {
		{"copy into a freed allocation", "aclrtMemcpy", paramInvalid, notLive},
		{"copy from a freed allocation", "aclrtMemcpy", paramInvalid, notLive},
		{"memset a freed allocation", "aclrtMemset", paramInvalid, notLive},
		{"free it twice", "aclrtFree", paramInvalid, "is not a live device allocation of this session"},
		{label: "a new allocation never reuses the freed address"},
		{"copy into the freed address again", "aclrtMemcpy", paramInvalid, notLive},
		{label: "the new allocation is intact"},
		{"unregister a released range again", "aclrtHostUnregister", acl.ErrHostMemoryNotRegistered, "does not start a registered range"},
		{label: "memset the released range (guest memory) sets it"},
	},
	"forged-handle": {
		{"synchronize a made-up stream", "aclrtSynchronizeStream", badHandle, "stream handle 12345 is unknown or destroyed"},
		{"destroy a made-up stream", "aclrtDestroyStream", badHandle, "stream handle 12345 is unknown or destroyed"},
		{"copy on a made-up stream", "aclrtMemcpyAsync", badHandle, "stream handle 12345 is unknown or destroyed"},
		{"query a made-up stream", "aclrtStreamQuery", badHandle, "stream handle 12345 is unknown or destroyed"},
		{"record a made-up event", "aclrtRecordEvent", badHandle, "event 4242 is unknown or destroyed"},
		{"wait for a made-up event", "aclrtStreamWaitEvent", badHandle, "event 4242 is unknown or destroyed"},
		{"elapsed time of made-up events", "aclrtEventElapsedTime", badHandle, "startEvent 4242 is unknown or destroyed"},
		{"destroy event 0xffffffff", "aclrtDestroyEvent", badHandle, "event 4294967295 is unknown or destroyed"},
		{"an event handle used as a stream", "aclrtSynchronizeStream", badHandle, "is an event, not a stream"},
		{"a stream handle used as an event", "aclrtSynchronizeEvent", badHandle, "is a stream, not an event"},
		{"record a NULL event", "aclrtRecordEvent", invalidParam, "event is NULL"},
		{label: "the real stream still works"},
	},
	"stale-handle": {
		{"synchronize a destroyed stream", "aclrtSynchronizeStream", badHandle, "is unknown or destroyed"},
		{"destroy it twice", "aclrtDestroyStream", badHandle, "is unknown or destroyed"},
		{"copy on it", "aclrtMemcpyAsync", badHandle, "is unknown or destroyed"},
		{"record a destroyed event", "aclrtRecordEvent", badHandle, "is unknown or destroyed"},
		{"synchronize it", "aclrtSynchronizeEvent", badHandle, "is unknown or destroyed"},
		{"query it", "aclrtQueryEventStatus", badHandle, "is unknown or destroyed"},
		{"destroy it twice", "aclrtDestroyEvent", badHandle, "is unknown or destroyed"},
		{label: "new handles never reuse destroyed ones"},
		{"the destroyed stream, after a new one", "aclrtSynchronizeStream", badHandle, "is unknown or destroyed"},
		{label: "the guest's own allocation is intact"},
	},
	"oob": {
		{"copy from past the end of guest memory", "aclrtMemcpy", paramInvalid, "is outside guest memory"},
		{"copy into past the end of guest memory", "aclrtMemcpy", paramInvalid, "is outside guest memory"},
		{"copy into guest address 0xfffffff0", "aclrtMemcpy", paramInvalid, "dst [0xfffffff0, +16) is outside guest memory"},
		{"read past the end of an allocation", "aclrtMemcpy", paramInvalid, "+128) crosses the end of the allocation"},
		{"write past the end of an allocation", "aclrtMemcpy", paramInvalid, "+200) crosses the end of the allocation"},
		{"2D copy running off an allocation", "aclrtMemcpy2d", paramInvalid, "+4160) crosses the end of the allocation"},
		{"out-parameter past the end of guest memory", "aclrtMalloc", invalidParam, "devPtr ["},
		{label: "and nothing was allocated"},
		{"NULL out-parameter", "aclrtGetMemInfo", invalidParam, "free is NULL"},
		{"batch array past the end of guest memory", "aclrtMemcpyBatch", invalidParam, "+16) is outside guest memory"},
		{"register a range past guest memory", "aclrtHostRegister", paramInvalid, "+4096) is not inside guest memory"},
		{label: "memset beyond a registered range (guest memory) sets it"},
		{label: "the guest's own allocation is intact"},
	},
	"overflow": {
		{"device range that wraps 2^64", "aclrtMemcpy", paramInvalid, "+ 18446744073709551615 overflows"},
		{"guest range that wraps 2^64", "aclrtMemcpy", paramInvalid, "+ 18446744073709551599 overflows"},
		{"2D span (height-1)*pitch that wraps", "aclrtMemcpy2d", paramInvalid, "(height-1)*dpitch + width overflows"},
		{"async 2D span that wraps", "aclrtMemcpy2dAsync", paramInvalid, "(height-1)*dpitch + width overflows"},
		{"memset range that wraps", "aclrtMemset", paramInvalid, "+ 18446744073709551615 overflows"},
		{"allocate 2^63 bytes", "aclrtMalloc", noMemory, "exceeds the free device memory quota"},
		{"allocate 2^64-1 bytes", "aclrtMalloc", invalidParam, "overflows with the allocator's 64 bytes of padding"},
		{"register a range that wraps", "aclrtHostRegister", paramInvalid, "+18446744073709551615) is not inside guest memory"},
		{"batch of 2^61 entries", "aclrtMemcpyBatch", invalidParam, "2305843009213693952 elements of 8 bytes exceed guest memory"},
		{"batch with 2^58 attributes", "aclrtMemcpyBatch", invalidParam, "288230376151711744 attributes of 32 bytes exceed guest memory"},
		{"offset above 2^48-1", "aclrtMemcpyAsyncWithOffset", paramInvalid, "dstDataOffset 0x1000000000000 exceeds 0xffffffffffff"},
		{"base + offset far past the allocation (at sync)", "aclrtMemcpyAsyncWithOffset", paramInvalid, "dstAddr 0x"},
		{label: "the guest's own allocation is intact"},
	},
	"desc-tamper": {
		{label: "the genuine descriptor copies"},
		{"retargeted descriptor (at sync)", "aclrtMemcpyAsyncWithDesc", paramInvalid, tampered},
		{"descriptor with a grown count (at sync)", "aclrtMemcpyAsyncWithDesc", paramInvalid, tampered},
		{"descriptor never set (zeros) (at sync)", "aclrtMemcpyAsyncWithDesc", paramInvalid, tampered},
		{"descriptor of random bytes (at sync)", "aclrtMemcpyAsyncWithDesc", paramInvalid, tampered},
		{"descriptor naming a freed allocation (at sync)", "aclrtMemcpyAsyncWithDesc", paramInvalid, "dstAddr 0x"},
		{"descriptor in guest memory", "aclrtMemcpyAsyncWithDesc", paramInvalid, "is guest memory: it must lie in device memory of this session"},
		{"set a descriptor into guest memory", "aclrtSetMemcpyDesc", paramInvalid, "is guest memory: it must lie in device memory of this session"},
		{"descriptor with kind DEVICE_TO_DEVICE", "aclrtMemcpyAsyncWithDesc", acl.ErrRTFeatureNotSupport, "descriptor copies take only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE"},
		{"descriptor on the NULL stream", "aclrtMemcpyAsyncWithDesc", invalidParam, "stream is NULL"},
		{"offset slot holding a made-up address (at sync)", "aclrtMemcpyAsyncWithOffset", paramInvalid, "dstAddr 0xdead00000000 " + notLive},
		{"offset slot holding a guest address (at sync)", "aclrtMemcpyAsyncWithOffset", paramInvalid, "dstAddr 0x"},
		{"offset slot holding a freed address (at sync)", "aclrtMemcpyAsyncWithOffset", paramInvalid, "dstAddr 0x"},
		{"offset slot in guest memory", "aclrtMemcpyAsyncWithOffset", paramInvalid, "is guest memory: it must lie in device memory of this session"},
		{label: "no refused copy wrote dst or other"},
		{label: "the stream carries on: the genuine descriptor"},
	},
	"quota": {
		{"one allocation above the quota", "aclrtMalloc", noMemory, "exceeds the free device memory quota"},
		{"quarter-quota allocations: refused after ", "aclrtMalloc", noMemory, "of 1048576 bytes in use on device 0"},
		{"64-byte allocations: refused after 14", "aclrtMalloc", overLimit, "already holds 16 allocations, the policy's limit"},
		{"streams: refused after 4", "aclrtCreateStream", overLimit, "already holds 4 streams, the policy's limit"},
		{"events: refused after 8", "aclrtCreateEvent", overLimit, "already holds 8 events, the policy's limit"},
		{"64 KiB registrations: refused after 2", "aclrtHostRegister", noMemory, "exceeds the free pinned memory quota: 131072 of 131072 bytes registered"},
		{"1-byte registrations: refused after 4", "aclrtHostRegister", overLimit, "already holds 4 registrations, the policy's limit"},
		{"queued copies: refused after ", "aclrtMemcpyAsync", overLimit, "already has 32 queued operations, the policy's limit"},
	},
}

// checkHostile checks the report of a hostile mode against the documented
// failures, and that the host recorded each failure in its statistics.
func checkHostile(t *testing.T, mode string, o outcome, want []attempt) {
	t.Helper()
	require.NoError(t, o.err, "%v", o)
	require.Zero(t, o.res.ExitCode, "%v", o)
	require.Regexp(t, `^hostile `+regexp.QuoteMeta(mode)+`: contained \((\d+) of \d+ attempts`, lastLine(o.stdout), "%v", o)

	var lines [][]string
	for _, l := range strings.Split(o.stdout, "\n") {
		if strings.HasPrefix(l, "  ") && strings.Contains(l, " | ") {
			f := strings.Split(l, " | ")
			for i := range f {
				f[i] = strings.TrimSpace(f[i])
			}
			lines = append(lines, f)
		}
	}
	require.Len(t, lines, len(want), "attempts printed by %s:\n%s", mode, o.stdout)
	for i, w := range want {
		f := lines[i]
		require.True(t, strings.HasPrefix(f[0], w.label), "attempt %d: want %q, got %q", i, w.label, f[0])
		if w.code == 0 {
			require.Equal(t, []string{f[0], "(checked by the guest)", "yes"}, f, "%s", w.label)
			continue
		}
		require.Len(t, f, 4, "%s", w.label)
		require.Equal(t, w.fn, f[1], w.label)
		require.Equal(t, fmt.Sprintf("%d %s", w.code, w.code.Name()), f[2], "%s: %s", w.label, f[3])
		require.Contains(t, f[3], w.msg, w.label)
		// A refusal the guest saw is one the host recorded: at the call, or
		// at the synchronize that reported an asynchronous failure.
		fn := w.fn
		if strings.HasSuffix(w.label, "(at sync)") {
			fn = "aclrtSynchronizeStream"
		}
		require.Positive(t, o.res.Stats.Funcs[fn].Errors[w.code], "%s: the host's statistics of %s", w.label, fn)
		require.True(t, strings.HasPrefix(f[3], fn+": "), "%s: the message names the failed call: %s", w.label, f[3])
	}
}

// goodRun runs the roundtrip sample with a seed of its own; check checks it.
func goodRun(ctx context.Context, pl *host.Plugin, seed uint32, out chan<- outcome) {
	out <- run(ctx, pl, "roundtrip", "-size", "262144", "-seed", strconv.FormatUint(uint64(seed), 10))
}

func checkGood(t *testing.T, o outcome, seed uint32) {
	t.Helper()
	require.NoError(t, o.err, "%v", o)
	require.Zero(t, o.res.ExitCode, "%v", o)
	require.Equal(t, "roundtrip: OK", lastLine(o.stdout), "%v", o)
	require.Equal(t, fnv1a64(pattern(seed, 262144)), field(t, o.stdout, "received", "fnv1a64"), "the good session's data")
	require.Equal(t, map[string]uint64{"H2D": 262144, "D2D": 262144, "D2H": 262144}, o.res.Stats.Bytes)
}

// TestHostile runs every mode of the hostile plugin on one runtime, each
// next to a well-behaved session (the roundtrip sample), all at once: each
// mode must fail the documented way, the good sessions must move their data
// intact, and when every session has ended the device accounting must be
// back where it started.
func TestHostile(t *testing.T) {
	sb := sharedSandbox(t)
	good := sb.plugin(t, "roundtrip")
	hostile := sb.load(t, "hostile", hostilePolicy)
	roomy := sb.load(t, "hostile", host.Policy{})
	// The run timeout is what stops spin and hang. It is short, and nothing
	// here measures time: the runs must end with ErrTimeout, that is all.
	timed := sb.load(t, "hostile", host.Policy{Timeout: time.Second})
	ctx := context.Background()
	base := sb.freeMem(t)

	t.Run("modes", func(t *testing.T) {
		seed := uint32(100)
		for mode, want := range hostileModes {
			seed++
			t.Run(mode, func(t *testing.T) {
				t.Parallel()
				g := make(chan outcome, 1)
				go goodRun(ctx, good, seed, g)
				o := run(ctx, hostile, "hostile", mode)
				checkGood(t, <-g, seed)
				checkHostile(t, mode, o, want)
			})
		}

		t.Run("foreign-addr", func(t *testing.T) {
			t.Parallel()
			// A victim session holds a secret in device memory and prints
			// its address; the hostile session gets that address.
			stdin, closeStdin := io.Pipe()
			defer closeStdin.Close()
			victimOut := &watchedOutput{addr: make(chan uint64, 1)}
			victimDone := make(chan outcome, 1)
			go func() {
				res, err := hostile.Run(ctx, host.Config{Args: []string{"hostile", "victim"}, Stdin: stdin, Stdout: victimOut})
				victimDone <- outcome{name: "victim", stdout: victimOut.String(), res: res, err: err}
			}()
			var addr uint64
			select {
			case addr = <-victimOut.addr:
			case o := <-victimDone:
				t.Fatalf("the victim ended before printing its address: %v", o)
			}

			g := make(chan outcome, 1)
			go goodRun(ctx, good, 7, g)
			o := run(ctx, hostile, "hostile", "foreign-addr", fmt.Sprintf("%#x", addr))
			checkGood(t, <-g, 7)
			require.Contains(t, o.stdout, fmt.Sprintf("(the other session's allocation: %#x)", addr))
			theirs := fmt.Sprintf("%#x", addr)
			checkHostile(t, "foreign-addr", o, []attempt{
				{"read another session's memory", "aclrtMemcpy", paramInvalid, "src " + theirs + " " + notLive},
				{"write another session's memory", "aclrtMemcpy", paramInvalid, "dst " + theirs + " " + notLive},
				{"copy it into an own allocation", "aclrtMemcpy", paramInvalid, "src " + theirs + " " + notLive},
				{"async copy out of it", "aclrtMemcpyAsync", paramInvalid, "src " + theirs + " " + notLive},
				{"memset it", "aclrtMemset", paramInvalid, "devPtr " + theirs + " " + notLive},
				{"free it", "aclrtFree", paramInvalid, "devPtr " + theirs + " is not a live device allocation of this session"},
				{"ask where it lives", "aclrtPointerGetAttributes", paramInvalid, "ptr " + theirs + " " + notLive},
				{"batch entry 1 reads it", "aclrtMemcpyBatch", paramInvalid, "srcs[1] " + theirs + " " + notLive},
				{"a descriptor reading it", "aclrtSetMemcpyDesc", paramInvalid, "srcAddr " + theirs + " " + notLive},
				{"an offset slot holding it (at sync)", "aclrtMemcpyAsyncWithOffset", paramInvalid, "srcAddr " + theirs + " " + notLive},
				{label: "the guest's own allocation is intact"},
			})

			// The victim's secret is untouched.
			closeStdin.Close()
			v := <-victimDone
			require.NoError(t, v.err, "%v", v)
			require.Zero(t, v.res.ExitCode, "%v", v)
			require.Contains(t, v.stdout, fmt.Sprintf("victim: secret fnv1a64 %#016x intact", fnv1a64(pattern(0x5ec7e7, 65536))))
		})

		for _, mode := range []string{"spin", "hang"} {
			t.Run(mode, func(t *testing.T) {
				t.Parallel()
				g := make(chan outcome, 1)
				go goodRun(ctx, good, 11, g)
				o := run(ctx, timed, "hostile", mode)
				checkGood(t, <-g, 11)
				if mode == "hang" {
					require.Contains(t, o.stdout, "synchronizing a stream that waits for an event's next record, which nobody makes", "%v", o)
					// It was blocked inside aclrtSynchronizeStream, which never returned.
					require.NotContains(t, o.stdout, "aclrtSynchronizeStream returned", "%v", o)
				}
				require.ErrorIs(t, o.err, host.ErrTimeout, "%v", o)
			})
		}

		t.Run("trap", func(t *testing.T) {
			t.Parallel()
			g := make(chan outcome, 1)
			go goodRun(ctx, good, 13, g)
			o := run(ctx, roomy, "hostile", "trap")
			checkGood(t, <-g, 13)
			require.ErrorIs(t, o.err, host.ErrTrap, "%v", o)
			require.Contains(t, o.stdout, "trapping with 64 copies of pinned memory queued")
		})
	})
	require.Equal(t, base, sb.freeMem(t), "every session, hostile or not, released all it held")
}

// watchedOutput collects a victim's stdout and sends the address it prints.
type watchedOutput struct {
	mu   sync.Mutex
	b    bytes.Buffer
	addr chan uint64
	sent bool
}

var victimLine = regexp.MustCompile(`victim: holding \d+ secret bytes at (0x[0-9a-f]+)\n`)

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if m := victimLine.FindStringSubmatch(w.b.String()); m != nil && !w.sent {
		v, err := strconv.ParseUint(m[1], 0, 64)
		if err == nil {
			w.addr <- v
			w.sent = true
		}
	}
	return len(p), nil
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
