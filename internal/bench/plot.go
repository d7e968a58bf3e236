package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The chart answers the question the suite exists for: how close the
// sandbox comes to the backend called directly and to memmove. One panel
// per mode (rows) and direction (columns), each with the same three
// series in the same colours, on log axes with units.
var (
	sandboxColor = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff} // blue
	directColor  = color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff} // orange
	memmoveColor = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff} // grey
	noiseColor   = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff} // red
)

// panelSize is one panel's size in the chart.
var panelW, panelH = vg.Points(300), vg.Points(220)

// WriteSVG draws the report's chart (see plot) as SVG.
func (r *Report) WriteSVG(w io.Writer) error {
	return r.draw(w, func(width, height vg.Length) (vg.CanvasWriterTo, draw.Canvas) {
		c := vgsvg.New(width, height)
		return c, draw.New(c)
	})
}

// WritePNG draws the report's chart (see plot) as a PNG image.
func (r *Report) WritePNG(w io.Writer) error {
	return r.draw(w, func(width, height vg.Length) (vg.CanvasWriterTo, draw.Canvas) {
		c := vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
		return vgimg.PngCanvas{Canvas: c}, draw.New(c)
	})
}

// draw lays the panels out on a canvas that mk makes, titled with the
// engine and backend, and writes it to w.
func (r *Report) draw(w io.Writer, mk func(width, height vg.Length) (vg.CanvasWriterTo, draw.Canvas)) error {
	panels, modes, kinds, err := r.panels()
	if err != nil {
		return err
	}
	const titleH = 72
	width := max(panelW*vg.Length(len(kinds)), vg.Points(640))
	height := panelH*vg.Length(len(modes)) + vg.Points(titleH)
	out, dc := mk(width, height)
	head := func(size vg.Length) draw.TextStyle {
		return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, size), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	}
	dc.FillText(head(vg.Points(15)), vg.Point{X: vg.Points(12), Y: height - vg.Points(8)}, "Copy bandwidth: sandbox vs backend called directly vs memmove")
	dc.FillText(head(vg.Points(11)), vg.Point{X: vg.Points(12), Y: height - vg.Points(30)}, r.Backend)
	// One legend for every panel: the series look the same in each.
	leg := plot.NewLegend()
	for _, s := range seriesStyles {
		ls, gs := s.styles()
		leg.Add(s.name, &plotter.Line{LineStyle: ls}, &plotter.Scatter{GlyphStyle: gs})
	}
	leg.Add("sandbox above memmove: noise, not a result", &plotter.Scatter{GlyphStyle: noiseGlyph()})
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.Top = true
	leg.Draw(draw.Crop(dc, width-vg.Points(330), -vg.Points(8), height-vg.Points(titleH), -vg.Points(4)))
	tiles := draw.Tiles{
		Rows: len(modes), Cols: len(kinds),
		PadX: vg.Points(8), PadY: vg.Points(8),
		PadTop: vg.Points(titleH), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(4),
	}
	cs := plot.Align(panels, tiles, dc)
	for j := range panels {
		for i, p := range panels[j] {
			if p != nil {
				p.Draw(cs[j][i])
			}
		}
	}
	_, err = out.WriteTo(w)
	return err
}

