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
// to the chordal error of the boundary triangles, about hθ/8; splitting
// while hθ > curvatureK·tol keeps it near tol/2.
const curvatureK = 6

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
	if size > z.interiorSize(centre) {
		return true
	}
	if len(tris) == 0 {
		return false
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
