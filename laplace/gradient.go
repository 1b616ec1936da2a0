package laplace

import (
	"fmt"

	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// TetGradients returns the gradient of the piecewise-linear field eps
// (one value per vertex) in each tet, three components per tet. It is
// exact: a field linear on a tet is its own P1 interpolant.
func TetGradients(positions []float64, tets []int32, eps []float64) ([]float64, error) {
	if err := checkField(positions, tets, eps); err != nil {
		return nil, err
	}
	nt := len(tets) / 4
	g := make([]float64, 3*nt)
	par.For(nt, rowChunk, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			grad, _ := tetGradient(positions, tets[4*t:4*t+4], eps)
			copy(g[3*t:], grad[:])
		}
	})
	return g, nil
}

// VertexGradients returns, per vertex, the volume-weighted average of the
// gradients of eps in the tets around it (zero for a vertex in no tet):
// tetmesh.VertexGradients, the smoothed gradient the pressure field model
// stores at vertices, after checking the arrays.
func VertexGradients(positions []float64, tets []int32, eps []float64) ([]float64, error) {
	if err := checkField(positions, tets, eps); err != nil {
		return nil, err
	}
	return tetmesh.VertexGradients(positions, tets, eps), nil
}

// tetGradient returns the gradient of eps on tet q and 6·its volume.
func tetGradient(positions []float64, q []int32, eps []float64) ([3]float64, float64) {
	c, det := tetGeometry(positions, q)
	e0 := eps[q[0]]
	d1, d2, d3 := eps[q[1]]-e0, eps[q[2]]-e0, eps[q[3]]-e0
	var g [3]float64
	for a := range 3 {
		g[a] = (d1*c[1][a] + d2*c[2][a] + d3*c[3][a]) / det
	}
	return g, det
}

// checkField checks a mesh and a per-vertex field given as flat arrays.
func checkField(positions []float64, tets []int32, eps []float64) error {
	if err := checkMesh(positions, tets, "mesh"); err != nil {
		return err
	}
	if nv := len(positions) / 3; len(eps) != nv {
		return fmt.Errorf("laplace: field has %d values for %d vertices", len(eps), nv)
	}
	return nil
}
