//go:build wasip1

package acl

import (
	"math"
	"unsafe"
)

// The bytes-in, bytes-out convention (docs/EMBEDDING.md): a host that calls
// an export with host.Instance.CallBytes lends it an input and collects
// its output through the imports of module "aclwasm". The export takes no
// parameters and returns an int32 status (0 for success). Config reads the
// plugin's configuration values (a manifest's config, host.Config.Vars).

//go:wasmimport aclwasm input_len
func inputLen() int32

//go:wasmimport aclwasm input_read
//go:noescape
func inputRead(buf unsafe.Pointer, n int32) int32

//go:wasmimport aclwasm output_write
//go:noescape
func outputWrite(buf unsafe.Pointer, n int32) int32

//go:wasmimport aclwasm config_read
//go:noescape
func configRead(key unsafe.Pointer, keyLen int32, buf unsafe.Pointer, bufLen int32) int32

//go:wasmimport aclwasm error_set
//go:noescape
func errorSet(msg unsafe.Pointer, n int32) int32

// Input returns a copy of the current bytes call's input (empty outside
// one).
func Input() ([]byte, error) {
	b := make([]byte, inputLen())
	if len(b) == 0 {
		return b, nil
	}
	return b, check("input_read", inputRead(unsafe.Pointer(&b[0]), int32(len(b))))
}

// Output appends b to the current bytes call's output. It fails outside a
// bytes call, and once the output would exceed the host's limit (the
// guest's memory limit).
func Output(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return check("output_write", outputWrite(unsafe.Pointer(&b[0]), int32(len(b))))
}

// Fail says why the running call fails: the host reports msg with the
// call's nonzero status or exit code (host.StatusError's Reason; aclwasm
// serve answers 502 plugin_failed with it). A later Fail replaces it and
// an empty msg clears it; each call of an export starts with none, and the
// host keeps its first 4096 bytes.
func Fail(msg string) error {
	if len(msg) > math.MaxInt32 {
		msg = msg[:math.MaxInt32]
	}
	return check("error_set", errorSet(unsafe.Pointer(unsafe.StringData(msg)), int32(len(msg))))
}

// maxConfigLen is the longest configuration value the host reports: a
// larger result of config_read is an error code.
const maxConfigLen = 64 << 10

// Config returns the value of configuration key key, and whether the key
// is set.
func Config(key string) (string, bool, error) {
	var small [256]byte
	n, err := configInto(key, small[:])
	switch {
	case err != nil || n < 0:
		return "", false, err
	case int(n) <= len(small):
		return string(small[:n]), true, nil
	}
	big := make([]byte, n)
	m, err := configInto(key, big)
	if err != nil {
		return "", false, err
	}
	if m != n {
		return "", false, &Error{Func: "config_read", Code: ErrInvalidParam, Message: "the value's length changed between two reads", FailIndex: -1}
	}
	return string(big), true, nil
}

// configInto reads at most len(buf) bytes of key's value into buf and
// returns the value's length, or -1 if the key is not set.
func configInto(key string, buf []byte) (int32, error) {
	if len(key) > math.MaxInt32 {
		return 0, &Error{Func: "config_read", Code: ErrInvalidParam, Message: "key longer than 2^31-1 bytes", FailIndex: -1}
	}
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	n := configRead(unsafe.Pointer(unsafe.StringData(key)), int32(len(key)), p, int32(min(len(buf), math.MaxInt32)))
	if n == -1 || (n >= 0 && n <= maxConfigLen) {
		return n, nil
	}
	return 0, check("config_read", n)
}
