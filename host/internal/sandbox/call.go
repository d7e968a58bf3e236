package sandbox

import (
	"context"
	"encoding/binary"
	"errors"
	"math/bits"
	"time"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

var le = binary.LittleEndian

// call is one host call in flight: the engine-neutral view every import
// works on. Engine adapters fill it from their own calling convention.
type Call struct {
	ctx  context.Context
	s    *Session
	fi   int
	mem  []byte   // the guest's linear memory, valid for this call
	args []uint64 // parameters as the engine passes them, i32s zero-extended by invoke
	ret  *int32   // overrides the returned value (aclGetRecentErrMsg, aclrtGetSocName)
	note string   // a successful call's remark for the trace (aclInit's ignored file)
	// small are copySmall's two sides: passed by pointer to the backend,
	// which would move them to the heap as locals.
	small [2]acl.SmallSide
}

// importFn is the implementation of one import. It returns nil or an error
// carrying the native code and a precise message.
type importFn func(c *Call) error

// invoke runs import fi for session s over the engine's stack: parameters
// in, the i32 result out in stack[0]. It is the one path every import takes
// on every engine: it records the error message, the statistics and the
// trace, and turns a bug's panic into ACL_ERROR_INTERNAL_ERROR instead of
// crashing the host or trapping the guest.
func (s *Session) invoke(ctx context.Context, fi int, mem []byte, stack []uint64) {
	// Host calls of a session never nest, so one call value serves them
	// all: no allocation per call.
	if s.cb != nil {
		s.dueAtCall(ctx) // stream callbacks due since the last call (callback.go)
	}
	c := &s.call
	// Field by field: a composite literal is built on the stack and then
	// copied in 16-byte moves that stall on the 8-byte stores before them.
	c.ctx, c.s, c.fi, c.mem, c.args, c.ret = ctx, s, fi, mem, stack, nil
	st := s.stats.of(fi) // made at the function's first call
	// Parameters that travel as an i32 have undefined upper 32 bits on
	// the stack (a compiled engine leaves what the register held): clear
	// them, as accessors and traces read them as 64-bit values. One step
	// per such parameter, not per parameter.
	for m := narrow[s.prof][fi]; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		stack[i] = uint64(uint32(stack[i]))
	}
	var t0 time.Time
	if s.ms.pm != nil || s.tracer != nil {
		t0 = time.Now()
	}
	err := c.run()
	if s.kout != nil { // kernels' device prints, once a synchronize saw them done
		s.kout.flush()
	}
	if s.ck != nil && err == nil {
		c.checkHook()
	}
	var code acl.Error
	var msg string
	if err != nil {
		code, msg = s.failed(fi, err)
	} else {
		msg = c.note
	}
	res := int32(code)
	if c.ret != nil {
		res = *c.ret
	}
	if s.tracer != nil { // before c lets go of the guest's memory
		s.tracer.HostCall(&Traced{Func: &abi.Funcs[fi], Index: fi, Profile: s.prof, Mem: c.mem, Stack: stack, Result: res, Code: code, Msg: msg, Session: s.id, Start: t0})
	}
	c.drop()
	st.count(err != nil, code)
	if s.ms.pm != nil {
		s.callMetrics(fi, code, t0)
	}
	stack[0] = uint64(uint32(res))
}

// failed records err as the recent error of a call of import fi, and
// returns its code and message.
func (s *Session) failed(fi int, err error) (acl.Error, string) {
	msg := abi.Funcs[fi].Name + ": " + acl.MessageOf(err)
	s.noteErr(msg, err)
	return acl.CodeOf(err), msg
}

// narrow has, per profile and function, bit i set when parameter i
// travels as an i32: what invoke clears the upper half of, without walking
// the table on every call.
var narrow = func() [2][]uint64 {
	var n [2][]uint64
	for _, prof := range []abi.Profile{abi.Wide, abi.Native32} {
		m := make([]uint64, len(abi.Funcs))
		for fi, f := range abi.Funcs {
			if len(f.Params) > 64 {
				panic("host: " + f.Name + " has more than 64 parameters")
			}
			for i, p := range f.Params {
				if !prof.Is64(p.Type) {
					m[fi] |= 1 << i
				}
			}
		}
		n[prof] = m
	}
	return n
}()

