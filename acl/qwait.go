package acl

// EventWaitStatus is aclrtEventWaitStatus, what aclrtQueryEventWaitStatus
// reports of the waits queued on an event (ABI v1.2 section 12).
type EventWaitStatus uint32

// The native aclrtEventWaitStatus values (acl_rt.h).
const (
	EventWaitStatusComplete EventWaitStatus = 0
	EventWaitStatusNotReady EventWaitStatus = 1
	EventWaitStatusReserved EventWaitStatus = 0xFFFF
)
