package format

import "github.com/pfmesh/pfmesh/internal/tetmesh"

// VertexGradients returns ∇ε at every vertex (x, y, z each) as the .pfm
// readers recompute it for a file without a gradient section: the
// volume-weighted mean, over the tets around a vertex, of the constant
// gradient of ε's linear interpolant on each tet, computed exactly as
// docs/pfm.md specifies. A vertex in no tet gets zero. Tets must be
// positively oriented.
func VertexGradients(positions []float64, tets []int32, eps []float64) []float64 {
	return tetmesh.VertexGradients(positions, tets, eps)
}
