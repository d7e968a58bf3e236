package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/aclwasm/aclwasm/acl"
	"github.com/aclwasm/aclwasm/acl/sim"
	"github.com/aclwasm/aclwasm/host"
	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// noErrors fails if any host call of the run failed.
func noErrors(t *testing.T, st host.Stats) {
	t.Helper()
	for fn, fs := range st.Funcs {
		require.Empty(t, fs.Errors, "%s failed", fn)
	}
}

func TestRoundtrip(t *testing.T) {
	sb := sharedSandbox(t)
	base := sb.freeMem(t)
	pl := sb.plugin(t, "roundtrip")
	for _, tc := range []struct {
		size   int
		seed   uint32
		device int
	}{
		{1 << 20, 0x5eed, 0}, // the defaults
		{12345, 7, 0},
		{1, 0xffffffff, 1},
		{3 << 20, 42, 1},
	} {
		t.Run(fmt.Sprintf("size=%d,seed=%#x,device=%d", tc.size, tc.seed, tc.device), func(t *testing.T) {
			var args []string
			if tc.size != 1<<20 || tc.seed != 0x5eed {
				args = []string{"-size", strconv.Itoa(tc.size), "-seed", strconv.FormatUint(uint64(tc.seed), 10), "-device", strconv.Itoa(tc.device)}
			}
			o := mustRun(t, pl, "roundtrip", args...)
			require.Equal(t, "roundtrip: OK", lastLine(o.stdout), "%v", o)

			want := fnv1a64(pattern(tc.seed, tc.size))
			require.Equal(t, want, field(t, o.stdout, "sent", "fnv1a64"), "the pattern the plugin sent")
			require.Equal(t, want, field(t, o.stdout, "received", "fnv1a64"), "what came back from the device")
			require.Equal(t, uint64(tc.size), field(t, o.stdout, "matching", ""))

			// One copy per direction, each of the whole payload.
			n := uint64(tc.size)
			require.Equal(t, map[string]uint64{"H2D": n, "D2D": n, "D2H": n}, o.res.Stats.Bytes)
			require.Equal(t, uint64(3), o.res.Stats.Funcs["aclrtMemcpy"].Calls)
			noErrors(t, o.res.Stats)
		})
	}
	require.Equal(t, base, sb.freeMem(t), "every session released its device memory")
}

// tilesSheet is what image-tiles must download: the image (width x height
// RGB, the test pattern) padded with pad to whole tiles.
func tilesSheet(w, h, tile int, seed uint32, pad byte) []byte {
	const bpp = 3
	img := pattern(seed, w*h*bpp)
	tx, ty := (w+tile-1)/tile, (h+tile-1)/tile
	sw, sh := tx*tile*bpp, ty*tile
	sheet := make([]byte, sw*sh)
	for y := 0; y < sh; y++ {
		for x := 0; x < sw; x++ {
			if y < h && x < w*bpp {
				sheet[y*sw+x] = img[y*w*bpp+x]
			} else {
				sheet[y*sw+x] = pad
			}
		}
	}
	return sheet
}

