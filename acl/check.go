package acl

import "math/bits"

// The Check functions apply the native runtime's argument checks, in the
// native order, to the arguments of one call. They return done=true when
// the native runtime succeeds without doing anything (a zero count), and
// otherwise the first failed check as a *CallError. Checks that need to know
// what an address is (device memory, registered host memory) come after
// them and belong to the caller, which resolves addresses.

// CheckMemcpy checks aclrtMemcpy: [CheckMemcpyArgs], then destMax 0 or
// below count (107000).
func CheckMemcpy(dst, destMax, src, count uint64, kind MemcpyKind) (done bool, err error) {
	if done, err = CheckMemcpyArgs(dst, src, count, kind); done || err != nil {
		return
	}
	if destMax == 0 {
		return false, Errorf(ErrRTParamInvalid, "destMax is 0")
	}
	return false, CheckDestMax(destMax, count)
}

// CheckMemcpyArgs applies the ACL layer's checks of aclrtMemcpy,
// aclrtMemcpyAsync and aclrtMemcpyAsyncWithCondition: count 0 succeeds
// first, then NULL addresses and a kind outside 0..5 give 100000.
func CheckMemcpyArgs(dst, src, count uint64, kind MemcpyKind) (done bool, err error) {
	switch {
	case count == 0:
		return true, nil
	case dst == 0:
		return false, Errorf(ErrInvalidParam, "dst is NULL")
	case src == 0:
		return false, Errorf(ErrInvalidParam, "src is NULL")
	case kind < MemcpyHostToHost || kind > MemcpyHostToBufToDevice:
		return false, Errorf(ErrInvalidParam, "kind %d is not supported: this function takes kinds 0..5", kind)
	}
	return false, nil
}

// CheckDestMax is the runtime's range check of a copy: count above
// destMax gives 107000.
func CheckDestMax(destMax, count uint64) error {
	if count > destMax {
		return Errorf(ErrRTParamInvalid, "count %d exceeds destMax %d", count, destMax)
	}
	return nil
}

// CheckMemcpy2DArgs applies the ACL layer's checks of the 2D copies: width
// or height 0 succeeds first, then NULL addresses, width above either
// pitch, and a kind other than H2D, D2H, D2D or DEFAULT give 100000.
func CheckMemcpy2DArgs(dst, dpitch, src, spitch, width, height uint64, kind MemcpyKind) (done bool, err error) {
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
	}
	return false, nil
}

// Check2DLimits is the runtime's limit check of the 2D copies: height
// above 5242880 or width above 5000000 gives 107000.
func Check2DLimits(width, height uint64) error {
	switch {
	case height > Memcpy2DMaxHeight:
		return Errorf(ErrRTParamInvalid, "height %d exceeds the limit %d", height, Memcpy2DMaxHeight)
	case width > Memcpy2DMaxWidth:
		return Errorf(ErrRTParamInvalid, "width %d exceeds the limit %d", width, Memcpy2DMaxWidth)
	}
	return nil
}

