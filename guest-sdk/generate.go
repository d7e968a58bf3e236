// Package guestsdk holds the guest SDKs of aclwasm: the libraries a wasm
// plugin uses to call the host's ACL imports, in C (c/), Rust (rust/), Go
// (go/acl) and AssemblyScript (assemblyscript/). Their binding layers are
// generated from the ABI table (package abi) and the native error codes and
// enums (package acl) by internal/gen:
//
//	go generate ./guest-sdk
//
// The tests of this package fail when a generated file is stale, and check
// the imports of the guests that scripts/build-guests.sh built against the
// ABI table.
package guestsdk

//go:generate go run ./internal/cmd/gensdk
