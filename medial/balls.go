package medial

import (
	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// ballIndex answers "which balls of an axis reach point p" for balls
// scaled by a factor: reach = 1 finds the balls containing p, reach =
// supportReach the balls that support p in the filter and in the local
// thickness.
type ballIndex struct {
	ax    *Axis
	ids   []int32 // indexed balls, in axis order (decreasing radius)
	reach float64
	tree  *bvh.Tree
}

// newBallIndex indexes the balls ids (nil: all) of ax with radii scaled by
// reach.
func newBallIndex(ax *Axis, ids []int32, reach float64) *ballIndex {
	if ids == nil {
		ids = make([]int32, ax.NumBalls())
		for i := range ids {
			ids[i] = int32(i)
		}
	}
	boxes := make([]float64, 6*len(ids))
	for j, i := range ids {
		c, r := ax.Centre(int(i)), reach*ax.Radii[i]
		for k := range 3 {
			boxes[6*j+k], boxes[6*j+3+k] = c[k]-r, c[k]+r
		}
	}
	return &ballIndex{ax: ax, ids: ids, reach: reach, tree: bvh.Build(boxes, 4)}
}

// largest returns the ball of largest radius (ties: lowest index) whose
// scaled ball contains p, or −1.
func (b *ballIndex) largest(p geom.Vec) int32 {
	best := int32(-1)
	b.tree.Query([6]float64{p[0], p[1], p[2], p[0], p[1], p[2]}, func(j int32) bool {
		i := b.ids[j]
		r := b.reach * b.ax.Radii[i]
		if geom.Dist2(p, b.ax.Centre(int(i))) <= r*r && (best < 0 || b.ax.Radii[i] > b.ax.Radii[best] || b.ax.Radii[i] == b.ax.Radii[best] && i < best) {
			best = i
		}
		return true
	})
	return best
}
