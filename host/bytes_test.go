package host

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// bytesWAT is a guest of the bytes convention: upper reads its input at
// 0x1000, upper-cases ASCII letters and writes it back as its output;
// the others misuse the imports in one way each and return the code.
const bytesWAT = `(module
  (import "aclwasm" "input_len" (func $len (result i32)))
  (import "aclwasm" "input_read" (func $read (param i32 i32) (result i32)))
  (import "aclwasm" "output_write" (func $write (param i32 i32) (result i32)))
  (memory (export "memory") 2)
  (func (export "upper") (result i32)
    (local $n i32) (local $i i32) (local $c i32) (local $r i32)
    (local.set $n (call $len))
    (local.set $r (call $read (i32.const 0x1000) (local.get $n)))
    (if (local.get $r) (then (return (local.get $r))))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $c (i32.load8_u (i32.add (i32.const 0x1000) (local.get $i))))
      (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
        (then (i32.store8 (i32.add (i32.const 0x1000) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (call $write (i32.const 0x1000) (local.get $n)))
  (func (export "twice") (result i32)
    (drop (call $write (i32.const 0x10) (i32.const 2)))
    (call $write (i32.const 0x10) (i32.const 2)))
  (func (export "read_past") (result i32)
    (call $read (i32.const 0x1000) (i32.add (call $len) (i32.const 1))))
  (func (export "read_outside") (result i32)
    (call $read (i32.const 0x1ffff) (call $len)))
  (func (export "write_outside") (result i32)
    (call $write (i32.const 0x1fff0) (i32.const 0x100)))
  (func (export "write_null") (result i32)
    (call $write (i32.const 0) (i32.const 1)))
  (func (export "huge") (result i32)
    (call $write (i32.const 0x10) (i32.const 0x7fffffff)))
  (func (export "write") (param i32 i32) (result i32)
    (call $write (local.get 0) (local.get 1)))
  (func (export "nothing"))
  (func (export "trap") unreachable)
)`

func bytesInstance(t *testing.T, src string, opts ...Option) (*Runtime, *Instance) {
	t.Helper()
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(append(testBackend(t), WithEngine(testEngine)), opts...)...)
	require.NoError(t, err)
	pl, err := rt.Load(ctx, testsupport.WAT(t, src), Policy{MemoryPages: 2})
	require.NoError(t, err)
	inst, err := pl.Instantiate(ctx, Config{})
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, inst.Close(ctx))
		require.NoError(t, pl.Close(ctx))
		require.NoError(t, rt.Close(ctx))
	})
	return rt, inst
}

func TestCallBytes(t *testing.T) {
	ctx := context.Background()
	var log []CallRecord
	_, inst := bytesInstance(t, bytesWAT, WithTrace(func(r CallRecord) { log = append(log, r) }))

	out, err := inst.CallBytes(ctx, "upper", []byte("hello, plugin"))
	require.NoError(t, err)
	require.Equal(t, "HELLO, PLUGIN", string(out))

	// Each call has its own output; an empty input gives an empty output.
	out, err = inst.CallBytes(ctx, "upper", nil)
	require.NoError(t, err)
	require.Empty(t, out)
	out, err = inst.CallBytes(ctx, "twice", nil)
	require.NoError(t, err)
	require.Len(t, out, 4)
	out, err = inst.CallBytes(ctx, "nothing", []byte("x"))
	require.NoError(t, err)
	require.Empty(t, out)

	st := inst.Session().Stats()
	require.Equal(t, uint64(2), st.Funcs["aclwasm.input_len"].Calls)
	require.Equal(t, uint64(4), st.Funcs["aclwasm.output_write"].Calls)
	require.Equal(t, "aclwasm.input_read(buf=0x1000, len=13) = 0", log[1].String())

	// Outside a bytes call the input is empty and the output refused.
	res, err := inst.Call(ctx, "write", 0x10, 1)
	require.NoError(t, err)
	require.Equal(t, uint64(acl.ErrInvalidParam), res[0])
	require.Contains(t, inst.Session().LastError(), "no bytes call is in progress")

	// A bytes export must take no parameters.
	_, err = inst.CallBytes(ctx, "write", nil)
	require.ErrorIs(t, err, errArgs)
}

