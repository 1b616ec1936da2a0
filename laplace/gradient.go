package laplace

import "fmt"

// TetGradients returns the gradient of the piecewise-linear field eps
// (one value per vertex) in each tet, three components per tet. It is
// exact: a field linear on a tet is its own P1 interpolant.
func TetGradients(positions []float64, tets []int32, eps []float64) ([]float64, error) {
	if err := checkField(positions, tets, eps); err != nil {
		return nil, err
	}
	nt := len(tets) / 4
	g := make([]float64, 3*nt)
	forChunks(nt, rowChunk, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			grad, _ := tetGradient(positions, tets[4*t:4*t+4], eps)
			copy(g[3*t:], grad[:])
		}
	})
	return g, nil
}

// VertexGradients returns, per vertex, the volume-weighted average of the
// gradients of eps in the tets around it (zero for a vertex in no tet).
// This is the smoothed gradient the pressure field model stores at
// vertices; for a field linear over the vertex's tets it is exact.
func VertexGradients(positions []float64, tets []int32, eps []float64) ([]float64, error) {
	if err := checkField(positions, tets, eps); err != nil {
		return nil, err
	}
	return vertexGradients(positions, tets, eps), nil
}

// vertexGradients scatters each tet's volume-weighted gradient to its
// vertices in tet order, which keeps the sums deterministic.
func vertexGradients(positions []float64, tets []int32, eps []float64) []float64 {
	nv := len(positions) / 3
	g := make([]float64, 3*nv)
	w := make([]float64, nv)
	for t := 0; 4*t < len(tets); t++ {
		q := tets[4*t : 4*t+4]
		grad, det := tetGradient(positions, q, eps)
		for _, v := range q {
			w[v] += det
			g[3*v] += det * grad[0]
			g[3*v+1] += det * grad[1]
			g[3*v+2] += det * grad[2]
		}
	}
	for v, s := range w {
		if s > 0 {
			g[3*v] /= s
			g[3*v+1] /= s
			g[3*v+2] /= s
		}
	}
	return g
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