func TestImageTiles(t *testing.T) {
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "image-tiles", host.Policy{})
	for _, tc := range []struct {
		w, h, tile int
		seed       uint32
		pad        byte
	}{
		{1000, 700, 128, 0x1e5, 0}, // the defaults
		{333, 250, 64, 7, 0xee},
		{256, 128, 64, 1, 0x11}, // whole tiles only: nothing to pad
		{1, 1, 16, 99, 0x80},
		{97, 300, 100, 5, 0xff},
	} {
		t.Run(fmt.Sprintf("%dx%d/%d", tc.w, tc.h, tc.tile), func(t *testing.T) {
			o := mustRun(t, pl, "image-tiles", strconv.Itoa(tc.w), strconv.Itoa(tc.h), strconv.Itoa(tc.tile),
				strconv.FormatUint(uint64(tc.seed), 10), strconv.Itoa(int(tc.pad)))
			require.Equal(t, "image-tiles: OK", lastLine(o.stdout), "%v", o)

			sheet := tilesSheet(tc.w, tc.h, tc.tile, tc.seed, tc.pad)
			require.Equal(t, fnv1a64(sheet), field(t, o.stdout, "sheet", "fnv1a64"), "the downloaded sheet")

			const bpp = 3
			tx, ty := (tc.w+tc.tile-1)/tc.tile, (tc.h+tc.tile-1)/tc.tile
			tiles := tx * ty
			full := (tc.w / tc.tile) * (tc.h / tc.tile)
			img, tileBytes := uint64(tc.w*tc.h*bpp), uint64(tc.tile*tc.tile*bpp)
			st := o.res.Stats
			noErrors(t, st)
			// Upload: the image's pixels only, not the stride padding.
			// Extract: each pixel once. Download: whole tiles.
			require.Equal(t, map[string]uint64{"H2D": img, "D2H": uint64(tiles) * tileBytes}, st.Funcs["aclrtMemcpy2d"].Bytes)
			require.Equal(t, uint64(1+tiles), st.Funcs["aclrtMemcpy2d"].Calls)
			require.Equal(t, map[string]uint64{"D2D": img}, st.Funcs["aclrtMemcpy2dAsync"].Bytes)
			require.Equal(t, uint64(tiles), st.Funcs["aclrtMemcpy2dAsync"].Calls)
			require.Equal(t, uint64(tiles-full), st.Funcs["aclrtMemset"].Calls, "one memset per edge tile")
		})
	}
	require.Equal(t, base, sb.freeMem(t))
}

// embeddingTable is embedding-gather's table: element (row, col) is
// ((row*131 + col*7) mod 1000) / 2, little-endian f32.
func embeddingRow(row uint32, dim int) []byte {
	b := make([]byte, 4*dim)
	for c := 0; c < dim; c++ {
		v := float32((row*131+uint32(c)*7)%1000) * 0.5
		binary.LittleEndian.PutUint32(b[4*c:], math.Float32bits(v))
	}
	return b
}

// tokenIDs is embedding-gather's batch: xorshift32 from the seed (0 means
// 0x9e3779b9), modulo the rows.
func tokenIDs(seed uint32, n int, rows uint32) []uint32 {
	x := seed
	if x == 0 {
		x = 0x9e3779b9
	}
	ids := make([]uint32, n)
	for i := range ids {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		ids[i] = x % rows
	}
	return ids
}

func TestEmbeddingGather(t *testing.T) {
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "embedding-gather", host.Policy{})
	for _, tc := range []struct {
		rows, dim, batch int
		seed             uint32
		bad              int
	}{
		{4096, 64, 32, 7, 5}, // the defaults
		{1000, 3, 7, 1, 0},   // the bad entry first
		{5, 1, 100, 0, 99},   // the bad entry last; rows repeat
		{20000, 128, 512, 0xabcdef, 300},
	} {
		t.Run(fmt.Sprintf("%dx%d/batch%d/bad%d", tc.rows, tc.dim, tc.batch, tc.bad), func(t *testing.T) {
			o := mustRun(t, pl, "embedding-gather", strconv.Itoa(tc.rows), strconv.Itoa(tc.dim), strconv.Itoa(tc.batch),
				strconv.FormatUint(uint64(tc.seed), 10), strconv.Itoa(tc.bad))
			require.Equal(t, "embedding-gather: OK", lastLine(o.stdout), "%v", o)

			var want []byte
			for _, id := range tokenIDs(tc.seed, tc.batch, uint32(tc.rows)) {
				want = append(want, embeddingRow(id, tc.dim)...)
			}
			require.Equal(t, fnv1a64(want), field(t, o.stdout, "gathered", "fnv1a64"), "the gathered rows")

			// The bad batch: refused as a whole, naming the bad entry.
			batchBytes := uint64(len(want))
			require.Equal(t, uint64(tc.bad), field(t, o.stdout, "->", "failIndex"))
			require.Contains(t, o.stdout, fmt.Sprintf("aclrtMemcpyBatch: dsts[%d] ", tc.bad))
			require.Contains(t, o.stdout, fmt.Sprintf("device batch untouched: %d of %[1]d bytes", batchBytes))
			st := o.res.Stats
			batch := st.Funcs["aclrtMemcpyBatch"]
			require.Equal(t, uint64(2), batch.Calls)
			require.Equal(t, map[acl.Error]uint64{acl.ErrRTParamInvalid: 1}, batch.Errors, "only the bad batch failed")
			require.Equal(t, map[string]uint64{"H2D": batchBytes}, batch.Bytes, "the refused batch moved nothing")
			require.Equal(t, map[string]uint64{"D2H": 2 * batchBytes}, st.Funcs["aclrtMemcpy"].Bytes, "two read-backs")
		})
	}
	require.Equal(t, base, sb.freeMem(t))
}

