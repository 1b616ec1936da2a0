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
// last tree only. A search of every tree asks a forest instead, whose
// last trees are merged while the last holds at least half as many items
// as the one before (at most about log₂ of the items' count of trees):
// on stlmodels_gearwheel.bin.stl with MergeCoplanar at -q 1.414, the
// pass's 51 k searches of all the trees asked 288 k of them, one per
// add, and 91 k in the forest (cura_pbr3d_g1_buildplate.stl: 291 k and
// 61 k), where bvh.Query took 4.4 % of the build's instructions.
type pointIndex struct {
	ids   []int32     // per item, its vertex
	boxes []float64   // per item, its position twice (a box for bvh.Build)
	trees []*bvh.Tree // tree j holds items from[j] to from[j+1]
	from  []int32     // per tree, its first item
	// The forest: tree j holds items forestFrom[j] up to
	// forestFrom[j+1] (the last, to the end).
	forest     []*bvh.Tree
	forestFrom []int32
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
	tree := bvh.Build(ix.boxes[6*from:], pointLeaf)
	ix.from = append(ix.from, int32(from))
	ix.trees = append(ix.trees, tree)
	n := len(ix.forest)
	for n > 0 && 2*(len(ix.ids)-from) >= from-int(ix.forestFrom[n-1]) {
		n--
		from = int(ix.forestFrom[n])
	}
	if n < len(ix.forest) {
		tree = bvh.Build(ix.boxes[6*from:], pointLeaf)
	}
	ix.forest, ix.forestFrom = append(ix.forest[:n], tree), append(ix.forestFrom[:n], int32(from))
}

// nearSegment calls visit for every vertex x in the trees from the
// since-th on (all of them in the forest) whose segmentDist2(x, pa,
// pb−pa) is at most r2, and perhaps for others near it, until visit
// returns true, and reports whether it did.
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
	trees, froms := ix.trees[since:], ix.from[since:]
	if since == 0 {
		trees, froms = ix.forest, ix.forestFrom
	}
	found := false
	for j := 0; j < len(trees) && !found; j++ {
		from := froms[j]
		trees[j].Query(box, func(i int32) bool {
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
