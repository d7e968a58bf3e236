package host

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// ErrMemoryRange: a ReadMemory or WriteMemory range lies outside the
// guest's linear memory.
var ErrMemoryRange = errors.New("outside guest memory")

// ReadMemory returns a copy of the n bytes of the guest's linear memory at
// offset off. Call it between the instance's calls: during one it fails
// with ErrBusy.
func (i *Instance) ReadMemory(off, n uint32) ([]byte, error) {
	var out []byte
	err := i.withMemory("read", off, uint64(n), func(m []byte) { out = append([]byte(nil), m...) })
	return out, err
}

// WriteMemory copies b into the guest's linear memory at offset off, or
// nothing if any byte would fall outside it. Call it between the
// instance's calls: during one it fails with ErrBusy.
func (i *Instance) WriteMemory(off uint32, b []byte) error {
	return i.withMemory("write", off, uint64(len(b)), func(m []byte) { copy(m, b) })
}

// MemorySize returns the size of the guest's linear memory in bytes (0
// once the instance has ended, or while a call runs).
func (i *Instance) MemorySize() uint64 {
	var n uint64
	_ = i.withMemory("size", 0, 0, func([]byte) { n = uint64(len(i.inst.Memory())) })
	return n
}

// withMemory runs f on the n bytes of guest memory at off, holding the
// call lock, so that no guest code runs (or grows the memory) meanwhile.
func (i *Instance) withMemory(op string, off uint32, n uint64, f func([]byte)) error {
	if err := i.tryLock(); err != nil {
		return fmt.Errorf("host: %s memory: %w", op, err)
	}
	defer i.callMu.Unlock()
	if i.done {
		return fmt.Errorf("host: %s memory: %w", op, errInstanceClosed)
	}
	mem := i.inst.Memory()
	if end := uint64(off) + n; end > uint64(len(mem)) {
		return fmt.Errorf("host: %s memory [%#x, +%d): %w (%d bytes)", op, off, n, ErrMemoryRange, len(mem))
	}
	f(mem[off : uint64(off)+n : uint64(off)+n])
	return nil
}

// StatusError reports a bytes call whose export returned a nonzero status.
// The instance stays usable.
type StatusError struct {
	Export string
	Status int32
	// Reason is what the guest said about why it failed, with the
	// aclwasm.error_set import during the call ("" if it said nothing).
	Reason string
	// Msg is the session's most recent error message, if the guest's last
	// failed host call left one.
	Msg string
}

// Error implements error: the guest's reason, or else the last error of
// a host call, which may be why it failed.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s returned %d", e.Export, e.Status)
	switch {
	case e.Reason != "":
		s += ": " + e.Reason
	case e.Msg != "":
		s += " (last error: " + e.Msg + ")"
	}
	return s
}

// ErrOutputLimit: the guest of a bytes call given MaxOutput tried to write
// more output than it allows (or than the policy's memory limit, if that
// is lower). The write failed with 207012
// (ACL_ERROR_RT_OVER_LIMIT) as it was made, so the host never held more
// than the limit; CallBytes reports it once the export returns, whatever
// status the export returned, since its output is incomplete.
var ErrOutputLimit = errors.New("output limit exceeded")

// BytesOption configures one CallBytes call.
type BytesOption func(*bytesOptions)

// MaxOutput bounds the output of a CallBytes call to n bytes, or to the
// policy's memory limit where that is lower (it bounds the output without
// this option too). A server answering many calls at once sets it to what
// one answer may hold: an output_write that would go beyond the bound
// fails with 207012 and copies nothing, and CallBytes returns the output
// written until then with an error wrapping ErrOutputLimit, so that a
// truncated output is never taken for a whole one. n <= 0 is no option.
func MaxOutput(n int64) BytesOption {
	return func(c *bytesOptions) {
		if n <= 0 {
			return
		}
		c.report = true
		if uint64(n) < c.limit {
			c.limit, c.capped = uint64(n), true
		}
	}
}

// bytesOptions are a CallBytes call's options.
type bytesOptions struct {
	limit  uint64 // the most output bytes the host holds
	capped bool   // limit is the call's MaxOutput, not the memory limit
	report bool   // MaxOutput was given: a refused write is ErrOutputLimit
}

// CallBytes calls export name with in as its input and returns what it
// wrote as its output: the convention of module "aclwasm"
// (docs/EMBEDDING.md). The export takes no parameters and returns nothing
// or an i32 status; a nonzero status gives a *StatusError, along with the
// output written so far. The guest reads in with input_len and input_read
// and appends to the output with output_write, so neither side computes
// offsets in the other's memory. Timeouts, traps and cancellation end the
// instance as for Call. The output is bounded by the policy's memory
// limit, or by the smaller MaxOutput option. The output is a new slice:
// CallBytesTo writes it into the caller's.
func (i *Instance) CallBytes(ctx context.Context, name string, in []byte, opts ...BytesOption) ([]byte, error) {
	return i.CallBytesTo(ctx, name, in, nil, opts...)
}

// CallBytesTo is CallBytes appending the output to out, as append does:
// it returns out extended by the output (with the output written so far
// when it returns an error), in out's own array when its capacity holds
// the output, so that a caller reusing one buffer (out[:0]) makes no
// slice per call. MaxOutput and the policy's limit bound the output
// alone, not what out held before.
func (i *Instance) CallBytesTo(ctx context.Context, name string, in, out []byte, opts ...BytesOption) ([]byte, error) {
	if len(in) > math.MaxInt32 {
		return out, fmt.Errorf("host: call %s: input of %d bytes: the convention carries at most %d", name, len(in), math.MaxInt32)
	}
	// The lock before the session's io: a call overlapping another must
	// not swap the input and output of the one running.
	if err := i.tryLock(); err != nil {
		return out, fmt.Errorf("host: call %s: %w", name, err)
	}
	defer i.callMu.Unlock()
	bo := bytesOptions{limit: engine.MemoryBytes(i.p.policy.MemoryPages)}
	for _, o := range opts {
		o(&bo)
	}
	if i.io == nil {
		i.io = new(sandbox.IO)
	}
	io := i.io // the instance's own, under callMu: no allocation per call
	*io = sandbox.IO{In: in, Out: out, Base: len(out), Limit: bo.limit, Capped: bo.capped, Report: bo.report}
	i.s.s.SetIO(io)
	defer func() {
		i.s.s.SetIO(nil)
		*io = sandbox.IO{} // keeps neither buffer
	}()
	res, err := i.call(ctx, name)
	var ae *AsyncError
	if err != nil && !errors.As(err, &ae) {
		return out, err
	}
	if len(res) > 1 {
		return out, fmt.Errorf("host: call %s: a bytes export returns nothing or one i32 status, this one returns %d values", name, len(res))
	}
	var status error
	if len(res) == 1 && int32(uint32(res[0])) != 0 {
		status = &StatusError{Export: name, Status: int32(uint32(res[0])), Reason: i.s.s.GuestMessage(), Msg: i.s.s.LastError()}
	}
	if io.Refused {
		return io.Out, errors.Join(fmt.Errorf("host: call %s: %w: the guest wrote more than %d bytes", name, ErrOutputLimit, io.Limit), status, err)
	}
	if err != nil { // the checking mode's findings, with the status
		return io.Out, errors.Join(status, err)
	}
	return io.Out, status
}