// CorrectKind applies the native runtime's kind-versus-location rules of
// the asynchronous and 2D copies, for memory whose real locations are dst
// and src (HOST: registered host memory, DEVICE, UNREGISTERED). A kind
// between registered host or device memory on both sides is corrected to
// the real direction; a pair that involves unregistered memory allows only
// some kinds (107000 for the others) and keeps the kind given, DEFAULT
// taking the pair's usual direction. HOST_TO_BUF_TO_DEVICE must go from
// host to device memory (107000). It returns the corrected kind, one of
// H2H, H2D, D2H and D2D.
func CorrectKind(kind MemcpyKind, dst, src MemLocationType) (MemcpyKind, error) {
	dev := func(t MemLocationType) bool { return t == MemLocationDevice }
	if kind == MemcpyHostToBufToDevice {
		if dev(src) || !dev(dst) {
			return 0, Errorf(ErrRTParamInvalid, "kind %s copies host memory to device memory, but src is %s and dst is %s", kind, src, dst)
		}
		kind = MemcpyHostToDevice
	}
	unreg := src == MemLocationUnregistered || dst == MemLocationUnregistered
	if !unreg {
		// Registered host and device memory: the locations decide.
		return MemcpyKind(DirectionOf(dev(dst), dev(src))), nil
	}
	// The kinds each pair with unregistered memory allows, DEFAULT's
	// choice first.
	var allowed []MemcpyKind
	switch {
	case dev(dst):
		allowed = []MemcpyKind{MemcpyHostToDevice, MemcpyDeviceToDevice}
	case dev(src):
		allowed = []MemcpyKind{MemcpyDeviceToHost, MemcpyDeviceToDevice}
	case src == MemLocationUnregistered && dst == MemLocationUnregistered:
		allowed = []MemcpyKind{MemcpyHostToHost, MemcpyHostToDevice, MemcpyDeviceToHost, MemcpyDeviceToDevice}
	case src == MemLocationUnregistered:
		allowed = []MemcpyKind{MemcpyHostToHost, MemcpyDeviceToHost}
	default:
		allowed = []MemcpyKind{MemcpyHostToHost, MemcpyHostToDevice}
	}
	if kind == MemcpyDefault {
		return allowed[0], nil
	}
	for _, k := range allowed {
		if k == kind {
			return k, nil
		}
	}
	return 0, Errorf(ErrRTParamInvalid, "kind %s does not match the memory: src is %s and dst is %s", kind, src, dst)
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

// CheckMemsetArgs applies the ACL layer's checks of the memsets: count 0
// succeeds first, then a NULL address gives 100000.
func CheckMemsetArgs(ptr, count uint64) (done bool, err error) {
	switch {
	case count == 0:
		return true, nil
	case ptr == 0:
		return false, Errorf(ErrInvalidParam, "devPtr is NULL")
	}
	return false, nil
}

// CheckMaxCount checks a memset's count against maxCount (107000).
func CheckMaxCount(maxCount, count uint64) error {
	if count > maxCount {
		return Errorf(ErrRTParamInvalid, "count %d exceeds maxCount %d", count, maxCount)
	}
	return nil
}

// CheckBatchArrays applies the ACL-layer checks of the batch copies once
// their arrays are read: every destMaxs[i] must cover sizes[i] (100000) and
// every attribute's reserved bytes must be zero (100000).
func CheckBatchArrays(destMaxs, sizes Words, attrs BatchAttrs) error {
	if destMaxs.Len() != sizes.Len() {
		return Errorf(ErrInvalidParam, "destMaxs has %d entries and sizes %d", destMaxs.Len(), sizes.Len())
	}
	for i := range sizes.Len() {
		if n, m := sizes.At(i), destMaxs.At(i); m < n {
			return Errorf(ErrInvalidParam, "the copy size %d at index %d exceeds the size %d of the destination buffer", n, i, m)
		}
	}
	for i := range attrs.Len() {
		if !attrs.At(i).rsvZero() {
			return Errorf(ErrInvalidParam, "rsv field of attrs[%d] must be 0", i)
		}
	}
	return nil
}

// AllZero reports whether every size is 0, which makes a batch succeed
// with failIndex SIZE_MAX before any other check.
func AllZero(sizes Words) bool {
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
// synchronous batch, at most [BatchSyncMaxCount] copies.
func CheckBatchShape(count uint64, attrsIndexes Words, sync bool) error {
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
// attrsIndexes[k] <= i. attrsIndexes must have passed [CheckBatchShape].
func BatchAttrIndex(attrsIndexes Words, i uint64) int {
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
// address really is (as natively, HOST_NUMA counts as HOST, unregistered
// memory is HOST, a declared UNREGISTERED never matches, device ids must
// match), and the copy must go host to device or device to host.
func CheckBatchLocation(i uint64, a MemcpyBatchAttr, dst, src MemLocation) error {
	if a.DstLoc.Type != MemLocationUnregistered && a.SrcLoc.Type != MemLocationUnregistered &&
		locMatches(a.DstLoc, dst) && locMatches(a.SrcLoc, src) && (dst.Type == MemLocationDevice) != (src.Type == MemLocationDevice) {
		return nil // the common case, without the loop below
	}
	for _, x := range [2]struct {
		side string
		loc  MemLocation
	}{{"dst", a.DstLoc}, {"src", a.SrcLoc}} {
		if x.loc.Type == MemLocationUnregistered {
			return Errorf(ErrRTParamInvalid, "copy %d: attribute declares %s as %s, which never matches: declare host memory as %s", i, x.side, MemLocationUnregistered, MemLocationHost)
		}
	}
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
	default: // registered or unregistered host memory
		return d == MemLocationHost
	}
}

func locString(l MemLocation) string {
	if l.Type == MemLocationDevice {
		return "device " + itoa(uint64(l.ID))
	}
	return l.Type.String()
}

// CheckDescKind checks the kind of the descriptor functions:
// [CheckDescKindRange], then [CheckDescKindFeature].
func CheckDescKind(kind MemcpyKind) error {
	if err := CheckDescKindRange(kind); err != nil {
		return err
	}
	return CheckDescKindFeature(kind)
}

// CheckDescKindRange is the ACL layer's kind check of the descriptor
// functions: kinds outside 0..7 give 100000.
func CheckDescKindRange(kind MemcpyKind) error {
	if kind < 0 || kind >= memcpyKindEnd {
		return Errorf(ErrInvalidParam, "kind %d is out of range", kind)
	}
	return nil
}

// CheckDescKindFeature is the runtime's kind check of the descriptor
// functions: every kind but INNER_DEVICE_TO_DEVICE gives 207000.
func CheckDescKindFeature(kind MemcpyKind) error {
	if kind != MemcpyInnerDeviceToDevice {
		return Errorf(ErrRTFeatureNotSupport, "kind %s is not supported: descriptor copies take only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", kind)
	}
	return nil
}

// CheckSetMemcpyDesc applies the ACL layer's checks of aclrtSetMemcpyDesc
// (100000): NULL desc, a kind outside 0..7, NULL src or dst, count 0, a
// non-NULL config. The runtime's checks follow: [CheckDescKindFeature], then
// [CheckDescCount] and [CheckDescAlign].
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
	return CheckDescKindRange(kind)
}

// CheckDescCount checks a descriptor's count: above 4 GiB gives 107000.
func CheckDescCount(count uint64) error {
	if count > offsetMaxCount {
		return Errorf(ErrRTParamInvalid, "count %d exceeds the device-to-device limit %d", count, uint64(offsetMaxCount))
	}
	return nil
}

// CheckDescAlign checks a descriptor's address: not 64-byte aligned gives
// 107000.
func CheckDescAlign(desc uint64) error {
	if desc%descAlign != 0 {
		return Errorf(ErrRTParamInvalid, "desc %#x is not %d-byte aligned", desc, descAlign)
	}
	return nil
}

// CheckMemcpyAsyncWithDesc applies the ACL layer's checks of
// aclrtMemcpyAsyncWithDesc (100000): NULL desc, a kind outside 0..7, the
// NULL (default) stream. The runtime checks the stream handle, then
// [CheckDescKindFeature].
func CheckMemcpyAsyncWithDesc(desc uint64, kind MemcpyKind, stream uint64) error {
	if desc == 0 {
		return Errorf(ErrInvalidParam, "desc is NULL")
	}
	if err := CheckDescKindRange(kind); err != nil {
		return err
	}
	if stream == 0 {
		return Errorf(ErrInvalidParam, "stream is NULL: descriptor copies need an explicit stream")
	}
	return nil
}

// CheckMemcpyOffset checks aclrtMemcpyAsyncWithOffset without its stream:
// [CheckOffsetKind], then [CheckOffsetArgs].
func CheckMemcpyOffset(dst, destMax, dstOff, src, count, srcOff uint64, kind MemcpyKind) (done bool, err error) {
	if done, err = CheckOffsetKind(count, kind); done || err != nil {
		return
	}
	return false, CheckOffsetArgs(dst, destMax, dstOff, src, count, srcOff)
}

// CheckOffsetKind is what aclrtMemcpyAsyncWithOffset checks before its
// stream: count 0 succeeds, a kind other than INNER_DEVICE_TO_DEVICE gives
// 107000 (the ACL layer checks no pointer of this function).
func CheckOffsetKind(count uint64, kind MemcpyKind) (done bool, err error) {
	switch {
	case count == 0:
		return true, nil
	case kind != MemcpyInnerDeviceToDevice:
		return false, Errorf(ErrRTParamInvalid, "kind %s is not supported: offset copies take only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE", kind)
	}
	return false, nil
}

// CheckOffsetArgs is the runtime's check of aclrtMemcpyAsyncWithOffset
// after its stream, all 107000: NULL slots, count above destMax or 4 GiB,
// offsets above 2^48-1, dstDataOffset not below destMax, count above
// destMax-dstDataOffset.
func CheckOffsetArgs(dst, destMax, dstOff, src, count, srcOff uint64) error {
	switch {
	case dst == 0:
		return Errorf(ErrRTParamInvalid, "dst is NULL")
	case src == 0:
		return Errorf(ErrRTParamInvalid, "src is NULL")
	case count > destMax:
		return Errorf(ErrRTParamInvalid, "count %d exceeds destMax %d", count, destMax)
	case count > offsetMaxCount:
		return Errorf(ErrRTParamInvalid, "count %d exceeds the device-to-device limit %d", count, uint64(offsetMaxCount))
	case srcOff > offsetMaxDataOffset:
		return Errorf(ErrRTParamInvalid, "srcDataOffset %#x exceeds %#x", srcOff, uint64(offsetMaxDataOffset))
	case dstOff > offsetMaxDataOffset:
		return Errorf(ErrRTParamInvalid, "dstDataOffset %#x exceeds %#x", dstOff, uint64(offsetMaxDataOffset))
	case dstOff >= destMax:
		return Errorf(ErrRTParamInvalid, "dstDataOffset %d is not below destMax %d", dstOff, destMax)
	case count > destMax-dstOff:
		return Errorf(ErrRTParamInvalid, "count %d exceeds destMax %d - dstDataOffset %d", count, destMax, dstOff)
	}
	return nil
}

// CheckTimeout checks a synchronize timeout as the native runtime does:
// [CheckTimeoutRange], then [CheckTimeoutZero].
func CheckTimeout(timeoutMs int32) error {
	if err := CheckTimeoutRange(timeoutMs); err != nil {
		return err
	}
	return CheckTimeoutZero(timeoutMs)
}

// CheckTimeoutRange is the ACL layer's timeout check: below -1 gives 107000.
func CheckTimeoutRange(timeoutMs int32) error {
	if timeoutMs < -1 {
		return Errorf(ErrRTParamInvalid, "timeout %d is invalid: use -1 (forever) or a positive number of milliseconds", timeoutMs)
	}
	return nil
}

// CheckTimeoutZero is the runtime's timeout check: 0 gives 107000 (the
// header describes 0 as a poll; the implementation refuses it).
func CheckTimeoutZero(timeoutMs int32) error {
	if timeoutMs == 0 {
		return Errorf(ErrRTParamInvalid, "timeout 0 is invalid: use -1 (forever) or a positive number of milliseconds; aclrtStreamQuery polls")
	}
	return nil
}

// CheckEnablePeerAccess checks aclrtDeviceEnablePeerAccess's flags:
// nonzero gives 200006, before the current device is read.
func CheckEnablePeerAccess(flags uint32) error {
	if flags != 0 {
		return Errorf(ErrFeatureUnsupported, "flags %#x are reserved and must be 0", flags)
	}
	return nil
}

// CheckPeerSelf checks that a peer device is not the current one (100000).
func CheckPeerSelf(cur, peer int32) error {
	if peer == cur {
		return Errorf(ErrInvalidParam, "peerDeviceId %d is the current device", peer)
	}
	return nil
}

// CheckMalloc checks aclrtMalloc's size: 0, or a size that overflows once
// the native allocator's padding is added, gives 100000.
func CheckMalloc(size uint64) error {
	switch {
	case size == 0:
		return Errorf(ErrInvalidParam, "size is 0")
	case size > ^uint64(0)-mallocAlign-mallocPadding:
		return Errorf(ErrInvalidParam, "size %d overflows with the allocator's %d bytes of padding", size, mallocAlign+mallocPadding)
	}
	return nil
}

// CheckHostRegisterType checks aclrtHostRegister's type: bits other than
// IOMEMORY and READONLY give 207000; every combination of those is valid.
func CheckHostRegisterType(t HostRegisterType) error {
	if !t.Valid() {
		return Errorf(ErrRTFeatureNotSupport, "type %#x is not supported: only ACL_HOST_REGISTER_IOMEMORY (4) and READONLY (8), alone or together, or MAPPED (0)", uint32(t))
	}
	return nil
}

// CheckMemAttr checks aclrtGetMemInfo's attribute: an undefined one gives
// 107016.
func CheckMemAttr(a MemAttr) error {
	if !a.Valid() {
		return Errorf(ErrRTInvalidMemoryType, "attr %d is not an aclrtMemAttr (0..%d)", a, memAttrEnd-1)
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
