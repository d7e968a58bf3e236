package host

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/ianlancetaylor/demangle"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/host/internal/engine"
	"github.com/aclwasm/aclwasm/host/internal/module"
	"github.com/aclwasm/aclwasm/host/internal/sandbox"
)

// launcherModule is the module of a launcher a guest leaves undefined:
// wasm-ld's --allow-undefined imports every undefined symbol from it.
const launcherModule = "env"

// launchers is how Load binds a module's launcher imports (ABI section
// 13.3): each import of launcherModule to a granted kernel of its name
// whose parameters match, renamed to that kernel's launcher in
// sandbox.KernelModule, or a problem refusing the module.
type launchers struct {
	rename map[[2]string]string // "env", the guest's name -> the launcher's name in KernelModule
	orig   map[string]string    // the launcher's name -> the guest's, for ImportStatus
	failed map[[2]string]string // "env", the guest's name -> why it binds to no kernel
}

// bindLaunchers binds the launcher imports of wasm, a module of profile
// prof, to the kernels granted.
func (r *Runtime) bindLaunchers(wasm []byte, prof abi.Profile, granted map[string]*kernel) launchers {
	kl := launchers{rename: map[[2]string]string{}, orig: map[string]string{}, failed: map[[2]string]string{}}
	if len(r.kernels) == 0 {
		return kl // no kernels: an import of "env" is one of the embedder's host functions, or of nothing
	}
	imps, ok := module.FuncImports(wasm)
	if !ok {
		return kl // the engine's validation says why
	}
	for _, im := range imps {
		if im.Module != launcherModule || r.lookupHost(im.Module, im.Name) != nil {
			continue
		}
		shown := module.ShortName(im.Name)
		name, cargs, err := launcherName(im.Name)
		if err != nil {
			kl.failed[[2]string{im.Module, im.Name}] = fmt.Sprintf("import %s.%s: %v", launcherModule, shown, err)
			continue
		}
		name = kernelOf(name, granted)
		k := granted[name]
		if k == nil {
			kl.failed[[2]string{im.Module, im.Name}] = r.missingKernel(shown, name, granted)
			continue
		}
		status := len(im.Results) == 1 && im.Results[0] == byte(engine.I32)
		want := sandbox.LauncherType(k.sb, prof, status)
		got := engine.FuncType{}
		for _, b := range im.Params {
			got.Params = append(got.Params, engine.ValType(b))
		}
		for _, b := range im.Results {
			got.Results = append(got.Results, engine.ValType(b))
		}
		if (len(im.Results) > 0 && !status) || got.Signature() != want.Signature() {
			kl.failed[[2]string{im.Module, im.Name}] = fmt.Sprintf("import %s.%s has wasm type %s, but kernel %s is launched as %s (%s) in profile %s, returning nothing or an aclError", launcherModule, shown, wasmSig(got), name, wasmSig(want), k.cDecl(prof), prof.Module())
			continue
		}
		if cargs != nil {
			if msg := k.matchCpp(cargs, prof); msg != "" {
				kl.failed[[2]string{im.Module, im.Name}] = fmt.Sprintf("import %s.%s (%s(%s)) does not match kernel %s: %s", launcherModule, shown, name, strings.Join(cargs, ", "), k.cDecl(prof), msg)
				continue
			}
		}
		to := sandbox.KernelFuncName(name, prof, status)
		kl.rename[[2]string{im.Module, im.Name}] = to
		kl.orig[to] = shown
	}
	return kl
}

// kernelOf returns the kernel a launcher's name launches: the kernel of
// that name, else of that name less the prefix of the launchers Ascend C's
// build generates (aclrtlaunch_add_custom, what ACLRT_LAUNCH_KERNEL calls)
// or the suffix of the quickstarts' own (add_custom_do). name itself when
// none is granted.
func kernelOf(name string, granted map[string]*kernel) string {
	if granted[name] != nil {
		return name
	}
	if k, ok := strings.CutPrefix(name, "aclrtlaunch_"); ok && granted[k] != nil {
		return k
	}
	if k, ok := strings.CutSuffix(name, "_do"); ok && granted[k] != nil {
		return k
	}
	return name
}

// missingKernel is the problem of a launcher with no granted kernel.
func (r *Runtime) missingKernel(shown, name string, granted map[string]*kernel) string {
	g := make([]string, 0, len(granted))
	for n := range granted {
		g = append(g, n)
	}
	sort.Strings(g)
	list := "none"
	if len(g) > 0 {
		list = strings.Join(g, ", ")
	}
	why := "the runtime registers no kernel of that name"
	if _, ok := r.kernels[name]; ok {
		why = "it is not granted to the plugin (Policy.Kernels, --kernels)"
	}
	return fmt.Sprintf("import %s.%s is undefined: no kernel %s for its launcher: %s (granted: %s)", launcherModule, shown, name, why, list)
}

// launcherName returns the kernel name of a launcher's symbol and, for a
// C++ name, its parameter types as demangled ("unsigned int", "void*").
func launcherName(sym string) (string, []string, error) {
	if !strings.HasPrefix(sym, "_Z") {
		if !cIdent(sym) {
			return "", nil, fmt.Errorf("is neither a C identifier nor a C++ mangled name: no kernel launcher")
		}
		return sym, nil, nil
	}
	a, err := demangle.ToAST(sym)
	if err != nil {
		return "", nil, fmt.Errorf("cannot be demangled: %v", err)
	}
	t, ok := a.(*demangle.Typed)
	var ft *demangle.FunctionType
	if ok {
		ft, ok = t.Type.(*demangle.FunctionType)
	}
	if !ok {
		return "", nil, fmt.Errorf("is %s, not a function: no kernel launcher", demangle.ASTToString(a))
	}
	name := demangle.ASTToString(t.Name)
	if !cIdent(name) {
		return "", nil, fmt.Errorf("names %s: a launcher is a function at namespace scope, named as its kernel", name)
	}
	var args []string
	for _, x := range ft.Args {
		args = append(args, demangle.ASTToString(x))
	}
	if len(args) == 1 && args[0] == "void" {
		args = nil
	}
	return name, append(make([]string, 0, len(args)), args...), nil
}

