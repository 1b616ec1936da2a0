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
	// maxR holds per tree node the largest radius of the balls below it:
	// largest skips the subtrees that cannot beat the ball it has.
	maxR []float64
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
	t := bvh.Build(boxes, 4)
	maxR := make([]float64, t.NumNodes())
	// Children follow their parent in the tree's depth-first layout.
	for i := len(maxR) - 1; i >= 0; i-- {
		first, count := t.Nodes[2*i], t.Nodes[2*i+1]
		if count == 0 {
			maxR[i] = max(maxR[i+1], maxR[first])
			continue
		}
		for _, j := range t.Items[first : first+count] {
			maxR[i] = max(maxR[i], ax.Radii[ids[j]])
		}
	}
	return &ballIndex{ax: ax, ids: ids, reach: reach, tree: t, maxR: maxR}
}

// largest returns the ball of largest radius (ties: lowest index) whose
// scaled ball contains p, or −1. It walks the tree depth first, the child
// with the larger ball first, and skips subtrees whose largest ball is
// smaller than the one it has.
func (b *ballIndex) largest(p geom.Vec) int32 {
	t := b.tree
	best, bestR := int32(-1), -1.0
	if len(t.Nodes) == 0 {
		return best
	}
	var stack [bvh.MaxDepth]int32
	stack[0] = 0
	for sp := 1; sp > 0; {
		sp--
		i := stack[sp]
		bb := t.Bounds[6*i : 6*i+6]
		if b.maxR[i] < bestR || p[0] < bb[0] || p[0] > bb[3] || p[1] < bb[1] || p[1] > bb[4] || p[2] < bb[2] || p[2] > bb[5] {
			continue
		}
		first, count := t.Nodes[2*i], t.Nodes[2*i+1]
		if count == 0 {
			l, r := i+1, first
			if b.maxR[l] > b.maxR[r] {
				l, r = r, l
			}
			stack[sp], stack[sp+1] = l, r // the larger ball's child on top
			sp += 2
			continue
		}
		for _, j := range t.Items[first : first+count] {
			ball := b.ids[j]
			r := b.ax.Radii[ball]
			if s := b.reach * r; (r > bestR || r == bestR && ball < best) && geom.Dist2(p, b.ax.Centre(int(ball))) <= s*s {
				best, bestR = ball, r
			}
		}
	}
	return best
}
