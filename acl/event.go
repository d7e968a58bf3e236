package acl

// EventRecordedStatus is aclrtEventRecordedStatus.
type EventRecordedStatus uint32

// The native aclrtEventRecordedStatus values.
const (
	EventRecordedStatusNotReady EventRecordedStatus = 0
	EventRecordedStatusComplete EventRecordedStatus = 1
)

// EventWaitStatus is aclrtEventWaitStatus, what aclrtQueryEventWaitStatus
// reports of the waits queued on an event (ABI v1.2 section 12).
type EventWaitStatus uint32

// The native aclrtEventWaitStatus values (acl_rt.h).
const (
	EventWaitStatusComplete EventWaitStatus = 0
	EventWaitStatusNotReady EventWaitStatus = 1
	EventWaitStatusReserved EventWaitStatus = 0xFFFF
)

// The flags of aclrtCreateEventExWithFlag that the runtime checks
// (acl_rt.h ACL_EVENT_*, passed on unchanged as the runtime's RT_EVENT_*).
const (
	eventExKnown  uint32 = 0x0F // RT_EVENT_DDSYNC_NS | STREAM_MARK | DDSYNC | TIME_LINE: any nonzero OR of them
	eventExDevUse uint32 = 0x10 // ACL_EVENT_DEVICE_USE_ONLY (RT_EVENT_MC2): only alone, and then refused
	eventExExtern uint32 = 0x20 // ACL_EVENT_EXTERNAL: only alone, and then refused
	eventExIPC    uint32 = 0x40 // ACL_EVENT_IPC: only alone
)

// CheckEventExFlag is the runtime's check of aclrtCreateEventExWithFlag's
// flag (api_error.cc EventCreateEx), in its order: a flag that must stand
// alone combined with another gives 107000; ACL_EVENT_IPC alone gives
// 207000 (IPC is out of the sandbox's scope, as natively on a chip without
// IPC events); then a flag without any of the four known bits, or above
// them, gives 107000.
func CheckEventExFlag(flag uint32) error {
	for _, solo := range [...]uint32{eventExDevUse, eventExExtern, eventExIPC} {
		if flag&solo != 0 && flag&^solo != 0 {
			return Errorf(ErrRTParamInvalid, "flag %#x is invalid: %#x cannot be combined with other flags", flag, solo)
		}
	}
	if flag == eventExIPC {
		return Errorf(ErrRTFeatureNotSupport, "flag ACL_EVENT_IPC (0x40): IPC events are not supported in the sandbox")
	}
	if flag&eventExKnown == 0 || flag > eventExKnown|eventExIPC {
		return Errorf(ErrRTParamInvalid, "flag %#x is invalid: use a nonzero OR of 0x1, 0x2, 0x4 and 0x8 (ACL_EVENT_SYNC, ACL_EVENT_CAPTURE_STREAM_PROGRESS, 0x4, ACL_EVENT_TIME_LINE)", flag)
	}
	return nil
}

// eventExWaitTask are the flags of aclrtCreateEventExWithFlag that give
// an event a wait task: ACL_EVENT_SYNC (RT_EVENT_DDSYNC_NS) and 0x4
// (RT_EVENT_DDSYNC). External and IPC events have one too, but the
// sandbox creates neither.
const eventExWaitTask uint32 = 0x1 | 0x4

// EventExWaits reports whether an event of aclrtCreateEventExWithFlag
// with flag has a wait task (event.hpp:133-136). One without, such as
// ACL_EVENT_TIME_LINE or ACL_EVENT_CAPTURE_STREAM_PROGRESS alone, only
// marks time or progress: the runtime refuses to wait for it or reset it
// with 207000 (api_error.cc:1414-1416, 1760-1762).
func EventExWaits(flag uint32) bool { return flag&eventExWaitTask != 0 }