// cTypes are the C spellings (as demangled, on wasm32) of each data type.
var cTypes = map[acl.DataType][]string{
	acl.DTInt8: {"signed char", "char"}, acl.DTUint8: {"unsigned char", "char"},
	acl.DTInt16: {"short"}, acl.DTUint16: {"unsigned short"},
	acl.DTInt32: {"int", "long"}, acl.DTUint32: {"unsigned int", "unsigned long"},
	acl.DTInt64: {"long long"}, acl.DTUint64: {"unsigned long long"},
	acl.DTFloat: {"float"}, acl.DTDouble: {"double"}, acl.DTBool: {"bool"},
	acl.DTFloat16: {"unsigned short", "_Float16", "aclFloat16"}, acl.DTBFloat16: {"unsigned short"},
}

// cName is the C type a kernel declares for t in messages.
func cName(t acl.DataType) string {
	switch t {
	case acl.DTInt8:
		return "int8_t"
	case acl.DTUint8:
		return "uint8_t"
	case acl.DTInt16:
		return "int16_t"
	case acl.DTUint16:
		return "uint16_t"
	case acl.DTInt32:
		return "int32_t"
	case acl.DTUint32:
		return "uint32_t"
	case acl.DTInt64:
		return "int64_t"
	case acl.DTUint64:
		return "uint64_t"
	case acl.DTFloat:
		return "float"
	case acl.DTDouble:
		return "double"
	case acl.DTBool:
		return "bool"
	case acl.DTFloat16:
		return "aclFloat16"
	}
	return "void"
}

// cDecl writes k's launcher as C declares it in profile prof.
func (k *kernel) cDecl(prof abi.Profile) string {
	ps := []string{"uint32_t blockDim", "void* stream"}
	for _, p := range k.decl.Params {
		switch {
		case p.Access != 0 && prof == abi.Native32:
			ps = append(ps, cName(p.Type)+"* "+p.Name)
		case p.Access != 0:
			ps = append(ps, "aclrtPtr "+p.Name)
		default:
			ps = append(ps, cName(p.Type)+" "+p.Name)
		}
	}
	return k.decl.Name + "(" + strings.Join(ps, ", ") + ")"
}

// matchCpp checks a C++ launcher's demangled parameter types against k's
// declaration; "" when they match, else why not.
func (k *kernel) matchCpp(args []string, prof abi.Profile) string {
	if len(args) != 2+len(k.decl.Params) {
		return fmt.Sprintf("%d parameters, the kernel's launcher has %d", len(args), 2+len(k.decl.Params))
	}
	norm := func(s string) string {
		s = strings.ReplaceAll(s, " const", "")
		s = strings.TrimPrefix(s, "const ")
		return strings.TrimSpace(s)
	}
	if a := norm(args[0]); !slices.Contains(cTypes[acl.DTUint32], a) && a != "int" {
		return fmt.Sprintf("parameter 1 (blockDim) is %s, want uint32_t", args[0])
	}
	if a := norm(args[1]); a != "void*" {
		return fmt.Sprintf("parameter 2 (the stream) is %s, want void* (aclrtStream)", args[1])
	}
	for i, p := range k.decl.Params {
		a := norm(args[2+i])
		switch {
		case p.Access != 0 && prof == abi.Native32:
			elem, ok := strings.CutSuffix(a, "*")
			elem = strings.TrimSpace(elem)
			// void* and uint8_t* (GM_ADDR) name any buffer.
			if !ok || !(elem == "void" || elem == "unsigned char" || slices.Contains(cTypes[p.Type], elem)) {
				return fmt.Sprintf("parameter %d (%s) is %s, want %s* or void*", 3+i, p.Name, args[2+i], cName(p.Type))
			}
		case p.Access != 0:
			if !slices.Contains(cTypes[acl.DTUint64], a) {
				return fmt.Sprintf("parameter %d (%s) is %s, want aclrtPtr (uint64_t) in the wide profile", 3+i, p.Name, args[2+i])
			}
		default:
			if !slices.Contains(cTypes[p.Type], a) {
				return fmt.Sprintf("parameter %d (%s) is %s, want %s", 3+i, p.Name, args[2+i], cName(p.Type))
			}
		}
	}
	return ""
}

// wasmSig writes t as FuncType.Signature does, "()" for no results.
func wasmSig(t engine.FuncType) string {
	if len(t.Results) == 0 {
		return t.Signature() + "()"
	}
	return t.Signature()
}

// moduleProfile is profileOf for a module not yet compiled: acl32 if it
// imports from "acl32".
func moduleProfile(mi module.Info) abi.Profile {
	for _, im := range mi.Imports {
		if im.Module == abi.Module32 {
			return abi.Native32
		}
	}
	return abi.Wide
}

// apply returns wasm with the bound launcher imports renamed to their
// kernels' launchers.
func (kl *launchers) apply(wasm []byte) []byte {
	if len(kl.rename) == 0 {
		return wasm
	}
	return module.RenameImports(wasm, func(mod, name string) (string, string, bool) {
		to, ok := kl.rename[[2]string{mod, name}]
		return sandbox.KernelModule, to, ok
	})
}
