package host

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/abi"
)

// TestTraceMasksI32Args: wazero passes an i32 parameter to a host function
// as a 4-byte store into an 8-byte slot, so the upper half holds whatever
// the slot held before (real guests showed stream=37512244363265 for
// handle 1). The trace records the values the guest passed, as the
// imports read them: i32 wire types masked to 32 bits.
func TestTraceMasksI32Args(t *testing.T) {
	h := newHarness(t, Policy{})
	s := h.inst.Session()
	ctx := context.Background()
	const junk = 0x221e_0000_0000
	for _, tc := range []struct {
		name string
		args []uint64
		want []uint64
		line string
	}{
		{"aclrtSetDevice", []uint64{junk}, []uint64{0}, `^aclrtSetDevice\(deviceId=0\) = 0$`},
		{"aclrtSynchronizeStream", []uint64{junk | 1}, []uint64{1}, `^aclrtSynchronizeStream\(stream=1\) = \d+ `},
		{"aclInit", []uint64{junk}, []uint64{0}, `^aclInit\(configPath=0x0\) = \d+`},
		// i64 wire types keep all their bits.
		{"aclrtFree", []uint64{junk}, []uint64{junk}, `^aclrtFree\(devPtr=0x221e00000000\) = \d+ `},
		{"aclrtMalloc", []uint64{junk | 0x10, junk | 64, junk}, []uint64{0x10, junk | 64, 0}, `^aclrtMalloc\(devPtr=0x10, size=37512244363328, policy=0\) = \d+`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fi := abi.Lookup(tc.name).Index()
			require.GreaterOrEqual(t, fi, 0)
			h.log = nil
			s.invoke(ctx, fi, h.mem(), append([]uint64(nil), tc.args...))
			require.Len(t, h.log, 1)
			require.Equal(t, tc.want, h.log[0].Args)
			require.Regexp(t, tc.line, h.log[0].String())
		})
	}
}
