package acl

import "math/bits"

// The Check functions apply the native runtime's argument checks, in the
// native order, to the arguments of one call. They return done=true when
// the native runtime succeeds without doing anything (a zero count), and
// otherwise the first failed check as a *CallError. Checks that need to know
// what an address is (device memory, registered host memory) come after
// them and belong to the caller, which resolves addresses.

// CheckMemcpy checks aclrtMemcpy, aclrtMemcpyAsync and
// aclrtMemcpyAsyncWithCondition: count 0 succeeds first, then NULL
// addresses (100000), a kind outside 0..5 (100000), destMax 0 or below
// count (107000).
func CheckMemcpy(dst, destMax, src, count uint64, kind MemcpyKind) (done bool, err error) {
	switch {
	case count == 0:
		return true, nil
	case dst == 0:
		return false, Errorf(ErrInvalidParam, "dst is NULL")
	case src == 0:
		return false, Errorf(ErrInvalidParam, "src is NULL")
	case kind < MemcpyHostToHost || kind > MemcpyHostToBufToDevice:
		return false, Errorf(ErrInvalidParam, "kind %d is not supported: this function takes kinds 0..5", kind)
	case destMax == 0:
		return false, Errorf(ErrRTParamInvalid, "destMax is 0")
	case count > destMax:
		return false, Errorf(ErrRTParamInvalid, "count %d exceeds destMax %d", count, destMax)
	}
	return false, nil
}

// CheckMemcpy2D checks aclrtMemcpy2d and aclrtMemcpy2dAsync: width or height
// 0 succeeds first, then NULL addresses (100000), width above either pitch
// (100000), a kind other than H2D, D2H, D2D or DEFAULT (100000), height and
// width limits (107000).
func CheckMemcpy2D(dst, dpitch, src, spitch, width, height uint64, kind MemcpyKind) (done bool, err error) {
	switch {
	case width == 0 || height == 0:
		return true, nil
	case dst == 0:
		return false, Errorf(ErrInvalidParam, "dst is NULL")
	case src == 0:
		return false, Errorf(ErrInvalidParam, "src is NULL")
	case width > spitch:
		return false, Errorf(ErrInvalidParam, "width %d exceeds spitch %d", width, spitch)
	case width > dpitch:
		return false, Errorf(ErrInvalidParam, "width %d exceeds dpitch %d", width, dpitch)
	case kind < MemcpyHostToDevice || kind > MemcpyDefault:
		return false, Errorf(ErrInvalidParam, "kind %d is not supported: 2D copies take kinds 1..4", kind)
	case height > Memcpy2DMaxHeight:
		return false, Errorf(ErrRTParamInvalid, "height %d exceeds the limit %d", height, Memcpy2DMaxHeight)
	case width > Memcpy2DMaxWidth:
		return false, Errorf(ErrRTParamInvalid, "width %d exceeds the limit %d", width, Memcpy2DMaxWidth)
	}
	return false, nil
}

// Span2D returns the bytes a 2D copy touches from its base on one side,
// (height-1)*pitch + width (0 for height 0), and false if that overflows
// 64 bits.
func Span2D(pitch, width, height uint64) (uint64, bool) {
	if height == 0 {
		return 0, true
	}
	hi, lo := bits.Mul64(height-1, pitch)
	if hi != 0 {
		return 0, false
	}
	n, carry := bits.Add64(lo, width, 0)
	return n, carry == 0
}

// CheckMemset checks aclrtMemset and aclrtMemsetAsync: count 0 succeeds
// first, then a NULL address (100000), count above maxCount (107000).
func CheckMemset(ptr, maxCount, count uint64) (done bool, err error) {
	switch {
	case count == 0:
		return true, nil
	case ptr == 0:
		return false, Errorf(ErrInvalidParam, "devPtr is NULL")
	case count > maxCount:
		return false, Errorf(ErrRTParamInvalid, "count %d exceeds maxCount %d", count, maxCount)
	}
	return false, nil
}

// CheckBatchArrays applies the ACL-layer checks of the batch copies once
// their arrays are read: every destMaxs[i] must cover sizes[i] (100000) and
// every attribute's reserved bytes must be zero (100000).
func CheckBatchArrays(destMaxs, sizes U64s, attrs BatchAttrs) error {
	if destMaxs.Len() != sizes.Len() {
		return Errorf(ErrInvalidParam, "destMaxs has %d entries and sizes %d", destMaxs.Len(), sizes.Len())
	}
	for i := range sizes.Len() {
		if n, m := sizes.At(i), destMaxs.At(i); m < n {
			return Errorf(ErrInvalidParam, "the copy size %d at index %d exceeds the size %d of the destination buffer", n, i, m)
		}
	}
	for i := range attrs.Len() {
		if !attrs.At(i).RsvZero() {
			return Errorf(ErrInvalidParam, "rsv field of attrs[%d] must be 0", i)
		}
	}
	return nil
}