// TestCallBytesHostile: every misuse of the imports fails with its code
// and message, writes nothing and leaves the instance usable.
func TestCallBytesHostile(t *testing.T) {
	ctx := context.Background()
	_, inst := bytesInstance(t, bytesWAT)
	for _, tc := range []struct {
		export string
		code   acl.Error
		msg    string
	}{
		{"read_past", acl.ErrInvalidParam, "aclwasm.input_read: len 4: the input has 3 bytes"},
		{"read_outside", acl.ErrInvalidParam, "outside guest memory"},
		{"write_outside", acl.ErrInvalidParam, "outside guest memory"},
		{"write_null", acl.ErrInvalidParam, "buf is NULL"},
		{"huge", acl.ErrInvalidParam, "outside guest memory"},
	} {
		t.Run(tc.export, func(t *testing.T) {
			before, err := inst.ReadMemory(0x1000, 16)
			require.NoError(t, err)
			out, err := inst.CallBytes(ctx, tc.export, []byte("abc"))
			var se *StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, int32(tc.code), se.Status)
			require.Contains(t, se.Msg, tc.msg)
			require.Empty(t, out)
			after, err := inst.ReadMemory(0x1000, 16)
			require.NoError(t, err)
			require.Equal(t, before, after)
		})
	}
	out, err := inst.CallBytes(ctx, "upper", []byte("still fine"))
	require.NoError(t, err)
	require.Equal(t, "STILL FINE", string(out))

	// A trap ends the instance, as for Call.
	_, err = inst.CallBytes(ctx, "trap", nil)
	require.ErrorIs(t, err, ErrTrap)
	_, err = inst.CallBytes(ctx, "upper", nil)
	require.ErrorContains(t, err, "instance is closed")
	_, err = inst.ReadMemory(0, 1)
	require.ErrorContains(t, err, "instance is closed")
}

func TestCallBytesOutputLimit(t *testing.T) {
	ctx := context.Background()
	// 2 pages of memory: the output may not exceed 128 KiB.
	src := strings.Replace(bytesWAT, `(func (export "nothing"))`, `(func (export "flood") (result i32) (local $r i32)
    (block $b (loop $l
      (local.set $r (call $write (i32.const 0x10) (i32.const 0x10000)))
      (br_if $b (local.get $r)) (br $l)))
    (local.get $r))`, 1)
	_, inst := bytesInstance(t, src)
	out, err := inst.CallBytes(ctx, "flood", nil)
	var se *StatusError
	require.ErrorAs(t, err, &se)
	require.Equal(t, int32(acl.ErrRTOverLimit), se.Status)
	require.Contains(t, se.Msg, "beyond the policy's limit of 131072")
	require.Len(t, out, 2<<16)
}

// TestCallBytesMaxOutput: with MaxOutput, a guest that keeps writing is
// refused at the cap as it writes (the host holds at most the cap), and
// CallBytes reports ErrOutputLimit even when the export ignores the
// refusal and returns 0; without a write over the cap the call is as
// without the option.
func TestCallBytesMaxOutput(t *testing.T) {
	ctx := context.Background()
	// flood writes 4 KiB at a time, 64 times (256 KiB, more than the
	// 128 KiB memory limit too), ignores every refusal, and returns the
	// last write's code; ignore returns 0 whatever happened.
	src := strings.Replace(bytesWAT, `(func (export "nothing"))`, `(func $flood (result i32) (local $r i32) (local $i i32)
    (loop $l
      (local.set $r (call $write (i32.const 0x10) (i32.const 0x1000)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (i32.const 64))))
    (local.get $r))
  (func (export "flood") (result i32) (call $flood))
  (func (export "ignore") (drop (call $flood)))`, 1)
	_, inst := bytesInstance(t, src)

	out, err := inst.CallBytes(ctx, "ignore", nil, MaxOutput(10000))
	require.ErrorIs(t, err, ErrOutputLimit)
	require.ErrorContains(t, err, "the guest wrote more than 10000 bytes")
	require.Len(t, out, 2*0x1000, "the writes that fit, and none after")

	out, err = inst.CallBytes(ctx, "flood", nil, MaxOutput(10000))
	require.ErrorIs(t, err, ErrOutputLimit)
	var se *StatusError
	require.ErrorAs(t, err, &se, "the export's own status is kept")
	require.Equal(t, int32(acl.ErrRTOverLimit), se.Status)
	require.Contains(t, se.Msg, "beyond the call's limit of 10000 (MaxOutput)")
	require.Len(t, out, 2*0x1000)

	// A cap above the memory limit leaves the memory limit the bound, and
	// a write refused by it is ErrOutputLimit too; without the option it
	// is only the guest's 207012 (the export here ignores it).
	out, err = inst.CallBytes(ctx, "ignore", nil, MaxOutput(1<<30))
	require.ErrorIs(t, err, ErrOutputLimit)
	require.ErrorContains(t, err, "more than 131072 bytes")
	require.Len(t, out, 2<<16)
	out, err = inst.CallBytes(ctx, "ignore", nil, MaxOutput(0))
	require.NoError(t, err)
	require.Len(t, out, 2<<16)
	// Within the cap nothing changes.
	out, err = inst.CallBytes(ctx, "upper", []byte("abc"), MaxOutput(3))
	require.NoError(t, err)
	require.Equal(t, "ABC", string(out))
}

