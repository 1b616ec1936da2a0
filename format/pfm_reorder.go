package format

import (
	"cmp"
	"slices"
)

// Reorder renumbers p's vertices along a Z-order (Morton) curve through
// their bounding box and puts the tets in BVH leaf order (or, without a
// BVH, in Z-order of their centroids), updating every index: the mesh is
// the same, but neighbours in space become neighbours in memory. Loading
// (whose checks read each tet's vertices) and contact queries then touch
// memory in order; on a 1M-tet mesh stored in random order, loading takes
// several times longer. The result depends only on p. It refuses (and
// leaves alone) a p that fails Validate.
func (p *PFM) Reorder() error {
	if err := p.Validate(); err != nil {
		return err
	}
	nv, nt := p.NumVertices(), p.NumTets()
	// Vertices: by Morton code, ties by index.
	box := pfmBBox(p.Positions)
	keys := make([]uint64, nv)
	for v := range nv {
		keys[v] = mortonKey(p.Positions[3*v:3*v+3], box)
	}
	order := pfmSortedBy(keys)
	newID := make([]int32, nv)
	for i, v := range order {
		newID[v] = int32(i)
	}
	p.Positions = pfmPermute(p.Positions, order, 3)
	p.Epsilon = pfmPermute(p.Epsilon, order, 1)
	p.Gradient = pfmPermute(p.Gradient, order, 3)
	p.Tags = pfmPermute(p.Tags, order, 1)
	for i, v := range p.Tets {
		p.Tets[i] = newID[v]
	}
	for i, v := range p.Boundary {
		p.Boundary[i] = newID[v]
	}
	// Tets: in BVH item order, which makes the items 0, 1, 2, …; else by
	// the Morton code of the centroid.
	var tetOrder []int32
	if p.BVH != nil {
		tetOrder = slices.Clone(p.BVH.Items)
	} else {
		keys = make([]uint64, nt)
		for t := range nt {
			var c [3]float64
			for _, v := range p.Tets[4*t : 4*t+4] {
				for a := range 3 {
					c[a] += p.Positions[3*v+int32(a)] / 4
				}
			}
			keys[t] = mortonKey(c[:], box)
		}
		tetOrder = pfmSortedBy(keys)
	}
	newTet := make([]int32, nt)
	for i, t := range tetOrder {
		newTet[t] = int32(i)
	}
	p.Tets = pfmPermute(p.Tets, tetOrder, 4)
	if p.BVH != nil {
		for i := range p.BVH.Items {
			p.BVH.Items[i] = int32(i)
		}
	}
	// A boundary triangle's vertices are unchanged by a tet's move; sort
	// the triangles by their owning tet's new index so they follow too.
	refs, err := pfmBoundaryRefs(p)
	if err != nil {
		return err // cannot happen: p was valid
	}
	tris := make([]int32, len(p.Boundary))
	triOrder := make([]int32, len(refs))
	for i := range triOrder {
		triOrder[i] = int32(i)
	}
	slices.SortStableFunc(triOrder, func(a, b int32) int { return cmp.Compare(refs[a]>>4, refs[b]>>4) })
	for i, j := range triOrder {
		copy(tris[3*i:3*i+3], p.Boundary[3*j:3*j+3])
	}
	p.Boundary = tris
	return nil
}

// mortonKey interleaves the bits of x's coordinates relative to box's
// minimum corner, each scaled to 21 bits over the box's largest side, into
// a Z-order key.
func mortonKey(x []float64, box [6]float64) uint64 {
	side := max(box[3]-box[0], box[4]-box[1], box[5]-box[2])
	var key uint64
	for a := range 3 {
		q := uint64(0)
		if side > 0 {
			q = uint64(min((x[a]-box[a])/side*(1<<21), 1<<21-1))
		}
		for b := range 21 {
			key |= (q >> b & 1) << (3*b + a)
		}
	}
	return key
}

// pfmSortedBy returns the indices of keys in increasing key order, ties by
// index.
func pfmSortedBy(keys []uint64) []int32 {
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int { return cmp.Or(cmp.Compare(keys[a], keys[b]), cmp.Compare(a, b)) })
	return order
}

// pfmPermute returns s's groups of size per in the given order.
func pfmPermute[T any](s []T, order []int32, per int) []T {
	out := make([]T, len(s))
	for i, j := range order {
		copy(out[per*i:per*i+per], s[per*int(j):per*int(j)+per])
	}
	return out
}
