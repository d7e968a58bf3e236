package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/host"
)

// asFP16 is an AssemblyScript reactor over the SDK's half-precision and
// data-type helpers: fill writes the same table as tests/native/fp16.c (see
// its comment) into a static buffer and returns its address; size returns
// dataTypeSize.
const asFP16 = `import { floatToFloat16, float16ToFloat, dataTypeSize } from "@aclwasm/sdk";

const EDGES: u32[] = [
  0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fbfffff,
  0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0x7f7fffff, 0xff7fffff,
  0x33000000, 0x33000001, 0x32ffffff, 0x00000001, 0x80000001, 0x00800000,
  0x33c00000, 0x38800000, 0x387fc000, 0x387fe000,
  0x3f800000, 0xbf800000, 0x3f801000, 0x3f803000, 0x3f800fff, 0x40490fdb, 0xc0490fdb, 0x3dcccccd,
];
const OUT = memory.data(65536 * 6 + 0x7bff * 12 + 64 * 2);

export function fill(): usize {
  let p = OUT;
  for (let h: u32 = 0; h < 65536; h++) {
    const f = float16ToFloat(<u16>h);
    store<u32>(p, reinterpret<u32>(f));
    store<u16>(p + 4, floatToFloat16(f));
    p += 6;
  }
  for (let h: u32 = 0; h < 0x7bff; h++) {
    const m = (float16ToFloat(<u16>h) + float16ToFloat(<u16>(h + 1))) / 2;
    const below = reinterpret<f32>(reinterpret<u32>(m) - 1);
    const above = reinterpret<f32>(reinterpret<u32>(m) + 1);
    store<u16>(p, floatToFloat16(m));
    store<u16>(p + 2, floatToFloat16(below));
    store<u16>(p + 4, floatToFloat16(above));
    store<u16>(p + 6, floatToFloat16(-m));
    store<u16>(p + 8, floatToFloat16(-below));
    store<u16>(p + 10, floatToFloat16(-above));
    p += 12;
  }
  for (let i = 0; i < EDGES.length; i++) {
    store<u16>(p, floatToFloat16(reinterpret<f32>(EDGES[i])));
    p += 2;
  }
  return OUT;
}

export function size(t: i32): i32 {
  return dataTypeSize(t);
}
`

// TestAssemblyScriptFP16 checks the AssemblyScript SDK's floatToFloat16,
// float16ToFloat and dataTypeSize against the same references as the C
// SDK's (checkFP16, nativeDataTypeSizes). The Go and Rust SDKs test theirs
// in their own unit tests.
func TestAssemblyScriptFP16(t *testing.T) {
	sdk, err := filepath.Abs(filepath.Join("..", "guest-sdk", "assemblyscript"))
	require.NoError(t, err)
	asc := filepath.Join(sdk, "node_modules", ".bin", "asc")
	if _, err := os.Stat(asc); err != nil {
		t.Fatalf("%v: run scripts/install-toolchains.sh (npm ci in guest-sdk/assemblyscript)", err)
	}
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "node_modules", "@aclwasm"), 0o755))
	require.NoError(t, os.Symlink(sdk, filepath.Join(dir, "node_modules", "@aclwasm", "sdk")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fp16.ts"), []byte(asFP16), 0o644))
	cmd := exec.Command(asc, "fp16.ts", "-O3", "--runtime", "stub", "--use", "abort=", "-o", "fp16.wasm")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "asc:\n%s", out)
	wasm, err := os.ReadFile(filepath.Join(dir, "fp16.wasm"))
	require.NoError(t, err)

	ctx := context.Background()
	sb := newSandbox(t)
	pl, err := sb.rt.Load(ctx, wasm, testCompile(host.Policy{}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, inst.Close(ctx)) })

	res, err := inst.Call(ctx, "fill")
	require.NoError(t, err)
	table, err := inst.ReadMemory(uint32(res[0]), uint32(65536*6+0x7bff*12+len(fp16Edges)*2))
	require.NoError(t, err)
	checkFP16(t, table)

	for _, d := range nativeDataTypeSizes {
		res, err := inst.Call(ctx, "size", uint64(uint32(int32(d.v))))
		require.NoError(t, err)
		require.Equal(t, uint64(d.size), res[0]&0xffffffff, "dataTypeSize(%s)", d.name)
	}
}
