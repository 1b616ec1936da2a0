package tetgen

import (
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
	// reinsertPerBad bounds them per tet below optTarget too.
	reinsertPerBad = 1000
)

// reinsertSlivers tries reinsertSliver on the tets below optTarget,
// worst first, within the work bound, and returns how many it replaced.
func (ms *mesher) reinsertSlivers() int {
	m := ms.m
	bad := m.badWorstFirst(math.Sin(optTarget))
	budget := m.sines + min(reinsertWork*m.liveTets(), reinsertPerBad*len(bad))
	n := 0
	for _, b := range bad {
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
	// Start from the sliver's centroid and from each of its free
	// vertices the region holds; the ascent only climbs.
	q := m.tet(t)
	starts := []geom.Vec{geom.Scale(0.25, geom.Add(geom.Add(m.pos(q[0]), m.pos(q[1])), geom.Add(m.pos(q[2]), m.pos(q[3]))))}
	for _, v := range free {
		starts = append(starts, m.pos(v))
	}
	bnd := ms.apexFaces[:0]
	jobs := ms.apexJobs[:0]
	var before [6]float64 // per region: base, a star per free vertex, all
	for i, r := range regions {
		if len(r) > reinsertRegion {
			continue
		}
		before[i] = 1
		for _, s := range r {
			before[i] = min(before[i], m.tetMinSine(s))
		}
		from := len(bnd)
		for _, s := range r {
			for k := int32(0); k < 4; k++ {
				if n := m.across(4*s + k); n < 0 || !slices.Contains(r, n>>2) {
					f := m.faceVerts(4*s + k)
					bnd = append(bnd, [3]geom.Vec{m.pos(f[0]), m.pos(f[1]), m.pos(f[2])})
				}
			}
		}
		for _, p0 := range starts {
			jobs = append(jobs, apexJob{region: i, from: from, to: len(bnd), p: p0})
		}
	}
	ms.apexFaces, ms.apexJobs = bnd, jobs
	ms.runApexJobs(bnd, jobs)
	var best []int32
	var bestP geom.Vec
	bestObj := -1.0
	acute := [6]float64{-1, -1, -1, -1, -1, -1} // per region, when first asked
	for _, j := range jobs {
		if j.obj <= reinsertMargin*before[j.region] || j.obj <= bestObj {
			continue
		}
		r := regions[j.region]
		if acute[j.region] < 0 {
			acute[j.region] = optTarget
			for _, s := range r {
				acute[j.region] = min(acute[j.region], m.smallestDihedral(m.tet(s)))
			}
		}
		if coneAbove(bnd[j.from:j.to], j.p, acute[j.region]) {
			best, bestP, bestObj = r, j.p, j.obj
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

// apexJob is one ascent of reinsertSliver: from p over the region whose
// boundary faces are from:to of the attempt's; it leaves the point
// reached in p and its objective in obj.
type apexJob struct {
	region, from, to int
	p                geom.Vec
	obj              float64
}

// runApexJobs runs bestApex for every job, on all cores. Each ascent
// depends only on its faces and start, and each worker counts what it
// charges, added to m.sines after, so the jobs' results and the budget
// are the same whatever GOMAXPROCS is and however the jobs interleave.
// No jobs (every region over reinsertRegion) is no work.
func (ms *mesher) runApexJobs(bnd [][3]geom.Vec, jobs []apexJob) {
	if len(jobs) == 0 {
		return
	}
	w := min(runtime.GOMAXPROCS(0), len(jobs))
	if len(ms.apexWorkers) < w {
		ms.apexWorkers = make([]apexWorker, w)
	}
	run := func(a *apexWorker, next *atomic.Int32) {
		for i := int(next.Add(1)) - 1; i < len(jobs); i = int(next.Add(1)) - 1 {
			j := &jobs[i]
			j.p, j.obj = a.bestApex(bnd[j.from:j.to], j.p)
		}
	}
	var next atomic.Int32
	if w <= 1 {
		run(&ms.apexWorkers[0], &next)
	} else {
		var wg sync.WaitGroup
		for i := range w {
			wg.Go(func() { run(&ms.apexWorkers[i], &next) })
		}
		wg.Wait()
	}
	for i := range ms.apexWorkers[:w] {
		ms.m.sines += ms.apexWorkers[i].sines
		ms.apexWorkers[i].sines = 0
	}
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

// apexWorker holds one worker's buffers for bestApex and the quality
// evaluations it charged (see runApexJobs).
type apexWorker struct {
	a     ascent
	nrm   []geom.Vec
	sines int
	// faceSines holds each face's sine at the last point apexObjective
	// evaluated (see ascent.known).
	faceSines []float64
	// worst is the face that rejected the last point apexObjective
	// refused: it tests that one first, since a halved step is mostly
	// refused by the same face (82 % of refusals on the aneurysm).
	worst int
}

// apexObjective returns the smallest dihedral sine of the tets joining
// p to the faces of bnd when it is above floor and p lies strictly
// inside each (exact orientation: the faces point out of the region),
// otherwise −Inf. The ascent only asks whether a point beats the
// current one, so a tet at or below floor ends the evaluation (as in
// starObjective); it is charged for every face all the same.
func (w *apexWorker) apexObjective(bnd [][3]geom.Vec, p geom.Vec, floor float64) float64 {
	w.sines += len(bnd)
	w.faceSines = slices.Grow(w.faceSines[:0], len(bnd))[:len(bnd)]
	// The faces and p by pointer: minSine's values go through the stack.
	f := &bnd[w.worst]
	obj := pointsMinSine(&f[0], &f[1], &f[2], &p)
	if obj <= floor {
		return math.Inf(-1)
	}
	w.faceSines[w.worst] = obj
	for i := range bnd {
		if i == w.worst {
			continue
		}
		f := &bnd[i]
		s := pointsMinSine(&f[0], &f[1], &f[2], &p)
		w.faceSines[i] = s
		if obj = min(obj, s); obj <= floor {
			w.worst = i
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
func (w *apexWorker) bestApex(bnd [][3]geom.Vec, p0 geom.Vec) (geom.Vec, float64) {
	var size float64
	w.nrm = w.nrm[:0]
	w.worst = 0
	for _, f := range bnd {
		size += math.Sqrt(geom.Dist2(f[0], p0))
		n := geom.Cross(geom.Sub(f[1], f[0]), geom.Sub(f[2], f[0]))
		w.nrm = append(w.nrm, geom.Scale(-1/geom.Norm(n), n)) // inward
	}
	nrm := w.nrm
	step := 0.2 * size / float64(len(bnd))
	a := &w.a
	dist := func(x geom.Vec, _ float64) []ascentFn {
		a.fns = slices.Grow(a.fns[:0], len(bnd))[:len(bnd)]
		for i := range bnd {
			// geom.Dot(n, geom.Sub(x, o)) in scalars: geom's vectors,
			// and each face ranged over, were copied through the stack.
			n, o := &nrm[i], &bnd[i][0]
			a.fns[i] = ascentFn{F: n[0]*(x[0]-o[0]) + n[1]*(x[1]-o[1]) + n[2]*(x[2]-o[2]), G: *n}
		}
		return a.fns
	}
	nearest := func(y geom.Vec, _ float64) (float64, geom.Vec) {
		lo := math.Inf(1)
		fs := dist(y, 0)
		for i := range fs {
			lo = min(lo, fs[i].F)
		}
		return lo, y
	}
	same := func(g geom.Vec) geom.Vec { return g }
	lo, _ := nearest(p0, 0)
	x, _ := a.climb(p0, lo, 4*ascentSteps, step, dist, nearest, same)
	cur := w.apexObjective(bnd, x, math.Inf(-1))
	if math.IsInf(cur, -1) {
		return x, cur
	}
	a.evaluated(x, cur)
	sines := func(x geom.Vec, cur float64) []ascentFn {
		lim, known := a.window(x, cur, len(bnd))
		for i, f := range bnd {
			// Only the sines near the smallest, as in smoothing's ascent
			// (ascend).
			if known && outOfWindow(w.faceSines[i], lim) {
				continue
			}
			if a.addSines(&[4]geom.Vec{f[0], f[1], f[2], x}, 3, lim) {
				w.sines += gradCost
			}
		}
		return a.fns
	}
	objective := func(y geom.Vec, floor float64) (float64, geom.Vec) {
		obj := w.apexObjective(bnd, y, floor)
		a.evaluated(y, obj)
		return obj, y
	}
	return a.climb(x, cur, 4*ascentSteps, step, sines, objective, same)
}