func TestReadWriteMemory(t *testing.T) {
	_, inst := bytesInstance(t, bytesWAT)
	require.Equal(t, uint64(2<<16), inst.MemorySize())
	require.NoError(t, inst.WriteMemory(0x1000, []byte("abc")))
	b, err := inst.ReadMemory(0x1000, 3)
	require.NoError(t, err)
	require.Equal(t, "abc", string(b))
	b[0] = 'z' // a copy: the guest's memory is unchanged
	b, _ = inst.ReadMemory(0x1000, 3)
	require.Equal(t, "abc", string(b))
	// The last byte is in bounds, one past it is not.
	require.NoError(t, inst.WriteMemory(2<<16-1, []byte{1}))
	for _, tc := range []struct {
		off uint32
		n   uint32
	}{{2 << 16, 1}, {2<<16 - 1, 2}, {0xffffffff, 2}, {0, 0xffffffff}} {
		_, err := inst.ReadMemory(tc.off, tc.n)
		require.ErrorIs(t, err, ErrMemoryRange, "%#x+%d", tc.off, tc.n)
		err = inst.WriteMemory(tc.off, make([]byte, min(tc.n, 4)))
		if tc.n <= 4 {
			require.ErrorIs(t, err, ErrMemoryRange, "%#x+%d", tc.off, tc.n)
		}
	}
	b, _ = inst.ReadMemory(2<<16-1, 1)
	require.Equal(t, []byte{1}, b, "a refused write changed nothing")
}

// hostFuncWAT imports the embedder's "env" module: sum reads n u32s at
// ptr, writes their sum to out.
const hostFuncWAT = `(module
  (import "env" "sum" (func $sum (param i32 i32 i32) (result i32)))
  (import "acl" "aclGetRecentErrMsg" (func $msg (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "sum") (param i32 i32 i32) (result i32)
    (call $sum (local.get 0) (local.get 1) (local.get 2)))
)`

func sumFunc() HostFunc {
	return HostFunc{
		Module: "env", Name: "sum",
		Params: []abi.Param{{Name: "ptr", Type: abi.Gptr}, {Name: "n", Type: abi.I32}, {Name: "out", Type: abi.Gptr}},
		Fn: func(c *HostCall) (int32, error) {
			n := uint32(c.Arg(1))
			if n > 1<<20 {
				return 0, acl.Errorf(acl.ErrInvalidParam, "n %d is too large", n)
			}
			b, err := c.Read(uint32(c.Arg(0)), 4*n)
			if err != nil {
				return 0, err
			}
			var s uint32
			for i := uint32(0); i < n; i++ {
				s += le.Uint32(b[4*i:])
			}
			if s == 666 {
				panic("the embedder's bug")
			}
			if s == 667 {
				return 0, errors.New("the embedder's error")
			}
			return 0, c.Write(uint32(c.Arg(2)), le.AppendUint32(nil, s))
		},
	}
}

