package host

import (
	"fmt"
	"slices"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// callbackLaunchers are the imports that queue a guest function on a
// stream (ABI section 12): a module importing one must export the SDK's
// dispatcher, through which the host runs the function on the guest's own
// thread.
var callbackLaunchers = []string{"aclrtLaunchHostFunc", "aclrtLaunchCallback"}

// checkDispatcher refuses a module that imports a callback launcher
// without exporting sandbox.DispatchExport, naming the SDK option that
// adds it: otherwise its first callback could only fail or never run.
func checkDispatcher(imps []engine.Import, wasm []byte) []string {
	var launcher string
	for _, im := range imps {
		if (im.Module == abi.Module || im.Module == abi.Module32) && slices.Contains(callbackLaunchers, im.Name) {
			launcher = module.ShortName(im.Module) + "." + im.Name
			break
		}
	}
	if launcher == "" || slices.Contains(module.FuncExports(wasm), sandbox.DispatchExport) {
		return nil
	}
	return []string{fmt.Sprintf("import %s needs the export %s (fn i32, userData i32) -> (), through which the host runs stream callbacks on the guest's thread: build the module with the SDK option %s", launcher, sandbox.DispatchExport, sandbox.DispatchOption)}
}
