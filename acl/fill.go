package acl

import "encoding/binary"

// Fill sets every byte of b to v, doubling the filled prefix with copy:
// what a memset does to host memory in every backend and in the host.
func Fill(b []byte, v byte) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for i := 1; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}

// Fill32 writes v little-endian into every 4-byte word of b (whose length
// is a multiple of 4), as aclrtMemsetD32 does.
func Fill32(b []byte, v uint32) {
	if len(b) < 4 {
		return
	}
	binary.LittleEndian.PutUint32(b, v)
	for i := 4; i < len(b); i *= 2 {
		copy(b[i:], b[:i])
	}
}