func TestHostFunc(t *testing.T) {
	ctx := context.Background()
	var log []CallRecord
	_, inst := bytesInstance(t, hostFuncWAT, WithHostFuncs(sumFunc()), WithTrace(func(r CallRecord) { log = append(log, r) }))
	put := func(vs ...uint32) {
		var b []byte
		for _, v := range vs {
			b = le.AppendUint32(b, v)
		}
		require.NoError(t, inst.WriteMemory(0x100, b))
	}
	call := func(args ...uint64) int32 {
		res, err := inst.Call(ctx, "sum", args...)
		require.NoError(t, err)
		return int32(uint32(res[0]))
	}
	put(1, 2, 3)
	require.Zero(t, call(0x100, 3, 0x200))
	b, _ := inst.ReadMemory(0x200, 4)
	require.Equal(t, uint32(6), le.Uint32(b))
	require.Equal(t, "env.sum(ptr=0x100, n=3, out=0x200) = 0", log[len(log)-1].String())

	// Bad pointers: codes and messages, nothing written.
	require.NoError(t, inst.WriteMemory(0x200, []byte{9, 9, 9, 9}))
	for _, tc := range []struct {
		args []uint64
		code acl.Error
		msg  string
	}{
		{[]uint64{0, 1, 0x200}, acl.ErrInvalidParam, "env.sum: pointer is NULL"},
		{[]uint64{0xfffc, 2, 0x200}, acl.ErrInvalidParam, "outside guest memory"},
		{[]uint64{0x100, 3, 0xfffe}, acl.ErrInvalidParam, "outside guest memory"},
		{[]uint64{0x100, 3, 0xffffffff}, acl.ErrInvalidParam, "outside guest memory"},
		{[]uint64{0x100, 0xffffffff, 0x200}, acl.ErrInvalidParam, "n 4294967295 is too large"},
	} {
		require.Equal(t, int32(tc.code), call(tc.args...), "%v", tc.args)
		require.Contains(t, inst.Session().LastError(), tc.msg)
	}
	b, _ = inst.ReadMemory(0x200, 4)
	require.Equal(t, []byte{9, 9, 9, 9}, b)

	// The embedder's panic and plain error are internal errors, not crashes.
	put(666)
	require.Equal(t, int32(acl.ErrInternal), call(0x100, 1, 0x200))
	require.Contains(t, inst.Session().LastError(), "host bug: the embedder's bug")
	put(667)
	require.Equal(t, int32(acl.ErrInternal), call(0x100, 1, 0x200))
	require.Contains(t, inst.Session().LastError(), "the embedder's error")

	st := inst.Session().Stats().Funcs["env.sum"]
	require.Equal(t, uint64(8), st.Calls)
	require.Equal(t, uint64(5), st.Errors[acl.ErrInvalidParam])
	require.Equal(t, uint64(2), st.Errors[acl.ErrInternal])
}

