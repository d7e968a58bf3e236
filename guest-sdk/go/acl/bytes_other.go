//go:build !wasip1

package acl

import "github.com/aclwasm/aclwasm/guest-sdk/go/acl/raw"

// Input returns a copy of the current bytes call's input. Outside a wasip1
// guest (this build) it fails: the host's imports exist only there.
func Input() ([]byte, error) { return nil, notWasip1("input_read") }

// Output appends b to the current bytes call's output. Outside a wasip1
// guest (this build) it fails: the host's imports exist only there.
func Output(b []byte) error { return notWasip1("output_write") }

// Config returns the value of configuration key key, and whether the key
// is set. Outside a wasip1 guest (this build) it fails: the host's imports
// exist only there.
func Config(key string) (string, bool, error) { return "", false, notWasip1("config_read") }

// Fail says why the running call fails. Outside a wasip1 guest (this
// build) it fails: the host's imports exist only there.
func Fail(msg string) error { return notWasip1("error_set") }

func notWasip1(fn string) error {
	return &Error{Func: fn, Code: ErrAPINotSupport, Message: raw.NotWasip1, FailIndex: -1}
}
