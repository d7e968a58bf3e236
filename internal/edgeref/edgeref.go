// Package edgeref is what the tests of the edge-classify sample
// (samples/edge-classify) check it against: it trains the sample's model
// (the sample's train.py), draws the test images, and computes the answer
// the sample must give for an image independently of it: the same
// pre-processing written again in Go (in float64), the model run directly
// through the simulator's ONNX library (onnx-gomlx over GoMLX's simplego
// backend, without the sandbox or package acl/sim/model), and the softmax
// and top k on the host.
package edgeref

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gomlx/gomlx/backends/simplego"
	"github.com/gomlx/gomlx/pkg/core/graph"
	"github.com/gomlx/gomlx/pkg/core/tensors"
	mlctx "github.com/gomlx/gomlx/pkg/ml/context"
	"github.com/gomlx/onnx-gomlx/onnx"

	"github.com/aclwasm/aclwasm/internal/testsupport"
)

// Classes are the model's classes in the order of its outputs (train.py's
// CLASSES, the sample's labels).
var Classes = []string{"hstripes", "vstripes", "disc", "cross", "checker"}

// Side is the model's input size: [1, 1, Side, Side].
const Side = 16

// Model is the approved name the sample loads its model by.
const Model = "shapes"

// Train returns a new temporary directory holding what
// samples/edge-classify/train.py writes: shapes.onnx, the trained model,
// and one example image per class, CLASS.pgm. A python3 without numpy and
// onnx fails the test (testsupport.Python).
//
// The training takes seconds of CPU and three test runs want its result
// (tests, and its wasmtime run, and cmd/aclwasm), so it is trained once
// into the repository's build directory, keyed by what determines it
// (train.py's bytes, the python3 and its numpy and onnx: the script seeds
// everything, so the same inputs write the same model), and copied from
// there; where build/ cannot be written, it is trained for the test alone.
func Train(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	py := testsupport.Python(t)
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	script := filepath.Join(root, "samples", "edge-classify", "train.py")
	trainMu.Lock()
	defer trainMu.Unlock()
	cached, err := trained(py, script, filepath.Join(root, "build", "edgeref"))
	var te trainError
	if errors.As(err, &te) {
		t.Fatal(te.err)
	}
	if err != nil {
		t.Logf("edgeref: training for this test alone: %v", err)
		if out, err := exec.Command(py, script, dir).CombinedOutput(); err != nil {
			t.Fatalf("%s %s: %v\n%s", py, script, err, out)
		}
		return dir
	}
	if err := os.CopyFS(dir, os.DirFS(cached)); err != nil {
		t.Fatalf("edgeref: copying the trained model from %s: %v", cached, err)
	}
	return dir
}

// trainError is a failure of train.py itself, which fails the test
// (rather than one of the cache's, after which the test trains alone).
type trainError struct{ err error }

func (e trainError) Error() string { return e.err.Error() }

// trainMu serializes Train within a process (another process that trains
// at the same time is handled by the rename in trained).
var trainMu sync.Mutex

// trained returns the directory under cache that holds train.py's output
// for py and script, running it there first when none does. The output is
// written beside and renamed into place, so that a directory that exists
// is whole; of two processes that train at once, the second's rename
// fails and its copy is dropped.
func trained(py, script, cache string) (string, error) {
	src, err := os.ReadFile(script)
	if err != nil {
		return "", err
	}
	// The interpreter and its libraries: another numpy may round, and so
	// train, differently.
	vers, err := exec.Command(py, "-c", "import sys, numpy, onnx; print(sys.version, numpy.__version__, onnx.__version__)").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %v: %s", py, err, vers)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00", py, vers)
	h.Write(src)
	final := filepath.Join(cache, hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(final, "shapes.onnx")); err == nil {
		return final, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(cache, "train-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // after a rename, nothing is there
	if out, err := exec.Command(py, script, tmp).CombinedOutput(); err != nil {
		return "", trainError{fmt.Errorf("%s %s: %v\n%s", py, script, err, out)}
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, "shapes.onnx")); serr != nil {
			return "", err
		}
	}
	return final, nil
}

