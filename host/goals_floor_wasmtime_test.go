//go:build wasmtime && cgo

package host

import (
	"testing"

	"github.com/bytecodealliance/wasmtime-go/v39"
	"github.com/stretchr/testify/require"
)

func init() { floorEngines["wasmtime"] = wasmtimeFloor }

// wasmtimeFloor is wazeroFloor on wasmtime: a bare wasmtime-go store whose
// aclrtMemcpy import (a linker function, as the adapter defines them)
// returns 0, with epoch interruption on as the adapter configures it.
func wasmtimeFloor(b *testing.B, wasm []byte) func(name string, args ...uint64) uint64 {
	cfg := wasmtime.NewConfig()
	cfg.SetEpochInterruption(true)
	eng := wasmtime.NewEngineWithConfig(cfg)
	linker := wasmtime.NewLinker(eng)
	i32, i64 := wasmtime.NewValType(wasmtime.KindI32), wasmtime.NewValType(wasmtime.KindI64)
	ty := wasmtime.NewFuncType([]*wasmtime.ValType{i64, i64, i64, i64, i32}, []*wasmtime.ValType{i32})
	require.NoError(b, linker.FuncNew("acl", "aclrtMemcpy", ty, func(*wasmtime.Caller, []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
		return []wasmtime.Val{wasmtime.ValI32(0)}, nil
	}))
	store := wasmtime.NewStore(eng)
	store.SetEpochDeadline(1 << 62)
	mod, err := wasmtime.NewModule(eng, wasm)
	require.NoError(b, err)
	inst, err := linker.Instantiate(store, mod)
	require.NoError(b, err)
	b.Cleanup(func() { store.Close(); linker.Close(); eng.Close() })
	return func(name string, args ...uint64) uint64 {
		vals := make([]any, len(args))
		for i, a := range args {
			vals[i] = int64(a)
			if i == len(args)-2 || i == len(args)-1 { // kind and iters: i32
				vals[i] = int32(a)
			}
		}
		res, err := inst.GetFunc(store, name).Call(store, vals...)
		if err != nil {
			b.Fatal(err)
		}
		return uint64(uint32(res.(int32)))
	}
}
