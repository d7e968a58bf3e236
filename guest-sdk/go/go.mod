// The Go guest SDK is a module of its own, without dependencies, so that a
// plugin requires it by this path alone: not the host module and its
// engines, metrics and CLI libraries.
module github.com/aclwasm/aclwasm/guest-sdk/go

go 1.24