// panels makes one plot per mode and direction of the report (nil where
// the report has no point), with the modes and directions in table order.
func (r *Report) panels() ([][]*plot.Plot, []Mode, []Kind, error) {
	var modes []Mode
	var kinds []Kind
	for _, p := range r.Points {
		if !slices.Contains(modes, p.Mode) {
			modes = append(modes, p.Mode)
		}
		if !slices.Contains(kinds, p.Kind) {
			kinds = append(kinds, p.Kind)
		}
	}
	order := func(all []Mode, m Mode) int { return slices.Index(all, m) }
	slices.SortFunc(modes, func(a, b Mode) int { return order(Modes, a) - order(Modes, b) })
	slices.SortFunc(kinds, func(a, b Kind) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
	if len(modes) == 0 {
		return nil, nil, nil, fmt.Errorf("bench: nothing to plot")
	}
	out := make([][]*plot.Plot, len(modes))
	for j, m := range modes {
		out[j] = make([]*plot.Plot, len(kinds))
		for i, k := range kinds {
			var pts []Point
			for _, p := range r.Points {
				if p.Mode == m && p.Kind == k && p.Sandbox.BytesPerSec > 0 && p.Direct.BytesPerSec > 0 && p.Memmove.BytesPerSec > 0 {
					pts = append(pts, p)
				}
			}
			if len(pts) == 0 {
				continue
			}
			pl, err := panel(m, k, pts)
			if err != nil {
				return nil, nil, nil, err
			}
			out[j][i] = pl
		}
	}
	return out, modes, kinds, nil
}

// panel plots the points of one mode and direction: bandwidth in GB/s
// against the copy size, both log scales, the sandbox's, the direct
// backend's and memmove's, and a red cross on each sandbox point that
// measured faster than memmove (noise: see Point.noisy).
func panel(m Mode, k Kind, pts []Point) (*plot.Plot, error) {
	slices.SortFunc(pts, func(a, b Point) int { return int(a.Size>>1) - int(b.Size>>1) })
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s %s", modeTitle[m], k)
	p.X.Label.Text = "copy size"
	p.Y.Label.Text = "bandwidth (GB/s)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	var ticks []plot.Tick
	for _, pt := range pts {
		ticks = append(ticks, plot.Tick{Value: float64(pt.Size), Label: Size(pt.Size)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	// Upright labels overlap from a dozen sizes on.
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	p.X.Tick.Label.Font.Size = vg.Points(8)
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	xy := func(f func(Point) float64) plotter.XYs {
		out := make(plotter.XYs, len(pts))
		for i, pt := range pts {
			out[i] = plotter.XY{X: float64(pt.Size), Y: f(pt) / 1e9}
		}
		return out
	}
	var noise plotter.XYs
	for _, pt := range pts {
		if pt.noisy() {
			noise = append(noise, plotter.XY{X: float64(pt.Size), Y: pt.Sandbox.BytesPerSec / 1e9})
		}
	}
	for _, s := range seriesStyles {
		l, pp, err := plotter.NewLinePoints(xy(s.bps))
		if err != nil {
			return nil, err
		}
		l.LineStyle, pp.GlyphStyle = s.styles()
		p.Add(l, pp)
	}
	if len(noise) > 0 {
		sc, err := plotter.NewScatter(noise)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = noiseGlyph()
		p.Add(sc)
	}
	// Room above and below the lines, on the log scale.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		for _, v := range []float64{pt.Sandbox.BytesPerSec, pt.Direct.BytesPerSec, pt.Memmove.BytesPerSec} {
			lo, hi = math.Min(lo, v/1e9), math.Max(hi, v/1e9)
		}
	}
	p.Y.Min, p.Y.Max = lo/3, hi*3
	return p, nil
}

// seriesStyles are the chart's three series: how each looks, and which
// bandwidth of a point it plots.
var seriesStyles = []seriesStyle{
	{"memmove (Go copy)", memmoveColor, []vg.Length{vg.Points(2), vg.Points(2)}, func(p Point) float64 { return p.Memmove.BytesPerSec }},
	{"backend called directly", directColor, []vg.Length{vg.Points(6), vg.Points(3)}, func(p Point) float64 { return p.Direct.BytesPerSec }},
	{"sandbox (guest through the imports)", sandboxColor, nil, func(p Point) float64 { return p.Sandbox.BytesPerSec }},
}

// seriesStyle is one series of the chart.
type seriesStyle struct {
	name   string
	col    color.Color
	dashes []vg.Length
	bps    func(Point) float64
}

// styles returns the series' line and point styles.
func (s seriesStyle) styles() (draw.LineStyle, draw.GlyphStyle) {
	return draw.LineStyle{Color: s.col, Width: vg.Points(1.5), Dashes: s.dashes},
		draw.GlyphStyle{Color: s.col, Shape: draw.CircleGlyph{}, Radius: vg.Points(2)}
}

func noiseGlyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: noiseColor, Shape: draw.CrossGlyph{}, Radius: vg.Points(5)}
}

// modeTitle names a mode as the ACL call it measures.
var modeTitle = map[Mode]string{
	modeSync:  "aclrtMemcpy",
	modeAsync: "aclrtMemcpyAsync",
	mode2D:    "aclrtMemcpy2d",
	modeBatch: "aclrtMemcpyBatch",
}
