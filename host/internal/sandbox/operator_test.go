package sandbox_test

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ebitengine/purego"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/host/internal/proxytest"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Scratch for the operator tests' out-parameters.
const (
	nnWS = 0x2400 // uint64_t workspaceSize
	nnEx = 0x2408 // aclOpExecutor *
)

// putF32s writes float32 values to guest memory at off.
func (h *harness) putF32s(off uint32, vs ...float32) {
	for i, v := range vs {
		le.PutUint32(h.Mem()[off+uint32(4*i):], math.Float32bits(v))
	}
}

// f32s reads n float32 values at off.
func (h *harness) f32s(off uint32, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(le.Uint32(h.Mem()[off+uint32(4*i):]))
	}
	return v
}

// f32Tensor allocates device memory, copies vs into it and returns the
// address and a 1-D float tensor over it.
func (h *harness) f32Tensor(vs ...float32) (dev, t uint64) {
	h.T.Helper()
	dev = h.Malloc(uint64(4 * len(vs)))
	if len(vs) > 0 {
		h.putF32s(data, vs...)
		h.OK("aclrtMemcpy", dev, uint64(4*len(vs)), data, uint64(4*len(vs)), uint64(acl.MemcpyHostToDevice))
	}
	t = h.tensor(acl.DTFloat, dev, int64(len(vs)))
	require.NotZero(h.T, t, h.Inst.Session().LastError())
	return dev, t
}

// scalar creates a float scalar.
func (h *harness) scalar(v float32) uint64 {
	h.T.Helper()
	h.putF32s(nnValues, v)
	s := uint64(uint32(h.Call("aclCreateScalar", nnValues, uint64(acl.DTFloat))))
	require.NotZero(h.T, s)
	return s
}

// deviceF32s copies n floats back from dev.
func (h *harness) deviceF32s(dev uint64, n int) []float32 {
	h.T.Helper()
	h.OK("aclrtMemcpy", data2, uint64(4*n), dev, uint64(4*n), uint64(acl.MemcpyDeviceToHost))
	return h.f32s(data2, n)
}

// computes reports whether the session's backend runs the operator
// launch (the simulator; the native backend when its operator library
// exports the operator); on another a launch gives 207000, which it
// checks with the launch's arguments.
func (h *harness) computes(launch string, args ...uint64) bool {
	h.T.Helper()
	b := h.RT.Backend()
	if b.Traits().Computer != nil {
		return true
	}
	if b.Traits().OpComputer != nil && b.Supports(launch) {
		return true
	}
	require.Contains(h.T, h.Code(acl.ErrRTFeatureNotSupport, launch, args...), "operator library")
	return false
}

// addPlan is aclnnAddGetWorkspaceSize over 4-element tensors: the
// executor, the out buffer.
type addPlan struct{ ex, out uint64 }

func (h *harness) planAdd(alpha float32) addPlan {
	h.T.Helper()
	_, a := h.f32Tensor(1, 2, 3, 4)
	_, b := h.f32Tensor(10, 20, 30, 40)
	out, o := h.f32Tensor(0, 0, 0, 0)
	h.OK("aclnnAddGetWorkspaceSize", a, b, h.scalar(alpha), o, nnWS, nnEx)
	return addPlan{ex: uint64(h.U32(nnEx)), out: out}
}

// TestOperatorAdd: the two phases run Add on the stream; the executor is
// single-use.
func TestOperatorAdd(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		p := h.planAdd(0.5)
		require.Zero(t, h.U64(nnWS))
		require.NotZero(t, p.ex)
		s := h.Stream()
		if !h.computes("aclnnAdd", 0, 0, p.ex, s) {
			return
		}
		h.OK("aclnnAdd", 0, 0, p.ex, s)
		h.OK("aclrtSynchronizeStream", s)
		want := make([]float32, 4)
		for i := range want { // the reference, in float64 then rounded
			want[i] = float32(float64(i+1) + 0.5*float64(10*(i+1)))
		}
		require.Equal(t, want, h.deviceF32s(p.out, 4))
		msg := h.Code(acl.ErrNNInner, "aclnnAdd", 0, 0, p.ex, s)
		require.Contains(t, msg, "already run")

		// The default stream, and the trace names the tensors.
		p = h.planAdd(1)
		h.OK("aclnnAdd", 0, 0, p.ex, 0)
		h.OK("aclrtSynchronizeStream", 0)
		require.Equal(t, []float32{11, 22, 33, 44}, h.deviceF32s(p.out, 4))
		last := h.Log[len(h.Log)-3] // aclnnAdd, then the synchronize and the copy
		require.Equal(t, "aclnnAdd", last.Func.Name)
		require.Contains(t, last.Msg, "self ACL_FLOAT[4]@0x")
	})
}