var chunkLine = regexp.MustCompile(`(?m)^\s*chunk\s+(\d+)\s+(\d+) bytes\s+fnv1a64 (0x[0-9a-f]+)\s+(\S+)$`)

func TestPipeline(t *testing.T) {
	// With the timing model the elapsed time is the chip's, the same on
	// any machine: the uploads (host to device) and downloads (device to
	// host) take the two directions of the host link, so with two buffers
	// the pipeline takes chunks+1 copy times, not 2*chunks.
	sb := newSandbox(t, sim.WithTiming())
	base := sb.freeMem(t)
	pl := sb.load(t, "pipeline", host.Policy{})
	for _, tc := range []struct {
		chunks, size int
		seed         uint32
	}{
		{16, 256 << 10, 0xc0ffee}, // the defaults
		{1, 100, 5},
		{2, 4096, 1},
		{7, 65537, 9},
		{64, 1 << 10, 0},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.chunks, tc.size), func(t *testing.T) {
			o := mustRun(t, pl, "pipeline", strconv.Itoa(tc.chunks), strconv.Itoa(tc.size), strconv.FormatUint(uint64(tc.seed), 10))
			require.Equal(t, "pipeline: OK", lastLine(o.stdout), "%v", o)

			input := pattern(tc.seed, tc.chunks*tc.size)
			lines := chunkLine.FindAllStringSubmatch(o.stdout, -1)
			require.Len(t, lines, tc.chunks, "one line per chunk")
			for n, m := range lines {
				require.Equal(t, strconv.Itoa(n), m[1], "chunks arrive in order")
				require.Equal(t, strconv.Itoa(tc.size), m[2])
				got, err := strconv.ParseUint(m[3], 0, 64)
				require.NoError(t, err)
				require.Equal(t, fnv1a64(input[n*tc.size:(n+1)*tc.size]), got, "chunk %d", n)
				require.Equal(t, "OK", m[4])
			}

			st := o.res.Stats
			noErrors(t, st)
			total, n := uint64(tc.chunks*tc.size), uint64(tc.chunks)
			require.Equal(t, map[string]uint64{"H2D": total, "D2H": total}, st.Bytes)
			require.Equal(t, 2*n, st.Funcs["aclrtMemcpyAsync"].Calls)
			require.Equal(t, 2*n+2, st.Funcs["aclrtRecordEvent"].Calls)
			require.Equal(t, n+max(n, 2)-2, st.Funcs["aclrtStreamWaitEvent"].Calls, "every download waits; uploads from the third on")
			require.Equal(t, uint64(1), st.Funcs["aclrtEventElapsedTime"].Calls)
			m := regexp.MustCompile(`(?m)^\s*elapsed (\d+\.\d{3}) ms`).FindStringSubmatch(o.stdout)
			require.NotNil(t, m, o.stdout)
			got, err := strconv.ParseFloat(m[1], 64)
			require.NoError(t, err)
			copyMs := 0.005 + float64(tc.size)/25e9*1e3 // Atlas A2: 5 µs launch, 25 GB/s each way
			require.InDelta(t, float64(tc.chunks+1)*copyMs, got, 0.0006, "modeled time of %d overlapped chunks", tc.chunks)
		})
	}
	require.Equal(t, base, sb.freeMem(t))
}

