package acl

import (
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// want is what a Check function should return: done, or the code of the
// first failed check and a piece of its message (which argument).
type want struct {
	done bool
	code Error // Success for no error
	msg  string
}

func (w want) check(t *testing.T, name string, done bool, err error) {
	t.Helper()
	require.Equal(t, w.done, done, "%s: done", name)
	if w.code == Success {
		require.NoError(t, err, name)
		return
	}
	require.Error(t, err, name)
	require.Equal(t, w.code, CodeOf(err), "%s: %v", name, err)
	require.True(t, errors.Is(err, w.code), name)
	require.Contains(t, MessageOf(err), w.msg, name)
}

var (
	ok       = want{}
	skip     = want{done: true}
	null     = func(msg string) want { return want{code: ErrInvalidParam, msg: msg} }
	invalid  = func(msg string) want { return want{code: ErrInvalidParam, msg: msg} }
	rtParam  = func(msg string) want { return want{code: ErrRTParamInvalid, msg: msg} }
	unsupp   = func(msg string) want { return want{code: ErrRTFeatureNotSupport, msg: msg} }
	feature  = func(msg string) want { return want{code: ErrFeatureUnsupported, msg: msg} }
	badKinds = []MemcpyKind{-1, 6, 7, 8, 1 << 20}
)

func TestCheckMemcpy(t *testing.T) {
	type args struct {
		dst, destMax, src, count uint64
		kind                     MemcpyKind
	}
	tests := []struct {
		name string
		args
		want
	}{
		{"count 0 succeeds before anything", args{0, 0, 0, 0, 99}, skip},
		{"count 0 with good arguments", args{1, 8, 2, 0, 1}, skip},
		{"dst NULL", args{0, 8, 2, 8, 1}, null("dst is NULL")},
		{"src NULL", args{1, 8, 0, 8, 1}, null("src is NULL")},
		{"dst NULL before src NULL", args{0, 8, 0, 8, 1}, null("dst")},
		{"NULL before kind", args{0, 8, 2, 8, 6}, null("dst")},
		{"kind before destMax", args{1, 0, 2, 8, 7}, invalid("kind 7")},
		{"destMax 0", args{1, 0, 2, 8, 1}, rtParam("destMax is 0")},
		{"count over destMax", args{1, 7, 2, 8, 1}, rtParam("count 8 exceeds destMax 7")},
		{"count equal to destMax", args{1, 8, 2, 8, 1}, ok},
		{"count under destMax", args{1, 9, 2, 8, 1}, ok},
		{"huge count", args{1, ^uint64(0), 2, ^uint64(0), 4}, ok},
	}
	for k := MemcpyHostToHost; k <= MemcpyHostToBufToDevice; k++ {
		tests = append(tests, struct {
			name string
			args
			want
		}{"kind " + k.String(), args{1, 8, 2, 8, k}, ok})
	}
	for _, k := range badKinds {
		tests = append(tests, struct {
			name string
			args
			want
		}{"bad kind " + k.String(), args{1, 8, 2, 8, k}, invalid("is not supported")})
	}
	for _, tc := range tests {
		done, err := CheckMemcpy(tc.dst, tc.destMax, tc.src, tc.count, tc.kind)
		tc.want.check(t, tc.name, done, err)
	}
}

func TestCheckMemcpy2D(t *testing.T) {
	type args struct {
		dst, dpitch, src, spitch, width, height uint64
		kind                                    MemcpyKind
	}
	tests := []struct {
		name string
		args
		want
	}{
		{"width 0 succeeds before anything", args{0, 0, 0, 0, 0, 5, 99}, skip},
		{"height 0 succeeds before anything", args{0, 0, 0, 0, 5, 0, 99}, skip},
		{"dst NULL", args{0, 8, 1, 8, 8, 2, 1}, null("dst is NULL")},
		{"src NULL", args{1, 8, 0, 8, 8, 2, 1}, null("src is NULL")},
		{"width over spitch", args{1, 16, 2, 7, 8, 2, 1}, invalid("width 8 exceeds spitch 7")},
		{"width over dpitch", args{1, 7, 2, 16, 8, 2, 1}, invalid("width 8 exceeds dpitch 7")},
		{"pitch 0", args{1, 0, 2, 8, 8, 2, 1}, invalid("dpitch 0")},
		{"pitch before kind", args{1, 8, 2, 7, 8, 2, 0}, invalid("spitch")},
		{"kind H2H", args{1, 8, 2, 8, 8, 2, 0}, invalid("kind 0")},
		{"kind HOST_TO_BUF_TO_DEVICE", args{1, 8, 2, 8, 8, 2, 5}, invalid("kind 5")},
		{"kind INNER", args{1, 8, 2, 8, 8, 2, 6}, invalid("kind 6")},
		{"kind before limits", args{1, 1 << 30, 2, 1 << 30, 1 << 30, 1 << 30, 0}, invalid("kind")},
		{"height at the limit", args{1, 8, 2, 8, 8, Memcpy2DMaxHeight, 1}, ok},
		{"height over the limit", args{1, 8, 2, 8, 8, Memcpy2DMaxHeight + 1, 1}, rtParam("height 5242881")},
		{"width at the limit", args{1, 1 << 30, 2, 1 << 30, Memcpy2DMaxWidth, 1, 2}, ok},
		{"width over the limit", args{1, 1 << 30, 2, 1 << 30, Memcpy2DMaxWidth + 1, 1, 2}, rtParam("width 5000001")},
		{"height before width", args{1, 1 << 30, 2, 1 << 30, Memcpy2DMaxWidth + 1, Memcpy2DMaxHeight + 1, 2}, rtParam("height")},
		{"width equal to pitches", args{1, 8, 2, 8, 8, 3, 3}, ok},
		{"DEFAULT", args{1, 9, 2, 10, 8, 3, 4}, ok},
	}
	for _, tc := range tests {
		done, err := checkMemcpy2D(tc.dst, tc.dpitch, tc.src, tc.spitch, tc.width, tc.height, tc.kind)
		tc.want.check(t, tc.name, done, err)
	}
}

func TestSpan2D(t *testing.T) {
	max := ^uint64(0)
	for _, tc := range []struct {
		pitch, width, height uint64
		n                    uint64
		ok                   bool
	}{
		{10, 8, 4, 38, true},
		{16, 16, 4, 64, true},
		{0, 8, 5, 8, true},
		{100, 7, 1, 7, true},
		{100, 7, 0, 0, true},
		{max, 0, 2, max, true},
		{max, 1, 2, 0, false},
		{1 << 63, 1, 3, 0, false},
		{1 << 32, 1, 1<<32 + 1, 0, false},
		{1 << 32, 1, 1 << 32, 1<<64 - 1<<32 + 1, true},
		{max/2 + 1, max / 2, 2, max, true},
	} {
		n, ok := Span2D(tc.pitch, tc.width, tc.height)
		require.Equal(t, tc.ok, ok, "%+v", tc)
		if tc.ok {
			require.Equal(t, tc.n, n, "%+v", tc)
		}
	}
}

func TestCheckMemset(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		ptr, maxCount, count uint64
		want
	}{
		{"count 0 succeeds before anything", 0, 0, 0, skip},
		{"NULL", 0, 8, 8, null("devPtr is NULL")},
		{"count over maxCount", 1, 7, 8, rtParam("count 8 exceeds maxCount 7")},
		{"maxCount 0", 1, 0, 1, rtParam("maxCount 0")},
		{"count equal to maxCount", 1, 8, 8, ok},
	} {
		done, err := checkMemset(tc.ptr, tc.maxCount, tc.count)
		tc.want.check(t, tc.name, done, err)
	}
}

