package acl

import "testing"

// TestDataTypeWrap checks the one widening the operator library and the
// kernels' scalars share: each type keeps its own width and signedness.
func TestDataTypeWrap(t *testing.T) {
	for _, c := range []struct {
		t       DataType
		v, want int64
	}{
		{DTInt8, 0xff, -1}, {DTInt8, 0x17f, 127}, {DTUint8, -1, 255},
		{DTInt16, 0xffff, -1}, {DTUint16, -1, 0xffff}, {DTUint16, 0x12345, 0x2345},
		{DTInt32, 0xffffffff, -1}, {DTUint32, -1, 0xffffffff}, {DTUint32, 1 << 32, 0},
		{DTInt64, -5, -5}, {DTUint64, -5, -5},
		{DTBool, 2, 1}, {DTBool, 0, 0}, {DTBool, -1, 1},
		{DTFloat, 0x7fffffffff, 0x7fffffffff},
	} {
		if got := c.t.Wrap(c.v); got != c.want {
			t.Errorf("%s.Wrap(%#x) = %#x, want %#x", c.t, c.v, got, c.want)
		}
	}
}
