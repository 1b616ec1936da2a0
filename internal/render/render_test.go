package render

import (
	"bytes"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestGlyphsWellFormed(t *testing.T) {
	for r, g := range glyphs {
		if len(g) != 35 || strings.Trim(g, "01") != "" {
			t.Errorf("glyph %q malformed", r)
		}
	}
}

// A square split into two triangles with value = x: pixel colours must
// follow the colour map of x across the plot, independent of the split.
func TestLinearFieldRendersAsRamp(t *testing.T) {
	p := Panel{
		Title:  "x",
		XY:     []float64{0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1},
		Values: []float64{0, 1, 1, 0, 1, 0},
	}
	var buf bytes.Buffer
	if err := PNG(&buf, []Panel{p}, Options{Size: 101}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range []float64{0.1, 0.5, 0.9} {
		for _, fy := range []float64{0.2, 0.8} {
			x := margin + int(fx*100)
			y := titleH + int((1-fy)*100)
			r, g, b, _ := img.At(x, y).RGBA()
			want := Viridis((float64(x-margin) + 0.5) / 100)
			if d := math.Abs(float64(r>>8)-float64(want.R)) + math.Abs(float64(g>>8)-float64(want.G)) + math.Abs(float64(b>>8)-float64(want.B)); d > 6 {
				t.Errorf("pixel (%d,%d) = %d,%d,%d; want about %v", x, y, r>>8, g>>8, b>>8, want)
			}
		}
	}
}

func TestViridisEnds(t *testing.T) {
	if c := Viridis(0); c.R != 68 || c.G != 1 || c.B != 84 {
		t.Errorf("Viridis(0) = %v", c)
	}
	if c := Viridis(2); c.R != 253 || c.G != 231 || c.B != 37 {
		t.Errorf("Viridis(2) = %v (should clamp)", c)
	}
}

func TestRejectsMismatchedPanel(t *testing.T) {
	if err := PNG(&bytes.Buffer{}, []Panel{{XY: []float64{0, 0}, Values: []float64{1, 2, 3}}}, Options{}); err == nil {
		t.Fatal("want error")
	}
}