// AllZero reports whether every size is 0, which makes a batch succeed
// with failIndex SIZE_MAX before any other check.
func AllZero(sizes U64s) bool {
	for i := range sizes.Len() {
		if sizes.At(i) != 0 {
			return false
		}
	}
	return true
}

// CheckBatchShape applies the runtime's checks of a batch's attribute
// indexes (107000): at least one attribute, no more attributes than copies,
// attrsIndexes[0] == 0, strictly increasing, each below count; and for the
// synchronous batch, at most BatchSyncMaxCount copies.
func CheckBatchShape(count uint64, attrsIndexes U64s, sync bool) error {
	n := uint64(attrsIndexes.Len())
	switch {
	case n == 0:
		return Errorf(ErrRTParamInvalid, "numAttrs is 0")
	case n > count:
		return Errorf(ErrRTParamInvalid, "numAttrs %d exceeds numBatches %d", n, count)
	case attrsIndexes.At(0) != 0:
		return Errorf(ErrRTParamInvalid, "attrsIndexes[0] is %d, must be 0", attrsIndexes.At(0))
	}
	for i := 1; i < int(n); i++ {
		cur, prev := attrsIndexes.At(i), attrsIndexes.At(i-1)
		if cur <= prev {
			return Errorf(ErrRTParamInvalid, "attrsIndexes[%d] = %d is not above attrsIndexes[%d] = %d", i, cur, i-1, prev)
		}
		if cur >= count {
			return Errorf(ErrRTParamInvalid, "attrsIndexes[%d] = %d is not below numBatches %d", i, cur, count)
		}
	}
	if sync && count > BatchSyncMaxCount {
		return Errorf(ErrRTParamInvalid, "numBatches %d exceeds the synchronous batch limit %d", count, BatchSyncMaxCount)
	}
	return nil
}

