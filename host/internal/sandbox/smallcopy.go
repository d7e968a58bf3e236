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
	s := c.s
	if s.sc == nil || n-1 >= min(acl.SmallCopyMax, destMax, s.policy.MaxCallBytes) || dst == 0 || src == 0 || dst == src ||
		kind < acl.MemcpyHostToHost || kind > acl.MemcpyHostToBufToDevice || s.dev < 0 { // n == 0 wraps
		return false, nil
	}
	d, sd := &c.small[0], &c.small[1]
	da, ok := c.smallSide(d, dst, n, true, nil)
	if !ok {
		return false, nil
	}
	sa, ok := c.smallSide(sd, src, n, false, da)
	if !ok || (da != nil && sa != nil && da.dev != sa.dev) { // the peer rule: memcpySync's
		return false, nil
	}
	if ended(c.ctx) { // the backend's first check: Memcpy returns the context's error
		return false, nil
	}
	done, err := s.sc.CopySmall(d, sd, n)
	if !done {
		return false, nil
	}
	if err != nil {
		return true, be(err)
	}
	c.moved(acl.DirectionOf(da != nil, sa != nil), n)
	return true, nil
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
// copySmall takes: the call and its bytes counted around copySmall, the
// result set, without the import table, the profile's narrowing (it
// narrows the four values it reads itself), the steps that only
// observers need, or a recover: the engine recovers its panics and hands
// them to Recover (engine.Recoverer), which fails the call with
// ACL_ERROR_INTERNAL_ERROR as Call.run does. Those steps cost a small
// copy more than its checks. It reports false, having done nothing, when
// copySmall declines the copy, which invoke then runs whole (memcpySync
// asks copySmall again, and goes on step by step).
func (s *Session) memcpyFast(ctx context.Context, mem []byte, stack []uint64) bool {
	c := &s.call
	st := s.stats.of(memcpyFI)
	s.inFast = true
	c.ctx, c.s, c.fi, c.mem = ctx, s, memcpyFI, mem
	dst, destMax, src, n := stack[0], stack[1], stack[2], stack[3]
	if s.prof == abi.Native32 { // i32 parameters: the upper halves are undefined
		dst, destMax, src, n = uint64(uint32(dst)), uint64(uint32(destMax)), uint64(uint32(src)), uint64(uint32(n))
	}
	done, err := c.copySmall(dst, destMax, src, n, acl.MemcpyKind(int32(uint32(stack[4]))))
	switch {
	case !done:
		s.inFast = false
		c.ctx, c.mem = nil, nil
		return false
	case err != nil:
		s.copyEnded(st, err, stack)
		return true
	}
	s.inFast = false // copyEnded's steps for a success, here without a call
	c.drop()
	st.count(false, 0)
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

// smallSide resolves one side of copySmall as resolveBuf's common cases
// do: unregistered guest memory while nothing is registered, or a range
// inside one allocation (writable, for a destination) whose backend handle
// is known or found now; false for anything else. It sets every field of
// *b. An address in near (the other side's allocation, or nil) is not
// looked up: a copy within one allocation looks it up once.
func (c *Call) smallSide(b *acl.SmallSide, addr, n uint64, write bool, near *alloc) (*alloc, bool) {
	as := &c.s.as
	if end := addr + n; addr < as.guestEnd {
		// Field by field, as invoke fills the call: a composite literal
		// costs the copy a stall on its 16-byte moves.
		b.Region, b.Dev = nil, 0
		if end >= addr && end <= uint64(len(c.mem)) && len(as.pins) == 0 {
			b.Host = c.mem[addr:end:end]
			return nil, true
		}
		return nil, false
	}
	a := near
	if a == nil || addr < a.base || addr >= a.end() {
		a = as.find(addr)
	}
	if a == nil || n > a.end()-addr || (write && a.readOnly) {
		return nil, false
	}
	if a.rg == nil { // asked once per allocation
		if a.rg = c.s.sc.Region(a.ptr); a.rg == nil {
			return nil, false
		}
	}
	b.Region, b.Dev, b.Host = a.rg, a.ptr+acl.DevPtr(addr-a.base), nil
	return a, true
}

// ended reports whether ctx.Err() != nil, without a call for an
// instance's own context: a small copy cost as much as its checks.
func ended(ctx context.Context) bool {
	if c, ok := ctx.(*CallCtx); ok {
		return c.ended.Load()
	}
	return ctx.Err() != nil
}