// TestOperatorRepeatable: a repeatable executor runs until destroyed.
func TestOperatorRepeatable(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		p := h.planAdd(1)
		h.OK("aclSetAclOpExecutorRepeatable", p.ex)
		if !h.computes("aclnnAdd", 0, 0, p.ex, 0) {
			return
		}
		h.OK("aclnnAdd", 0, 0, p.ex, 0)
		h.OK("aclnnAdd", 0, 0, p.ex, 0)
		h.OK("aclrtSynchronizeStream", 0)
		require.Equal(t, []float32{11, 22, 33, 44}, h.deviceF32s(p.out, 4))
		h.OK("aclDestroyAclOpExecutor", p.ex)
		h.Code(acl.ErrNNInner, "aclnnAdd", 0, 0, p.ex, 0)
		h.Code(acl.ErrNNInner, "aclDestroyAclOpExecutor", p.ex)
	})
}

// TestOperatorArgs: NULLs, objects of the wrong kind, executors of
// another operator, workspaces outside memory, with the library's codes
// and nothing queued.
func TestOperatorArgs(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		_, a := h.f32Tensor(1, 2, 3, 4)
		_, b := h.f32Tensor(1, 2, 3, 4)
		out, o := h.f32Tensor(7, 7, 7, 7)
		al := h.scalar(1)
		require.Contains(t, h.Code(acl.ErrNNParamNullptr, "aclnnAddGetWorkspaceSize", 0, b, al, o, nnWS, nnEx), "self is NULL")
		require.Contains(t, h.Code(acl.ErrNNParamNullptr, "aclnnAddGetWorkspaceSize", a, b, al, o, 0, nnEx), "workspaceSize is NULL")
		require.Contains(t, h.Code(acl.ErrNNParamNullptr, "aclnnAddGetWorkspaceSize", a, b, al, o, nnWS, 0), "executor is NULL")
		require.Contains(t, h.Code(acl.ErrNNParamInvalid, "aclnnAddGetWorkspaceSize", a, al, al, o, nnWS, nnEx), "not an aclTensor")
		require.Contains(t, h.Code(acl.ErrNNParamInvalid, "aclnnAddGetWorkspaceSize", a, b, al, 0xFFFF, nnWS, nnEx), "unknown or destroyed")

		h.OK("aclnnMulGetWorkspaceSize", a, b, o, nnWS, nnEx)
		mul := uint64(h.U32(nnEx))
		require.Contains(t, h.Code(acl.ErrNNInner, "aclnnAdd", 0, 0, mul, 0), "aclnnMulGetWorkspaceSize")
		require.Contains(t, h.Code(acl.ErrNNParamNullptr, "aclnnMul", 0, 0, 0, 0), "executor is NULL")
		require.Contains(t, h.Code(acl.ErrNNParamNullptr, "aclnnMul", 0, 64, mul, 0), "workspace is NULL")
		require.Contains(t, h.Code(acl.ErrNNParamInvalid, "aclnnMul", data, 64, mul, 0), "is guest memory")
		require.Contains(t, h.Code(acl.ErrNNParamInvalid, "aclnnMul", out, 64, mul, 0), "crosses the end")
		require.Contains(t, h.Code(acl.ErrRTInvalidHandle, "aclnnMul", 0, 0, mul, 0xFFFF), "stream")
		if !h.computes("aclnnMul", out, 16, mul, 0) {
			return
		}
		// None of those queued anything, nor used the executor up.
		h.OK("aclrtSynchronizeStream", 0)
		require.Equal(t, []float32{7, 7, 7, 7}, h.deviceF32s(out, 4))
		h.OK("aclnnMul", out, 16, mul, 0) // a workspace inside an allocation is fine
		h.OK("aclrtSynchronizeStream", 0)
		require.Equal(t, []float32{1, 4, 9, 16}, h.deviceF32s(out, 4))
	})
}