// permuted is src (blocks of blk bytes) with block k of the result taken
// from block from(k).
func permuted(src []byte, blocks, blk int, from func(k int) int) []byte {
	out := make([]byte, 0, len(src))
	for k := 0; k < blocks; k++ {
		j := from(k)
		out = append(out, src[j*blk:(j+1)*blk]...)
	}
	return out
}

func TestDescriptors(t *testing.T) {
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "descriptors", host.Policy{})
	for _, tc := range []struct {
		blocks, blk int
		seed        uint32
	}{
		{16, 4096, 3}, // the defaults
		{1, 1, 0},
		{5, 333, 12},
		{64, 64, 63},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.blocks, tc.blk), func(t *testing.T) {
			o := mustRun(t, pl, "descriptors", strconv.Itoa(tc.blocks), strconv.Itoa(tc.blk), strconv.FormatUint(uint64(tc.seed), 10))
			require.Equal(t, "descriptors: OK", lastLine(o.stdout), "%v", o)

			src := pattern(tc.seed, tc.blocks*tc.blk)
			reversed := fnv1a64(permuted(src, tc.blocks, tc.blk, func(k int) int { return tc.blocks - 1 - k }))
			rot := int(tc.seed) % tc.blocks
			rotated := fnv1a64(permuted(src, tc.blocks, tc.blk, func(k int) int { return (k + rot) % tc.blocks }))
			require.Equal(t, reversed, field(t, o.stdout, "run", "fnv1a64"), "descriptors: blocks reversed")
			require.Equal(t, reversed, field(t, o.stdout, "clone", "fnv1a64"), "copied descriptors: the same copies")
			require.Equal(t, rotated, field(t, o.stdout, "offsets", "fnv1a64"), "offset copies: blocks rotated")
			require.Equal(t, rotated, field(t, o.stdout, "repoint", "fnv1a64"), "offset copies after re-pointing the slot")

			st := o.res.Stats
			noErrors(t, st)
			b := uint64(tc.blocks)
			require.Equal(t, b, st.Funcs["aclrtSetMemcpyDesc"].Calls)
			require.Equal(t, 2*b, st.Funcs["aclrtMemcpyAsyncWithDesc"].Calls)
			require.Equal(t, 2*b, st.Funcs["aclrtMemcpyAsyncWithOffset"].Calls)
			total, desc := uint64(tc.blocks*tc.blk), field(t, o.stdout, "size", "")
			require.Equal(t, map[string]uint64{
				"H2D": total + 16 + 8,          // the source, the slot table, one slot
				"D2H": 4 * total,               // four results checked
				"D2D": b * ((desc + 63) &^ 63), // the descriptor table (64-byte aligned slots), cloned
			}, st.Funcs["aclrtMemcpy"].Bytes)
		})
	}
	require.Equal(t, base, sb.freeMem(t))
}

