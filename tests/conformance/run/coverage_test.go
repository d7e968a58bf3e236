package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
)

// uncovered names the functions of the ABI table that the conformance
// programs do not call yet: the v1.1 and v1.2 additions before section
// 15 and the operator library's objects, which the sandbox's own tests
// (host/internal/sandbox) call, each of them. It only
// shrinks: a new function gets its cases in conformance.c (or models.c)
// and is never added here.
var uncovered = map[string]bool{}

func init() {
	for _, name := range strings.Fields(`
		aclrtMemsetD32 aclrtMemsetD32Async aclrtSetOpWaitTimeout aclrtSetOpExecuteTimeOut
		aclrtSetOpExecuteTimeOutV2 aclrtGetOpExecuteTimeout aclrtGetOpTimeOutInterval aclAppLog
		aclrtResetDeviceForce aclrtCreateContext aclrtDestroyContext aclrtSetCurrentContext
		aclrtGetCurrentContext aclrtGetRunMode aclrtCreateStreamWithConfig aclrtSetStreamFailureMode
		aclrtLaunchHostFunc aclrtSubscribeReport aclrtLaunchCallback aclrtProcessReport
		aclrtUnSubscribeReport aclrtGetErrorVerbose aclrtCtxGetCurrentDefaultStream
		aclrtGetStreamAvailableNum aclCreateTensor aclDestroyTensor aclCreateScalar aclDestroyScalar
		aclCreateIntArray aclDestroyIntArray aclCreateFloatArray aclDestroyFloatArray
		aclCreateBoolArray aclDestroyBoolArray aclCreateTensorList aclDestroyTensorList
		aclSetAclOpExecutorRepeatable aclDestroyAclOpExecutor`) {
		uncovered[name] = true
	}
}

// TestEveryFunctionConformance: every function of the ABI table outside
// the operator library's (section 13: one rule for every operator) is
// called by a conformance program, but those of uncovered; a new function
// without cases fails here.
func TestEveryFunctionConformance(t *testing.T) {
	var src strings.Builder
	for _, f := range []string{"conformance.c", "models.c", "files.c"} {
		b, err := os.ReadFile(filepath.Join("..", f))
		require.NoError(t, err)
		src.Write(b)
	}
	calls := src.String()
	for _, f := range abi.Funcs {
		if f.Group == abi.Operator {
			continue
		}
		called := strings.Contains(calls, f.Name+"(")
		if uncovered[f.Name] {
			require.False(t, called, "%s has conformance cases now: drop it from uncovered", f.Name)
			continue
		}
		require.True(t, called, "%s: no conformance case calls it: add its cases to tests/conformance/conformance.c (both profiles, both engines, both backends run them)", f.Name)
	}
	for name := range uncovered {
		require.NotNil(t, abi.Lookup(name), "uncovered names %s, which abi.Funcs lacks", name)
	}
}