// TestOperatorFreedStorage: a tensor whose memory was freed after
// aclnnXxxGetWorkspaceSize fails the launch (161002), nothing queued.
func TestOperatorFreedStorage(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		p := h.planAdd(1)
		h.OK("aclrtFree", p.out)
		require.Contains(t, h.Code(acl.ErrNNParamInvalid, "aclnnAdd", 0, 0, p.ex, 0), "out's storage")
		h.OK("aclrtSynchronizeStream", 0)
	})
}

// TestOperatorFreedBeforeExecution: an input freed between the launch's
// queueing and its execution (ABI section 13.1): aclrtFree takes the
// allocation out of the session at once and then waits for the queued
// work that uses it, as for a queued copy; the launch, checked again when
// it executes, fails its stream at the next synchronize and writes
// nothing. A gate the test opens holds the stream until the Free is
// waiting.
func TestOperatorFreedBeforeExecution(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		s := h.Stream()
		open := h.gate(s)
		in, a := h.f32Tensor(1, 2, 3, 4)
		_, b := h.f32Tensor(10, 20, 30, 40)
		out, o := h.f32Tensor(0, 0, 0, 0)
		h.OK("aclnnAddGetWorkspaceSize", a, b, h.scalar(1), o, nnWS, nnEx)
		ex := uint64(h.U32(nnEx))
		if !h.computes("aclnnAdd", 0, 0, ex, s) {
			return
		}
		h.OK("aclnnAdd", 0, 0, ex, s)
		freed := make(chan acl.Error, 1)
		go func() {
			res, err := h.Inst.Call(context.Background(), "aclrtFree", in)
			if err != nil {
				freed <- acl.ErrRTInternal
				return
			}
			freed <- acl.Error(int32(uint32(res[0])))
		}()
		sess := proxytest.Session(h.Inst)
		for i := 0; sess.Allocated(in); i++ { // a watchdog, not a timing
			require.Less(t, i, 10000, "aclrtFree never took the allocation out")
			time.Sleep(time.Millisecond)
		}
		select {
		case code := <-freed:
			t.Fatalf("aclrtFree returned %v before the queued launch that uses the memory ran", code)
		default:
		}
		open()
		select {
		case code := <-freed:
			require.Equal(t, acl.Success, code)
		case <-time.After(time.Minute):
			t.Fatal("aclrtFree still waits after the stream ran")
		}
		msg := h.Code(acl.ErrRTAicoreException, "aclrtSynchronizeStream", s)
		require.Contains(t, msg, "aclnnAdd did not run, and touched nothing")
		require.Contains(t, msg, "self's storage")
		h.OK("aclrtSynchronizeStream", s) // the error was reported once
		require.Equal(t, []float32{0, 0, 0, 0}, h.deviceF32s(out, 4))
	})
}

// TestOperatorReadOnlyLease: a tensor over memory the host lent
// read-only may be read, never written.
func TestOperatorReadOnlyLease(t *testing.T) {
	h := newHarness(t, host.Policy{})
	p, _ := testsupport.Lent(t, h.RT.Backend(), 4096)
	l, err := h.Inst.Lend(p, 4096, host.LendOptions{ReadOnly: true})
	require.NoError(t, err)
	h.OK("aclrtSetDevice", 0)
	ro := h.tensor(acl.DTFloat, l.Addr(), 4)
	require.NotZero(t, ro)
	out, o := h.f32Tensor(0, 0, 0, 0)
	h.OK("aclnnMulGetWorkspaceSize", ro, ro, o, nnWS, nnEx)
	if !h.computes("aclnnMul", 0, 0, uint64(h.U32(nnEx)), 0) {
		return
	}
	h.OK("aclnnMul", 0, 0, uint64(h.U32(nnEx)), 0) // reading it is fine
	h.OK("aclrtSynchronizeStream", 0)
	_ = out
	h.OK("aclnnMulGetWorkspaceSize", o, o, ro, nnWS, nnEx)
	require.Contains(t, h.Code(acl.ErrNNParamInvalid, "aclnnMul", 0, 0, uint64(h.U32(nnEx)), 0), "read-only")
}

// TestOperatorForce: a launch queued behind a gate is cancelled by
// aclrtDestroyStreamForce and touches nothing.
func TestOperatorForce(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		s := h.Stream()
		h.gate(s)
		p := h.planAdd(1)
		if !h.computes("aclnnAdd", 0, 0, p.ex, s) {
			return
		}
		h.OK("aclnnAdd", 0, 0, p.ex, s)
		h.OK("aclrtDestroyStreamForce", s)
		require.Equal(t, []float32{0, 0, 0, 0}, h.deviceF32s(p.out, 4))
	})
}

