package contact

import (
	"fmt"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/bvh"
)

// FromPFM returns the compliant body of a .pfm's content, with its modulus,
// pressure mapping, dissipation and friction. The content must pass
// f.Validate (ReadPFM's results do). The vertex pressures p0 = E·g(ε) come
// from the file's mapping (format.Header.Pressure) and are interpolated
// linearly in each tet. The stored BVH is used when present, otherwise one
// is built. The positions and BVH boxes are kept, not copied, and must
// not change while the body is in use.
func FromPFM(f *format.PFM) (*Body, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("contact: pfm body: %w", err)
	}
	g := make([]float64, len(f.Epsilon))
	for i, e := range f.Epsilon {
		g[i] = f.Pressure(e) / f.Modulus
	}
	var tree *bvh.Tree
	if f.BVH != nil {
		tree = &bvh.Tree{Bounds: f.BVH.Bounds, Nodes: f.BVH.Nodes, Items: f.BVH.Items}
	}
	b, err := newCompliant(f.Positions, f.Tets, g, Material{Modulus: f.Modulus, Dissipation: f.Dissipation, Friction: f.Friction}, tree)
	if err != nil {
		return nil, fmt.Errorf("contact: pfm body: %w", err)
	}
	return b, nil
}
