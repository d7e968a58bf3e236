//go:build !unix

package wazero

// reserve allocates n bytes on the Go heap: stable too, since Go does not
// move heap objects, and kept alive by the views that stream workers hold.
func reserve(n uint64) ([]byte, error) { return make([]byte, n), nil }

func unreserve([]byte) {}