func TestHostFuncLoadChecks(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, WithEngine(testEngine), WithHostFuncs(sumFunc()))
	require.NoError(t, err)
	defer rt.Close(ctx)
	for _, tc := range []struct{ src, want string }{
		{`(module (import "env" "sum" (func (param i32 i32) (result i32))))`, "import env.sum has signature (i32, i32) -> i32, the host function has (i32, i32, i32) -> i32"},
		{`(module (import "env" "other" (func)))`, `import env.other is not a function of host module "env"`},
		{`(module (import "aclwasm" "input_len" (func (result i64))))`, "import aclwasm.input_len has signature () -> i64"},
		{`(module (import "nope" "f" (func)))`, `module "nope" is not provided (only "acl", "acl32", wasi_snapshot_preview1 and aclwasm, env)`},
	} {
		probs, err := rt.Check(ctx, testsupport.WAT(t, tc.src), Policy{})
		require.NoError(t, err)
		require.Len(t, probs, 1)
		require.Contains(t, probs[0], tc.want)
	}
	// Without WithHostFuncs, env is not provided.
	rt2, err := NewRuntime(ctx, WithEngine(testEngine))
	require.NoError(t, err)
	defer rt2.Close(ctx)
	probs, err := rt2.Check(ctx, testsupport.WAT(t, hostFuncWAT), Policy{})
	require.NoError(t, err)
	require.Len(t, probs, 1)
	require.Contains(t, probs[0], `module "env" is not provided`)

	for _, tc := range []struct {
		f    HostFunc
		want string
	}{
		{HostFunc{Module: "acl", Name: "x", Fn: sumFunc().Fn}, `module "acl" is reserved`},
		{HostFunc{Module: "aclwasm", Name: "x", Fn: sumFunc().Fn}, `module "aclwasm" is reserved`},
		{HostFunc{Module: "env", Name: "", Fn: sumFunc().Fn}, "must not be empty"},
		{HostFunc{Module: "env", Name: "f"}, "Fn is nil"},
		{HostFunc{Module: "env", Name: "f", Fn: sumFunc().Fn, Params: make([]abi.Param, 17)}, "17 parameters, at most 16"},
		{HostFunc{Module: "env", Name: "f", Fn: sumFunc().Fn, Params: []abi.Param{{Name: "x", Type: 9}}}, "parameter x has no wire type"},
	} {
		_, err := NewRuntime(ctx, WithEngine(testEngine), WithHostFuncs(tc.f))
		require.ErrorContains(t, err, tc.want)
	}
	_, err = NewRuntime(ctx, WithEngine(testEngine), WithHostFuncs(sumFunc(), sumFunc()))
	require.ErrorContains(t, err, "env.sum is defined twice")
}

// TestCallBytesTo: the output appended to the caller's buffer, in its own
// array when it fits: exact in a buffer reused for outputs longer and
// shorter than the last, after a prefix kept as it was, grown when it does
// not fit; MaxOutput bounds the output alone; a pool's does the same.
func TestCallBytesTo(t *testing.T) {
	ctx := context.Background()
	_, inst := bytesInstance(t, bytesWAT)
	buf := make([]byte, 0, 64)
	for _, in := range []string{"a much longer input, upper-cased", "short", "", "mid-sized input"} {
		out, err := inst.CallBytesTo(ctx, "upper", []byte(in), buf[:0])
		require.NoError(t, err)
		require.Equal(t, strings.ToUpper(in), string(out), "no byte of an earlier output")
		if len(out) > 0 {
			require.Same(t, &buf[:1][0], &out[0], "written in the buffer's array")
		}
	}
	out, err := inst.CallBytesTo(ctx, "upper", []byte("abc"), append(buf[:0], "x:"...))
	require.NoError(t, err)
	require.Equal(t, "x:ABC", string(out))
	out, err = inst.CallBytesTo(ctx, "upper", []byte("grows"), []byte("tiny:"))
	require.NoError(t, err)
	require.Equal(t, "tiny:GROWS", string(out))

	// MaxOutput counts the output, not the prefix: 4 bytes fit after 10.
	prefix := []byte("0123456789")
	out, err = inst.CallBytesTo(ctx, "upper", []byte("abcd"), prefix, MaxOutput(4))
	require.NoError(t, err)
	require.Equal(t, "0123456789ABCD", string(out))
	out, err = inst.CallBytesTo(ctx, "twice", nil, prefix, MaxOutput(3))
	require.ErrorIs(t, err, ErrOutputLimit)
	require.Equal(t, 12, len(out), "the prefix and the first write, which fit")

	// A call refused before the guest runs returns out as it was.
	out, err = inst.CallBytesTo(ctx, "missing", nil, prefix)
	require.Error(t, err)
	require.Equal(t, prefix, out)

	// No slice per call with a reused buffer: the allocations of the
	// call itself only, the same whatever the output's size.
	short, long := []byte("ab"), []byte(strings.Repeat("ab", 32))
	// AllocsPerRun counts every goroutine's allocations (a native
	// backend's threads, the race detector's), averaged down to an
	// integer: many runs make a stray allocation count for nothing, and
	// the least of a few measurements is the call's own.
	allocs := func(in []byte) float64 {
		least := math.Inf(1)
		for range 5 {
			least = min(least, testing.AllocsPerRun(500, func() { _, _ = inst.CallBytesTo(ctx, "upper", in, buf[:0]) }))
		}
		return least
	}
	require.Equal(t, allocs(short), allocs(long))
}