func TestCheckBatchArrays(t *testing.T) {
	var rsv MemcpyBatchAttr
	rsv.Rsv[15] = 1
	for _, tc := range []struct {
		name            string
		destMaxs, sizes []uint64
		attrs           []MemcpyBatchAttr
		want
	}{
		{"fits", []uint64{8, 9}, []uint64{8, 0}, []MemcpyBatchAttr{{}}, ok},
		{"size over destMax", []uint64{8, 8, 8}, []uint64{8, 9, 10}, nil, invalid("size 9 at index 1 exceeds the size 8")},
		{"rsv not zero", []uint64{8}, []uint64{8}, []MemcpyBatchAttr{{}, rsv}, invalid("rsv field of attrs[1]")},
		{"sizes before rsv", []uint64{1}, []uint64{2}, []MemcpyBatchAttr{rsv}, invalid("index 0")},
		{"lengths differ", []uint64{8}, []uint64{8, 8}, nil, invalid("destMaxs has 1 entries and sizes 2")},
	} {
		tc.want.check(t, tc.name, false, CheckBatchArrays(u64sOf(tc.destMaxs...), u64sOf(tc.sizes...), batchAttrsOf(tc.attrs...)))
	}
}

func TestAllZero(t *testing.T) {
	require.True(t, AllZero(Words{}))
	require.True(t, AllZero(u64sOf(0, 0, 0)))
	require.False(t, AllZero(u64sOf(0, 0, 1)))
	require.False(t, AllZero(u64sOf(1)))
	require.True(t, AllZero(u32sOf(0, 0)))
	require.False(t, AllZero(u32sOf(0, 1)))
}