func TestASChecksum(t *testing.T) {
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "as-checksum", host.Policy{})
	ctx := context.Background()
	inst, err := pl.Instantiate(ctx, host.Config{})
	require.NoError(t, err, "_initialize sets up the device, a stream and the pinned bounce buffer")
	closed := false
	defer func() {
		if !closed {
			inst.Close(ctx)
		}
	}()
	call := func(name string, args ...uint64) uint64 {
		t.Helper()
		res, err := inst.Call(ctx, name, args...)
		require.NoError(t, err, name)
		require.Len(t, res, 1)
		return res[0]
	}

	const n, seed = 200_003, 77 // more than three 64 KiB chunks
	data := pattern(seed, n)
	require.Zero(t, call("upload", n, seed))
	require.Equal(t, fnv1a64(data), call("checksum", 0, n), "the whole buffer")
	require.Equal(t, fnv1a64(data[1000:71000]), call("checksum", 1000, 70000), "a range across a chunk boundary")
	require.Equal(t, fnv1a64(nil), call("checksum", 5, 0), "an empty range")

	require.Zero(t, call("fill", 65530, 20, 0x7f))
	for i := 65530; i < 65550; i++ {
		data[i] = 0x7f
	}
	require.Equal(t, fnv1a64(data), call("checksum", 0, n), "after the memset")

	// A range past the end: the host refuses the copy; the export says so.
	require.Zero(t, call("checksum", n-10, 100))
	require.Equal(t, uint64(acl.ErrRTParamInvalid), call("lastCode"))
	require.Contains(t, inst.Session().LastError(), "crosses the end of the allocation")
	require.Equal(t, uint64(acl.ErrRTParamInvalid), call("fill", n-10, 100, 1), "memset past the end")

	// demo uploads again (a new buffer) and hashes it all.
	require.Equal(t, fnv1a64(pattern(3, 1000)), call("demo", 1000, 3))

	st := inst.Session().Stats()
	require.Equal(t, map[string]uint64{
		"H2D": n + 1000,             // two uploads
		"D2H": n + 70000 + n + 1000, // four checksums that succeeded
	}, st.Bytes)
	require.Equal(t, map[acl.Error]uint64{acl.ErrRTParamInvalid: 1}, st.Funcs["aclrtMemcpyAsync"].Errors)
	require.Zero(t, call("release"))
	closed = true
	require.NoError(t, inst.Close(ctx))
	require.Equal(t, base, sb.freeMem(t))
}

// cppMemoryWant is the output of samples/cpp-memory, with every "%p" value
// replaced by <p>, and its buffers' expected contents: block i is words
// [i*16384, (i+1)*16384) of the pattern i*2654435761+12345 (little-endian
// u32), block 3 with block 0's bytes [512, 1536) at 256, and the typed
// buffer zeros then block 1's first half.
func cppMemoryWant() string {
	const blocks, blockBytes = 4, 64 << 10
	src := make([]byte, blocks*blockBytes)
	for i := 0; i < len(src)/4; i++ {
		binary.LittleEndian.PutUint32(src[4*i:], uint32(i)*2654435761+12345)
	}
	buf := map[string][]byte{}
	for i := 0; i < blocks; i++ {
		buf[fmt.Sprintf("block %d", i)] = src[i*blockBytes : (i+1)*blockBytes]
	}
	b3 := append([]byte(nil), buf["block 3"]...)
	copy(b3[256:], src[512:1536])
	buf["block 3"] = b3
	typed := make([]byte, blockBytes)
	copy(typed[blockBytes/2:], src[blockBytes:blockBytes+blockBytes/2])
	buf["typed"] = typed

	var w strings.Builder
	w.WriteString("[INFO]  run mode: ACL_HOST\n")
	fmt.Fprintf(&w, "[INFO]  pinned host buffer: %d bytes at <p>\n", blocks*blockBytes)
	for i := 0; i < blocks; i++ {
		fmt.Fprintf(&w, "[INFO]  device block %d: %d bytes at <p>\n", i, blockBytes)
	}
	fmt.Fprintf(&w, "[INFO]  typed device buffer: %d words at <p>\n", blockBytes/4)
	w.WriteString("[INFO]  slot table: 2 slots of 4 bytes at <p>\n")
	w.WriteString("[INFO]  device blocks are ACL_RT_MEM_TYPE_DEV: 1\n")
	w.WriteString("[INFO]  uploaded 4 blocks, elapsed time measured\n")
	for _, k := range []string{"block 0", "block 1", "block 2", "block 3", "typed"} {
		fmt.Fprintf(&w, "[INFO]  %-8s <p> fnv1a64 %016x OK\n", k, fnv1a64(buf[k]))
	}
	w.WriteString("[INFO]  resources released\ncpp-memory: OK\n")
	return w.String()
}

var cppPointer = regexp.MustCompile(`0x[0-9a-f]+`)

