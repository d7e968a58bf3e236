//go:build !(darwin || freebsd || linux || netbsd)

// Package cann is the acl.Backend that delegates to the real CANN runtime,
// libascendcl.so, loaded at run time without cgo (through purego's dlopen).
//
// It builds only where dlopen exists (linux, darwin, freebsd, netbsd): on
// this platform the package is empty, and callers that offer the native
// backend (aclwasm --backend cann) report it unavailable instead.
package cann
