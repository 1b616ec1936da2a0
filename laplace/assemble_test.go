package laplace

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// randomTet returns a positively oriented tet with vertices in the unit
// cube, not too flat.
func randomTet(rng *rand.Rand) []float64 {
	for {
		var p [4]geom.Vec
		for k := range p {
			p[k] = geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}
		}
		v := geom.TetVolume(p[0], p[1], p[2], p[3])
		if math.Abs(v) < 0.01 {
			continue
		}
		if v < 0 {
			p[2], p[3] = p[3], p[2]
		}
		return []float64{p[0][0], p[0][1], p[0][2], p[1][0], p[1][1], p[1][2], p[2][0], p[2][1], p[2][2], p[3][0], p[3][1], p[3][2]}
	}
}

// The stiffness of one tet against the cotangent formula built from
// dihedral angles: K_ij = −(1/6)·|e_kl|·cot θ_kl, kl the edge opposite ij.
func TestStiffnessCotangentFormula(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	tet := []int32{0, 1, 2, 3}
	for trial := 0; trial < 100; trial++ {
		pos := randomTet(rng)
		k, err := Stiffness(pos, tet)
		if err != nil {
			t.Fatal(err)
		}
		p := func(i int) geom.Vec { return geom.At(pos, int32(i)) }
		angles := tetmesh.Dihedral(p(0), p(1), p(2), p(3))
		for e, edge := range tetmesh.TetEdges {
			i, j := edge[0], edge[1]
			// The opposite edge is the one sharing no vertex.
			for f, opp := range tetmesh.TetEdges {
				if opp[0] == i || opp[0] == j || opp[1] == i || opp[1] == j {
					continue
				}
				l := math.Sqrt(geom.Dist2(p(opp[0]), p(opp[1])))
				want := -l / (6 * math.Tan(angles[f]))
				if got := k.At(i, j); math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("trial %d edge %d (%d,%d): K = %g, cotangent formula %g", trial, e, i, j, got, want)
				}
			}
		}
	}
}

// Properties of the assembled matrix on an irregular mesh, each against an
// independent fact: exact symmetry, zero row sums (constants are in the
// kernel), and the energy of a linear function u = g·x, which is
// uᵀKu = ∫|∇u|² = |g|²·volume.
func TestStiffnessProperties(t *testing.T) {
	m := jitteredCube(6, 0.4, 3)
	k, err := Stiffness(m.Positions, m.Tets)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := k.Dims()
	raw := k.RawMatrix()
	g := geom.Vec{0.3, -1.2, 0.7}
	u := make([]float64, n)
	for v := range u {
		u[v] = geom.Dot(g, m.Vertex(int32(v)))
	}
	var energy float64
	for i := 0; i < n; i++ {
		var sum, scale, ku float64
		for p := raw.Indptr[i]; p < raw.Indptr[i+1]; p++ {
			j, v := raw.Ind[p], raw.Data[p]
			if p > raw.Indptr[i] && j <= raw.Ind[p-1] {
				t.Fatalf("row %d not strictly sorted", i)
			}
			if k.At(j, i) != v {
				t.Fatalf("K[%d,%d] = %g but K[%d,%d] = %g", i, j, v, j, i, k.At(j, i))
			}
			sum += v
			scale = max(scale, math.Abs(v))
			ku += v * u[j]
		}
		if math.Abs(sum) > 1e-13*scale {
			t.Fatalf("row %d sums to %g (largest entry %g)", i, sum, scale)
		}
		energy += u[i] * ku
	}
	want := geom.Dot(g, g) * m.Volume()
	if math.Abs(energy-want) > 1e-12*want {
		t.Errorf("energy of a linear function %g, want |g|²·volume = %g", energy, want)
	}
}

// Kuhn tets of a cube grid have no obtuse dihedral angle, so every
// off-diagonal entry is ≤ 0 (an M-matrix).
func TestStiffnessKuhnIsMMatrix(t *testing.T) {
	m := tetgrid.Box([3]int{3, 4, 5}, geom.Vec{0, 0, 0}, geom.Vec{1, 1, 1})
	k, err := Stiffness(m.Positions, m.Tets)
	if err != nil {
		t.Fatal(err)
	}
	k.DoNonZero(func(i, j int, v float64) {
		if i != j && v > 1e-15 {
			t.Fatalf("K[%d,%d] = %g > 0", i, j, v)
		}
		if i == j && v <= 0 {
			t.Fatalf("K[%d,%d] = %g ≤ 0", i, j, v)
		}
	})
}

func TestStiffnessErrors(t *testing.T) {
	good := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}
	tests := []struct {
		name string
		pos  []float64
		tets []int32
	}{
		{"no tets", good, nil},
		{"ragged coordinates", good[:11], []int32{0, 1, 2, 3}},
		{"ragged tets", good, []int32{0, 1, 2}},
		{"index out of range", good, []int32{0, 1, 2, 4}},
		{"negative index", good, []int32{0, 1, -1, 3}},
		{"inverted", good, []int32{0, 2, 1, 3}},
		{"flat", []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, []int32{0, 1, 2, 3}},
		{"NaN", []float64{0, 0, 0, 1, 0, 0, 0, math.NaN(), 0, 0, 0, 1}, []int32{0, 1, 2, 3}},
	}
	for _, tc := range tests {
		if _, err := Stiffness(tc.pos, tc.tets); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// The exact slab field (linear in each layer) satisfies the reduced system
// to rounding: the system is the one P1 elements define.
func TestReducedSystemSlab(t *testing.T) {
	m, exact := slab(4, 8, 1, 1, 0.25, 2)
	a, b, vertex, err := ReducedSystem(m)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := a.Dims()
	if n != len(b) || n != len(vertex) {
		t.Fatalf("%d rows, %d right-hand sides, %d vertices", n, len(b), len(vertex))
	}
	x := make([]float64, n)
	for r, v := range vertex {
		if m.Tags[v] != tetmesh.Interior {
			t.Fatalf("unknown %d is vertex %d with tag %d", r, v, m.Tags[v])
		}
		x[r] = exact(m.Vertex(v))
	}
	ax := make([]float64, n)
	a.MulVecTo(ax, false, x)
	var res, bn float64
	for i := range ax {
		res += (ax[i] - b[i]) * (ax[i] - b[i])
		bn += b[i] * b[i]
	}
	if r := math.Sqrt(res / bn); r > 1e-13 {
		t.Errorf("relative residual of the exact solution %g", r)
	}
}