// TestWords reads both element widths in place: 8-byte elements (the wide
// profile) and 4-byte ones (acl32); a partial element at the end is not one.
func TestWords(t *testing.T) {
	b := []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0}
	w8, w4 := WordsOf(b, 8), WordsOf(b, 4)
	require.Equal(t, 1, w8.Len())
	require.Equal(t, uint64(0x0000000200000001), w8.At(0))
	require.Equal(t, 2, w4.Len())
	require.Equal(t, []uint64{1, 2}, []uint64{w4.At(0), w4.At(1)})
	u := u32sOf(0xFFFFFFFF, 1<<32|5)
	require.Equal(t, []uint64{0xFFFFFFFF, 5}, []uint64{u.At(0), u.At(1)}, "4-byte elements truncate")
	require.Equal(t, 3, BatchAttrIndex(u32sOf(0, 2, 4, 6), 6))
	require.NoError(t, CheckBatchShape(8, u32sOf(0, 2, 4), true))
	require.Error(t, CheckBatchArrays(u32sOf(4), u32sOf(8), nil))
}

func TestCheckBatchShape(t *testing.T) {
	for _, tc := range []struct {
		name  string
		count uint64
		idx   []uint64
		sync  bool
		want
	}{
		{"one attribute", 10, []uint64{0}, true, ok},
		{"two attributes", 10, []uint64{0, 6}, true, ok},
		{"one attribute per copy", 3, []uint64{0, 1, 2}, true, ok},
		{"no attributes", 10, nil, true, rtParam("numAttrs is 0")},
		{"more attributes than copies", 2, []uint64{0, 1, 2}, true, rtParam("numAttrs 3 exceeds numBatches 2")},
		{"first index not 0", 10, []uint64{1, 6}, true, rtParam("attrsIndexes[0] is 1")},
		{"not increasing", 10, []uint64{0, 6, 6}, true, rtParam("attrsIndexes[2] = 6 is not above attrsIndexes[1] = 6")},
		{"decreasing", 10, []uint64{0, 6, 3}, true, rtParam("attrsIndexes[2] = 3")},
		{"index at count", 10, []uint64{0, 10}, true, rtParam("attrsIndexes[1] = 10 is not below numBatches 10")},
		{"order before the index bound", 10, []uint64{0, 12, 11}, true, rtParam("attrsIndexes[1] = 12 is not below")},
		{"sync at the limit", BatchSyncMaxCount, []uint64{0}, true, ok},
		{"sync over the limit", BatchSyncMaxCount + 1, []uint64{0}, true, rtParam("numBatches 4097 exceeds the synchronous batch limit 4096")},
		{"async over the sync limit", 1 << 20, []uint64{0}, false, ok},
		{"shape before the limit", BatchSyncMaxCount + 1, []uint64{1}, true, rtParam("attrsIndexes[0]")},
	} {
		tc.want.check(t, tc.name, false, CheckBatchShape(tc.count, u64sOf(tc.idx...), tc.sync))
	}
}

