package acl

// Notify is a backend notify handle (aclrtNotify, ABI v1.2 section 12). 0
// is invalid. A notify is a one-bit flag in stream order: a record sets
// it, a wait blocks its stream until it is set and then clears it.
type Notify uint64

// The native aclrtCreateNotify flags (acl_rt.h ACL_NOTIFY_*; the runtime's
// RT_NOTIFY_FLAG_DEFAULT and RT_NOTIFY_FLAG_DOWNLOAD_TO_DEV).
const (
	NotifyDefault       uint64 = 0x0
	NotifyDeviceUseOnly uint64 = 0x1
)

// DeviceOnlyNotify names, for [Runtime.Supports], notifies created with
// ACL_NOTIFY_DEVICE_USE_ONLY, which a node's driver may lack while it has
// the others.
const DeviceOnlyNotify = "aclrtCreateNotify(ACL_NOTIFY_DEVICE_USE_ONLY)"

// CheckNotifyFlag is the runtime's check of aclrtCreateNotify's flag
// (api_c_event.cc:122-125): anything but ACL_NOTIFY_DEFAULT and
// ACL_NOTIFY_DEVICE_USE_ONLY gives 107000.
func CheckNotifyFlag(flag uint64) error {
	if flag != NotifyDefault && flag != NotifyDeviceUseOnly {
		return Errorf(ErrRTParamInvalid, "flag %#x is invalid: use ACL_NOTIFY_DEFAULT (0) or ACL_NOTIFY_DEVICE_USE_ONLY (1)", flag)
	}
	return nil
}

// NotifyWaitForever is the timeout of aclrtWaitAndResetNotify that the
// native runtime takes for its plain wait, without a limit of the call's
// own (api_c_event.cc:151-152); the sandbox treats it as 0, no limit.
const NotifyWaitForever = ^uint32(0)
