package acl

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// TestIODimsEncode checks aclmdlIODims in both profiles against the C
// layout (name[128], size_t dimCount, int64_t dims[128]) and that the
// bytes the native runtime leaves alone stay as the caller had them.
func TestIODimsEncode(t *testing.T) {
	d := IODims{Name: "image", Dims: []int64{1, 3, -1, 224}}
	for _, width := range []int{8, 4} {
		b := bytes.Repeat([]byte{0xEE}, IODimsSize)
		if err := d.Encode(b, width); err != nil {
			t.Fatal(err)
		}
		if got := string(b[:6]); got != "image\x00" {
			t.Errorf("width %d: name bytes %q", width, got)
		}
		if b[6] != 0xEE {
			t.Errorf("width %d: the name's tail was written", width)
		}
		count := binary.LittleEndian.Uint64(b[128:])
		if width == 4 {
			count = uint64(binary.LittleEndian.Uint32(b[128:]))
			if !bytes.Equal(b[132:136], []byte{0xEE, 0xEE, 0xEE, 0xEE}) {
				t.Errorf("acl32: the padding after dimCount was written")
			}
		}
		if count != 4 {
			t.Errorf("width %d: dimCount %d", width, count)
		}
		for i, want := range d.Dims {
			if got := int64(binary.LittleEndian.Uint64(b[136+8*i:])); got != want {
				t.Errorf("width %d: dims[%d] = %d, want %d", width, i, got, want)
			}
		}
		if b[136+8*4] != 0xEE || b[IODimsSize-1] != 0xEE {
			t.Errorf("width %d: dims past dimCount were written", width)
		}
	}
	for _, bad := range []IODims{{Name: strings.Repeat("n", 128)}, {Dims: make([]int64, 129)}} {
		if err := bad.Encode(make([]byte, IODimsSize), 8); err == nil {
			t.Errorf("%d-byte name, %d dims: encoded", len(bad.Name), len(bad.Dims))
		}
	}
	if err := (IODims{Name: strings.Repeat("n", 127), Dims: make([]int64, 128)}).Encode(make([]byte, IODimsSize), 4); err != nil {
		t.Errorf("the largest aclmdlIODims: %v", err)
	}
}

func TestModelTensorName(t *testing.T) {
	long := strings.Repeat("x", 128)
	for _, tc := range []struct {
		name   string
		output bool
		want   string
	}{
		{"image", false, "image"},
		{long[:127], false, long[:127]},
		{long, false, "acl_modelId_7_input_2"},
		{long, true, "acl_modelId_7_output_2"},
	} {
		if got := ModelTensorName(tc.name, 7, tc.output, 2); got != tc.want {
			t.Errorf("%d-byte name, output %v: %q, want %q", len(tc.name), tc.output, got, tc.want)
		}
	}
}
