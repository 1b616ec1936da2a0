package laplace_test

import (
	"fmt"
	"log"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
)

// A plate 4 cm thick with a rigid core 1 cm below each face: ε rises
// linearly from 0 on the faces to 1 at the core, so every boundary vertex
// sees an elastic layer h = 1/|∇ε| of 1 cm.
func ExampleSolve() {
	m := tetgrid.Box([3]int{4, 4, 8}, geom.Vec{0, 0, 0}, geom.Vec{0.1, 0.1, 0.04})
	for v := range m.Tags {
		z := m.Positions[3*v+2]
		switch depth := min(z, 0.04-z); {
		case depth < 1e-9:
			m.Tags[v] = tetmesh.Boundary
		case depth > 0.01-1e-9:
			m.Tags[v] = tetmesh.Core
		default:
			m.Tags[v] = tetmesh.Interior // the rim is left free (zero flux)
		}
	}
	f, err := laplace.Solve(m, laplace.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s, err := laplace.Measure(m.Positions, m.Tets, m.Tags, f.Epsilon, f.Gradient, 4)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("ε at depth 5 mm: %.3f\n", f.Epsilon[2+5*(2+5*1)]) // grid point (2, 2, 1)
	fmt.Printf("layer depth h: %.4f to %.4f m\n", s.LayerDepth.Min, s.LayerDepth.Max)
	fmt.Printf("core volume: %.1f cm³\n", s.CoreVolume*1e6)
	// Output:
	// ε at depth 5 mm: 0.500
	// layer depth h: 0.0100 to 0.0100 m
	// core volume: 200.0 cm³
}

func ExampleFoundationModulus() {
	// Rubber-like: Y = 5 MPa, ν = 0.45.
	e, err := laplace.FoundationModulus(5e6, 0.45)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("E = %.1f MPa\n", e/1e6)
	_, err = laplace.FoundationModulus(5e6, 0.5)
	fmt.Println(err)
	// Output:
	// E = 19.0 MPa
	// laplace: Poisson's ratio 0.5 is outside (−1, 1/2)
}