// TestPoolCallBytesTo: Pool.CallBytesTo is Instance.CallBytesTo on a
// pooled instance.
func TestPoolCallBytesTo(t *testing.T) {
	ctx := context.Background()
	rt, err := NewRuntime(ctx, append(testBackend(t), WithEngine(testEngine))...)
	require.NoError(t, err)
	defer rt.Close(ctx)
	pl, err := rt.Load(ctx, testsupport.WAT(t, bytesWAT), Policy{MemoryPages: 2})
	require.NoError(t, err)
	defer pl.Close(ctx)
	pool, err := pl.NewPool(PoolConfig{Size: 1})
	require.NoError(t, err)
	defer pool.Close(ctx)
	buf := make([]byte, 0, 16)
	for _, in := range []string{"first call", "2nd"} {
		out, err := pool.CallBytesTo(ctx, "upper", []byte(in), buf[:0])
		require.NoError(t, err)
		require.Equal(t, strings.ToUpper(in), string(out))
		require.Same(t, &buf[:1][0], &out[0])
	}
}

// TestErrorSet: a guest says why its call fails with aclwasm.error_set;
// the reason comes back with the nonzero status (and from Run with the
// exit code), is the guest's for one call only, and is kept bounded.
func TestErrorSet(t *testing.T) {
	ctx := context.Background()
	src := `(module
  (import "aclwasm" "error_set" (func $set (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 2)
  (data (i32.const 0x10) "bad input: want 4 bytes")
  (data (i32.const 0x100) "\ff\fe ok")
  (func (export "fail") (result i32)
    (drop (call $set (i32.const 0x10) (i32.const 23)))
    (i32.const 3))
  (func (export "fail_silently") (result i32) (i32.const 4))
  (func (export "set_then_clear") (result i32)
    (drop (call $set (i32.const 0x10) (i32.const 23)))
    (drop (call $set (i32.const 0) (i32.const 0)))
    (i32.const 5))
  (func (export "invalid_utf8") (result i32)
    (drop (call $set (i32.const 0x100) (i32.const 5)))
    (i32.const 6))
  (func (export "long") (result i32)
    (call $set (i32.const 0x10) (i32.const 0x10000)))
  (func (export "outside") (result i32)
    (call $set (i32.const 0x1fff0) (i32.const 0x100)))
  (func (export "negative") (result i32)
    (call $set (i32.const 0x10) (i32.const -1)))
  (func (export "_start")
    (drop (call $set (i32.const 0x10) (i32.const 9)))
    (call $exit (i32.const 2)))
)`
	rt, inst := bytesInstance(t, src)
	reason := func(export string) string {
		t.Helper()
		_, err := inst.CallBytes(ctx, export, nil)
		var se *StatusError
		require.ErrorAs(t, err, &se, export)
		return se.Reason
	}
	_, err := inst.CallBytes(ctx, "fail", nil)
	require.EqualError(t, err, "fail returned 3: bad input: want 4 bytes")
	require.Empty(t, reason("fail_silently"), "the reason of the call before does not carry over")
	require.Empty(t, reason("set_then_clear"))
	require.Equal(t, "\uFFFD ok", reason("invalid_utf8"))

	// 64 KiB, most of them zeros: the host keeps 4096 bytes, and the call
	// itself succeeds (the export returns error_set's 0).
	_, err = inst.CallBytes(ctx, "long", nil)
	require.NoError(t, err)
	require.Len(t, inst.s.s.GuestMessage(), abi.MaxErrorLen)
	for _, e := range []string{"outside", "negative"} {
		_, err = inst.CallBytes(ctx, e, nil)
		var se *StatusError
		require.ErrorAs(t, err, &se, e)
		require.Equal(t, int32(acl.ErrInvalidParam), se.Status, e)
		require.Empty(t, se.Reason, e)
	}

	// A command's reason comes with its exit code.
	pl, err := rt.Load(ctx, testsupport.WAT(t, src), Policy{MemoryPages: 2})
	require.NoError(t, err)
	res, err := pl.Run(ctx, Config{})
	require.NoError(t, err)
	require.Equal(t, uint32(2), res.ExitCode)
	require.Equal(t, "bad input", res.Message)
}