// Pattern is one of the model's classes drawn with its parameters, as
// train.py's draw: every length is a fraction of the image.
type Pattern struct {
	Class            string
	Period, Phase    float64 // stripes, checker
	CX, CY, R, T     float64 // disc (R), cross (T)
	FG, BG           float64 // gray levels in [0, 1]
	FGColor, BGColor [3]uint8
	Color            bool // a PPM in FGColor and BGColor, else a PGM in FG and BG
	Width, Height    int
	BlendWith        *Pattern // averaged with this one (an ambiguous image)
	Noise            bool     // pseudo-random gray levels instead of a pattern
	Comment          string   // a header comment
}

// fg says whether the pixel centred at (x, y) (fractions) is foreground.
func (p Pattern) fg(x, y float64) bool {
	switch p.Class {
	case "hstripes":
		return math.Mod(y/p.Period+p.Phase, 1) < 0.5
	case "vstripes":
		return math.Mod(x/p.Period+p.Phase, 1) < 0.5
	case "disc":
		return (x-p.CX)*(x-p.CX)+(y-p.CY)*(y-p.CY) < p.R*p.R
	case "cross":
		return math.Abs(x-p.CX) < p.T || math.Abs(y-p.CY) < p.T
	case "checker":
		return int(math.Floor(x/p.Period+p.Phase)+math.Floor(y/p.Period+p.Phase))%2 == 0
	}
	panic("edgeref: no class " + p.Class)
}

// pixel is the pattern's color at (x, y): three equal levels for a gray
// image.
func (p Pattern) pixel(x, y float64) [3]float64 {
	on := p.fg(x, y)
	if p.Color {
		c := p.BGColor
		if on {
			c = p.FGColor
		}
		return [3]float64{float64(c[0]), float64(c[1]), float64(c[2])}
	}
	v := p.BG
	if on {
		v = p.FG
	}
	v = math.Round(v * 255)
	return [3]float64{v, v, v}
}

// File draws the pattern as a binary PGM (P5) or PPM (P6) file.
func (p Pattern) File() []byte {
	var b bytes.Buffer
	magic, chans := "P5", 1
	if p.Color {
		magic, chans = "P6", 3
	}
	b.WriteString(magic + "\n")
	if p.Comment != "" {
		b.WriteString("# " + p.Comment + "\n")
	}
	fmt.Fprintf(&b, "%d %d\n255\n", p.Width, p.Height)
	seed := uint32(12345)
	for i := range p.Height {
		for j := range p.Width {
			x, y := (float64(j)+0.5)/float64(p.Width), (float64(i)+0.5)/float64(p.Height)
			var c [3]float64
			switch {
			case p.Noise:
				seed = seed*1664525 + 1013904223
				v := float64(seed >> 24)
				c = [3]float64{v, v, v}
			case p.BlendWith != nil:
				a, o := p.pixel(x, y), p.BlendWith.pixel(x, y)
				for k := range c {
					c[k] = math.Round((a[k] + o[k]) / 2)
				}
			default:
				c = p.pixel(x, y)
			}
			for k := range chans {
				b.WriteByte(byte(c[k]))
			}
		}
	}
	return b.Bytes()
}

// Image is a test input: a file and the class the model must find first
// ("" for an image drawn to be ambiguous, whose answer is only compared
// with the reference's).
type Image struct {
	Name  string // a file name
	File  []byte
	Class string
}

