package module

import "fmt"

// Limits are the compile limits a module is checked against before any
// engine compiles it, because neither engine can stop a compilation in
// progress and some modules take minutes (a function of 100,000 nested
// blocks, a br_table of a million targets). The fields are the host
// policy's of the same names, whose names the problems of [CompileLimits]
// give.
type Limits struct {
	MaxModuleBytes       uint64 // the module's size
	MaxFunctions         int    // function bodies
	MaxFunctionBodyBytes uint64 // one body's size
	MaxLocals            int    // locals declared by one function
	MaxBlockDepth        int    // nesting of blocks in one function
	MaxBrTableTargets    int    // targets of one br_table, its default included
}

// CompileLimits returns the problems of a module of size bytes whose code
// has the sizes c under the limits l, one per limit exceeded.
func CompileLimits(size int, c CodeStats, l Limits) []string {
	var probs []string
	over := func(what string, v uint64, limit uint64, name string) {
		if v > limit {
			probs = append(probs, fmt.Sprintf("%s: %d, more than the limit %d (%s)", what, v, limit, name))
		}
	}
	over("module size in bytes", uint64(size), l.MaxModuleBytes, "MaxModuleBytes")
	over("function bodies", uint64(c.Funcs), uint64(l.MaxFunctions), "MaxFunctions")
	over(fmt.Sprintf("function %d: body size in bytes", c.MaxBodyAt), uint64(c.MaxBody), l.MaxFunctionBodyBytes, "MaxFunctionBodyBytes")
	over(fmt.Sprintf("function %d: locals", c.MaxLocalsAt), c.MaxLocals, uint64(l.MaxLocals), "MaxLocals")
	over(fmt.Sprintf("function %d: nesting depth of blocks", c.MaxDepthAt), uint64(c.MaxDepth), uint64(l.MaxBlockDepth), "MaxBlockDepth")
	over(fmt.Sprintf("function %d: br_table targets", c.MaxTableAt), uint64(c.MaxTable), uint64(l.MaxBrTableTargets), "MaxBrTableTargets")
	return probs
}
