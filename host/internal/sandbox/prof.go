package sandbox

import (
	"bytes"
	"strconv"

	"github.com/aclwasm/aclwasm/acl"
)

// The profiling markers of acl/acl_prof.h (ABI v1.3 section 15). No
// profiler runs: the session behaves as a process whose profiler has the
// msproftx markers on, and each marker that succeeds becomes the note of
// its call (c.note), which the trace prints and the OpenTelemetry
// observer turns into a span event. Nothing reaches the backend, so the
// markers are the session's own on every backend.

// stamp is one profiling stamp: its place in the pool (its range id),
// its message, and whether aclprofRangeStart started it.
type stamp struct {
	id      uint32
	msg     string
	started bool
}

// profState is a session's markers.
type profState struct {
	stamps map[uint32]*stamp         // by handle
	slots  [acl.StampPoolSize]uint32 // handle by range id; 0: free
	stack  []*stamp                  // aclprofPush's
	// pushed reports an aclprofRangePushEx since the session began; as
	// natively, aclprofRangePop does not clear it.
	pushed bool
}

// profs returns the session's profiling state, made at its first use:
// most sessions never profile, and its slots are a quarter of a session.
func (s *Session) profs() *profState {
	if s.pf == nil {
		s.pf = &profState{}
	}
	return s.pf
}

// maxStampStack bounds aclprofPush's stack (natively bounded by memory):
// a guest that pushes without popping fails rather than grows the host.
const maxStampStack = 1 << 16

// quoted is a message as a note shows it.
func quoted(m string) string { return strconv.Quote(m) }

// stampOf resolves the stamp handle parameter i: NULL and a handle the
// session does not hold give code (natively an unknown pointer would be
// followed; the sandbox answers as for NULL).
func (c *Call) stampOf(i int, code acl.Error) (*stamp, error) {
	h := c.u32(i)
	if h == 0 {
		return nil, acl.Errorf(code, "stamp is NULL")
	}
	st, ok := c.s.profs().stamps[h]
	if !ok {
		return nil, acl.Errorf(code, "stamp %d is not a stamp of this session (unknown or destroyed)", h)
	}
	return st, nil
}

// createStamp is aclprofCreateStamp(): NULL when the pool is full
// (prof_stamp_pool.cpp:98-101).
func createStamp(c *Call) error {
	c.returns(0)
	p := c.s.profs()
	id := -1
	for k, h := range p.slots {
		if h == 0 {
			id = k
			break
		}
	}
	if id < 0 {
		return acl.Errorf(acl.ErrProfFailed, "the session holds %d stamps, the pool's size", acl.StampPoolSize)
	}
	h, err := c.s.newHandle()
	if err != nil {
		return err
	}
	if p.stamps == nil {
		p.stamps = map[uint32]*stamp{}
	}
	p.stamps[h] = &stamp{id: uint32(id)}
	p.slots[id] = h
	c.returns(h)
	return nil
}

// destroyStamp is aclprofDestroyStamp(stamp). A stamp still on the push
// stack stays there, as natively (the pool keeps its memory).
func destroyStamp(c *Call) error {
	st, err := c.stampOf(0, acl.ErrInvalidParam)
	if err != nil {
		return err
	}
	delete(c.s.profs().stamps, c.u32(0))
	c.s.profs().slots[st.id] = 0
	return nil
}

// setStampTraceMessage is aclprofSetStampTraceMessage(stamp, msg,
// msgLen): the stamp, the length, then the copy, which stops at a NUL
// (msprof_tx_manager.cpp:183-205).
func setStampTraceMessage(c *Call) error {
	st, err := c.stampOf(0, acl.ErrProfFailed)
	if err != nil {
		return err
	}
	n := c.u32(2)
	if n >= acl.StampMessageMax {
		return acl.Errorf(acl.ErrProfFailed, "msgLen %d: a message must be shorter than %d bytes", n, acl.StampMessageMax)
	}
	if c.u32(1) == 0 {
		return acl.Errorf(acl.ErrProfFailed, "msg is NULL")
	}
	b, err := c.out(1, uint64(n))
	if err != nil {
		return err
	}
	if k := bytes.IndexByte(b, 0); k >= 0 {
		b = b[:k]
	}
	st.msg = string(b)
	return nil
}

// profMark is aclprofMark(stamp).
func profMark(c *Call) error {
	st, err := c.stampOf(0, acl.ErrProfFailed)
	if err != nil {
		return err
	}
	c.note = "mark " + quoted(st.msg)
	return nil
}

