package tetgen

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// pointIndex finds the vertices near a segment among a growing set, in
// BVHs over their positions (positions do not move during refinement):
// each add appends a tree over the vertices it is given. The close-crease
// pass adds the vertices that can be on a close crease before its first
// round and those each round inserted before the next: a round finds all
// its subsegments before it splits any, so the set does not change while
// it is searched, and a search that found none can be repeated over the
// last tree only.
type pointIndex struct {
	ids   []int32     // per item, its vertex
	boxes []float64   // per item, its position twice (a box for bvh.Build)
	trees []*bvh.Tree // tree j holds items from[j] to from[j+1]
	from  []int32     // per tree, its first item
}

// pointLeaf is the index's leaf size.
const pointLeaf = 8

// add appends a tree over the vertices ids at their positions in m.
func (ix *pointIndex) add(m *tri, ids []int32) {
	from := len(ix.ids)
	ix.ids = append(ix.ids, ids...)
	for _, v := range ids {
		p := m.pos(v)
		ix.boxes = append(ix.boxes, p[0], p[1], p[2], p[0], p[1], p[2])
	}
	ix.from = append(ix.from, int32(from))
	ix.trees = append(ix.trees, bvh.Build(ix.boxes[6*from:], pointLeaf))
}

// nearSegment calls visit for every vertex x in the trees from the
// since-th on whose segmentDist2(x, pa, pb−pa) is at most r2, and
// perhaps for others near it, until visit returns true, and reports
// whether it did.
func (ix *pointIndex) nearSegment(pa, pb geom.Vec, r2 float64, since int, visit func(v int32) bool) bool {
	// segmentDist2 measures to a point within rounding of the segment's
	// box, and rounds: a margin of a thousandth of the radius and 10⁻¹²
	// of the coordinates' size covers both, with room to spare.
	scale := 0.0
	for k := range 3 {
		scale = max(scale, math.Abs(pa[k]), math.Abs(pb[k]))
	}
	r := 1.001*math.Sqrt(r2) + 1e-12*scale
	var box [6]float64
	for k := range 3 {
		box[k], box[3+k] = min(pa[k], pb[k])-r, max(pa[k], pb[k])+r
	}
	found := false
	for j := since; j < len(ix.trees) && !found; j++ {
		from := ix.from[j]
		ix.trees[j].Query(box, func(i int32) bool {
			i += from
			p := ix.boxes[6*i : 6*i+3]
			for k := range 3 {
				if p[k] < box[k] || p[k] > box[3+k] {
					return true
				}
			}
			found = visit(ix.ids[i])
			return !found
		})
	}
	return found
}

// segmentDist2 returns the squared distance from p to the segment from
// a to a+ab, whose squared length l2 is not 0.
func segmentDist2(p, a, ab geom.Vec, l2 float64) float64 {
	t := min(max(geom.Dot(geom.Sub(p, a), ab)/l2, 0), 1)
	return geom.Dist2(p, geom.Add(a, geom.Scale(t, ab)))
}
