package format

import (
	"github.com/pfmesh/pfmesh/internal/bvh"
)

// NewBVH returns a hierarchy over the tets' bounding boxes built by
// internal/bvh (median splits, at most leafSize tets per leaf), ready to
// store in a PFM.
func NewBVH(positions []float64, tets []int32, leafSize int) *BVH {
	nt := len(tets) / 4
	boxes := make([]float64, 6*nt)
	for t := range nt {
		b := boxes[6*t : 6*t+6]
		for k, v := range tets[4*t : 4*t+4] {
			for a := range 3 {
				x := positions[3*int(v)+a]
				if k == 0 || x < b[a] {
					b[a] = x
				}
				if k == 0 || x > b[3+a] {
					b[3+a] = x
				}
			}
		}
	}
	tr := bvh.Build(boxes, leafSize)
	return &BVH{Bounds: tr.Bounds, Nodes: tr.Nodes, Items: tr.Items}
}

// NumNodes returns the number of nodes.
func (b *BVH) NumNodes() int { return len(b.Nodes) / 2 }

// structure checks that b is a tree over nt tets that a traversal with a
// bvh.MaxDepth stack can walk without leaving its arrays: node 0 the root;
// an inner node's children both after it, each node the child of exactly
// one; leaves, in index order, holding consecutive runs of Items that
// cover it; Items a permutation of the tets; every box finite with
// min ≤ max and containing its children's. It returns each tet's leaf,
// for checkTets to check that the leaf's box contains the tet: done there,
// the tets and positions are read once, in file order.
func (b *BVH) structure(nt int) (leafOf []int32, err error) {
	nn := len(b.Nodes) / 2
	switch {
	case len(b.Nodes)%2 != 0 || len(b.Bounds) != 6*nn:
		return nil, pfmInvalid("BVH: %d node values and %d bound values do not describe whole nodes", len(b.Nodes), len(b.Bounds))
	case nn == 0:
		return nil, pfmInvalid("BVH: no nodes")
	case len(b.Items) != nt:
		return nil, pfmInvalid("BVH: %d items for %d tets", len(b.Items), nt)
	}
	for i := 0; i < len(b.Bounds); i += 6 {
		box := b.Bounds[i : i+6]
		if pfmFirstNonFinite(box) >= 0 || !(box[0] <= box[3] && box[1] <= box[4] && box[2] <= box[5]) {
			return nil, pfmInvalid("BVH node %d: box %v is not finite with min ≤ max", i/6, box)
		}
	}
	depth := make([]uint8, nn)
	hasParent := make([]bool, nn)
	leafOf = make([]int32, nt)
	for i := range leafOf {
		leafOf[i] = -1
	}
	nextItem := 0
	for i := range nn {
		if i > 0 && !hasParent[i] {
			return nil, pfmInvalid("BVH node %d: no parent", i)
		}
		first, count := int(b.Nodes[2*i]), int(b.Nodes[2*i+1])
		switch {
		case count < 0:
			return nil, pfmInvalid("BVH node %d: negative count %d", i, count)
		case count > 0:
			if first != nextItem || count > nt-first {
				return nil, pfmInvalid("BVH leaf %d: items [%d, %d) do not continue the previous leaf's, which end at %d of %d", i, first, first+count, nextItem, nt)
			}
			for j, it := range b.Items[first : first+count] {
				if it < 0 || int(it) >= nt || leafOf[it] >= 0 {
					return nil, pfmInvalid("BVH item %d: tet %d is out of range or listed twice", first+j, it)
				}
				leafOf[it] = int32(i)
			}
			nextItem += count
			continue
		case first <= i+1 || first >= nn:
			return nil, pfmInvalid("BVH node %d: right child %d is not after its left child %d and inside [0, %d)", i, first, i+1, nn)
		case depth[i]+1 >= bvh.MaxDepth:
			return nil, pfmInvalid("BVH node %d: deeper than %d levels", i, bvh.MaxDepth-1)
		}
		box := b.Bounds[6*i : 6*i+6]
		for _, c := range [2]int{i + 1, first} {
			if hasParent[c] {
				return nil, pfmInvalid("BVH node %d: child of two nodes", c)
			}
			hasParent[c], depth[c] = true, depth[i]+1
			cb := b.Bounds[6*c : 6*c+6]
			if cb[0] < box[0] || cb[1] < box[1] || cb[2] < box[2] || cb[3] > box[3] || cb[4] > box[4] || cb[5] > box[5] {
				return nil, pfmInvalid("BVH node %d: box does not contain child %d's", i, c)
			}
		}
	}
	if nextItem != nt {
		return nil, pfmInvalid("BVH: leaves hold %d items of %d", nextItem, nt)
	}
	return leafOf, nil
}
