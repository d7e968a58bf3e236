package acl

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRandomTaskBytes: Bytes is RandomTaskOf's inverse in both pointer
// widths.
func TestRandomTaskBytes(t *testing.T) {
	task := RandomTask{DataType: DTFloat16, Func: RandomNormal,
		P1: RandomParam{Value: [8]byte{1, 2}, Size: 2}, P2: RandomParam{IsAddr: 1, Value: [8]byte{9}, Size: 8},
		ParaAddr: 0x1_0000_0040, Result: 0x2_0000_0000, Counter: 0x3_0000_0010,
		Seed: RandomParam{Value: [8]byte{7}, Size: 8}, Num: RandomParam{Value: [8]byte{0x10}, Size: 4}}
	b := task.Bytes(8)
	require.Len(t, b, 104)
	require.Equal(t, task, RandomTaskOf(b, 8))
	task.ParaAddr, task.Result, task.Counter = 0x40, 0x80, 0xC0
	b = task.Bytes(4)
	require.Len(t, b, 92)
	require.Equal(t, task, RandomTaskOf(b, 4))
}
