package acl

import (
	"encoding/binary"
	"math"
	"strings"
	"unsafe"
)

// Saturation mode and overflow status (ABI v1.3 section 15): how the
// device's float units treat a result out of range, and the sticky
// status that says one was.

// FloatOverflowMode is aclrtFloatOverflowMode: what a float result out of
// range becomes on the device.
type FloatOverflowMode int32

// The native aclrtFloatOverflowMode values.
const (
	// OverflowSaturation clamps a result out of range to the type's
	// largest finite value of its sign (and a NaN to 0).
	OverflowSaturation FloatOverflowMode = 0 // ACL_RT_OVERFLOW_MODE_SATURATION
	// OverflowInfNan keeps IEEE results: Inf and NaN.
	OverflowInfNan FloatOverflowMode = 1 // ACL_RT_OVERFLOW_MODE_INFNAN
	// OverflowUndef is the enum's end, no mode.
	OverflowUndef FloatOverflowMode = 2 // ACL_RT_OVERFLOW_MODE_UNDEF
)

var overflowModeNames = []named[FloatOverflowMode]{
	{OverflowSaturation, "ACL_RT_OVERFLOW_MODE_SATURATION"},
	{OverflowInfNan, "ACL_RT_OVERFLOW_MODE_INFNAN"},
	{OverflowUndef, "ACL_RT_OVERFLOW_MODE_UNDEF"},
}

// String returns the native name.
func (m FloatOverflowMode) String() string {
	return nameOf("aclrtFloatOverflowMode", m, overflowModeNames)
}

// OverflowStatusSize is the size aclrtGetOverflowStatus writes, the only
// outputSize the runtime accepts (task_base.hpp:49).
const OverflowStatusSize = 64

// SatModes reports which modes aclrtSetDeviceSatMode accepts on the SoC
// named soc, and the mode a process starts in, as the runtime's chip
// descriptions say (config/<chip>/dev_info_reg.cc supportOverflowMode,
// and RT_FEATURE_OVERFLOW_MODE, under which the runtime starts in
// INF/NAN mode: runtime.cc:1506-1508). The 910B and 910_93 families
// take both and start in INF/NAN mode; the 950 family has INF/NAN mode
// only; older chips (310P, 910) saturate only.
func SatModes(soc string) (sat, infNan bool, start FloatOverflowMode) {
	switch {
	case strings.HasPrefix(soc, "Ascend950"):
		return false, true, OverflowInfNan
	case strings.HasPrefix(soc, "Ascend910B"), strings.HasPrefix(soc, "Ascend910_93"):
		return true, true, OverflowInfNan
	}
	return true, false, OverflowSaturation
}

// ScanOverflow reports whether b, elements of the float type t, holds an
// Inf or a NaN: what the overflow status records of a computation's
// result. With saturate (the saturation mode), each such element is
// replaced as the device's saturation does: an infinity by the largest
// finite value of its sign, a NaN by zero. Other types never overflow
// here (integer results wrap); a trailing partial element is ignored.
func ScanOverflow(t DataType, b []byte, saturate bool) bool {
	// Almost every result is finite: a branch-free pass over 64-bit words
	// finds whether any element is not (for an Add of float32, in about a
	// third of the Add's own time, where the pass below, element by
	// element, took several times it), and only then does the pass below
	// look at each element.
	if !nonFinite(t, b) {
		return false
	}
	if !saturate {
		return true
	}
	found := false
	switch t {
	case DTFloat16, DTBFloat16:
		exp, frac, max := uint16(0x7C00), uint16(0x03FF), uint16(0x7BFF)
		if t == DTBFloat16 {
			exp, frac, max = 0x7F80, 0x007F, 0x7F7F
		}
		for i := 0; i+2 <= len(b); i += 2 {
			h := binary.LittleEndian.Uint16(b[i:])
			if h&exp != exp {
				continue
			}
			found = true
			if saturate {
				v := uint16(0)
				if h&frac == 0 { // an infinity
					v = max | h&0x8000
				}
				binary.LittleEndian.PutUint16(b[i:], v)
			}
		}
	case DTFloat:
		for i := 0; i+4 <= len(b); i += 4 {
			f := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
			if !math.IsInf(float64(f), 0) && f == f {
				continue
			}
			found = true
			if saturate {
				v := float32(0)
				if f == f {
					v = float32(math.Copysign(math.MaxFloat32, float64(f)))
				}
				binary.LittleEndian.PutUint32(b[i:], math.Float32bits(v))
			}
		}
	case DTDouble:
		for i := 0; i+8 <= len(b); i += 8 {
			f := math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
			if !math.IsInf(f, 0) && f == f {
				continue
			}
			found = true
			if saturate {
				v := 0.0
				if f == f {
					v = math.Copysign(math.MaxFloat64, f)
				}
				binary.LittleEndian.PutUint64(b[i:], math.Float64bits(v))
			}
		}
	}
	return found
}

