//go:build !unix

package ociplugin

// openNonblock is 0 where there are no FIFOs to wait on.
const openNonblock = 0