// profMarkEx is aclprofMarkEx(msg, msgLen, stream): the arguments, the
// length, then the stream the profiler's task would go to
// (msprof_tx_manager.cpp:235-256).
func profMarkEx(c *Call) error {
	if c.u32(0) == 0 || c.u32(2) == 0 {
		return acl.Errorf(acl.ErrProfFailed, "msg or stream is NULL")
	}
	m, err := c.cstring("msg", c.u32(0))
	if err != nil {
		return err
	}
	n := c.u64(1)
	if uint64(len(m)) != n {
		return acl.Errorf(acl.ErrProfFailed, "msgLen %d is not the length of msg (%d)", n, len(m))
	}
	if n < 1 || n > acl.StampMessageMax-1 {
		return acl.Errorf(acl.ErrProfFailed, "msgLen %d is outside 1 to %d", n, acl.StampMessageMax-1)
	}
	if _, ok := c.s.streams[c.u32(2)]; !ok {
		return acl.Errorf(acl.ErrProfFailed, "stream %d is not a stream of this session: the profiler's stream task fails", c.u32(2))
	}
	c.note = "mark " + quoted(m) + " on stream " + strconv.FormatUint(uint64(c.u32(2)), 10)
	return nil
}

// profPush is aclprofPush(stamp).
func profPush(c *Call) error {
	st, err := c.stampOf(0, acl.ErrInvalidParam)
	if err != nil {
		return err
	}
	p := c.s.profs()
	if len(p.stack) >= maxStampStack {
		return acl.Errorf(acl.ErrProfFailed, "%d stamps are pushed and not popped, the sandbox's limit", maxStampStack)
	}
	p.stack = append(p.stack, st)
	c.note = "push " + quoted(st.msg)
	return nil
}

// profPop is aclprofPop(): the latest pushed stamp's range.
func profPop(c *Call) error {
	p := c.s.profs()
	if len(p.stack) == 0 {
		return acl.Errorf(acl.ErrProfFailed, "nothing is pushed (aclprofPush)")
	}
	st := p.stack[len(p.stack)-1]
	p.stack[len(p.stack)-1] = nil
	p.stack = p.stack[:len(p.stack)-1]
	c.note = "pop " + quoted(st.msg)
	return nil
}

// rangeStart is aclprofRangeStart(stamp, rangeId)
// (msproftx_adaptor.cpp:146-151).
func rangeStart(c *Call) error {
	st, err := c.stampOf(0, acl.ErrInvalidParam)
	if err != nil {
		return err
	}
	if c.u32(1) == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "rangeId is NULL")
	}
	out, err := c.out(1, 4)
	if err != nil {
		return err
	}
	st.started = true
	le.PutUint32(out, st.id)
	c.note = "range " + strconv.FormatUint(uint64(st.id), 10) + " " + quoted(st.msg) + " started"
	return nil
}

// rangeStop is aclprofRangeStop(rangeId): a live stamp of that id that
// was started. As natively, stopping does not end it: a second stop
// records the range again.
func rangeStop(c *Call) error {
	id := c.u32(0)
	var st *stamp
	if id < acl.StampPoolSize {
		st = c.s.profs().stamps[c.s.profs().slots[id]]
	}
	if st == nil || !st.started {
		return acl.Errorf(acl.ErrProfFailed, "rangeId %d names no started stamp (aclprofRangeStart)", id)
	}
	c.note = "range " + strconv.FormatUint(uint64(id), 10) + " " + quoted(st.msg) + " stopped"
	return nil
}

// profStr2Id is aclprofStr2Id(message, id): the profiler's hash of
// message (acl.StrID) written to id. Natively the function returns the id
// and takes strlen(message) first (prof_acl_core.cpp:145), so a NULL
// message crashes the process: the sandbox answers 100000 as for any
// string outside guest memory, and the C SDK returns UINT64_MAX. The
// empty string succeeds with UINT64_MAX, as natively, where the profiler
// only logs it.
func profStr2Id(c *Call) error {
	m, err := c.cstring("message", c.u32(0))
	if err != nil {
		return err
	}
	out, err := c.out(1, 8)
	if err != nil {
		return err
	}
	id := acl.StrID(m)
	le.PutUint64(out, id)
	c.note = "id " + strconv.FormatUint(id, 10) + " of " + quoted(m)
	return nil
}

// eventAttrHead is the bytes of aclprofEventAttributes the host reads:
// version and size (uint16 each) and messageType (uint32), the same in
// both profiles.
const eventAttrHead = 8

// rangePushEx is aclprofRangePushEx(attr) (prof_tx_plugin.cpp:169-179).
func rangePushEx(c *Call) error {
	if c.u32(0) == 0 {
		return acl.Errorf(acl.ErrInvalidParam, "attr is NULL")
	}
	b, err := c.out(0, eventAttrHead)
	if err != nil {
		return err
	}
	if t := le.Uint32(b[4:]); t != 0 {
		return acl.Errorf(acl.ErrProfFailed, "attr's messageType %d is not ACL_PROF_MESSAGE_TYPE_TENSOR_INFO (0)", t)
	}
	c.s.profs().pushed = true
	c.note = "range pushed (version " + strconv.Itoa(int(le.Uint16(b))) + ")"
	return nil
}

// rangePop is aclprofRangePop() (prof_tx_plugin.cpp:184-187).
func rangePop(c *Call) error {
	if !c.s.profs().pushed {
		return acl.Errorf(acl.ErrInvalidParam, "no range was pushed (aclprofRangePushEx)")
	}
	c.note = "range popped"
	return nil
}
