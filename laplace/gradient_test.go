package laplace

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The P1 gradient of a linear field is the field's gradient, on any tet.
func TestTetGradientsLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 200; trial++ {
		pos := randomTet(rng)
		g := geom.Vec{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		c := rng.NormFloat64()
		eps := make([]float64, 4)
		for v := range eps {
			eps[v] = geom.Dot(g, geom.At(pos, int32(v))) + c
		}
		got, err := TetGradients(pos, []int32{0, 1, 2, 3}, eps)
		if err != nil {
			t.Fatal(err)
		}
		for a := range 3 {
			if math.Abs(got[a]-g[a]) > 1e-10*(1+geom.Norm(g)) {
				t.Fatalf("trial %d: gradient %v, want %v", trial, got, g)
			}
		}
	}
}

// The volume-weighted vertex average of exact tet gradients of a linear
// field is exact at every vertex of an irregular mesh.
func TestVertexGradients(t *testing.T) {
	m := jitteredCube(5, 0.4, 2)
	g := geom.Vec{1.5, -0.25, 2}
	eps := make([]float64, m.NumVertices())
	for v := range eps {
		eps[v] = geom.Dot(g, m.Vertex(int32(v))) - 0.5
	}
	got, err := VertexGradients(m.Positions, m.Tets, eps)
	if err != nil {
		t.Fatal(err)
	}
	for v := range eps {
		for a := range 3 {
			if math.Abs(got[3*v+a]-g[a]) > 1e-12 {
				t.Fatalf("vertex %d: gradient %v, want %v", v, got[3*v:3*v+3], g)
			}
		}
	}
}

func TestGradientErrors(t *testing.T) {
	pos := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}
	if _, err := TetGradients(pos, []int32{0, 1, 2, 3}, []float64{0, 1}); err == nil {
		t.Error("TetGradients accepted 2 values for 4 vertices")
	}
	if _, err := VertexGradients(pos, []int32{0, 2, 1, 3}, []float64{0, 1, 2, 3}); err == nil {
		t.Error("VertexGradients accepted an inverted tet")
	}
}