// checkCppMemory checks cpp-memory's output exactly, "%p" values aside,
// and that those are what a native-layout guest must see: the host buffer
// in guest memory, device pointers in the window above it (the default
// policy's 256 MiB, up to 2^32 - 2^16), 64-byte aligned, distinct, and the
// same pointer each time a buffer is printed.
func checkCppMemory(t *testing.T, stdout string) {
	t.Helper()
	require.Equal(t, cppMemoryWant(), cppPointer.ReplaceAllString(stdout, "<p>"), "the output, %%p aside:\n%s", stdout)
	var ps []uint64
	for _, s := range cppPointer.FindAllString(stdout, -1) {
		v, err := strconv.ParseUint(s[2:], 16, 64)
		require.NoError(t, err)
		ps = append(ps, v)
	}
	require.Len(t, ps, 12) // the host buffer, 6 device buffers, 5 verified again
	hostPtr, dev, again := ps[0], ps[1:7], ps[7:]
	guestMem := uint64(host.DefaultMemoryPages) * 65536
	require.Less(t, hostPtr, guestMem, "the pinned host buffer is guest memory")
	seen := map[uint64]bool{}
	for _, p := range dev {
		require.GreaterOrEqual(t, p, guestMem, "device pointer %#x above guest memory", p)
		require.Less(t, p, uint64(1<<32-1<<16), "device pointer %#x below the window's end", p)
		require.Zero(t, p%64, "device pointer %#x 64-byte aligned", p)
		require.False(t, seen[p], "device pointer %#x handed out twice", p)
		seen[p] = true
	}
	require.Equal(t, dev[:5], again, "each buffer prints the same pointer when verified (blocks 0-3, typed)")
}

