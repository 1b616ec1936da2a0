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

// validate checks that b is a tree a traversal with a bvh.MaxDepth stack
// can walk without leaving its arrays: node 0 the root; an inner node's
// children both after it, each node the child of exactly one; leaves, in
// index order, holding consecutive runs of Items that cover it; Items a
// permutation of the tets; and each box containing its children's boxes,
// or its tets' vertices.
func (b *BVH) validate(positions []float64, tets []int32) error {
	nt, nn := len(tets)/4, len(b.Nodes)/2
	switch {
	case len(b.Nodes)%2 != 0 || len(b.Bounds) != 6*nn:
		return pfmInvalid("BVH: %d node values and %d bound values do not describe whole nodes", len(b.Nodes), len(b.Bounds))
	case nn == 0:
		return pfmInvalid("BVH: no nodes")
	case len(b.Items) != nt:
		return pfmInvalid("BVH: %d items for %d tets", len(b.Items), nt)
	}
	for i := 0; i < len(b.Bounds); i += 6 {
		box := b.Bounds[i : i+6]
		for a := range 3 {
			if !(box[a] <= box[3+a]) || pfmFirstNonFinite(box) >= 0 {
				return pfmInvalid("BVH node %d: box %v is not finite with min ≤ max", i/6, box)
			}
		}
	}
	depth := make([]uint8, nn)
	hasParent := make([]bool, nn)
	nextItem := 0
	for i := range nn {
		if i > 0 && !hasParent[i] {
			return pfmInvalid("BVH node %d: no parent", i)
		}
		first, count := int(b.Nodes[2*i]), int(b.Nodes[2*i+1])
		switch {
		case count < 0:
			return pfmInvalid("BVH node %d: negative count %d", i, count)
		case count > 0:
			if first != nextItem || count > nt-first {
				return pfmInvalid("BVH leaf %d: items [%d, %d) do not continue the previous leaf's, which end at %d of %d", i, first, first+count, nextItem, nt)
			}
			nextItem += count
			continue
		case first <= i+1 || first >= nn:
			return pfmInvalid("BVH node %d: right child %d is not after its left child %d and inside [0, %d)", i, first, i+1, nn)
		case depth[i]+1 >= bvh.MaxDepth:
			return pfmInvalid("BVH node %d: deeper than %d levels", i, bvh.MaxDepth-1)
		}
		for _, c := range [2]int{i + 1, first} {
			if hasParent[c] {
				return pfmInvalid("BVH node %d: child of two nodes", c)
			}
			hasParent[c], depth[c] = true, depth[i]+1
		}
	}
	if nextItem != nt {
		return pfmInvalid("BVH: leaves hold %d items of %d", nextItem, nt)
	}
	seen := make([]bool, nt)
	for i, it := range b.Items {
		if it < 0 || int(it) >= nt || seen[it] {
			return pfmInvalid("BVH item %d: tet %d is out of range or listed twice", i, it)
		}
		seen[it] = true
	}
	return pfmFirstError(nn, pfmChunk, func(lo, hi int) error { return b.checkBoxes(lo, hi, positions, tets) })
}

// checkBoxes checks that the boxes of nodes [lo, hi) contain what they
// should.
func (b *BVH) checkBoxes(lo, hi int, positions []float64, tets []int32) error {
	for i := lo; i < hi; i++ {
		box := b.Bounds[6*i : 6*i+6]
		first, count := b.Nodes[2*i], b.Nodes[2*i+1]
		if count == 0 {
			for _, c := range [2]int32{int32(i) + 1, first} {
				cb := b.Bounds[6*c : 6*c+6]
				for a := range 3 {
					if cb[a] < box[a] || cb[3+a] > box[3+a] {
						return pfmInvalid("BVH node %d: box does not contain child %d's", i, c)
					}
				}
			}
			continue
		}
		x0, y0, z0, x1, y1, z1 := box[0], box[1], box[2], box[3], box[4], box[5]
		for _, t := range b.Items[first : first+count] {
			for _, v := range tets[4*t : 4*t+4] {
				q := positions[3*int(v) : 3*int(v)+3]
				if q[0] < x0 || q[0] > x1 || q[1] < y0 || q[1] > y1 || q[2] < z0 || q[2] > z1 {
					return pfmInvalid("BVH leaf %d: box does not contain tet %d's vertex %d", i, t, v)
				}
			}
		}
	}
	return nil
}