// drop lets go of what the call referred to (the guest's memory, the
// context, the arguments), for the next call to set again: only what was
// set, since clearing the whole value, its small copy's sides included,
// cost a small copy a tenth of the sandbox's time. A field added to Call
// and not here fails TestCallDropClearsEveryField, which says which
// fields stay and why.
func (c *Call) drop() {
	c.ctx, c.mem, c.args, c.ret = nil, nil, nil, nil
	if c.note != "" {
		c.note = ""
	}
	if c.small[0].Host != nil || c.small[1].Host != nil {
		c.small = [2]acl.SmallSide{}
	}
}

func (c *Call) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			if u, ok := r.(unwind); ok { // a callback ended the run: the engine ends the guest's
				panic(u.err)
			}
			err = acl.Errorf(acl.ErrInternal, "host bug: %v", r) // no stack: the guest reads this
		}
	}()
	return imports[c.fi](c)
}

// Argument accessors, by parameter position.
func (c *Call) u64(i int) uint64          { return c.args[i] }
func (c *Call) i32(i int) int32           { return int32(uint32(c.args[i])) }
func (c *Call) u32(i int) uint32          { return uint32(c.args[i]) }
func (c *Call) kind(i int) acl.MemcpyKind { return acl.MemcpyKind(c.i32(i)) }

// guest returns the guest bytes [ptr, ptr+n) named by the gptr parameter
// name. NULL or any byte outside guest memory gives 100000, as a NULL
// out-parameter does natively.
func (c *Call) guest(name string, ptr uint32, n uint64) ([]byte, error) {
	if ptr == 0 {
		return nil, acl.Errorf(acl.ErrInvalidParam, "%s is NULL", name)
	}
	end := uint64(ptr) + n
	if n > uint64(len(c.mem)) || end > uint64(len(c.mem)) {
		return nil, acl.Errorf(acl.ErrInvalidParam, "%s [%#x, +%d) is outside guest memory (%d bytes)", name, ptr, n, len(c.mem))
	}
	return c.mem[ptr:end:end], nil
}

// out is guest for the gptr parameter i, named as in the ABI table.
func (c *Call) out(i int, n uint64) ([]byte, error) {
	return c.guest(abi.Funcs[c.fi].Params[i].Name, c.u32(i), n)
}

// width returns the width in the session's profile of the value or array
// elements the gptr parameter i holds: 8 or 4 for addresses and sizes
// (Param.Elem), 8 for uint64_t.
func (c *Call) width(i int) uint64 { return abi.Funcs[c.fi].Params[i].ElemSize(c.s.prof) }

// outWord is out for a gptr parameter that receives one address or size:
// 8 bytes in the wide profile, 4 in acl32.
func (c *Call) outWord(i int) ([]byte, error) { return c.out(i, c.width(i)) }

// putWord writes an address or size into an out-parameter of 8 or 4
// bytes. A 4-byte one saturates at 0xFFFFFFFF: SIZE_MAX stays SIZE_MAX on
// wasm32, and aclrtGetMemInfo reports at most that (ABI section 9).
func putWord(b []byte, v uint64) {
	if len(b) == 4 {
		le.PutUint32(b, uint32(min(v, 1<<32-1)))
		return
	}
	le.PutUint64(b, v)
}

// array returns the n little-endian elements at the gptr parameter i as a
// view of guest memory: 8 bytes each in the wide profile, 4 in acl32.
func (c *Call) array(i int, n uint64) (acl.Words, error) {
	w := c.width(i)
	if n > uint64(len(c.mem))/w {
		return acl.Words{}, acl.Errorf(acl.ErrInvalidParam, "%s: %d elements of %d bytes exceed guest memory (%d bytes)", abi.Funcs[c.fi].Params[i].Name, n, w, len(c.mem))
	}
	b, err := c.out(i, n*w)
	return acl.WordsOf(b, int(w)), err
}