// TestOperatorQueueLimit: launches count against MaxQueued.
func TestOperatorQueueLimit(t *testing.T) {
	h := newHarness(t, host.Policy{MaxQueued: 1})
	h.OK("aclrtSetDevice", 0)
	s := h.Stream()
	h.gate(s)
	p := h.planAdd(1)
	h.OK("aclSetAclOpExecutorRepeatable", p.ex)
	if !h.computes("aclnnAdd", 0, 0, p.ex, s) {
		return
	}
	h.Code(acl.ErrRTOverLimit, "aclnnAdd", 0, 0, p.ex, s)
}

// TestOperatorDeny: an operator is denied by its launch name (both of its
// functions) or with the whole library by aclnn*; the rest stays granted.
func TestOperatorDeny(t *testing.T) {
	rt := proxytest.Runtime(t)
	imp := func(name string) string {
		return `(module (import "acl" "` + name + `" (func (param ` + strings.Repeat("i32 ", 6) + `) (result i32))))`
	}
	ws := `(module (import "acl" "aclnnMulGetWorkspaceSize" (func (param i32 i32 i32 i32 i32) (result i32))))`
	for _, tc := range []struct {
		wat   string
		deny  []string
		allow []string
		want  string // "" loads
	}{
		{ws, []string{"aclnnMul"}, nil, "acl.aclnnMulGetWorkspaceSize is denied by the policy"},
		{ws, []string{host.OperatorFamily}, nil, "acl.aclnnMulGetWorkspaceSize is denied by the policy"},
		{ws, []string{"aclnnAdd"}, nil, ""},
		{ws, nil, []string{"aclnnMul"}, ""},
		{ws, nil, []string{"aclnnAdd"}, "is denied"},
		{imp("aclnnAddGetWorkspaceSize"), []string{"aclnnAddGetWorkspaceSize"}, nil, "is denied by the policy"},
	} {
		pl, err := rt.Load(context.Background(), testsupport.WAT(t, tc.wat), host.Policy{Deny: tc.deny, Allow: tc.allow})
		if tc.want == "" {
			require.NoError(t, err, "deny %v allow %v", tc.deny, tc.allow)
			require.NoError(t, pl.Close(context.Background()))
			continue
		}
		require.ErrorIs(t, err, host.ErrLoad)
		require.ErrorContains(t, err, tc.want, "deny %v allow %v", tc.deny, tc.allow)
	}
	_, err := rt.Load(context.Background(), testsupport.WAT(t, `(module)`), host.Policy{Deny: []string{"aclnn"}})
	require.ErrorContains(t, err, `"aclnn" is not a function`)
}

// TestOperatorAccounting: a launch counts as a call when queued, and in
// the statistics and the metrics when it has executed.
func TestOperatorAccounting(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := host.NewMetrics(reg)
	require.NoError(t, err)
	h := newHarness(t, host.Policy{}, host.WithMetrics(m))
	h.OK("aclrtSetDevice", 0)
	p := h.planAdd(1)
	if !h.computes("aclnnAdd", 0, 0, p.ex, 0) {
		return
	}
	h.OK("aclnnAdd", 0, 0, p.ex, 0)
	h.OK("aclrtSynchronizeStream", 0)
	st := h.Inst.Session().Stats().Funcs["aclnnAdd"]
	require.Equal(t, uint64(1), st.Calls)
	require.Equal(t, uint64(1), st.Launches)
	require.Zero(t, st.LaunchFailures)
	require.Zero(t, h.Inst.Session().Stats().Funcs["aclnnAddGetWorkspaceSize"].Launches)
	require.Equal(t, map[string]float64{"[function=aclnnAdd outcome=ok plugin=]": 1}, series(t, reg, "aclwasm_compute_duration_seconds"), "one ok launch of aclnnAdd")
}

