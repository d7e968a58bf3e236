package acl

import (
	"strconv"
	"strings"
)

// StreamFlag is a flag of aclrtCreateStreamWithConfig (ACL_STREAM_*). The
// flags tune how the native runtime launches and schedules a stream's
// work; none changes what the work does.
type StreamFlag uint32

// The native ACL_STREAM_* values.
const (
	StreamFastLaunch    StreamFlag = 0x01
	StreamFastSync      StreamFlag = 0x02
	StreamPersistent    StreamFlag = 0x04
	StreamHuge          StreamFlag = 0x08
	StreamCPUSchedule   StreamFlag = 0x10
	StreamDeviceUseOnly StreamFlag = 0x20
	// streamFlagsKnown are the bits the ACL layer passes on; it drops any
	// other bit, so a stream created with only unknown bits is a plain
	// stream (stream.cpp, aclrtCreateStreamWithConfigImpl).
	streamFlagsKnown StreamFlag = 0x3F
)

var streamFlagNames = [...]string{
	"ACL_STREAM_FAST_LAUNCH", "ACL_STREAM_FAST_SYNC", "ACL_STREAM_PERSISTENT",
	"ACL_STREAM_HUGE", "ACL_STREAM_CPU_SCHEDULE", "ACL_STREAM_DEVICE_USE_ONLY",
}

// Known returns f without the bits the native ACL layer ignores.
func (f StreamFlag) Known() StreamFlag { return f & streamFlagsKnown }

// String returns the flags as the header names them, joined by "|": "0"
// for none, unknown bits in hex.
func (f StreamFlag) String() string {
	if f == 0 {
		return "0"
	}
	var parts []string
	for i, n := range streamFlagNames {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if rest := f &^ streamFlagsKnown; rest != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(uint64(rest), 16))
	}
	return strings.Join(parts, "|")
}

// CheckStreamFlags applies the runtime's check of the flags the ACL layer
// passes on (api_error.cc, CheckStreamFlags): ACL_STREAM_DEVICE_USE_ONLY
// cannot be combined with another flag (107000). Bits the ACL layer drops
// are not looked at.
func CheckStreamFlags(flags StreamFlag) error {
	if k := flags.Known(); k&StreamDeviceUseOnly != 0 && k != StreamDeviceUseOnly {
		return Errorf(ErrRTParamInvalid, "flag %s: ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags", k)
	}
	return nil
}

// FailureMode is the mode of aclrtSetStreamFailureMode: what a stream does
// with the work queued after an operation that failed.
type FailureMode uint64

// The native modes. Only bit 0 of the mode counts natively
// (api_impl.cc, StreamSetMode).
const (
	ContinueOnFailure FailureMode = 0 // ACL_CONTINUE_ON_FAILURE: later work runs
	StopOnFailure     FailureMode = 1 // ACL_STOP_ON_FAILURE: later work fails without effect until a synchronize
)

// String returns the native name.
func (m FailureMode) String() string {
	switch m {
	case ContinueOnFailure:
		return "ACL_CONTINUE_ON_FAILURE"
	case StopOnFailure:
		return "ACL_STOP_ON_FAILURE"
	}
	return "aclrtStreamFailureMode(" + strconv.FormatUint(uint64(m), 10) + ")"
}

// FailureModeOf returns the mode the runtime applies for the guest's
// value: its bit 0.
func FailureModeOf(mode uint64) FailureMode { return FailureMode(mode & 1) }

// CheckFailureModeChange refuses, as the runtime does, to take a stream
// from ACL_STOP_ON_FAILURE back to ACL_CONTINUE_ON_FAILURE (207000).
func CheckFailureModeChange(cur, next FailureMode) error {
	if cur == StopOnFailure && next == ContinueOnFailure {
		return Errorf(ErrRTFeatureNotSupport, "the stream is in ACL_STOP_ON_FAILURE mode, which cannot be changed back to ACL_CONTINUE_ON_FAILURE")
	}
	return nil
}

// StreamStatus is aclrtStreamStatus.
type StreamStatus uint32

// The native aclrtStreamStatus values.
const (
	StreamStatusComplete StreamStatus = 0
	StreamStatusNotReady StreamStatus = 1
	StreamStatusReserved StreamStatus = 0xFFFF
)

// StreamResLimiter is the optional role ([Traits.StreamResLimiter]) of a
// backend whose streams carry core limits of their own
// (aclrtSetStreamResLimit, aclrtResetStreamResLimit): a session's stream
// is its own, so a limit set on it binds nobody else, unlike a device's. The sandbox keeps the
// session's view of the limits itself and passes them down where the
// backend implements this and Supports the native function, so work the
// native runtime runs on the stream obeys them too. The caller has applied
// the native checks (the type, the value at most the device's cores).
type StreamResLimiter interface {
	SetStreamResLimit(s Stream, t DevResLimitType, value uint32) error
	ResetStreamResLimit(s Stream) error
}

// The priorities the runtime keeps (base_info.hpp: RT_STREAM_GREATEST_PRIORITY
// 0, RT_STREAM_LEAST_PRIORITY 7).
const (
	StreamPriorityGreatest = 0
	StreamPriorityLeast    = 7
)

// StreamPriority returns the priority the runtime keeps for a stream
// created with priority p: p as an int32, clamped to [0, 7] (api_error.cc,
// StreamCreate), never refused. aclrtStreamGetPriority reports it.
func StreamPriority(p uint32) uint32 {
	return uint32(min(max(int32(p), StreamPriorityGreatest), StreamPriorityLeast))
}

// StreamConfigSize returns the size of aclrtStreamConfigHandle {void
// *workptr; size_t workSize; size_t flag; uint32_t priority} with pointers
// and sizes of ptr bytes (8: 32 bytes, 4: 16), and StreamConfigOf reads
// one in that layout.
func StreamConfigSize(ptr int) int { return 3*ptr + 4 + (ptr-4)&4 }

// StreamConfig is aclrtStreamConfigHandle, as aclrtCreateStreamV2 reads it.
type StreamConfig struct {
	WorkPtr, WorkSize, Flag uint64
	Priority                uint32
}

// StreamConfigOf decodes b, StreamConfigSize(ptr) bytes, little-endian.
func StreamConfigOf(b []byte, ptr int) StreamConfig {
	word := func(i int) uint64 {
		if ptr == 8 {
			return le.Uint64(b[8*i:])
		}
		return uint64(le.Uint32(b[4*i:]))
	}
	return StreamConfig{WorkPtr: word(0), WorkSize: word(1), Flag: word(2), Priority: le.Uint32(b[3*ptr:])}
}
