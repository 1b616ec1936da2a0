package stuffing

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// sizing decides how fine the octree must be: the user's limits
// everywhere, and near the surface whatever the tolerance needs — cells
// small enough that each smooth patch turns by little inside one, and
// smaller than the gap between facing sheets, so thin walls and slots are
// resolved rather than dropped.
type sizing struct {
	in        *input
	opt       *Options
	tol       float64
	surfCap   float64 // coarsest surface cell
	floor     float64 // finest cell thin-part refinement goes to
	forced    *keyMap // cells a previous round found too coarse
	minLevel  int
	thinCells int // surface cells split for facing sheets
}

// curvatureK relates cell size h and the turn θ of a patch inside a cell
// to the error of the boundary triangles there, about hθ/8 (up to hθ/4
// where the turn is concentrated at one edge below the feature angle):
// splitting while hθ > curvatureK·tol keeps it near tol/2 in most places,
// and the fidelity check refines the rest.
const curvatureK = 4

// facingCos: two triangles in one cell whose normals make an angle over
// 120° are opposite sides of a thin wall or slot (or a sharp edge).
const facingCos = -0.5

// interiorSize returns the user's size limit at p (+Inf when none).
func (z *sizing) interiorSize(p geom.Vec) float64 {
	h := math.Inf(1)
	if z.opt.EdgeLength > 0 {
		h = z.opt.EdgeLength
	}
	if z.opt.MaxVolume > 0 {
		// The largest lattice tet in a cell of size h has volume h³/12.
		h = min(h, math.Cbrt(12*z.opt.MaxVolume))
	}
	if z.opt.Sizing != nil {
		if s := z.opt.Sizing(p); s > 0 {
			h = min(h, s)
		}
	}
	return h
}

func (z *sizing) split(level int, key uint64, centre geom.Vec, half float64, tris []int32) bool {
	size := 2 * half
	if level < z.minLevel || z.forced.get(key) >= 0 {
		return true
	}
	if len(tris) == 0 {
		// Away from the surface a cell is all inside or all outside; only
		// inside ones need the user's size.
		return size > z.interiorSize(centre) && z.in.wind.At(centre) > 0.5
	}
	if size > z.interiorSize(centre) {
		return true
	}
	if size > z.surfCap {
		return true
	}
	if size <= z.floor {
		return false
	}
	return z.turns(tris)*size > curvatureK*z.tol || z.facing(tris)
}

// turns returns the largest angle between normals of one smooth patch
// among tris (radians).
func (z *sizing) turns(tris []int32) float64 {
	type ref struct {
		patch int32
		n     geom.Vec
	}
	var refs [8]ref
	nref := 0
	worst := 0.0
	for _, t := range tris {
		n := z.in.normal[t]
		if n == (geom.Vec{}) {
			continue
		}
		p := z.in.patch[t]
		found := false
		for _, r := range refs[:nref] {
			if r.patch == p {
				worst = max(worst, math.Acos(max(-1, min(1, geom.Dot(n, r.n)))))
				found = true
				break
			}
		}
		if !found && nref < len(refs) {
			refs[nref] = ref{p, n}
			nref++
		}
	}
	return worst
}

// facing reports whether two of tris face opposite ways.
func (z *sizing) facing(tris []int32) bool {
	const most = 256 // a cell this crowded near its floor is split anyway
	if len(tris) > most {
		return true
	}
	for i, t := range tris {
		n := z.in.normal[t]
		for _, u := range tris[i+1:] {
			if geom.Dot(n, z.in.normal[u]) < facingCos {
				return true
			}
		}
	}
	return false
}

// force makes the next octree finer where x missed the tolerance: the
// cells containing x are split down to the level below the leaf there, or
// further when the miss was large (the error of a cell falls about in
// proportion to its size).
func (z *sizing) force(o *octree, x miss) {
	idx, level, ok := o.leafOf(x.p)
	if !ok {
		return
	}
	extra := int(math.Ceil(math.Log2(x.d / (0.6 * z.tol))))
	target := min(maxLevel, level+min(3, max(1, extra)))
	// Split the cells around x too, so the finer region is wider than the
	// miss and the next lattice does not just move it aside.
	for l := 0; l < target; l++ {
		sh := maxLevel - l
		i, j, k := idx[0]>>sh, idx[1]>>sh, idx[2]>>sh
		for d := 0; d < 27; d++ {
			ni, nj, nk := i+uint32(d%3)-1, j+uint32(d/3%3)-1, k+uint32(d/9)-1
			if n := uint32(1) << l; ni < n && nj < n && nk < n {
				z.forced.set(nodeKey(l, ni, nj, nk), 1)
			}
		}
	}
}

// leafOf returns the finest-level index of p and the level of the leaf
// containing it.
func (o *octree) leafOf(p geom.Vec) (idx [3]uint32, level int, ok bool) {
	n := float64(uint32(1) << maxLevel)
	for k := range 3 {
		f := (p[k] - o.origin[k]) / o.size * n
		if !(f >= 0 && f < n) {
			return idx, 0, false
		}
		idx[k] = uint32(f)
	}
	key, _, ok := o.leafAt(maxLevel, idx[0], idx[1], idx[2])
	if !ok {
		return idx, 0, false
	}
	level, _, _, _ = unpackNode(key)
	return idx, level, true
}

// splitLeaf makes the next octree one level finer in the leaf containing
// p, and nowhere else but where balancing needs it: the gentler
// refinement the volume gap asks for.
func (z *sizing) splitLeaf(o *octree, p geom.Vec) {
	idx, level, ok := o.leafOf(p)
	if !ok || level >= maxLevel {
		return
	}
	for l := 0; l <= level; l++ {
		sh := maxLevel - l
		z.forced.set(nodeKey(l, idx[0]>>sh, idx[1]>>sh, idx[2]>>sh), 1)
	}
}
