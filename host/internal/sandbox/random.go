package sandbox

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"math/rand/v2"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// deterministicSeed seeds the generator of a session with deterministic
// clocks: its random numbers repeat from run to run.
var deterministicSeed = [32]byte{'a', 'c', 'l', 'w', 'a', 's', 'm', ' ', 'r', 'a', 'n', 'd', 'o', 'm'}

// taskSeed draws the seed of one random task from the session's
// generator. It is drawn when the task is queued, in the guest's call
// order, so tasks on streams that run in any order still repeat.
func (s *Session) taskSeed() (seed [32]byte) {
	if s.rng == nil {
		var k [32]byte
		_, _ = crand.Read(k[:]) // never fails (crypto/rand)
		s.rng = rand.New(rand.NewChaCha8(k))
	}
	for i := 0; i < len(seed); i += 8 {
		binary.LittleEndian.PutUint64(seed[i:], s.rng.Uint64())
	}
	return seed
}

// randomNumAsync is aclrtRandomNumAsync(taskInfo, stream, reserve) (ABI
// section 15), checked in the native order (acl.Order). The numbers come
// from the session's own generator, not the task's seed and counter: the
// device's Philox sequence is not reproduced. The simulator fills the
// result as a launch (acl.Computer); the native backend
// (acl.RandomGenerator) queues the node's own task with the translated
// addresses and, in place of the guest's seed, one drawn from the
// session's generator, so that its numbers too are the session's own and
// repeat with deterministic clocks.
func randomNumAsync(c *Call) error {
	ptr := int(c.s.prof.Width(abi.Addr))
	b, err := c.guest("taskInfo", c.u32(0), uint64(acl.RandomTaskSize(ptr))) // taskInfo
	if err != nil {
		return err
	}
	task := acl.RandomTaskOf(b, ptr)
	rt, ok := acl.RandomTypes[task.DataType]
	if !ok { // type
		return acl.Errorf(acl.ErrInvalidParam, "taskInfo->dataType %v: the data type is currently not supported (int32, int64, uint32, uint64, bfloat16, float16, float)", task.DataType)
	}
	// The ACL layer hands the runtime the caller's task with its own type
	// code written over the ACL one (kernel.cpp:672-673): the guest sees it.
	binary.LittleEndian.PutUint32(b, uint32(rt)) // writeback
	t := c.s.b.Traits()
	comp, gen := t.Computer, t.RandomGenerator
	isComp, isGen := comp != nil, gen != nil
	if !isComp && (!isGen || !c.s.b.Supports("aclrtRandomNumAsync")) { // feature
		return acl.Errorf(acl.ErrRTFeatureNotSupport, "the %s backend cannot generate random numbers (its library lacks aclrtRandomNumAsync)", c.s.b.Name())
	}
	st, err := c.streamHandle(c.u32(1)) // stream
	if err != nil {
		return err
	}
	if c.u64(2) != 0 { // reserve
		return acl.Errorf(acl.ErrRTParamInvalid, "reserve is a reserved parameter and must be NULL")
	}
	if st, err = c.bindStream(st); err != nil { // context
		return err
	}
	if err := c.streamCtx(st); err != nil { // streamctx
		return err
	}
	if task.Func < acl.RandomDropoutBitmask || task.Func > acl.RandomTruncNormal { // func
		return acl.Errorf(acl.ErrRTParamInvalid, "taskInfo->randomNumFuncParaInfo.funcType %d is outside [0, 4)", int32(task.Func))
	}
	if !acl.RandomFuncTypes(task.Func, task.DataType) { // functype
		return acl.Errorf(acl.ErrRTParamInvalid, "taskInfo->dataType %v: %v produces bfloat16, float16 or float only", task.DataType, task.Func)
	}
	if task.Counter == 0 { // counter
		return acl.Errorf(acl.ErrRTParamInvalid, "taskInfo->randomCounterAddr is NULL")
	}
	if task.Result == 0 { // result
		return acl.Errorf(acl.ErrRTParamInvalid, "taskInfo->randomResultAddr is NULL")
	}
	if err := checkRandomParam("randomSeed", task.Seed, 8); err != nil { // seed
		return err
	}
	if err := checkRandomParam("randomNum", task.Num, 8); err != nil { // num
		return err
	}
	params := []namedParam{{"dropoutRation", task.P1}}
	switch task.Func {
	case acl.RandomUniform:
		params = append(params[:0], namedParam{"min", task.P1}, namedParam{"max", task.P2})
	case acl.RandomNormal, acl.RandomTruncNormal:
		params = append(params[:0], namedParam{"mean", task.P1}, namedParam{"stddev", task.P2})
	}
	for _, q := range params { // params
		n := uint8(task.DataType.Size())
		if q.p.IsAddr == 1 {
			n = 8
		}
		if err := checkRandomParam(q.name, q.p, n); err != nil {
			return err
		}
	}
	for _, q := range append(params, namedParam{"randomSeed", task.Seed}, namedParam{"randomNum", task.Num}) { // addr
		if q.p.IsAddr != 0 {
			return acl.Errorf(acl.ErrRTFeatureNotSupport, "%s is given by address: the sandbox takes random task parameters by value only", q.name)
		}
	}
	n := task.Num.Bits()
	size, ok := acl.RandomResultSize(task.Func, task.DataType, n)
	if !ok {
		return acl.Errorf(acl.ErrRTParamInvalid, "randomNum %d numbers of %v overflow", n, task.DataType)
	}
	res, err := c.s.resolveDevice("randomResultAddr", task.Result, size) // range
	if err == nil {
		err = res.writable("randomResultAddr", task.Result, size)
	}
	if err != nil {
		return err
	}
	var para span
	if task.ParaAddr != 0 {
		if para, err = c.s.resolveDevice("randomParaAddr", task.ParaAddr, 16); err == nil {
			err = para.writable("randomParaAddr", task.ParaAddr, 16)
		}
		if err != nil {
			return err
		}
	}
	ctr, err := c.s.resolveDevice("randomCounterAddr", task.Counter, 16)
	if err != nil {
		return err
	}
	if err := c.budget(size); err != nil { // bytes
		return err
	}
	if err := c.enqueue(st); err != nil { // queue
		return err
	}
	if task.ParaAddr != 0 {
		// The runtime writes the two parameters there before queueing
		// (random_num_task.cc:293-295), synchronously.
		var pb [16]byte
		p1, p2 := task.P1.Bits(), task.P2.Bits()
		if task.Func == acl.RandomDropoutBitmask {
			p2 = 0
		}
		binary.LittleEndian.PutUint64(pb[:], p1)
		binary.LittleEndian.PutUint64(pb[8:], p2)
		if err := be(c.s.b.Memcpy(c.ctx, para.buf, acl.Host(pb[:], 0), 16)); err != nil {
			return err
		}
	}
	if size == 0 {
		return nil
	}
	seed := c.s.taskSeed()
	if isComp {
		bounds := c.launchBounds()
		err = comp.Compute(st.h, &acl.Launch{
			Name:    "aclrtRandomNumAsync",
			Regions: []acl.Region{{Ptr: res.buf.Dev, N: size, Write: true}},
			Run: func(ctx context.Context, mem [][]byte) error {
				ctx, cancel := bounds(ctx)
				defer cancel()
				return acl.RandomFill(ctx, task, rand.New(rand.NewChaCha8(seed)), mem[0])
			},
		})
	} else {
		nt := task
		nt.Result = uint64(res.buf.Dev)
		nt.ParaAddr = 0
		if task.ParaAddr != 0 {
			nt.ParaAddr = uint64(para.buf.Dev)
		}
		nt.Counter = uint64(ctr.buf.Dev)
		nt.Seed = acl.RandomParam{Size: 8}
		copy(nt.Seed.Value[:], seed[:8])
		err = gen.RandomNumAsync(nt, st.h)
	}
	if err := be(err); err != nil {
		return err
	}
	c.set(st, size)
	return nil
}

// namedParam is a task's parameter with its native name, for messages.
type namedParam struct {
	name string
	p    acl.RandomParam
}

// checkRandomParam is the runtime's check of one aclrtRandomParaInfo
// (random_num_task.cc:82-97): isAddr 0 (a value) or 1 (an address), and
// a size of 1 to max bytes.
func checkRandomParam(name string, p acl.RandomParam, max uint8) error {
	if p.IsAddr > 1 {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: isAddr %d is neither 0 (a value) nor 1 (an address)", name, p.IsAddr)
	}
	if p.Size == 0 || p.Size > max {
		return acl.Errorf(acl.ErrRTParamInvalid, "%s: size %d is outside [1, %d]", name, p.Size, max)
	}
	return nil
}