func TestCppMemory(t *testing.T) {
	sb := newSandbox(t)
	base := sb.freeMem(t)
	pl := sb.load(t, "cpp-memory", host.Policy{})
	var stdout, stderr, logs bytes.Buffer
	res, err := pl.Run(context.Background(), host.Config{
		Args: []string{"cpp-memory"}, Stdout: &stdout, Stderr: &stderr,
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	require.NoError(t, err)
	require.Zero(t, res.ExitCode, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	checkCppMemory(t, stdout.String())

	// ACL_APP_LOG: formatted in the guest, one record from the host.
	var rec map[string]any
	require.NoError(t, json.Unmarshal(logs.Bytes(), &rec), "one JSON record: %s", logs.String())
	require.Equal(t, "INFO", rec["level"])
	require.Equal(t, "5 buffers verified, 0 bad", rec["msg"])
	require.Equal(t, "Verify", rec["func"])
	require.True(t, strings.HasSuffix(rec["file"].(string), "samples/cpp-memory/main.cpp"), "%v", rec["file"])
	require.Positive(t, rec["line"])

	st := res.Stats
	noErrors(t, st)
	const block = 64 << 10
	require.Equal(t, map[string]uint64{"H2D": 4*block + 8, "D2D": block/2 + 1024, "D2H": 5 * block}, st.Bytes)
	require.Equal(t, uint64(1), st.Funcs["aclrtMemcpyAsyncWithOffset"].Calls)
	require.Equal(t, uint64(1), st.Funcs["aclrtDestroyStreamForce"].Calls)
	require.Equal(t, uint64(1), st.Funcs["aclrtResetDeviceForce"].Calls)
	require.Equal(t, base, sb.freeMem(t), "the session released its device memory")
}

// notifyPipelineWant is the whole output of samples/notify-pipeline run
// with config as aclInit's path: each block's sum is recomputed here from
// the sample's word formula, (b*4096 + i) * 2654435761 + 0x9e37 mod 2^32,
// and the bad call (an event passed as aclrtRecordNotify's stream) is
// 107017, which the error state keeps until aclrtGetLastError reads it.
func notifyPipelineWant(config string) string {
	const blocks, words = 4, 4096
	var w strings.Builder
	fmt.Fprintf(&w, "aclInit(%q): 0\nnotify ids distinct: yes\n", config)
	fmt.Fprintf(&w, "2 streams, %d notifies, %d blocks of %d bytes\n", blocks, blocks, 4*words)
	w.WriteString("pipeline done, elapsed time measured (non-negative)\n")
	for b := 0; b < blocks; b++ {
		var sum uint64
		for i := 0; i < words; i++ {
			sum += uint64(uint32(b*words+i)*2654435761 + 0x9e37)
		}
		fmt.Fprintf(&w, "block %d: callback ran 1 time(s), sum %d OK\n", b, sum)
	}
	w.WriteString("error state: before 0, an event passed as a stream 107017, peek 107017, last 107017, then 0\n")
	w.WriteString("notify-pipeline: OK\n")
	return w.String()
}

// TestSampleNotifyPipeline runs samples/notify-pipeline, a native-style C++
// program (built with the SDK's callback option only), on the simulator
// with and without its timing model and, when ACLWASM_TEST_ACL_LIB names
// a libascendcl.so (the stand-in in CI), on the native backend over it:
// the consumer stream's work, queued first, runs after the producer's
// uploads because of the notifies, each block's host callback sums what
// the download brought back, and the output is checked exactly. With
// Policy.RefuseInitConfig, aclInit's path is refused (100003) and the
// sample stops there.
func TestSampleNotifyPipeline(t *testing.T) {
	type backend struct {
		name string
		b    acl.Backend
	}
	backends := []backend{{"sim", sim.New()}, {"sim-timing", sim.New(sim.WithTiming())}}
	for _, bk := range backends {
		t.Cleanup(func() { require.NoError(t, bk.b.Close()) })
	}
	if b := testsupport.Native(t); b != nil { // closed when the test ends
		backends = append(backends, backend{"native", b})
	}
	wasm := testsupport.Guest(t, "notify-pipeline")
	ctx := context.Background()
	for _, bk := range backends {
		t.Run(bk.name, func(t *testing.T) {
			rt, err := host.NewRuntime(ctx, host.WithBackend(bk.b), host.WithEngine(engine))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, rt.Close(ctx)) })
			pl, err := rt.Load(ctx, wasm, testCompile(host.Policy{Timeout: time.Minute}))
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })

			for _, config := range []string{"", "/etc/ascend/acl.json"} {
				var args []string
				want := "acl.json"
				if config != "" {
					args, want = []string{config}, config
				}
				o := mustRun(t, pl, "notify-pipeline", args...)
				require.Equal(t, notifyPipelineWant(want), o.stdout, "%v", o)
				st := o.res.Stats
				require.Equal(t, uint64(4), st.Funcs["aclrtLaunchHostFunc"].Calls)
				require.Equal(t, uint64(4), st.Funcs["aclrtCreateNotify"].Calls)
				require.Equal(t, uint64(4), st.Funcs["aclrtWaitAndResetNotify"].Calls)
				require.Equal(t, uint64(5), st.Funcs["aclrtRecordNotify"].Calls, "4 records and the bad call")
				require.Equal(t, map[acl.Error]uint64{acl.ErrRTInvalidHandle: 1}, st.Funcs["aclrtRecordNotify"].Errors)
				require.Equal(t, uint64(4), st.Funcs["aclrtDestroyNotify"].Calls)
				const n = 4 * 4 * 4096
				require.Equal(t, map[string]uint64{"H2D": n, "D2D": n, "D2H": n}, st.Bytes)
				for fn, fs := range st.Funcs {
					if fn != "aclrtRecordNotify" {
						require.Empty(t, fs.Errors, "%s failed", fn)
					}
				}
			}
		})
	}

	// aclInit's configuration path refused by the policy: 100003.
	sb := newSandbox(t)
	pl, err := sb.rt.Load(ctx, wasm, testCompile(host.Policy{RefuseInitConfig: true}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, pl.Close(ctx)) })
	o := run(ctx, pl, "notify-pipeline")
	require.NoError(t, o.err)
	require.Equal(t, uint32(1), o.res.ExitCode)
	require.Equal(t, "aclInit(\"acl.json\"): 100003\nnotify-pipeline: FAILED\n", o.stdout)
}
