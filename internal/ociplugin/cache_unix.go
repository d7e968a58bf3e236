//go:build unix

package ociplugin

import "syscall"

// openNonblock opens a cache file without waiting for a writer, should a
// FIFO have taken its place.
const openNonblock = syscall.O_NONBLOCK
