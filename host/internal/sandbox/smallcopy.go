package sandbox

import (
	"context"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// copySmall is aclrtMemcpy's common case in one pass: a small copy that
// passes every check, between pageable guest memory and device memory or
// within device memory of one device, handed to the backend with the
// allocations this session already resolved (acl.SmallCopier), so that
// neither side is looked up twice. It reports false, having done nothing,
// for anything else, which memcpySync then checks step by step in the
// native order with its errors: a call that fails any check never gets
// here, so the order and the codes are memcpySync's.
func (c *Call) copySmall(dst, destMax, src, n uint64, kind acl.MemcpyKind) (bool, error) {
	done, d, err := c.s.smallCopy(c.ctx, c.mem, dst, destMax, src, n, kind)
	if done && err == nil {
		c.moved(d, n)
	}
	return done, err
}

// smallCopy is copySmall for the call under ctx over the guest's memory
// mem, which it takes as parameters rather than from the call, so that
// memcpyFast sets and clears no field of it but the sides; it returns the
// copy's direction for the caller to count. The sides are the call's
// (Call.small).
func (s *Session) smallCopy(ctx context.Context, mem []byte, dst, destMax, src, n uint64, kind acl.MemcpyKind) (bool, acl.Direction, error) {
	if s.sc == nil || n-1 >= min(acl.SmallCopyMax, destMax, s.policy.MaxCallBytes) || dst == 0 || src == 0 || dst == src ||
		kind < acl.MemcpyHostToHost || kind > acl.MemcpyHostToBufToDevice || s.dev < 0 { // n == 0 wraps
		return false, 0, nil
	}
	d, sd := &s.call.small[0], &s.call.small[1]
	// Each side by hand, guest memory inline: a call per side cost a
	// small copy more than its checks.
	var da, sa *alloc
	ok := true
	if dst < s.as.guestEnd {
		ok = s.guestSide(d, mem, dst, n)
	} else {
		da, ok = s.deviceSide(d, dst, n, true)
	}
	if !ok {
		return false, 0, nil
	}
	switch {
	case src < s.as.guestEnd:
		ok = s.guestSide(sd, mem, src, n)
	case da != nil && src >= da.base && src < da.end() && n <= da.end()-src:
		// Within dst's allocation: looked up once (deviceSide's steps
		// for a source there).
		sd.Region, sd.Dev, sd.Host = da.rg, da.ptr+acl.DevPtr(src-da.base), nil
		sa = da
	default:
		sa, ok = s.deviceSide(sd, src, n, false)
	}
	if !ok || (da != nil && sa != nil && da.dev != sa.dev) { // the peer rule: memcpySync's
		return false, 0, nil
	}
	// The backend's first check: Memcpy returns the context's error.
	// ended by hand: a call of its own cost a small copy more than the
	// check.
	if cc, isCC := ctx.(*CallCtx); isCC && cc.ended.Load() || !isCC && ctx.Err() != nil {
		return false, 0, nil
	}
	done, err := s.sc.CopySmall(d, sd, n)
	if !done {
		return false, 0, nil
	}
	if err != nil {
		return true, 0, be(err)
	}
	return true, acl.DirectionOf(da != nil, sa != nil), nil
}

// memcpyFI is aclrtMemcpy's index in abi.Funcs.
var memcpyFI = abi.Lookup("aclrtMemcpy").Index()

// Unguarded reports whether the session may leave the panics of import
// fi (an index in abi.Funcs) to the engine (engine.Func.Unguarded):
// memcpyFast's, aclrtMemcpy's. Of the host functions, a kernel's
// launcher's (launchFast) are: HostFunc.Unguarded.
func Unguarded(fi int) bool { return fi == memcpyFI }

// plain reports whether nothing follows the session's calls but its
// statistics: no tracer, metrics, stream callbacks, checking mode or
// kernel prints, the steps of invoke that memcpyFast leaves out.
func (s *Session) plain() bool {
	return s.tracer == nil && s.ms.pm == nil && s.cb == nil && s.ck == nil && s.kout == nil
}

// memcpyFast is invoke for an aclrtMemcpy of a plain session that
// smallCopy takes: the call and its bytes counted around smallCopy, the
// result set, without the import table, the profile's narrowing (it
// narrows the four values it reads itself), the steps that only
// observers need, or a recover: the engine recovers its panics and hands
// them to Recover (engine.Recoverer), which fails the call with
// ACL_ERROR_INTERNAL_ERROR as Call.run does. Those steps cost a small
// copy more than its checks; so did setting and clearing the call's
// context and memory, which smallCopy takes as parameters. It reports
// false, having done nothing, when smallCopy declines the copy, which
// invoke then runs whole (memcpySync asks copySmall again, and goes on
// step by step).
func (s *Session) memcpyFast(ctx context.Context, mem []byte, stack []uint64) bool {
	s.inFast = true
	_ = stack[4] // one bounds check for the five parameters
	dst, destMax, src, n := stack[0], stack[1], stack[2], stack[3]
	if s.prof == abi.Native32 { // i32 parameters: the upper halves are undefined
		dst, destMax, src, n = uint64(uint32(dst)), uint64(uint32(destMax)), uint64(uint32(src)), uint64(uint32(n))
	}
	done, d, err := s.smallCopy(ctx, mem, dst, destMax, src, n, acl.MemcpyKind(int32(uint32(stack[4]))))
	if !done {
		s.inFast = false
		return false
	}
	st := s.stats.memcpy
	if st == nil {
		st = s.stats.of(memcpyFI) // nil when the session counts nothing
		s.stats.memcpy = st
	}
	if err != nil {
		s.copyEnded(st, err, stack)
		return true
	}
	// copyEnded's steps for a success, here without a call: drop's for
	// the only fields set (the sides), the counts moved and count make
	// (a plain session has no metrics).
	s.inFast = false
	if c := &s.call; c.small[0].Host != nil || c.small[1].Host != nil {
		c.small = [2]acl.SmallSide{}
	}
	if st != nil {
		st.own[d] += n
		st.calls++
	}
	stack[0] = 0
	return true
}

// copyEnded ends memcpyFast's call with err (nil: success) as invoke
// ends a call of a plain session.
func (s *Session) copyEnded(st *fnStat, err error, stack []uint64) {
	s.inFast = false
	var code acl.Error
	if err != nil {
		code, _ = s.failed(memcpyFI, err)
	}
	s.call.drop()
	st.count(err != nil, code)
	stack[0] = uint64(uint32(int32(code)))
}

// guestSide and deviceSide resolve one side of smallCopy as resolveBuf's
// common cases do: unregistered guest memory while nothing is registered
// (an address below the device addresses), or a range inside one
// allocation (writable, for a destination) whose backend handle is known
// or found now; false for anything else. Each sets every field of *b.
func (s *Session) guestSide(b *acl.SmallSide, mem []byte, addr, n uint64) bool {
	// Field by field, as invoke fills the call: a composite literal
	// costs the copy a stall on its 16-byte moves.
	b.Region, b.Dev = nil, 0
	if end := addr + n; end >= addr && end <= uint64(len(mem)) && len(s.as.pins) == 0 {
		b.Host = mem[addr:end:end]
		return true
	}
	return false
}

func (s *Session) deviceSide(b *acl.SmallSide, addr, n uint64, write bool) (*alloc, bool) {
	a := s.as.find(addr)
	if a == nil || n > a.end()-addr || (write && a.readOnly) {
		return nil, false
	}
	if a.rg == nil { // asked once per allocation
		if a.rg = s.sc.Region(a.ptr); a.rg == nil {
			return nil, false
		}
	}
	b.Region, b.Dev, b.Host = a.rg, a.ptr+acl.DevPtr(addr-a.base), nil
	return a, true
}