func TestBatchAttrIndex(t *testing.T) {
	for _, tc := range []struct {
		idx  []uint64
		want []int // for copies 0, 1, ...
	}{
		{[]uint64{0}, []int{0, 0, 0}},
		{[]uint64{0, 6}, []int{0, 0, 0, 0, 0, 0, 1, 1, 1, 1}},
		{[]uint64{0, 1, 2, 3}, []int{0, 1, 2, 3}},
		{[]uint64{0, 2, 5, 6}, []int{0, 0, 1, 1, 1, 2, 3, 3}},
	} {
		for i, w := range tc.want {
			require.Equal(t, w, BatchAttrIndex(u64sOf(tc.idx...), uint64(i)), "copy %d of %v", i, tc.idx)
		}
	}
}

func TestCheckBatchLocation(t *testing.T) {
	dev := func(id uint32) MemLocation { return MemLocation{ID: id, Type: MemLocationDevice} }
	host := MemLocation{Type: MemLocationHost}
	unreg := MemLocation{Type: MemLocationUnregistered}
	loc := func(t MemLocationType, id uint32) MemLocation { return MemLocation{ID: id, Type: t} }
	attr := func(dst, src MemLocation) MemcpyBatchAttr { return MemcpyBatchAttr{DstLoc: dst, SrcLoc: src} }
	for _, tc := range []struct {
		name     string
		a        MemcpyBatchAttr
		dst, src MemLocation
		want
	}{
		{"H2D pinned", attr(dev(1), host), dev(1), host, ok},
		{"D2H pinned", attr(host, dev(0)), host, dev(0), ok},
		{"unregistered declared HOST", attr(host, dev(0)), unreg, dev(0), ok},
		{"unregistered declared UNREGISTERED never matches", attr(dev(0), unreg), dev(0), unreg, rtParam("declares src as ACL_MEM_LOCATION_TYPE_UNREGISTERED, which never matches")},
		{"HOST_NUMA counts as HOST", attr(loc(MemLocationHostNUMA, 3), dev(0)), host, dev(0), ok},
		{"HOST_NUMA for unregistered memory", attr(dev(0), loc(MemLocationHostNUMA, 0)), dev(0), unreg, ok},
		{"host id is ignored", attr(loc(MemLocationHost, 9), dev(0)), host, dev(0), ok},
		{"pinned declared UNREGISTERED", attr(dev(0), unreg), dev(0), host, rtParam("copy 7: attribute declares src as ACL_MEM_LOCATION_TYPE_UNREGISTERED")},
		{"device id differs", attr(dev(1), host), dev(0), host, rtParam("copy 7: attribute says dst is device 1, but it is device 0")},
		{"device declared host", attr(host, dev(0)), dev(0), dev(0), rtParam("dst is ACL_MEM_LOCATION_TYPE_HOST, but it is device 0")},
		{"host declared device", attr(dev(0), dev(0)), dev(0), unreg, rtParam("src is device 0, but it is ACL_MEM_LOCATION_TYPE_UNREGISTERED")},
		{"managed never matches", attr(loc(MemLocationManaged, 0), dev(0)), host, dev(0), rtParam("ACL_MEM_LOCATION_TYPE_MANAGED")},
		{"dst checked before src", attr(dev(2), dev(3)), dev(0), dev(1), rtParam("dst is device 2")},
		{"D2D", attr(dev(0), dev(1)), dev(0), dev(1), rtParam("copy 7: only H2D and D2H")},
		{"H2H", attr(host, host), host, unreg, rtParam("only H2D and D2H")},
		{"large device id", attr(dev(4000000000), host), dev(1234567890), host, rtParam("device 4000000000, but it is device 1234567890")},
	} {
		tc.want.check(t, tc.name, false, CheckBatchLocation(7, tc.a, tc.dst, tc.src))
	}
}

func TestCheckDescFields(t *testing.T) {
	require.NoError(t, CheckDescCount(offsetMaxCount))
	rtParam("device-to-device limit").check(t, "count", false, CheckDescCount(offsetMaxCount+1))
	require.NoError(t, CheckDescAlign(1<<40+128))
	rtParam("not 64-byte aligned").check(t, "align", false, CheckDescAlign(1<<40+32))
}

