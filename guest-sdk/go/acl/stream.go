package acl

import (
	"unsafe"

	"github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"
)

// CreateStream creates a stream on the current device (aclrtCreateStream).
func CreateStream() (Stream, error) {
	var s Stream
	err := check("aclrtCreateStream", raw.CreateStream(unsafe.Pointer(&s)))
	return s, err
}

// Destroy destroys the stream after its queued work (aclrtDestroyStream).
func (s Stream) Destroy() error { return check("aclrtDestroyStream", raw.DestroyStream(uint32(s))) }

// Synchronize waits for the stream's queued work and returns the first error
// it met (aclrtSynchronizeStream).
func (s Stream) Synchronize() error {
	return check("aclrtSynchronizeStream", raw.SynchronizeStream(uint32(s)))
}

// SynchronizeWithTimeout is Synchronize with a timeout in milliseconds (-1:
// forever); ErrRTStreamSyncTimeout when it expires.
func (s Stream) SynchronizeWithTimeout(timeoutMs int32) error {
	return check("aclrtSynchronizeStreamWithTimeout", raw.SynchronizeStreamWithTimeout(uint32(s), timeoutMs))
}

// Query reports whether the stream's queued work is done (aclrtStreamQuery).
func (s Stream) Query() (StreamStatus, error) {
	var st StreamStatus
	err := check("aclrtStreamQuery", raw.StreamQuery(uint32(s), unsafe.Pointer(&st)))
	return st, err
}

// StreamFailureMode is what a stream does after one of its operations
// fails (Stream.SetFailureMode).
type StreamFailureMode uint64

// The native modes.
const (
	// ContinueOnFailure (ACL_CONTINUE_ON_FAILURE, the default): later
	// operations run.
	ContinueOnFailure StreamFailureMode = 0
	// StopOnFailure (ACL_STOP_ON_FAILURE): later operations fail without
	// effect until the stream is synchronized.
	StopOnFailure StreamFailureMode = 1
)

// SetFailureMode sets what the stream does after one of its operations
// fails (aclrtSetStreamFailureMode). With StopOnFailure its later
// operations fail without effect until Synchronize, which reports the
// error. A stream cannot go back to ContinueOnFailure.
func (s Stream) SetFailureMode(m StreamFailureMode) error {
	return check("aclrtSetStreamFailureMode", raw.SetStreamFailureMode(uint32(s), uint64(m)))
}

// DestroyForce cancels the stream's queued work that has not started, then
// destroys it (aclrtDestroyStreamForce).
func (s Stream) DestroyForce() error {
	return check("aclrtDestroyStreamForce", raw.DestroyStreamForce(uint32(s)))
}

// WaitEvent makes the stream wait for the event's most recent record
// (aclrtStreamWaitEvent).
func (s Stream) WaitEvent(e Event) error {
	return check("aclrtStreamWaitEvent", raw.StreamWaitEvent(uint32(s), uint32(e)))
}

// CreateEvent creates an event (aclrtCreateEvent).
func CreateEvent() (Event, error) {
	var e Event
	err := check("aclrtCreateEvent", raw.CreateEvent(unsafe.Pointer(&e)))
	return e, err
}

// Destroy destroys the event (aclrtDestroyEvent).
func (e Event) Destroy() error { return check("aclrtDestroyEvent", raw.DestroyEvent(uint32(e))) }

// Record queues a record of the event on s (aclrtRecordEvent); it completes,
// with a timestamp, when s reaches it.
func (e Event) Record(s Stream) error {
	return check("aclrtRecordEvent", raw.RecordEvent(uint32(e), uint32(s)))
}

// Reset queues on s a reset of the event (aclrtResetEvent): once s
// reaches it the event reads as never recorded, and later waits wait for
// its next record.
func (e Event) Reset(s Stream) error {
	return check("aclrtResetEvent", raw.ResetEvent(uint32(e), uint32(s)))
}

// Synchronize waits for the event's most recent record (aclrtSynchronizeEvent).
func (e Event) Synchronize() error {
	return check("aclrtSynchronizeEvent", raw.SynchronizeEvent(uint32(e)))
}

// Query reports whether the most recent record has completed (aclrtQueryEventStatus).
func (e Event) Query() (EventRecordedStatus, error) {
	var st EventRecordedStatus
	err := check("aclrtQueryEventStatus", raw.QueryEventStatus(uint32(e), unsafe.Pointer(&st)))
	return st, err
}

// ElapsedTime returns the milliseconds between two completed events
// (aclrtEventElapsedTime).
func ElapsedTime(start, end Event) (float32, error) {
	var ms float32
	err := check("aclrtEventElapsedTime", raw.EventElapsedTime(unsafe.Pointer(&ms), uint32(start), uint32(end)))
	return ms, err
}
