package tetgen

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Optimal reinsertion: a region around a sliver (the sliver and its
// face neighbours, alone or with the stars of its interior Steiner
// vertices) is replaced by the cone from one new interior vertex to the
// region's boundary, the vertex placed where the cone's worst tet is best
// (ascent on the boundary faces, as smoothing's ascent does on a star).
// The interior Steiner vertices inside the region go: with one star it
// is smoothing that may also flip, with two it is an edge contraction
// onto the best point rather than onto an end. Every choice is scored
// before anything changes, so nothing needs undoing, and it is made only
// when it raises the region's smallest sine by reinsertMargin and takes
// its smallest acute angle below neither where it was nor optTarget. The
// new vertex is interior, so every new edge and face has a free vertex;
// the region's boundary faces, subfaces among them, stay.

const (
	reinsertMargin = 1.05
	// reinsertRegion bounds the tets of a region.
	reinsertRegion = 160
	// reinsertWork bounds the tet quality evaluations of one pass, per
	// tet of the mesh.
	reinsertWork = 20
)

// reinsertSlivers tries reinsertSliver on the tets below optTarget,
// worst first, within the work bound, and returns how many it replaced.
func (ms *mesher) reinsertSlivers() int {
	m := ms.m
	budget := m.sines + reinsertWork*m.numTets()
	n := 0
	for _, b := range m.badWorstFirst(math.Sin(optTarget)) {
		if m.sines > budget {
			break
		}
		if !m.gone(b) && ms.reinsertSliver(b.t) {
			n++
		}
	}
	return n
}

// reinsertSliver replaces the best region around tet t as the comment
// above says; it reports whether it did.
func (ms *mesher) reinsertSliver(t int32) bool {
	m := ms.m
	base := []int32{t}
	for k := int32(0); k < 4; k++ {
		if n := m.across(4*t + k); n >= 0 {
			base = append(base, n>>2)
		}
	}
	regions := [][]int32{base}
	var all []int32
	var free []int32 // t's interior Steiner vertices
	for _, v := range m.tet(t) {
		if ms.kind[v] != vVolume {
			continue
		}
		free = append(free, v)
		r := slices.Clone(base)
		for _, s := range m.star(v, ms.buf) {
			if !slices.Contains(r, s) {
				r = append(r, s)
			}
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
		regions = append(regions, r)
	}
	if len(free) > 1 {
		for _, s := range base {
			if !slices.Contains(all, s) {
				all = append(all, s)
			}
		}
		regions = append(regions, all)
	}
	var best []int32
	var bestP geom.Vec
	bestObj := -1.0
	var bnd [][3]geom.Vec
	for _, r := range regions {
		if len(r) > reinsertRegion {
			continue
		}
		before, acute := 1.0, optTarget
		for _, s := range r {
			before = min(before, m.tetMinSine(s))
			acute = min(acute, m.smallestDihedral(m.tet(s)))
		}
		bnd = bnd[:0]
		for _, s := range r {
			for k := int32(0); k < 4; k++ {
				if n := m.across(4*s + k); n < 0 || !slices.Contains(r, n>>2) {
					f := m.faceVerts(4*s + k)
					bnd = append(bnd, [3]geom.Vec{m.pos(f[0]), m.pos(f[1]), m.pos(f[2])})
				}
			}
		}
		// Start from the sliver's centroid and from each of its free
		// vertices the region holds; the ascent only climbs.
		q := m.tet(t)
		starts := []geom.Vec{geom.Scale(0.25, geom.Add(geom.Add(m.pos(q[0]), m.pos(q[1])), geom.Add(m.pos(q[2]), m.pos(q[3]))))}
		for _, v := range free {
			starts = append(starts, m.pos(v))
		}
		for _, p0 := range starts {
			p, obj := ms.bestApex(bnd, p0)
			if obj <= reinsertMargin*before || obj <= bestObj || !coneAbove(bnd, p, acute) {
				continue
			}
			best, bestP, bestObj = r, p, obj
		}
	}
	if best == nil {
		return false
	}
	v := ms.addVertex(bestP, vVolume, -1, onNone)
	// p sees every boundary face strictly from inside, so the forced
	// insertion's cavity is the region itself.
	if ms.insertForced(v, t, best, false, bestObj*(1-1e-9)) != inserted {
		ms.popVertex()
		return false
	}
	ms.tagSteiner(v)
	ms.rep.SteinerVolume++
	return true
}

// coneAbove reports whether every tet joining p to a face of bnd has its
// smallest dihedral angle at least floor (radians).
func coneAbove(bnd [][3]geom.Vec, p geom.Vec, floor float64) bool {
	for _, f := range bnd {
		if tetmesh.MinDihedralBelow(f[0], f[1], f[2], p, floor) {
			return false
		}
	}
	return true
}

// apexObjective returns the smallest dihedral sine of the tets joining
// p to the faces of bnd when it is above floor and p lies strictly
// inside each (exact orientation: the faces point out of the region),
// otherwise −Inf. The ascent only asks whether a point beats the
// current one, so a tet at or below floor ends the evaluation (as in
// starObjective); it is charged for every face all the same.
func (ms *mesher) apexObjective(bnd [][3]geom.Vec, p geom.Vec, floor float64) float64 {
	ms.m.sines += len(bnd)
	obj := 1.0
	for _, f := range bnd {
		if obj = min(obj, minSine(f[0], f[1], f[2], p)); obj <= floor {
			return math.Inf(-1)
		}
	}
	for _, f := range bnd {
		if geom.Orient3D(f[0], f[1], f[2], p) >= 0 {
			return math.Inf(-1)
		}
	}
	return obj
}

// bestApex returns the point reached from p0 by ascent on apexObjective
// and its objective (−Inf when the ascent found no point inside the
// region). The region need not be star-shaped from p0: a first ascent
// on the smallest distance from the boundary faces' planes (inward) finds
// a point of the region's kernel, the centre of the largest ball in it
// when it gets there, from which the second climbs on the sines.
func (ms *mesher) bestApex(bnd [][3]geom.Vec, p0 geom.Vec) (geom.Vec, float64) {
	var size float64
	nrm := make([]geom.Vec, len(bnd))
	for i, f := range bnd {
		size += math.Sqrt(geom.Dist2(f[0], p0))
		n := geom.Cross(geom.Sub(f[1], f[0]), geom.Sub(f[2], f[0]))
		nrm[i] = geom.Scale(-1/geom.Norm(n), n) // inward
	}
	step := 0.2 * size / float64(len(bnd))
	var a ascent
	dist := func(x geom.Vec, _ float64) []ascentFn {
		a.fns = a.fns[:0]
		for i, f := range bnd {
			a.fns = append(a.fns, ascentFn{geom.Dot(nrm[i], geom.Sub(x, f[0])), nrm[i]})
		}
		return a.fns
	}
	nearest := func(y geom.Vec, _ float64) (float64, geom.Vec) {
		lo := math.Inf(1)
		for _, fn := range dist(y, 0) {
			lo = min(lo, fn.f)
		}
		return lo, y
	}
	same := func(g geom.Vec) geom.Vec { return g }
	lo, _ := nearest(p0, 0)
	x, _ := a.climb(p0, lo, 4*ascentSteps, step, dist, nearest, same)
	cur := ms.apexObjective(bnd, x, math.Inf(-1))
	if math.IsInf(cur, -1) {
		return x, cur
	}
	sines := func(x geom.Vec, cur float64) []ascentFn {
		h := 1e-7 * step
		a.fns = a.fns[:0]
		for _, f := range bnd {
			// Only the sines near the smallest, as in smoothing's ascent
			// (ascend).
			if a.addSines([4]geom.Vec{f[0], f[1], f[2], x}, 3, h, cur+ascentWindow) {
				ms.m.sines += 3
			}
		}
		return a.fns
	}
	objective := func(y geom.Vec, floor float64) (float64, geom.Vec) { return ms.apexObjective(bnd, y, floor), y }
	return a.climb(x, cur, 4*ascentSteps, step, sines, objective, same)
}
