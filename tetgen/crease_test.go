package tetgen

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// TestSharpestCrease checks the crease angle against the shapes' own
// angles: prisms whose sections have known angles (caps meet the sides
// at 90°), the regular tetrahedron and icosahedron's dihedral angles,
// reflex edges left out inside and counted from the outside with
// bothSides.
func TestSharpestCrease(t *testing.T) {
	deg := 180 / math.Pi
	// A notch: a square with a 60° wedge cut into its top side, whose
	// tip is a reflex edge of 300° inside.
	notch := [][2]float64{{0, 0}, {2, 0}, {2, 2}, {1 + math.Tan(math.Pi/6), 2}, {1, 1}, {1 - math.Tan(math.Pi/6), 2}, {0, 2}}
	// The notch's rim edges are 120°: 90° + 30° from the vertical.
	tetra := &format.Surface{
		Positions: []float64{1, 1, 1, 1, -1, -1, -1, 1, -1, -1, -1, 1},
		Triangles: []int32{0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2},
	}
	cases := []struct {
		name      string
		s         *format.Surface
		bothSides bool
		want      float64
	}{
		{"box", shapes.Box(1, 2, 3, 2), false, 90},
		{"5° wedge", shapes.Wedge(5, 1, 0.5), false, 5},
		{"30-60-90 prism", shapes.Extrude([][2]float64{{0, 0}, {math.Sqrt(3), 0}, {0, 1}}, 1), false, 30},
		{"triangular cylinder", shapes.Cylinder(1, 1, 3, 1), false, 60},
		{"regular tetrahedron", tetra, false, math.Acos(1.0/3) * deg},
		{"icosahedron", shapes.Icosphere(1, 0), false, math.Acos(-math.Sqrt(5)/3) * deg},
		{"L bracket", shapes.LBracket(3, 1, 1), false, 90},
		{"L bracket, both sides", shapes.LBracket(3, 1, 1), true, 90},
		{"notch", shapes.Extrude(notch, 1), false, 90},
		{"notch, both sides", shapes.Extrude(notch, 1), true, 60},
	}
	for _, c := range cases {
		got := sharpestCrease(c.s, c.bothSides)
		if math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %.12g°, want %.12g°", c.name, got, c.want)
		}
	}
}

// TestSharpestCreaseBoundsMesh: the report carries the input's crease,
// and the mesh of a 5° wedge cannot beat it.
func TestSharpestCreaseBoundsMesh(t *testing.T) {
	m, rep, err := Build(shapes.Wedge(5, 1, 0.5), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(rep.SharpestCrease-5) > 1e-9 {
		t.Errorf("report says the sharpest crease is %g°, want 5°", rep.SharpestCrease)
	}
	if q := tetmesh.MeasureQuality(m); q.MinDihedral > rep.SharpestCrease+1e-9 {
		t.Errorf("min dihedral %g° above the %g° crease", q.MinDihedral, rep.SharpestCrease)
	}
}
