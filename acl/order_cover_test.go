package acl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
)

// noCode names the functions of the ABI table that return a length, not
// an error code (natively a string or its length), so that no check of
// theirs gives a code to order.
var noCode = map[string]bool{"aclGetRecentErrMsg": true, "aclrtGetSocName": true}

// TestEveryFunctionOrdered: every function of the ABI table has its native
// check order in Order, except the operator library's (groups Tensor and
// Operator: docs/ABI.md section 13 gives their checks, from the library's
// source, not the runtime's) and those of noCode; and Order lists no
// function the table lacks. A new function without rows fails here.
func TestEveryFunctionOrdered(t *testing.T) {
	for _, f := range abi.Funcs {
		switch {
		case f.Group == abi.Tensor || f.Group == abi.Operator:
			continue
		case noCode[f.Name]:
			require.Nil(t, acl.OrderOf(f.Name), "%s has rows in acl.Order now: drop it from noCode", f.Name)
		default:
			require.NotNil(t, acl.OrderOf(f.Name), "%s has no check order: add its rows to acl.Order (acl/order.go), one per check with the native source's file:line", f.Name)
		}
	}
	for _, fo := range acl.Order {
		require.NotNil(t, abi.Lookup(fo.Func), "acl.Order has %s, which abi.Funcs lacks", fo.Func)
	}
	for name := range noCode {
		require.NotNil(t, abi.Lookup(name), "noCode names %s, which abi.Funcs lacks", name)
	}
}
