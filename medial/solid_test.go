package medial

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/winding"
)

func TestNewSolidRejects(t *testing.T) {
	cube := shapes.Box(1, 1, 1, 1)
	open := &format.Surface{Positions: cube.Positions, Triangles: cube.Triangles[3:]}
	flipped := &format.Surface{Positions: cube.Positions, Triangles: append([]int32{cube.Triangles[0], cube.Triangles[2], cube.Triangles[1]}, cube.Triangles[3:]...)}
	inverted := &format.Surface{Positions: cube.Positions, Triangles: append([]int32(nil), cube.Triangles...)}
	for i := 0; i < len(inverted.Triangles); i += 3 {
		inverted.Triangles[i+1], inverted.Triangles[i+2] = inverted.Triangles[i+2], inverted.Triangles[i+1]
	}
	nan := &format.Surface{Positions: append([]float64{math.NaN()}, cube.Positions[1:]...), Triangles: cube.Triangles}
	badIndex := &format.Surface{Positions: cube.Positions, Triangles: append([]int32{99}, cube.Triangles[1:]...)}
	repeated := &format.Surface{Positions: cube.Positions, Triangles: append([]int32{0, 0}, cube.Triangles[2:]...)}
	ragged := &format.Surface{Positions: cube.Positions[:5], Triangles: cube.Triangles}
	tests := []struct {
		name string
		s    *format.Surface
		want string
	}{
		{"nil", nil, "empty"},
		{"no triangles", &format.Surface{Positions: cube.Positions}, "empty"},
		{"ragged", ragged, "whole triples"},
		{"NaN", nan, "non-finite"},
		{"index", badIndex, "refers to vertex 99"},
		{"repeated", repeated, "repeats a vertex"},
		{"open", open, "not closed"},
		{"flipped triangle", flipped, "not consistently oriented"},
		{"inside out", inverted, "inside-out"},
	}
	for _, tc := range tests {
		_, err := newSolid(tc.s, "surface")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	if _, err := newSolid(cube, "surface"); err != nil {
		t.Fatal(err)
	}
}

// boxDistance is the signed distance to the box [0,a]×[0,b]×[0,c],
// positive inside: the analytic answer.
func boxDistance(p, size geom.Vec) float64 {
	var out, in float64 = 0, math.Inf(1)
	for k := range 3 {
		d := max(-p[k], p[k]-size[k])
		if d > 0 {
			out += d * d
		}
		in = min(in, -d)
	}
	if out > 0 {
		return -math.Sqrt(out)
	}
	return in
}

func TestSignedDistanceBox(t *testing.T) {
	size := geom.Vec{1, 2, 0.5}
	o, err := newSolid(shapes.Box(size[0], size[1], size[2], 3), "surface")
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(1))
	for i := range 3000 {
		p := geom.Vec{3*r.Float64() - 1, 4*r.Float64() - 1, 2*r.Float64() - 0.75}
		if i%3 == 0 { // near edges and corners, where the sign needs the pseudonormals
			p = geom.Vec{math.Round(p[0]) + 1e-3*(r.Float64()-0.5), math.Round(p[1]/2)*2 + 1e-3*(r.Float64()-0.5), p[2]}
		}
		got, _ := o.signedDistance(p)
		if want := boxDistance(p, size); math.Abs(got-want) > 1e-12 {
			t.Fatalf("at %v: signed distance %v, want %v", p, got, want)
		}
	}
}

// TestSignedDistanceSign checks the sign against the winding number on a
// non-convex solid with concave edges, at points close to the surface.
func TestSignedDistanceSign(t *testing.T) {
	for _, s := range []*format.Surface{shapes.LBracket(3, 1, 2), shapes.Torus(2, 0.5, 24, 12), shapes.Icosphere(1, 2)} {
		o, err := newSolid(s, "surface")
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewSource(2))
		for range 2000 {
			// A point near a random vertex: the hard case for the sign.
			v := geom.At(s.Positions, int32(r.Intn(s.NumVertices())))
			p := geom.Add(v, geom.Vec{0.02 * r.NormFloat64(), 0.02 * r.NormFloat64(), 0.02 * r.NormFloat64()})
			d, _ := o.signedDistance(p)
			w := winding.BruteForce(s.Positions, s.Triangles, p)
			if math.Abs(d) > 1e-9 && (d > 0) != (w > 0.5) {
				t.Fatalf("at %v: signed distance %v but winding number %v", p, d, w)
			}
		}
	}
}
