// Package render draws scalar fields on planar triangles as PNG colour
// maps with a legend: the ε cross-sections of `pfmesh inspect --png` and
// the pressure maps of `pfmesh contact --png`. It depends only on the
// standard library; text uses a built-in 5×7 bitmap font.
package render

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
)

// Panel is one colour map: triangles in a plane with a value per corner,
// interpolated linearly across each triangle.
type Panel struct {
	Title  string
	XY     []float64 // x, y per corner; three corners per triangle
	Values []float64 // one per corner
	// Min and Max fix the colour range; when equal, the data's range is used.
	Min, Max float64
	Unit     string // printed after the legend's numbers
}

// Options sizes the image.
type Options struct {
	Size int // side of each panel's square plot area in pixels; 0 means 480
}

const (
	scale   = 2 // font pixels per glyph pixel
	margin  = 16
	barW    = 18
	labelW  = 12 * 6 * scale
	titleH  = 7*scale + 2*margin
	glyphW  = 6 * scale
	nTicks  = 5
	bgGrey  = 255
	edgeRGB = 40
)

// PNG draws the panels side by side, sharing one length scale so that
// equal lengths look equal, and encodes the image to w.
func PNG(w io.Writer, panels []Panel, opt Options) error {
	size := opt.Size
	if size <= 0 {
		size = 480
	}
	if len(panels) == 0 {
		return fmt.Errorf("render: no panels")
	}
	// Common bounds of all panels' geometry.
	xmin, ymin, xmax, ymax := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range panels {
		if len(p.XY) != 2*len(p.Values) || len(p.Values)%3 != 0 {
			return fmt.Errorf("render: panel %q: %d coordinates for %d values", p.Title, len(p.XY), len(p.Values))
		}
		for i := 0; i < len(p.XY); i += 2 {
			xmin, xmax = math.Min(xmin, p.XY[i]), math.Max(xmax, p.XY[i])
			ymin, ymax = math.Min(ymin, p.XY[i+1]), math.Max(ymax, p.XY[i+1])
		}
	}
	if xmin > xmax { // no triangles at all: an empty frame
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	span := math.Max(xmax-xmin, ymax-ymin)
	if span == 0 {
		span = 1
	}
	pxPerUnit := float64(size-1) / span
	panelW := margin + size + margin + barW + 8 + labelW
	img := image.NewRGBA(image.Rect(0, 0, panelW*len(panels), titleH+size+margin))
	for i := range img.Pix {
		img.Pix[i] = bgGrey
	}
	for k, p := range panels {
		ox := k * panelW
		lo, hi := p.Min, p.Max
		if lo == hi {
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, v := range p.Values {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if lo > hi {
				lo, hi = 0, 1
			}
		}
		drawText(img, ox+margin, margin, p.Title)
		plot := image.Rect(ox+margin, titleH, ox+margin+size, titleH+size)
		toPx := func(x, y float64) (float64, float64) {
			return float64(plot.Min.X) + (x-xmin)*pxPerUnit, float64(plot.Max.Y-1) - (y-ymin)*pxPerUnit
		}
		for t := 0; t < len(p.Values); t += 3 {
			var px, py, v [3]float64
			for c := 0; c < 3; c++ {
				px[c], py[c] = toPx(p.XY[2*(t+c)], p.XY[2*(t+c)+1])
				v[c] = p.Values[t+c]
			}
			fillTriangle(img, plot, px, py, v, lo, hi)
		}
		frame(img, plot)
		// Colour bar: top is hi.
		bar := image.Rect(plot.Max.X+margin, titleH, plot.Max.X+margin+barW, titleH+size)
		for y := bar.Min.Y; y < bar.Max.Y; y++ {
			f := 1 - float64(y-bar.Min.Y)/float64(bar.Dy()-1)
			c := Viridis(f)
			for x := bar.Min.X; x < bar.Max.X; x++ {
				img.Set(x, y, c)
			}
		}
		frame(img, bar)
		for i := 0; i < nTicks; i++ {
			f := float64(i) / (nTicks - 1)
			y := bar.Max.Y - 1 - int(math.Round(f*float64(bar.Dy()-1)))
			for x := bar.Max.X; x < bar.Max.X+4; x++ {
				img.Set(x, y, color.Gray{edgeRGB})
			}
			label := fmt.Sprintf("%.3g", lo+f*(hi-lo))
			if p.Unit != "" {
				label += " " + p.Unit
			}
			drawText(img, bar.Max.X+8, y-7*scale/2, label)
		}
	}
	return png.Encode(w, img)
}

func frame(img *image.RGBA, r image.Rectangle) {
	c := color.Gray{edgeRGB}
	for x := r.Min.X - 1; x <= r.Max.X; x++ {
		img.Set(x, r.Min.Y-1, c)
		img.Set(x, r.Max.Y, c)
	}
	for y := r.Min.Y - 1; y <= r.Max.Y; y++ {
		img.Set(r.Min.X-1, y, c)
		img.Set(r.Max.X, y, c)
	}
}

// fillTriangle colours the pixels whose centres lie in the triangle (edges
// included), interpolating v barycentrically.
func fillTriangle(img *image.RGBA, clip image.Rectangle, px, py, v [3]float64, lo, hi float64) {
	area := (px[1]-px[0])*(py[2]-py[0]) - (px[2]-px[0])*(py[1]-py[0])
	if area == 0 {
		return
	}
	x0 := max(clip.Min.X, int(math.Floor(min(px[0], px[1], px[2]))))
	x1 := min(clip.Max.X-1, int(math.Ceil(max(px[0], px[1], px[2]))))
	y0 := max(clip.Min.Y, int(math.Floor(min(py[0], py[1], py[2]))))
	y1 := min(clip.Max.Y-1, int(math.Ceil(max(py[0], py[1], py[2]))))
	for y := y0; y <= y1; y++ {
		cy := float64(y) + 0.5
		for x := x0; x <= x1; x++ {
			cx := float64(x) + 0.5
			w0 := ((px[1]-cx)*(py[2]-cy) - (px[2]-cx)*(py[1]-cy)) / area
			w1 := ((px[2]-cx)*(py[0]-cy) - (px[0]-cx)*(py[2]-cy)) / area
			w2 := 1 - w0 - w1
			if w0 < 0 || w1 < 0 || w2 < 0 {
				continue
			}
			f := 0.5
			if hi > lo {
				f = (w0*v[0] + w1*v[1] + w2*v[2] - lo) / (hi - lo)
			}
			img.Set(x, y, Viridis(f))
		}
	}
}

// viridis samples matplotlib's viridis colour map at nine evenly spaced
// points; it is perceptually uniform and readable in grey and by viewers
// with colour-vision deficiency.
var viridis = [9][3]float64{
	{68, 1, 84}, {71, 44, 122}, {59, 81, 139}, {44, 113, 142}, {33, 144, 141},
	{39, 173, 129}, {92, 200, 99}, {170, 220, 50}, {253, 231, 37},
}

// Viridis returns the colour for f in [0, 1] (clamped).
func Viridis(f float64) color.RGBA {
	if math.IsNaN(f) {
		return color.RGBA{255, 255, 255, 255}
	}
	f = max(0, min(1, f)) * float64(len(viridis)-1)
	i := min(int(f), len(viridis)-2)
	t := f - float64(i)
	var c [3]uint8
	for k := range c {
		c[k] = uint8(math.Round(viridis[i][k] + t*(viridis[i+1][k]-viridis[i][k])))
	}
	return color.RGBA{c[0], c[1], c[2], 255}
}