// Images are the test images: every class, at sizes above, below and at
// the model's, gray and in color, with and without a header comment, and
// two ambiguous ones (two patterns averaged, noise), whose probabilities
// spread over the classes.
func Images() []Image {
	disc := Pattern{Class: "disc", CX: 0.5, CY: 0.45, R: 0.3, FG: 0.9, BG: 0.1, Width: 40, Height: 40, Comment: "drawn by internal/edgeref"}
	cross := Pattern{Class: "cross", CX: 0.45, CY: 0.55, T: 0.1, FG: 0.8, BG: 0.2, Width: 33, Height: 57}
	ps := []struct {
		name string
		p    Pattern
		want string
	}{
		{"disc.pgm", disc, "disc"},
		{"hstripes.ppm", Pattern{Class: "hstripes", Period: 0.25, Phase: 0.1, Color: true,
			FGColor: [3]uint8{230, 200, 40}, BGColor: [3]uint8{20, 30, 90}, Width: 64, Height: 48}, "hstripes"},
		{"cross.pgm", cross, "cross"},
		{"vstripes.pgm", Pattern{Class: "vstripes", Period: 0.3, Phase: 0.6, FG: 0.7, BG: 0.05, Width: Side, Height: Side}, "vstripes"},
		{"checker.ppm", Pattern{Class: "checker", Period: 0.26, Phase: 0.3, Color: true,
			FGColor: [3]uint8{250, 250, 250}, BGColor: [3]uint8{60, 0, 0}, Width: 50, Height: 30}, "checker"},
		{"small.pgm", Pattern{Class: "hstripes", Period: 0.3, Phase: 0, FG: 1, BG: 0, Width: 10, Height: 12}, ""},
		{"blend.pgm", Pattern{Class: "disc", CX: 0.5, CY: 0.5, R: 0.3, FG: 0.9, BG: 0.1, Width: 32, Height: 32,
			BlendWith: &Pattern{Class: "cross", CX: 0.5, CY: 0.5, T: 0.08, FG: 0.9, BG: 0.1}}, ""},
		{"noise.pgm", Pattern{Noise: true, Width: 24, Height: 20}, ""},
	}
	out := make([]Image, len(ps))
	for i, p := range ps {
		out[i] = Image{Name: p.name, File: p.p.File(), Class: p.want}
	}
	return out
}

// Preprocess decodes a binary PGM or PPM file and makes the model's input
// from it as the sample does: gray (BT.601 luma for a PPM) over maxval,
// area averaging to Side x Side (rows first), (v - 0.5) / 0.25; here in
// float64.
func Preprocess(file []byte) ([]float32, error) {
	r := bufio.NewReader(bytes.NewReader(file))
	magic := make([]byte, 2)
	if _, err := r.Read(magic); err != nil || (string(magic) != "P5" && string(magic) != "P6") {
		return nil, fmt.Errorf("edgeref: not a P5 or P6 file")
	}
	var hdr [3]int
	for i := range hdr {
		for {
			c, err := r.ReadByte()
			if err != nil {
				return nil, fmt.Errorf("edgeref: short header")
			}
			if c == '#' {
				if _, err := r.ReadString('\n'); err != nil {
					return nil, fmt.Errorf("edgeref: short header")
				}
				continue
			}
			if c >= '0' && c <= '9' {
				_ = r.UnreadByte()
				break
			}
		}
		var s strings.Builder
		for {
			c, err := r.ReadByte()
			if err != nil || c < '0' || c > '9' {
				if err == nil {
					_ = r.UnreadByte()
				}
				break
			}
			s.WriteByte(c)
		}
		hdr[i], _ = strconv.Atoi(s.String())
	}
	if _, err := r.ReadByte(); err != nil { // the whitespace before the samples
		return nil, fmt.Errorf("edgeref: short header")
	}
	w, h, maxval := hdr[0], hdr[1], float64(hdr[2])
	chans := 1
	if string(magic) == "P6" {
		chans = 3
	}
	px := make([]float64, w*h)
	for i := range px {
		var c [3]byte
		for k := range chans {
			var err error
			if c[k], err = r.ReadByte(); err != nil {
				return nil, fmt.Errorf("edgeref: short data")
			}
		}
		if chans == 1 {
			px[i] = float64(c[0]) / maxval
		} else {
			px[i] = (0.299*float64(c[0]) + 0.587*float64(c[1]) + 0.114*float64(c[2])) / maxval
		}
	}
	wy, wx := area(h, Side), area(w, Side)
	tmp := make([]float64, h*Side)
	for y := range h {
		for x := range Side {
			for i := range w {
				tmp[y*Side+x] += wx[x][i] * px[y*w+i]
			}
		}
	}
	out := make([]float32, Side*Side)
	for y := range Side {
		for x := range Side {
			acc := 0.0
			for i := range h {
				acc += wy[y][i] * tmp[i*Side+x]
			}
			out[y*Side+x] = float32((acc - 0.5) / 0.25)
		}
	}
	return out, nil
}

