package acl

import "sort"

// Codes returns every aclError value the native headers define (acl_base.h
// and rt_error_codes.h), in ascending order, Success first. Name returns each
// one's native name. The guest SDK generators emit their error constants
// from this list.
func Codes() []Error {
	cs := make([]Error, 0, len(names))
	for c := range names {
		cs = append(cs, c)
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i] < cs[j] })
	return cs
}