// BatchAttrIndex returns which attribute applies to copy i: the last k with
// attrsIndexes[k] <= i. attrsIndexes must have passed CheckBatchShape.
func BatchAttrIndex(attrsIndexes U64s, i uint64) int {
	lo, hi := 0, attrsIndexes.Len()
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if attrsIndexes.At(m) <= i {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// CheckBatchLocation checks copy i of a batch against the attribute that
// applies to it (107000): each declared location must match where the
// address really is (HOST_NUMA counts as HOST, unregistered memory may be
// declared HOST or UNREGISTERED, device ids must match), and the copy must
// go host to device or device to host.
func CheckBatchLocation(i uint64, a MemcpyBatchAttr, dst, src MemLocation) error {
	if !locMatches(a.DstLoc, dst) {
		return Errorf(ErrRTParamInvalid, "copy %d: attribute says dst is %s, but it is %s", i, locString(a.DstLoc), locString(dst))
	}
	if !locMatches(a.SrcLoc, src) {
		return Errorf(ErrRTParamInvalid, "copy %d: attribute says src is %s, but it is %s", i, locString(a.SrcLoc), locString(src))
	}
	if (dst.Type == MemLocationDevice) == (src.Type == MemLocationDevice) {
		return Errorf(ErrRTParamInvalid, "copy %d: only H2D and D2H copy directions are supported", i)
	}
	return nil
}

func locMatches(declared, real MemLocation) bool {
	d := declared.Type
	if d == MemLocationHostNUMA {
		d = MemLocationHost
	}
	switch real.Type {
	case MemLocationDevice:
		return d == MemLocationDevice && declared.ID == real.ID
	case MemLocationUnregistered:
		return d == MemLocationHost || d == MemLocationUnregistered
	default:
		return d == real.Type
	}
}

func locString(l MemLocation) string {
	if l.Type == MemLocationDevice {
		return "device " + itoa(uint64(l.ID))
	}
	return l.Type.String()
}

// CheckDescKind checks the kind of the descriptor functions: kinds >= 8
// give 100000, and every kind but INNER_DEVICE_TO_DEVICE 207000.
func CheckDescKind(kind MemcpyKind) error {
	switch {
	case kind < 0 || kind >= memcpyKindEnd:
		return Errorf(ErrInvalidParam, "kind %d is out of range", kind)
	case kind != MemcpyInnerDeviceToDevice:
		return Errorf(ErrRTFeatureNotSupport, "kind %s is not supported: descriptor copies take only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", kind)
	}
	return nil
}

// CheckSetMemcpyDesc checks aclrtSetMemcpyDesc: NULL desc, src or dst, count
// 0, and a non-NULL config give 100000; then the kind (CheckDescKind).
func CheckSetMemcpyDesc(desc uint64, kind MemcpyKind, src, dst, count, config uint64) error {
	switch {
	case desc == 0:
		return Errorf(ErrInvalidParam, "desc is NULL")
	case src == 0:
		return Errorf(ErrInvalidParam, "srcAddr is NULL")
	case dst == 0:
		return Errorf(ErrInvalidParam, "dstAddr is NULL")
	case count == 0:
		return Errorf(ErrInvalidParam, "count is 0")
	case config != 0:
		return Errorf(ErrInvalidParam, "config is reserved and must be NULL")
	}
	return CheckDescKind(kind)
}

// CheckMemcpyAsyncWithDesc checks aclrtMemcpyAsyncWithDesc: NULL desc and
// the NULL (default) stream give 100000, then the kind.
func CheckMemcpyAsyncWithDesc(desc uint64, kind MemcpyKind, stream uint64) error {
	switch {
	case desc == 0:
		return Errorf(ErrInvalidParam, "desc is NULL")
	case stream == 0:
		return Errorf(ErrInvalidParam, "stream is NULL: descriptor copies need an explicit stream")
	}
	return CheckDescKind(kind)
}

// CheckMemcpyOffset checks aclrtMemcpyAsyncWithOffset: count 0 succeeds,
// NULL slots give 100000, then 107000 for a kind other than
// INNER_DEVICE_TO_DEVICE, offsets above 2^48-1, dstDataOffset not below
// destMax, count above destMax-dstDataOffset or above 4 GiB.
func CheckMemcpyOffset(dst, destMax, dstOff, src, count, srcOff uint64, kind MemcpyKind) (done bool, err error) {
	switch {
	case count == 0:
		return true, nil
	case dst == 0:
		return false, Errorf(ErrInvalidParam, "dst is NULL")
	case src == 0:
		return false, Errorf(ErrInvalidParam, "src is NULL")
	case kind != MemcpyInnerDeviceToDevice:
		return false, Errorf(ErrRTParamInvalid, "kind %s is not supported: offset copies take only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", kind)
	case srcOff > OffsetMaxDataOffset:
		return false, Errorf(ErrRTParamInvalid, "srcDataOffset %#x exceeds %#x", srcOff, uint64(OffsetMaxDataOffset))
	case dstOff > OffsetMaxDataOffset:
		return false, Errorf(ErrRTParamInvalid, "dstDataOffset %#x exceeds %#x", dstOff, uint64(OffsetMaxDataOffset))
	case dstOff >= destMax:
		return false, Errorf(ErrRTParamInvalid, "dstDataOffset %d is not below destMax %d", dstOff, destMax)
	case count > destMax-dstOff:
		return false, Errorf(ErrRTParamInvalid, "count %d exceeds destMax %d - dstDataOffset %d", count, destMax, dstOff)
	case count > OffsetMaxCount:
		return false, Errorf(ErrRTParamInvalid, "count %d exceeds the device-to-device limit %d", count, uint64(OffsetMaxCount))
	}
	return false, nil
}

// CheckTimeout checks a synchronize timeout: below -1 gives 107000.
func CheckTimeout(timeoutMs int32) error {
	if timeoutMs < -1 {
		return Errorf(ErrRTParamInvalid, "timeout %d is invalid: use -1 (forever), 0 (poll) or a positive number of milliseconds", timeoutMs)
	}
	return nil
}

// CheckEnablePeerAccess checks aclrtDeviceEnablePeerAccess: nonzero flags
// give 200006, the current device as its own peer 100000.
func CheckEnablePeerAccess(cur, peer int32, flags uint32) error {
	switch {
	case flags != 0:
		return Errorf(ErrFeatureUnsupported, "flags %#x are reserved and must be 0", flags)
	case peer == cur:
		return Errorf(ErrInvalidParam, "peerDeviceId %d is the current device", peer)
	}
	return nil
}

// CheckMalloc checks aclrtMalloc's size: 0 gives 100000.
func CheckMalloc(size uint64) error {
	if size == 0 {
		return Errorf(ErrInvalidParam, "size is 0")
	}
	return nil
}

func itoa(v uint64) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(b[i:])
		}
	}
}