// area is the out x in matrix of area averaging: output pixel o covers
// [o*s, (o+1)*s) of the input, s = in/out, each input pixel weighted by
// its overlap with that range, over s.
func area(in, out int) [][]float64 {
	s := float64(in) / float64(out)
	m := make([][]float64, out)
	for o := range m {
		m[o] = make([]float64, in)
		lo, hi := float64(o)*s, float64(o+1)*s
		for i := range in {
			a, z := math.Max(lo, float64(i)), math.Min(hi, float64(i+1))
			if z > a {
				m[o][i] = (z - a) / s
			}
		}
	}
	return m
}

// Logits runs the ONNX model in file on one input of [1, 1, Side, Side]
// directly through onnx-gomlx and returns its output.
func Logits(file string, input []float32) (logits []float32, err error) {
	defer func() {
		if p := recover(); p != nil { // the library reports some failures by panicking
			err = fmt.Errorf("edgeref: %v", p)
		}
	}()
	m, err := onnx.ReadFile(file)
	if err != nil {
		return nil, err
	}
	be, err := simplego.New("")
	if err != nil {
		return nil, err
	}
	defer be.Finalize()
	ctx := mlctx.New()
	if err := m.VariablesToContext(ctx); err != nil {
		return nil, err
	}
	in := tensors.FromFlatDataAndDimensions(input, 1, 1, Side, Side)
	out, err := mlctx.ExecOnce(be, ctx, func(ctx *mlctx.Context, x *graph.Node) *graph.Node {
		return m.CallGraph(ctx, x.Graph(), map[string]*graph.Node{"image": x})[0]
	}, in)
	if err != nil {
		return nil, err
	}
	defer out.FinalizeAll()
	return tensors.CopyFlatData[float32](out)
}

// Probabilities is the answer the sample must give for file before its top
// k: the softmax (in float64) of the model's logits for the file, run
// through onnx-gomlx, by class.
func Probabilities(model string, file []byte) ([]float64, error) {
	in, err := Preprocess(file)
	if err != nil {
		return nil, err
	}
	logits, err := Logits(model, in)
	if err != nil {
		return nil, err
	}
	if len(logits) != len(Classes) {
		return nil, fmt.Errorf("edgeref: the model gave %d logits, want %d", len(logits), len(Classes))
	}
	mx := math.Inf(-1)
	for _, l := range logits {
		mx = math.Max(mx, float64(l))
	}
	p := make([]float64, len(logits))
	sum := 0.0
	for i, l := range logits {
		p[i] = math.Exp(float64(l) - mx)
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return p, nil
}

// Tolerance is how far a probability the sample prints (six decimals,
// computed in float32) may be from the reference's.
const Tolerance = 1e-5

// Check compares the sample's answer (k lines "RANK LABEL PROBABILITY")
// with the reference's probabilities: each line's probability is its
// label's within Tolerance, and rank r holds the reference's r-th label,
// or one whose reference probability is within Tolerance of it (a near
// tie, which float32 may order either way). It returns the labels in the
// answer's order.
func Check(answer string, want []float64, k int) ([]string, error) {
	order := make([]int, len(want))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return want[order[a]] > want[order[b]] })
	lines := strings.Split(strings.TrimSuffix(answer, "\n"), "\n")
	if len(lines) != k || !strings.HasSuffix(answer, "\n") {
		return nil, fmt.Errorf("edgeref: want %d lines, got %q", k, answer)
	}
	var labels []string
	for r, line := range lines {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != strconv.Itoa(r+1) {
			return nil, fmt.Errorf("edgeref: line %d: want \"%d LABEL PROBABILITY\", got %q", r+1, r+1, line)
		}
		c := indexOf(Classes, f[1])
		p, err := strconv.ParseFloat(f[2], 64)
		if c < 0 || err != nil || len(f[2]) != len("0.000000") {
			return nil, fmt.Errorf("edgeref: line %d: %q: want a class of %v and a probability with six decimals", r+1, line, Classes)
		}
		if math.Abs(p-want[c]) > Tolerance {
			return nil, fmt.Errorf("edgeref: line %d: %q: the reference's probability of %s is %.8f", r+1, line, f[1], want[c])
		}
		if ref := order[r]; ref != c && math.Abs(want[ref]-want[c]) > Tolerance {
			return nil, fmt.Errorf("edgeref: line %d: %q: the reference ranks %s (%.8f) there", r+1, line, Classes[ref], want[ref])
		}
		labels = append(labels, f[1])
	}
	return labels, nil
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
