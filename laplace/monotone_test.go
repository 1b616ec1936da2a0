package laplace

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// One tet whose dihedral angle at the edge kl between two Boundary
// vertices is obtuse (about 129°) couples the Interior vertex i and the
// Core vertex j opposite it positively: Solve's ε_i = −K_ij/K_ii is below
// zero. SolveMonotone drops that coupling, leaving i tied to the two
// Boundary vertices only, so ε_i = 0 exactly.
func TestSolveMonotoneObtuse(t *testing.T) {
	m := &tetmesh.Mesh{
		Positions: []float64{-1, 0, 0, 1, 0, 0, 0, 0.1, 0.1, 0, -1, 0.1}, // k, l, i, j
		Tets:      []int32{0, 1, 2, 3},
		Tags:      []tetmesh.Tag{tetmesh.Boundary, tetmesh.Boundary, tetmesh.Interior, tetmesh.Core},
	}
	if m.Volume() < 0 {
		m.Tets[2], m.Tets[3] = m.Tets[3], m.Tets[2]
	}
	plain, err := Solve(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !(plain.Epsilon[2] < 0) {
		t.Fatalf("Solve gives ε_i = %g; the test needs a mesh where it is negative", plain.Epsilon[2])
	}
	mono, err := SolveMonotone(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0, 0, 1}
	for v, e := range mono.Epsilon {
		if e != want[v] {
			t.Errorf("SolveMonotone: ε at vertex %d is %g, want %g (Solve: %g)", v, e, want[v], plain.Epsilon[v])
		}
	}
	if len(mono.Gradient) != 3*m.NumVertices() {
		t.Errorf("%d gradient components for %d vertices", len(mono.Gradient), m.NumVertices())
	}
}

// On the Kuhn grid every coupling is non-positive (its dihedral angles are
// 45°, 60° and 90°), so SolveMonotone solves Solve's system.
func TestSolveMonotoneNonObtuse(t *testing.T) {
	m := jitteredCube(6, 0, 1)
	k, err := Stiffness(m.Positions, m.Tets)
	if err != nil {
		t.Fatal(err)
	}
	raw := k.RawMatrix()
	for i := 0; i < raw.I; i++ {
		for p := raw.Indptr[i]; p < raw.Indptr[i+1]; p++ {
			if raw.Ind[p] != i && raw.Data[p] > 1e-12 {
				t.Fatalf("Kuhn grid has a positive coupling %g at (%d, %d)", raw.Data[p], i, raw.Ind[p])
			}
		}
	}
	plain, err := Solve(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mono, err := SolveMonotone(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for v := range plain.Epsilon {
		if d := math.Abs(plain.Epsilon[v] - mono.Epsilon[v]); d > 1e-9 {
			t.Fatalf("vertex %d: Solve %g, SolveMonotone %g", v, plain.Epsilon[v], mono.Epsilon[v])
		}
	}
}

// The monotone system is an M-matrix: non-positive couplings and a
// diagonal equal to the sum of the row's couplings' magnitudes, Dirichlet
// ones included.
func TestMonotoneSystemIsMMatrix(t *testing.T) {
	m := jitteredCube(6, 0.3, 3)
	k, err := Stiffness(m.Positions, m.Tets)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := reducedSystem(m)
	if err != nil {
		t.Fatal(err)
	}
	positive := 0
	kr := k.RawMatrix()
	for i := 0; i < kr.I; i++ {
		for p := kr.Indptr[i]; p < kr.Indptr[i+1]; p++ {
			if kr.Ind[p] != i && kr.Data[p] > 0 {
				positive++
			}
		}
	}
	if positive == 0 {
		t.Fatal("the jittered grid has no positive coupling; the test needs a harsher mesh")
	}
	a, b := monotoneSystem(k, m.Tags, sys.order)
	raw := a.RawMatrix()
	for i := 0; i < raw.I; i++ {
		diag, off := 0.0, b[i] // b holds the Core couplings' magnitudes
		for p := raw.Indptr[i]; p < raw.Indptr[i+1]; p++ {
			if j := raw.Ind[p]; j == i {
				diag = raw.Data[p]
			} else if raw.Data[p] > 0 {
				t.Fatalf("row %d: positive coupling %g", i, raw.Data[p])
			} else {
				off -= raw.Data[p]
			}
		}
		if b[i] < 0 || off > diag*(1+1e-12) {
			t.Fatalf("row %d: diagonal %g below the couplings' sum %g (b %g)", i, diag, off, b[i])
		}
	}
}