// standinStall returns the stand-in operator library's test hooks
// (acl/cann/testdata/standin/opapi.c): stall makes the next n operators
// stall on the device until their stream's work is cancelled, stalled
// is how many are stalled now; nil, nil off the stand-in: no other
// backend can hold an operator running. The test's end releases any
// stalled operator, so that a failure does not hang the cleanup.
func standinStall(t *testing.T) (stall func(n int32), stalled func() int32) {
	t.Helper()
	lib := testsupport.NativeLib()
	if lib == "" {
		return nil, nil
	}
	ops := testsupport.OpLib()
	if ops == "" {
		ops = filepath.Join(filepath.Dir(lib), "libopapi.so")
	}
	h, err := purego.Dlopen(ops, purego.RTLD_NOW|purego.RTLD_LOCAL)
	require.NoError(t, err)
	sym, err := purego.Dlsym(h, "aclwasmStandinStallOps")
	if err != nil || sym == 0 {
		return nil, nil
	}
	purego.RegisterFunc(&stall, sym)
	purego.RegisterLibFunc(&stalled, h, "aclwasmStandinStalled")
	t.Cleanup(func() { stall(0) })
	return stall, stalled
}

// TestOperatorStoppedByRunDeadline: an operator launch is bounded by the
// deadline of the run that queued it (ABI section 13.1), on both
// backends. Queued behind a gate until that deadline has passed, it does
// not run and fails its stream with 507014, writing nothing; running on
// the device when the deadline passes (the stand-in's stalled operator),
// it is stopped: the run ends at its deadline, the stream fails with
// 507014, nothing is written, and the session releases everything.
func TestOperatorStoppedByRunDeadline(t *testing.T) {
	launch := func(h *harness, ex, s uint64, limit time.Duration) context.Context {
		h.T.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		h.T.Cleanup(cancel)
		res, err := h.Inst.Call(ctx, "aclnnAdd", 0, 0, ex, s)
		require.NoError(h.T, err)
		require.Zero(h.T, res[0], h.Inst.Session().LastError())
		return ctx
	}
	// synced is the code of a synchronize of s under a generous watchdog.
	synced := func(h *harness, s uint64) acl.Error {
		h.T.Helper()
		watchdog, stop := context.WithTimeout(context.Background(), time.Minute)
		defer stop()
		res, err := h.Inst.Call(watchdog, "aclrtSynchronizeStream", s)
		require.NoError(h.T, err, "the operator outlived the deadline of the run that launched it")
		return acl.Error(int32(uint32(res[0])))
	}

	t.Run("queued", func(t *testing.T) {
		h := newHarness(t, host.Policy{})
		h.OK("aclrtSetDevice", 0)
		s := h.Stream()
		open := h.gate(s)
		p := h.planAdd(1)
		if !h.computes("aclnnAdd", 0, 0, p.ex, s) {
			return
		}
		ctx := launch(h, p.ex, s, 500*time.Millisecond)
		<-ctx.Done() // the run's deadline passes with the launch still queued
		open()
		require.Equal(t, acl.ErrRTAicoreTimeout, synced(h, s))
		require.Contains(t, h.RecentMsg(), "aclnnAdd did not run, and touched nothing: the run's time limit passed before its stream reached it")
		require.Equal(t, []float32{0, 0, 0, 0}, h.deviceF32s(p.out, 4))
		st := h.Inst.Session().Stats().Funcs["aclnnAdd"]
		require.Equal(t, uint64(1), st.Launches)
		require.Equal(t, uint64(1), st.LaunchFailures)
	})

	t.Run("running", func(t *testing.T) {
		stall, stalled := standinStall(t)
		if stall == nil {
			return // only the stand-in holds an operator running on the device
		}
		h := newHarness(t, host.Policy{})
		h.OK("aclrtSetDevice", 0)
		b := h.RT.Backend()
		free, _, err := b.MemInfo(0, acl.HBMMem)
		require.NoError(t, err)
		s := h.Stream()
		p := h.planAdd(1)
		// running launches the stalling operator in a run with a time
		// limit far enough that it starts first (a slow machine fails
		// the test, saying so, rather than testing the queued case).
		running := func() context.Context {
			stall(1)
			ctx := launch(h, p.ex, s, 3*time.Second)
			for i := 0; stalled() == 0; i++ { // a watchdog, not a timing
				require.Less(t, i, 3000, "the operator never started")
				time.Sleep(time.Millisecond)
			}
			require.NoError(t, ctx.Err(), "the machine was too slow: the operator started after the run's time limit")
			return ctx
		}
		running()
		require.Equal(t, acl.ErrRTAicoreTimeout, synced(h, s))
		require.Contains(t, h.RecentMsg(), "aclnnAdd was stopped: the run's time limit passed while it ran")
		require.Equal(t, acl.Success, synced(h, s), "the failure was reported once")
		require.Equal(t, []float32{0, 0, 0, 0}, h.deviceF32s(p.out, 4), "the stalled operator wrote nothing")
		st := h.Inst.Session().Stats().Funcs["aclnnAdd"]
		require.Equal(t, uint64(1), st.LaunchFailures)

		// The stream takes new work.
		p = h.planAdd(1)
		h.OK("aclnnAdd", 0, 0, p.ex, s)
		h.OK("aclrtSynchronizeStream", s)
		require.Equal(t, []float32{11, 22, 33, 44}, h.deviceF32s(p.out, 4))

		// A run that waits for a stalled operator ends at its deadline
		// (which ends the instance), and the session releases everything.
		p = h.planAdd(1)
		ctx := running()
		res, err := h.Inst.Call(ctx, "aclrtSynchronizeStream", s)
		if err == nil { // the stream's failure came first
			require.Equal(t, uint64(acl.ErrRTAicoreTimeout), res[0])
		} else {
			require.ErrorIs(t, err, context.DeadlineExceeded)
		}
		require.NoError(t, h.Inst.Close(context.Background()))
		after, _, err := b.MemInfo(0, acl.HBMMem)
		require.NoError(t, err)
		require.Equal(t, free, after, "the session released its device memory")
	})
}