// needDevice fails with 107002 before aclrtSetDevice, as natively.
func (c *Call) needDevice() error {
	if c.s.dev < 0 {
		return acl.Errorf(acl.ErrRTContextNull, "no current device: call aclrtSetDevice first")
	}
	return nil
}

// span names one side of an operation once resolved. It is small enough
// for the register ABI to return it with an error in registers: a copy
// through memory on every resolve cost more than its checks.
type span struct {
	buf acl.Buf
	a   *alloc // the allocation, for device memory
}

// loc returns where the span's memory is: a device, registered host
// memory or unregistered (pageable) guest memory.
func (sp *span) loc() acl.MemLocation { return locOf(sp.a, &sp.buf) }

// locOf is loc of b, resolved in allocation a (nil: host memory).
func locOf(a *alloc, b *acl.Buf) acl.MemLocation {
	switch {
	case a != nil:
		return acl.MemLocation{ID: uint32(a.dev), Type: acl.MemLocationDevice}
	case b.Pin != 0:
		return acl.MemLocation{Type: acl.MemLocationHost}
	}
	return acl.MemLocation{Type: acl.MemLocationUnregistered}
}

// resolve validates the range [addr, addr+n) named by parameter name and
// translates it: it must lie entirely inside guest memory or entirely
// inside one live allocation of this session (107000 otherwise). write
// marks a destination: registered read-only memory may not be one.
func (c *Call) resolve(name string, addr, n uint64, write bool) (span, error) {
	var sp span
	err := c.resolveTo(&sp, name, addr, n, write)
	return sp, err
}

// resolveTo is resolve into *sp, for the small copies: a span returned in
// registers is stored to the caller's frame word by word and then read in
// 16-byte moves that wait for those stores, which cost more than the
// checks.
func (c *Call) resolveTo(sp *span, name string, addr, n uint64, write bool) (err error) {
	sp.a, err = c.resolveBuf(&sp.buf, name, addr, n, write)
	return err
}

// resolveBuf is resolve into *b, which is zero, returning the allocation
// of device memory: a batch resolves straight into its entries.
func (c *Call) resolveBuf(b *acl.Buf, name string, addr, n uint64, write bool) (*alloc, error) {
	// The common cases first, with no error formatting in the way:
	// guest memory, unregistered or inside one registered range, and a
	// range inside one allocation. Anything else, errors included, takes
	// resolveAny.
	as := &c.s.as
	if end := addr + n; addr < as.guestEnd {
		if end >= addr && end <= uint64(len(c.mem)) {
			if len(as.pins) == 0 {
				b.Host = c.mem[addr:end:end]
				return nil, nil
			}
			// Inside one registered range, which no other overlaps, that
			// may be written or is not: readOnlyIn could only find it.
			if p := as.pinAt(addr, end); p != nil && (!write || p.typ != acl.HostRegisterReadOnly) {
				b.Host, b.Pin = c.mem[addr:end:end], p.h
				return nil, nil
			}
		}
	} else if a := as.find(addr); a != nil && n <= a.end()-addr && (!write || !a.readOnly) {
		b.Dev = a.ptr + acl.DevPtr(addr-a.base)
		return a, nil
	}
	sp, err := c.resolveAny(name, addr, n, write)
	*b = sp.buf
	return sp.a, err
}