func TestCheckDescKind(t *testing.T) {
	for k := MemcpyKind(-2); k <= 9; k++ {
		err := CheckDescKind(k)
		switch {
		case k < 0 || k >= 8:
			want{code: ErrInvalidParam, msg: "out of range"}.check(t, k.String(), false, err)
		case k == MemcpyInnerDeviceToDevice:
			require.NoError(t, err)
		default:
			unsupp("only ACL_MEMCPY_INNER_DEVICE_TO_DEVICE").check(t, k.String(), false, err)
		}
	}
}

func TestCheckSetMemcpyDesc(t *testing.T) {
	const k = MemcpyInnerDeviceToDevice
	for _, tc := range []struct {
		name                    string
		desc                    uint64
		kind                    MemcpyKind
		src, dst, count, config uint64
		want
	}{
		{"good", 1, k, 2, 3, 4, 0, ok},
		{"desc NULL", 0, 99, 0, 0, 0, 1, null("desc is NULL")},
		{"src NULL", 1, 99, 0, 0, 0, 1, null("srcAddr is NULL")},
		{"dst NULL", 1, 99, 2, 0, 0, 1, null("dstAddr is NULL")},
		{"count 0", 1, 99, 2, 3, 0, 1, invalid("count is 0")},
		{"config set", 1, 99, 2, 3, 4, 1, invalid("config is reserved")},
		{"kind out of range", 1, 8, 2, 3, 4, 0, invalid("kind 8 is out of range")},
		{"kind D2D passes the ACL layer", 1, 3, 2, 3, 4, 0, ok},
	} {
		tc.want.check(t, tc.name, false, CheckSetMemcpyDesc(tc.desc, tc.kind, tc.src, tc.dst, tc.count, tc.config))
	}
}

func TestCheckMemcpyAsyncWithDesc(t *testing.T) {
	for _, tc := range []struct {
		name   string
		desc   uint64
		kind   MemcpyKind
		stream uint64
		want
	}{
		{"good", 1, 6, 2, ok},
		{"desc NULL", 0, 99, 0, null("desc is NULL")},
		{"kind before the default stream", 1, 99, 0, invalid("kind 99 is out of range")},
		{"default stream", 1, 7, 0, invalid("stream is NULL")},
		{"kind 7 passes the ACL layer", 1, 7, 2, ok},
		{"kind out of range", 1, -1, 2, invalid("out of range")},
	} {
		tc.want.check(t, tc.name, false, CheckMemcpyAsyncWithDesc(tc.desc, tc.kind, tc.stream))
	}
}

func TestCheckMemcpyOffset(t *testing.T) {
	const k = MemcpyInnerDeviceToDevice
	const maxOff = offsetMaxDataOffset
	type args struct {
		dst, destMax, dstOff, src, count, srcOff uint64
		kind                                     MemcpyKind
	}
	for _, tc := range []struct {
		name string
		args
		want
	}{
		{"count 0 succeeds before anything", args{0, 0, 1 << 60, 0, 0, 1 << 60, 99}, skip},
		{"good", args{1, 100, 10, 2, 90, 5, k}, ok},
		{"dst NULL", args{0, 100, 0, 2, 8, 0, k}, rtParam("dst is NULL")},
		{"src NULL", args{1, 100, 0, 0, 8, 0, k}, rtParam("src is NULL")},
		{"kind before NULL", args{0, 100, 0, 2, 8, 0, 3}, rtParam("kind")},
		{"kind D2D", args{1, 100, 0, 2, 8, 0, 3}, rtParam("ACL_MEMCPY_DEVICE_TO_DEVICE is not supported")},
		{"kind 8", args{1, 100, 0, 2, 8, 0, 8}, rtParam("aclrtMemcpyKind(8)")},
		{"kind before offsets", args{1, 100, 1 << 60, 2, 8, 0, 0}, rtParam("kind")},
		{"src offset at the limit", args{1, 100, 0, 2, 8, maxOff, k}, ok},
		{"src offset over the limit", args{1, 100, 0, 2, 8, maxOff + 1, k}, rtParam("srcDataOffset 0x1000000000000")},
		{"dst offset over the limit", args{1, 1 << 60, maxOff + 1, 2, 8, 0, k}, rtParam("dstDataOffset 0x1000000000000 exceeds")},
		{"src offset before dst offset", args{1, 1 << 60, maxOff + 1, 2, 8, maxOff + 1, k}, rtParam("srcDataOffset")},
		{"dst offset at destMax", args{1, 100, 100, 2, 1, 0, k}, rtParam("dstDataOffset 100 is not below destMax 100")},
		{"count over the room", args{1, 100, 10, 2, 91, 0, k}, rtParam("count 91 exceeds destMax 100 - dstDataOffset 10")},
		{"count filling the room", args{1, 100, 10, 2, 90, 0, k}, ok},
		{"count at 4 GiB", args{1, 1 << 40, 0, 2, offsetMaxCount, 0, k}, ok},
		{"count over 4 GiB", args{1, 1 << 40, 0, 2, offsetMaxCount + 1, 0, k}, rtParam("device-to-device limit")},
		{"room before the 4 GiB limit", args{1, 8, 0, 2, offsetMaxCount + 1, 0, k}, rtParam("exceeds destMax 8")},
	} {
		done, err := CheckMemcpyOffset(tc.dst, tc.destMax, tc.dstOff, tc.src, tc.count, tc.srcOff, tc.kind)
		tc.want.check(t, tc.name, done, err)
	}
}

