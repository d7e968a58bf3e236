package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
	"github.com/aclwasm/aclwasm/internal/testsupport/kerneltest"
)

// The tests of how launchers bind to registered kernels at a plugin's
// load (kernelbind.go), on the test kernels that package sandbox's tests
// of launches share (kerneltest): package host's own tests cannot import
// that package, which imports host, so these are external tests.

func TestKernelLoadBinding(t *testing.T) {
	ctx := context.Background()
	rt := kerneltest.Runtime(t)
	load := func(prof abi.Profile, p host.Policy, ls ...kerneltest.Launcher) error {
		pl, err := rt.Load(ctx, testsupport.WAT(t, kerneltest.GuestWAT(prof, ls...)), p)
		if err == nil {
			require.NoError(t, pl.Close(ctx))
		}
		return err
	}
	for _, c := range []struct {
		name string
		prof abi.Profile
		p    host.Policy
		l    kerneltest.Launcher
		want string // "" binds
	}{
		{"c", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i32"}, ""},
		{"c wide", abi.Wide, kerneltest.Granted, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i64"}, ""},
		{"status", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i32", Status: true}, ""},
		{"c++", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z3IncjPvPj", Params: "i32 i32 i32"}, ""},
		{"c++ void*", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z3IncjPvS_", Params: "i32 i32 i32"}, ""},
		{"c++ scalars", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z4FilljPvPhjh", Params: "i32 i32 i32 i32 i32"}, ""},
		{"aclrtlaunch", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "aclrtlaunch_Inc", Params: "i32 i32 i32", Status: true}, ""},
		{"_do", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z6Inc_dojPvPh", Params: "i32 i32 i32"}, ""},
		{"missing", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "Nope", Params: "i32 i32"},
			"import env.Nope is undefined: no kernel Nope for its launcher: the runtime registers no kernel of that name (granted: Copy, Fault, Fill, Inc, Panic, Print, Slow, Spin)"},
		{"ungranted", abi.Native32, host.Policy{Kernels: []string{"Fill"}}, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i32"},
			"no kernel Inc for its launcher: it is not granted to the plugin (Policy.Kernels, --kernels) (granted: Fill)"},
		{"none granted", abi.Native32, host.Policy{}, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i32"}, "(granted: none)"},
		{"wasm type", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32"},
			"import env.Inc has wasm type (i32, i32) -> (), but kernel Inc is launched as (i32, i32, i32) -> () (Inc(uint32_t blockDim, void* stream, uint32_t* x)) in profile acl32"},
		{"wide pointer in acl32", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i64"}, "has wasm type (i32, i32, i64)"},
		{"result", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "Inc", Params: "i32 i32 i32", Status: false}, ""},
		{"c++ element type", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z3IncjPvPf", Params: "i32 i32 i32"},
			"import env._Z3IncjPvPf (Inc(unsigned int, void*, float*)) does not match kernel Inc(uint32_t blockDim, void* stream, uint32_t* x): parameter 3 (x) is float*, want uint32_t* or void*"},
		{"c++ stream", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z3IncjiPj", Params: "i32 i32 i32"}, "parameter 2 (the stream) is int, want void* (aclrtStream)"},
		{"c++ count", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z3IncjPvPjS0_", Params: "i32 i32 i32 i32"}, "has wasm type"},
		{"c++ scalar", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_Z4FilljPvPhjf", Params: "i32 i32 i32 i32 f32"}, "has wasm type"},
		{"c++ namespace", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "_ZN2ns3IncEjPvPj", Params: "i32 i32 i32"}, "names ns::Inc: a launcher is a function at namespace scope"},
		{"reserved", abi.Native32, kerneltest.Granted, kerneltest.Launcher{Sym: "x", Params: "i32"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "reserved" {
				wat := strings.Replace(testsupport.ProxyWAT(abi.Native32, 1, ""), "(module\n", "(module\n  (import \"aclwasm:kernel\" \"Inc/acl32/void\" (func (param i32 i32 i32)))\n", 1)
				_, err := rt.Load(ctx, testsupport.WAT(t, wat), kerneltest.Granted)
				require.ErrorContains(t, err, `import aclwasm:kernel.Inc/acl32/void is refused: module "aclwasm:kernel" is the host's own`)
				return
			}
			err := load(c.prof, c.p, c.l)
			if c.want == "" {
				require.NoError(t, err)
				return
			}
			var le *host.LoadError
			require.ErrorAs(t, err, &le)
			require.Contains(t, err.Error(), c.want)
		})
	}
	_, err := rt.Load(ctx, testsupport.WAT(t, kerneltest.GuestWAT(abi.Wide)), host.Policy{Kernels: []string{"Unknown"}})
	require.ErrorContains(t, err, `policy: Kernels: "Unknown" names no kernel or kernel set of the runtime (it has Copy, Fault, Fill, Inc, Panic, Print, Slow, Spin)`)
}

func TestKernelImportStatus(t *testing.T) {
	ctx := context.Background()
	rt, err := host.NewRuntime(ctx, host.WithEngine(testsupport.Engine()), host.WithKernels(kerneltest.Kernels()...))
	require.NoError(t, err)
	defer rt.Close(ctx)
	wasm := testsupport.WAT(t, kerneltest.GuestWAT(abi.Native32, kerneltest.Launcher{Sym: "_Z3IncjPvPj", Params: "i32 i32 i32"}, kerneltest.Launcher{Sym: "Nope", Params: "i32"}))
	sts, err := rt.Imports(ctx, wasm, kerneltest.Granted)
	require.NoError(t, err)
	got := map[string]host.ImportStatus{}
	for _, s := range sts {
		got[s.Module+"."+s.Name] = s
	}
	require.Equal(t, "kernel launcher", got["env._Z3IncjPvPj"].Status)
	require.Equal(t, "no matching kernel", got["env.Nope"].Status)
	require.Contains(t, got["env.Nope"].Problem, "no kernel Nope")
}