// resolveAny is resolve for every range, with the errors.
func (c *Call) resolveAny(name string, addr, n uint64, write bool) (span, error) {
	end := addr + n
	if end < addr {
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s %#x + %d overflows", name, addr, n)
	}
	if addr < c.s.as.guestEnd {
		if end > uint64(len(c.mem)) {
			return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s [%#x, +%d) is outside guest memory (%d bytes)", name, addr, n, len(c.mem))
		}
		sp := span{buf: acl.Host(c.mem[addr:end:end], 0)}
		if len(c.s.as.pins) == 0 { // the common case: nothing registered
			return sp, nil
		}
		if p := c.s.as.pinAt(addr, end); p != nil {
			sp.buf.Pin = p.h
		}
		if write {
			if p := c.s.as.readOnlyIn(addr, end); p != nil {
				return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s [%#x, +%d) overlaps the read-only registered range [%#x, %#x)", name, addr, n, p.start, p.end)
			}
		}
		return sp, nil
	}
	sp, err := c.s.resolveDevice(name, addr, n)
	if err == nil && write {
		err = sp.writable(name, addr, n)
	}
	return sp, err
}

// resolveDevice validates and translates a device range. Stream workers
// call it too (under s.mu), for descriptors and offset base slots.
func (s *Session) resolveDevice(name string, addr, n uint64) (span, error) {
	if addr < s.as.guestEnd {
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s %#x is guest memory: it must lie in device memory of this session", name, addr)
	}
	a := s.as.find(addr)
	if a == nil {
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s %#x is not in guest memory or a live device allocation of this session", name, addr)
	}
	if n > a.end()-addr {
		return span{}, acl.Errorf(acl.ErrRTParamInvalid, "%s [%#x, +%d) crosses the end of the allocation [%#x, %#x)", name, addr, n, a.base, a.end())
	}
	return devSpan(a, addr), nil
}

// devSpan is the span of device address addr inside allocation a.
func devSpan(a *alloc, addr uint64) span {
	return span{
		buf: acl.Device(a.ptr + acl.DevPtr(addr-a.base)),
		a:   a,
	}
}

// stream resolves a stream handle in native order: streamHandle, then
// bindStream, then streamCtx.
func (c *Call) stream(h uint32) (*streamRec, error) {
	if s := c.s; h == 0 && s.dev >= 0 && s.cur.def != nil { // the default stream, made before
		st := s.cur.def
		return st, c.streamCtx(st)
	}
	st, err := c.streamHandle(h)
	if err != nil {
		return nil, err
	}
	if st, err = c.bindStream(st); err != nil {
		return nil, err
	}
	return st, c.streamCtx(st)
}

// streamHandle validates a stream handle as the runtime's entry point
// does, before any range or device check: unknown, destroyed and event
// handles give 107017. 0, the default stream, gives nil: which stream it
// names depends on the current device (bindStream).
func (c *Call) streamHandle(h uint32) (*streamRec, error) {
	if h == 0 {
		return nil, nil
	}
	st, ok := c.s.streams[h]
	if !ok {
		return nil, c.s.notStream(h)
	}
	return st, nil
}

// bindStream turns a validated handle into a stream once the current
// device is needed: without one 107002; nil becomes the session's default
// stream on the current device.
func (c *Call) bindStream(st *streamRec) (*streamRec, error) {
	if err := c.needDevice(); err != nil {
		return nil, err
	}
	if st == nil {
		return c.s.defaultStream()
	}
	return st, nil
}

// streamCtx refuses a stream of another context than the current one
// (107003), as the runtime does before it queues work.
func (c *Call) streamCtx(st *streamRec) error {
	if st.dev == c.s.dev && st.ctx == c.s.cur { // inlined: the common case
		return nil
	}
	return c.otherCtx(st)
}

// otherCtx is streamCtx's error for st, of another context.
func (c *Call) otherCtx(st *streamRec) error {
	if st.dev != c.s.dev {
		return acl.Errorf(acl.ErrRTStreamContext, "the stream belongs to device %d, the current device is %d", st.dev, c.s.dev)
	}
	if st.ctx != c.s.cur {
		return acl.Errorf(acl.ErrRTStreamContext, "the stream belongs to context %d of device %d, the current context is %d", st.ctx.h, st.dev, c.s.cur.h)
	}
	return nil
}

// event resolves an event handle: 0 gives 100000, unknown, destroyed and
// stream handles 107017.
func (c *Call) event(name string, h uint32) (*eventRec, error) {
	if h == 0 {
		return nil, acl.Errorf(acl.ErrInvalidParam, "%s is NULL", name)
	}
	ev, ok := c.s.events[h]
	if !ok {
		if _, isStream := c.s.streams[h]; isStream {
			return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is a stream, not an event", name, h)
		}
		if c.s.ctxOf(h) != nil {
			return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is a context, not an event", name, h)
		}
		if c.s.isNotify(h) {
			return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is a notify, not an event", name, h)
		}
		return nil, acl.Errorf(acl.ErrRTInvalidHandle, "%s %d is unknown or destroyed: not an event of this session", name, h)
	}
	return ev, nil
}

// enqueue checks the per-stream queue limit before an asynchronous
// operation. The session counts what it queued on the stream since it last
// asked the backend, an upper bound of what is pending there, and asks
// (acl.Backend.Pending) only when that bound reaches the limit: a stream
// under its limit costs no backend call per operation.
func (c *Call) enqueue(st *streamRec) error {
	if st.queued >= c.s.policy.MaxQueued {
		n, err := c.s.b.Pending(st.h)
		if err != nil {
			return be(err)
		}
		if n >= c.s.policy.MaxQueued {
			return acl.Errorf(acl.ErrRTOverLimit, "the stream already has %d queued operations, the policy's limit", n)
		}
		st.queued = n
	}
	st.queued++
	if c.s.ms.pm != nil {
		c.s.queuedMetrics(c.fi)
	}
	return nil
}

// fault marks an error the host's own work on a stream worker returned
// (descriptor and offset copies): its message is the host's, about guest
// arguments, and reaches the guest as it is.
type fault struct{ err error }

func (f *fault) Error() string { return f.err.Error() }
func (f *fault) Unwrap() error { return f.err }

// backendMsgs are what a guest reads about a backend's refusal, by code.
var backendMsgs = map[acl.Error]string{
	acl.ErrRTMemoryAllocation:          "the device is out of memory",
	acl.ErrRTStreamSyncTimeout:         "the queued work did not complete within the timeout",
	acl.ErrRTEventSyncTimeout:          "the event did not complete within the timeout",
	acl.ErrRTEventTimestampInvalid:     "an event has no valid timestamp (its record was cancelled)",
	acl.ErrRTEventNotComplete:          "an event's record has not completed yet",
	acl.ErrRTStreamAbort:               "the work was cancelled: its stream was destroyed",
	acl.ErrRTFeatureNotSupport:         "not supported by this runtime",
	acl.ErrRTParamInvalid:              "the runtime refused the arguments",
	acl.ErrRTInvalidHandle:             "the runtime does not know the handle",
	acl.ErrHostMemoryAlreadyRegistered: "the runtime refused the registration: the range is already registered",
	acl.ErrHostMemoryNotRegistered:     "the runtime does not know the registration",
}

// be returns a backend's error with its native code and a message of the
// host's own. A backend's message can name physical devices, backend
// handles and what other sessions use, none of which a guest may see.
// What the host's own stream work returned (fault) passes through.
func be(err error) error {
	if err == nil { // inlined: most calls succeed
		return nil
	}
	return beErr(err)
}

// beErr is be of an error.
func beErr(err error) error {
	var f *fault
	if errors.As(err, &f) {
		return f.err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return acl.Errorf(acl.ErrRTStreamSyncTimeout, "interrupted: the run's time limit expired")
	case errors.Is(err, context.Canceled):
		return acl.Errorf(acl.ErrRTStreamSyncTimeout, "interrupted: the run was cancelled")
	}
	code := acl.CodeOf(err)
	if msg, ok := backendMsgs[code]; ok {
		return acl.Errorf(code, "%s", msg)
	}
	return acl.Errorf(code, "the runtime failed (%s)", code.Name())
}

// moved counts n bytes moved in direction d by the current function. Only
// the session's calls write fnStat.own (stream workers use countBytes), so
// it needs no atomic, as fnStat.calls.
func (c *Call) moved(d acl.Direction, n uint64) {
	s := c.s
	if f := s.stats.at(c.fi); f != nil {
		f.own[d] += n
	}
	if s.ms.pm != nil && n != 0 {
		s.movedMetrics(c.fi, d, n)
	}
}

// countBytes counts n bytes moved in direction d by function fi, in the
// statistics and the metrics. Stream workers call it too.
func (s *Session) countBytes(fi int, d acl.Direction, n uint64) {
	if f := s.stats.at(fi); f != nil {
		f.bytes[d].Add(n)
	}
	if s.ms.pm != nil && n != 0 {
		s.movedMetrics(fi, d, n)
	}
}
