//go:build wasmtime && cgo

package wasmtime

import (
	"time"

	"github.com/bytecodealliance/wasmtime-go/v39"
)

// Clocks and sleeps on wasmtime. wasmtime's poll_oneoff sleeps in the
// engine's thread, where neither an epoch nor the call's context reaches it:
// a guest sleeping an hour would hold its timed-out call for an hour. So
// the adapter shadows poll_oneoff, sleeping on the guest's goroutine until
// the sleep ends or the call's context does, and clock_time_get, whose
// monotonic readings an absolute sleep is measured against. The clocks are
// the host's, as on wazero: the wall clock, and a monotonic clock counting
// from the engine's start.

// WASI clock ids, event types and errno values.
const (
	wasiClockRealtime  = 0
	wasiClockMonotonic = 1
	wasiEventClock     = 0
	wasiEventFdRead    = 1
	wasiEventFdWrite   = 2
	wasiEINVAL         = 28
)

// monoBase is the zero of the guests' monotonic clock.
var monoBase = time.Now()

// wasiNow reads clock id as WASI gives it: nanoseconds since the epoch for
// the wall clock, since monoBase for the monotonic one.
func wasiNow(id uint32) (uint64, bool) {
	switch id {
	case wasiClockRealtime:
		return uint64(time.Now().UnixNano()), true
	case wasiClockMonotonic:
		return uint64(time.Since(monoBase)), true
	}
	return 0, false
}

func (e *wasmtimeEngine) defineClocks(l *wasmtime.Linker) error {
	i32 := wasmtime.NewValType(wasmtime.KindI32)
	i64 := wasmtime.NewValType(wasmtime.KindI64)
	clockTy := wasmtime.NewFuncType([]*wasmtime.ValType{i32, i64, i32}, []*wasmtime.ValType{i32})
	if err := defineFunc(l, "wasi_snapshot_preview1", "clock_time_get", clockTy, envClockTimeGet); err != nil {
		return err
	}
	pollTy := wasmtime.NewFuncType([]*wasmtime.ValType{i32, i32, i32, i32}, []*wasmtime.ValType{i32})
	return defineFunc(l, "wasi_snapshot_preview1", "poll_oneoff", pollTy, envPollOneoff)
}

// clockTimeGet serves clock_time_get: clock id's time to out.
func clockTimeGet(mem []byte, id uint32, out uint64) int32 {
	now, ok := wasiNow(id)
	if !ok {
		return wasiEINVAL
	}
	if out+8 > uint64(len(mem)) {
		return wasiEFAULT
	}
	le.PutUint64(mem[out:], now)
	return 0
}

// pollOneoff serves poll_oneoff: subscriptions (48 bytes each) at in,
// events (32 bytes each) to out, their count to *nevents. The guest has no
// file but stdio, which never blocks here: fd subscriptions on 0, 1 and 2
// are ready at once (EBADF for any other fd), and then nothing sleeps;
// otherwise it sleeps until the earliest clock subscription, which is the
// one event.
func (w *wasmtimeInstance) pollOneoff(mem []byte, in, out, nsubs, nevents uint32) int32 {
	if nsubs == 0 {
		return wasiEINVAL
	}
	if uint64(in)+48*uint64(nsubs) > uint64(len(mem)) || uint64(out)+32*uint64(nsubs) > uint64(len(mem)) || uint64(nevents)+4 > uint64(len(mem)) {
		return wasiEFAULT
	}
	event := func(i uint32, sub []byte, errno uint16) {
		ev := mem[out+32*i : out+32*i+32]
		clear(ev)
		copy(ev[0:8], sub[0:8]) // userdata
		le.PutUint16(ev[8:], errno)
		ev[10] = sub[8] // type
	}
	var n uint32
	first, wait := -1, time.Duration(1<<63-1)
	for i := range nsubs {
		sub := mem[in+48*i : in+48*i+48]
		switch sub[8] {
		case wasiEventFdRead, wasiEventFdWrite:
			errno := uint16(0)
			if le.Uint32(sub[16:]) > 2 {
				errno = wasiEBADF
			}
			event(n, sub, errno)
			n++
		case wasiEventClock:
			id, timeout, abs := le.Uint32(sub[16:]), le.Uint64(sub[24:]), le.Uint16(sub[40:])&1 != 0
			now, ok := wasiNow(id)
			if !ok {
				return wasiEINVAL
			}
			d := time.Duration(min(timeout, 1<<63-1))
			if abs {
				d = time.Duration(int64(timeout - now))
				if timeout < now {
					d = 0
				}
			}
			if d < wait {
				first, wait = int(i), d
			}
		default:
			return wasiEINVAL
		}
	}
	if n == 0 { // only clocks: sleep until the first, or the call's end
		if w.ctx != nil {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-w.ctx.Done():
				t.Stop()
			}
		} else {
			time.Sleep(wait)
		}
		event(0, mem[in+48*uint32(first):], 0)
		n = 1
	}
	le.PutUint32(mem[nevents:], n)
	return 0
}
