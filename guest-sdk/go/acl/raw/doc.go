// Package raw holds the imports of the aclwasm guest ABI v1 with their exact
// wire types, generated from the host's ABI table (abi/abi.go): addresses and
// sizes are uint64, handles and unsigned flags uint32, other i32 values
// int32, pointers into guest memory unsafe.Pointer. Each function is named
// as the native one without its "aclrt" or "acl" prefix and returns the
// native aclError code (GetRecentErrMsg returns the message length).
//
// The imports exist only for GOOS=wasip1. On other platforms the functions
// are declared all the same and return 200001 (ACL_ERROR_API_NOT_SUPPORT),
// GetRecentErrMsg giving NotWasip1. Use package acl (the parent directory)
// unless a program must pass what its types forbid.
package raw
