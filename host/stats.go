package host

import (
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// Stats counts what a session did: calls, errors by code and bytes moved by
// direction, per function. Bytes count when they move: those of a queued
// copy when it has run, so that work cancelled before it ran (a timeout,
// a trap) is not counted.
type Stats struct {
	Funcs map[string]FuncStats
	// Bytes moved by direction ("H2D", "D2H", "D2D", "H2H") over all functions.
	Bytes map[string]uint64
	// Set is the bytes the memset functions set (device or guest
	// memory), which move nowhere, so Bytes leaves them out.
	Set uint64
}

// FuncStats is the part of Stats about one function.
type FuncStats struct {
	Calls  uint64
	Errors map[acl.Error]uint64
	Bytes  map[string]uint64 // by direction
	Set    uint64            // bytes set (Stats.Set)
}

// stats returns the statistics of a session's counts.
func stats(counts []sandbox.FuncCount) Stats {
	out := Stats{Funcs: map[string]FuncStats{}, Bytes: map[string]uint64{}}
	for _, c := range counts {
		fs := FuncStats{Calls: c.Calls, Errors: map[acl.Error]uint64{}, Bytes: map[string]uint64{}}
		for code, k := range c.Errors {
			fs.Errors[code] = k
		}
		for d, b := range c.Bytes {
			if d == sandbox.SetSlot {
				fs.Set = b
				out.Set += b
				continue
			}
			if b != 0 {
				name := acl.Direction(d).String()
				fs.Bytes[name] = b
				out.Bytes[name] += b
			}
		}
		out.Funcs[c.Name] = fs
	}
	return out
}
