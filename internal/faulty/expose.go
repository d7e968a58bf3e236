package faulty

import (
	"reflect"

	"github.com/aclwasm/aclwasm/acl"
)

// Roles names the fields of b's [acl.Traits] that are set (an optional
// role it plays, a promise it makes), in the struct's order: what Wrap
// preserves, for tests that check it.
func Roles(b acl.Backend) []string {
	var out []string
	v := reflect.ValueOf(b.Traits())
	for i := range v.NumField() {
		if !v.Field(i).IsZero() {
			out = append(out, v.Type().Field(i).Name)
		}
	}
	return out
}