// nonFinite reports whether b, elements of the float type t, holds an
// Inf or a NaN. It reads b eight bytes at a time, each word as lanes of
// the element's width: with the sign masked off, adding the smallest
// exponent step carries into the lane's top bit exactly when the
// exponent is all ones (an Inf or a NaN), and never across lanes (the
// sum stays below 2^width). ORing the sums keeps that bit.
func nonFinite(t DataType, b []byte) bool {
	var mask, step uint64
	switch t {
	case DTFloat16:
		mask, step = 0x7FFF_7FFF_7FFF_7FFF, 0x0400_0400_0400_0400
	case DTBFloat16:
		mask, step = 0x7FFF_7FFF_7FFF_7FFF, 0x0080_0080_0080_0080
	case DTFloat:
		mask, step = 0x7FFF_FFFF_7FFF_FFFF, 0x0080_0000_0080_0000
	case DTDouble:
		mask, step = 0x7FFF_FFFF_FFFF_FFFF, 0x0010_0000_0000_0000
	default:
		return false
	}
	top := ^mask // each lane's sign bit
	le := binary.LittleEndian
	var acc uint64
	if w := words(b); w != nil {
		// The words in place, eight at a time through an array (no
		// bounds checks), four accumulators: some 20% faster than
		// decoding each word from the bytes, and 10% faster than four
		// words at a time through the slice.
		var a0, a1, a2, a3 uint64
		for len(w) >= 8 {
			v := (*[8]uint64)(w)
			a0 |= (v[0]&mask + step) | (v[4]&mask + step)
			a1 |= (v[1]&mask + step) | (v[5]&mask + step)
			a2 |= (v[2]&mask + step) | (v[6]&mask + step)
			a3 |= (v[3]&mask + step) | (v[7]&mask + step)
			w = w[8:]
		}
		for _, v := range w {
			a0 |= v&mask + step
		}
		acc = a0 | a1 | a2 | a3
		b = b[len(b)/8*8:]
	}
	for len(b) >= 32 {
		_ = b[31]
		acc |= (le.Uint64(b)&mask + step) | (le.Uint64(b[8:])&mask + step) |
			(le.Uint64(b[16:])&mask + step) | (le.Uint64(b[24:])&mask + step)
		b = b[32:]
	}
	for len(b) >= 8 {
		acc |= le.Uint64(b)&mask + step
		b = b[8:]
	}
	if acc&top != 0 {
		return true
	}
	// The last 0 to 7 bytes: whole elements only, zero-padded (a zero is
	// finite) into one word.
	size := int(t.Size())
	var w [8]byte
	copy(w[:], b[:len(b)/size*size])
	return (le.Uint64(w[:])&mask+step)&top != 0
}

// words views b's whole 8-byte words as uint64s, read as the device
// stores them (little-endian), where the machine's order is the same and
// b starts 8-byte aligned; else nil.
func words(b []byte) []uint64 {
	p := unsafe.Pointer(unsafe.SliceData(b))
	if !littleEndian || len(b) < 8 || uintptr(p)%8 != 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(p), len(b)/8)
}

// littleEndian reports whether the machine stores words as the device
// does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// OverflowSwitcher is the optional role ([Traits.OverflowSwitcher]) of a
// backend whose streams keep the runtime's per-stream overflow switch
// (aclrtSetStreamOverflowSwitch): the native backend, where the node's
// runtime reports the overflows of a switched-on stream's tasks. A backend without it (the simulator)
// leaves the switch to the sandbox's record.
type OverflowSwitcher interface {
	// SetStreamOverflowSwitch turns s's overflow switch on or off.
	SetStreamOverflowSwitch(s Stream, on bool) error
}
