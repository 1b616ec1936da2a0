package laplace_test

import (
	"fmt"
	"log"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
)

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