// TestOperatorLibraryDecides: where the host's checks let a launch pass
// by design and the node's operator library refuses it, the library's
// code and message reach the guest. Add of int32 tensors is in the
// table, so aclnnAddGetWorkspaceSize and aclnnAdd succeed; the
// simulator computes it, and the stand-in library, which adds float32
// only, refuses it when it executes (its GetWorkspaceSize returns
// ACLNN_ERR_PARAM_INVALID): the stream fails with 161002 and
// aclGetRecentErrMsg says which call of the library refused.
func TestOperatorLibraryDecides(t *testing.T) {
	nnProfiles(t, func(t *testing.T, h *harness) {
		i32 := func(vs ...int32) (dev, t uint64) {
			dev = h.Malloc(uint64(4 * len(vs)))
			for i, v := range vs {
				le.PutUint32(h.Mem()[data+uint32(4*i):], uint32(v))
			}
			h.OK("aclrtMemcpy", dev, uint64(4*len(vs)), data, uint64(4*len(vs)), uint64(acl.MemcpyHostToDevice))
			return dev, h.tensor(acl.DTInt32, dev, int64(len(vs)))
		}
		_, a := i32(1, 2, 3, 4)
		_, b := i32(10, 20, 30, 40)
		out, o := i32(7, 7, 7, 7)
		le.PutUint32(h.Mem()[nnValues:], 2)
		alpha := uint64(uint32(h.Call("aclCreateScalar", nnValues, uint64(acl.DTInt32))))
		require.NotZero(t, alpha)
		h.OK("aclnnAddGetWorkspaceSize", a, b, alpha, o, nnWS, nnEx)
		ex := uint64(h.U32(nnEx))
		if !h.computes("aclnnAdd", 0, 0, ex, 0) {
			return
		}
		h.OK("aclnnAdd", 0, 0, ex, 0)
		result := func() []int32 {
			h.OK("aclrtMemcpy", data2, 16, out, 16, uint64(acl.MemcpyDeviceToHost))
			got := make([]int32, 4)
			for i := range got {
				got[i] = int32(le.Uint32(h.Mem()[data2+uint32(4*i):]))
			}
			return got
		}
		if h.RT.Backend().Traits().Computer != nil { // the simulator computes it
			h.OK("aclrtSynchronizeStream", 0)
			require.Equal(t, []int32{21, 42, 63, 84}, result())
			return
		}
		msg := h.Code(acl.ErrNNParamInvalid, "aclrtSynchronizeStream", 0)
		require.Contains(t, msg, "aclnnAdd failed on the device: aclnnAddGetWorkspaceSize returned 161002")
		require.Contains(t, h.RecentMsg(), "aclnnAddGetWorkspaceSize returned 161002")
		require.Equal(t, []int32{7, 7, 7, 7}, result(), "the refused launch wrote nothing")
		st := h.Inst.Session().Stats().Funcs["aclnnAdd"]
		require.Equal(t, uint64(1), st.LaunchFailures)
	})
}