func TestCheckTimeout(t *testing.T) {
	rtParam("timeout 0").check(t, "0", false, CheckTimeout(0))
	require.NoError(t, CheckTimeoutRange(0), "0 passes the ACL layer")
	for _, ms := range []int32{-1, 1, 1 << 30} {
		require.NoError(t, CheckTimeout(ms), ms)
	}
	for _, ms := range []int32{-2, -1000, -1 << 31} {
		rtParam("timeout").check(t, "timeout", false, CheckTimeout(ms))
	}
}

func TestCheckEnablePeerAccess(t *testing.T) {
	require.NoError(t, CheckEnablePeerAccess(0))
	feature("flags 0x1 are reserved").check(t, "flags", false, CheckEnablePeerAccess(1))
	require.NoError(t, CheckPeerSelf(0, 1))
	invalid("peerDeviceId 2 is the current device").check(t, "self", false, CheckPeerSelf(2, 2))
}

func TestCheckMalloc(t *testing.T) {
	invalid("size is 0").check(t, "size 0", false, CheckMalloc(0))
	require.NoError(t, CheckMalloc(1))
	require.NoError(t, CheckMalloc(^uint64(0)-64), "the largest size the padding does not overflow")
	invalid("overflows").check(t, "size+64 overflows", false, CheckMalloc(^uint64(0)-63))
}

func TestCheckHostRegisterType(t *testing.T) {
	for _, typ := range []HostRegisterType{0, 4, 8, 12} {
		require.NoError(t, CheckHostRegisterType(typ), typ)
	}
	for _, typ := range []HostRegisterType{1, 2, 3, 16, 13, 0x80000000} {
		unsupp("is not supported").check(t, "type", false, CheckHostRegisterType(typ))
	}
}

func TestCheckMemAttr(t *testing.T) {
	require.NoError(t, CheckMemAttr(HBMMem))
	require.ErrorIs(t, CheckMemAttr(99), ErrRTInvalidMemoryType)
	require.ErrorIs(t, CheckMemAttr(-1), ErrRTInvalidMemoryType)
}

func TestItoa(t *testing.T) {
	for _, v := range []uint64{0, 7, 10, 4096, ^uint64(0)} {
		require.Equal(t, strconv.FormatUint(v, 10), itoa(v))
	}
}

// checkMemcpy2D checks aclrtMemcpy2d and aclrtMemcpy2dAsync's arguments:
// CheckMemcpy2DArgs, then Check2DLimits.
func checkMemcpy2D(dst, dpitch, src, spitch, width, height uint64, kind MemcpyKind) (done bool, err error) {
	if done, err = CheckMemcpy2DArgs(dst, dpitch, src, spitch, width, height, kind); done || err != nil {
		return
	}
	return false, Check2DLimits(width, height)
}

// checkMemset checks aclrtMemset and aclrtMemsetAsync's arguments:
// CheckMemsetArgs, then CheckMaxCount.
func checkMemset(ptr, maxCount, count uint64) (done bool, err error) {
	if done, err = CheckMemsetArgs(ptr, count); done || err != nil {
		return
	}
	return false, CheckMaxCount(maxCount, count)
}
