package laplace_test

import (
	"fmt"
	"log"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
	"github.com/pfmesh/pfmesh/medial"
	"github.com/pfmesh/pfmesh/tetgen"
)

// pipelineMesh meshes a surface file the way the root package's exact
// path does by default: medial core, then tetgen.Build with the core's
// points, surface, inside test and sizing.
func pipelineMesh(t testing.TB, path string) *tetmesh.Mesh {
	t.Helper()
	s, err := format.ReadSurface(path, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ = format.Clean(s, format.CleanOptions{})
	core, err := medial.Build(s, medial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tags := make([]tetmesh.Tag, len(core.Points)/3)
	for i := range tags {
		tags[i] = tetmesh.Core
	}
	m, _, err := tetgen.Build(s, tetgen.Options{
		Points: core.Points, PointTags: tags, CoreSurface: core.Surface, Core: core.Inside, Sizing: core.Sizing,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// On the L-bracket fixture meshed as the pipeline does by default, plain
// P1 leaves [0, 1] at a few dozen vertices; the limited scheme does not.
// (The corpus models are in BenchmarkSolveLimitedCorpus.)
func TestSolveLimitedBracket(t *testing.T) {
	if testing.Short() {
		t.Skip("meshing the bracket takes seconds")
	}
	m := pipelineMesh(t, "../fixtures/lbracket.ply")
	plain, err := laplace.Solve(m, laplace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	outside := 0
	for _, e := range plain.Epsilon {
		if e < 0 || e > 1 {
			outside++
		}
	}
	if outside == 0 {
		t.Fatal("Solve keeps [0, 1] on this mesh; the test needs one where it does not")
	}
	f, err := laplace.SolveLimited(m, laplace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d vertices; Solve: %d outside [0, 1], %d CG iterations; SolveLimited: %d corrections, %d CG iterations, residual %.2g, %d of %d flux edges limited",
		m.NumVertices(), outside, plain.Iterations, f.Corrections, f.Iterations, f.Residual, f.LimitedEdges, f.FluxEdges)
	if f.Residual > 1e-10 {
		t.Errorf("residual %g above the tolerance", f.Residual)
	}
	for v, e := range f.Epsilon {
		switch tag := m.Tags[v]; {
		case !(e >= 0 && e <= 1):
			t.Fatalf("ε = %g at vertex %d", e, v)
		case tag == tetmesh.Boundary && e != 0, tag == tetmesh.Core && e != 1:
			t.Fatalf("ε = %g at %v vertex %d", e, tag, v)
		}
	}
}

// One tet whose dihedral angle at the edge between its two surface
// vertices is obtuse (129°) couples its Interior vertex positively to the
// Core vertex opposite: plain P1 puts ε below 0 there, the limited scheme
// cuts that coupling's flux and keeps ε in [0, 1].
func ExampleSolveLimited() {
	m := &tetmesh.Mesh{
		Positions: []float64{-1, 0, 0, 1, 0, 0, 0, -1, 0.1, 0, 0.1, 0.1},
		Tets:      []int32{0, 1, 3, 2},
		Tags:      []tetmesh.Tag{tetmesh.Boundary, tetmesh.Boundary, tetmesh.Core, tetmesh.Interior},
	}
	plain, err := laplace.Solve(m, laplace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	f, err := laplace.SolveLimited(m, laplace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Solve:        ε = %.4f\n", plain.Epsilon[3])
	fmt.Printf("SolveLimited: ε = %.4f (%d of %d fluxes limited)\n", f.Epsilon[3], f.LimitedEdges, f.FluxEdges)
	// Output:
	// Solve:        ε = -0.0891
	// SolveLimited: ε = 0.0000 (1 of 1 fluxes limited)
}
