package tetgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// skewBipyramid is a bipyramid over an irregular pentagon with apexes
// off its axis: no symmetry fixes its best interior point, and the
// centre of its largest inscribed ball is not that point.
func skewBipyramid() *format.Surface {
	s := &format.Surface{}
	for i, a := range []float64{0, 1.1, 2.5, 3.6, 5.0} {
		r := []float64{1, 0.8, 1, 0.9, 1}[i]
		s.Positions = append(s.Positions, r*math.Cos(a), r*math.Sin(a), 0)
	}
	s.Positions = append(s.Positions, 0.2, -0.1, 1, -0.1, 0.2, -0.6)
	for i := range int32(5) {
		j := (i + 1) % 5
		s.Triangles = append(s.Triangles, i, j, 5, j, i, 6)
	}
	return s
}

// bestApex from a point outside the region (above the top apex) first
// climbs into it, then to where the cone's worst tet is best, which a
// brute-force search finds: a grid over the bounding box, then finer
// grids around the best point (sines by tetmesh.Dihedral).
func TestBestApexSkewBipyramid(t *testing.T) {
	ms, v := centred(t, skewBipyramid())
	m := ms.m
	star := slices.Clone(m.star(v, nil))
	var bnd [][3]geom.Vec
	for _, s := range star {
		k := int32(slices.Index(m.tet(s), v))
		f := m.faceVerts(4*s + k)
		bnd = append(bnd, [3]geom.Vec{m.pos(f[0]), m.pos(f[1]), m.pos(f[2])})
	}
	// objective is the star's smallest sine with v at p, 0 when a tet
	// is not positive.
	objective := func(p geom.Vec) float64 {
		m.setPos(v, p)
		for _, s := range star {
			q := m.tet(s)
			if geom.Orient3DAt(m.xyz, q[0], q[1], q[2], q[3]) <= 0 {
				return 0
			}
		}
		return starMinSine(m, star)
	}
	centre, half, brute := geom.Vec{0, 0, 0.2}, 1.2, 0.0
	for range 6 {
		const n = 24
		c := centre
		for i := range n + 1 {
			for j := range n + 1 {
				for k := range n + 1 {
					p := geom.Add(c, geom.Scale(half, geom.Vec{2*float64(i)/n - 1, 2*float64(j)/n - 1, 2*float64(k)/n - 1}))
					if s := objective(p); s > brute {
						brute, centre = s, p
					}
				}
			}
		}
		half /= 4
	}
	p, obj := new(apexWorker).bestApex(bnd, geom.Vec{0.2, -0.1, 1.3})
	got := objective(p)
	t.Logf("apex %.4f, smallest sine %.6f (objective %.6f); brute force %.6f at %.4f", p, got, obj, brute, centre)
	if math.Abs(got-obj) > 1e-9 || got < brute-1e-4 || got > brute+1e-3 {
		t.Errorf("smallest sine %.6f (objective %.6f), brute force %.6f", got, obj, brute)
	}
}

// A bipyramid whose centre sits near a face: reinsertSliver replaces the
// centre's star by the cone from the best point, which a scan of the
// axis finds (as above); the mesh stays valid and keeps its volume.
func TestReinsertSliverBipyramid(t *testing.T) {
	s := bipyramid(5, 1, 0.5)
	ms, v := centred(t, s)
	m := ms.m
	star := slices.Clone(m.star(v, nil))
	best := 0.0
	for i := 1; i < 10000; i++ {
		m.setPos(v, geom.Vec{0, 0, -0.5 + 1.5*float64(i)/10000})
		best = max(best, starMinSine(m, star))
	}
	// Near the face (0, 1, top), inside.
	a, b := m.pos(0), m.pos(1)
	c := geom.Scale(1.0/3, geom.Add(geom.Add(a, b), geom.Vec{0, 0, 1}))
	m.setPos(v, geom.Scale(0.97, c))
	worst := m.badWorstFirst(math.Sin(optTarget))
	if len(worst) == 0 {
		t.Fatal("no tet below the target")
	}
	before := worst[0].sine
	if !ms.reinsertSliver(worst[0].t) {
		t.Fatal("reinsertSliver refused")
	}
	after := 1.0
	for tt := int32(0); tt < int32(m.numTets()); tt++ {
		if m.alive(tt) {
			after = min(after, starMinSine(m, []int32{tt}))
		}
	}
	t.Logf("smallest sine %.6f → %.6f; the axis's best %.6f", before, after, best)
	if after < best-1e-5 || after > best+1e-4 {
		t.Errorf("smallest sine %.6f → %.6f, the axis's best %.6f", before, after, best)
	}
	checkMesh(t, s, ms.output())
}

// apexObjective tests the face that refused the last point first: its
// answer must be the plain one — the smallest sine over all faces, or
// −Inf when that is at most floor or the point is not strictly inside
// every face — whichever face it starts from, at random points in and
// around the skew bipyramid and at floors on both sides of, and equal
// to, the answer.
func TestApexObjectiveWorstFirst(t *testing.T) {
	ms, v := centred(t, skewBipyramid())
	m := ms.m
	var bnd [][3]geom.Vec
	for _, s := range m.star(v, nil) {
		f := m.faceVerts(4*s + int32(slices.Index(m.tet(s), v)))
		bnd = append(bnd, [3]geom.Vec{m.pos(f[0]), m.pos(f[1]), m.pos(f[2])})
	}
	plain := func(p geom.Vec, floor float64) float64 {
		obj := 1.0
		for _, f := range bnd {
			obj = min(obj, minSine(f[0], f[1], f[2], p))
			if geom.Orient3D(f[0], f[1], f[2], p) >= 0 {
				return math.Inf(-1)
			}
		}
		if obj <= floor {
			return math.Inf(-1)
		}
		return obj
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var w apexWorker
	refused, inside := 0, 0
	for range 20000 {
		p := geom.Vec{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2.2*rng.Float64() - 0.8}
		want := plain(p, math.Inf(-1))
		if !math.IsInf(want, -1) {
			inside++
		}
		for _, floor := range []float64{math.Inf(-1), 0.5 * rng.Float64(), want, math.Nextafter(want, 0)} {
			w.worst = rng.IntN(len(bnd))
			before := w.sines
			got := w.apexObjective(bnd, p, floor)
			if exp := plain(p, floor); got != exp {
				t.Fatalf("at %v, floor %v, starting from face %d: %v, want %v", p, floor, w.worst, got, exp)
			}
			if w.sines-before != len(bnd) {
				t.Fatalf("charged %d, want %d", w.sines-before, len(bnd))
			}
			if math.IsInf(got, -1) {
				refused++
			}
		}
	}
	t.Logf("%d faces, %d of 20000 points inside, %d of 80000 evaluations refused", len(bnd), inside, refused)
	if inside < 1000 || refused < 20000 {
		t.Errorf("%d points inside, %d refusals: the sample misses a case", inside, refused)
	}
}

// runApexJobs runs an attempt's ascents on all cores: at GOMAXPROCS 1,
// 2 and 4 every job's point and objective must be those of the same
// ascent run alone, bit for bit, and the work charged their sum — over
// two regions (the two bipyramids' stars, one boundary slice) and
// starts inside, outside and on a vertex.
func TestRunApexJobs(t *testing.T) {
	var bnd [][3]geom.Vec
	var ms *mesher
	var jobs []apexJob
	for i, s := range []*format.Surface{skewBipyramid(), bipyramid(5, 1, 0.5)} {
		var v int32
		ms, v = centred(t, s)
		m := ms.m
		from := len(bnd)
		for _, s := range m.star(v, nil) {
			f := m.faceVerts(4*s + int32(slices.Index(m.tet(s), v)))
			bnd = append(bnd, [3]geom.Vec{m.pos(f[0]), m.pos(f[1]), m.pos(f[2])})
		}
		for _, p := range []geom.Vec{m.pos(v), {0.2, -0.1, 1.3}, {0.3, 0.3, 0.1}, {-0.4, 0.1, -0.2}, bnd[from][0]} {
			jobs = append(jobs, apexJob{region: i, from: from, to: len(bnd), p: p})
		}
	}
	want := slices.Clone(jobs)
	var alone apexWorker
	for i := range want {
		want[i].p, want[i].obj = alone.bestApex(bnd[want[i].from:want[i].to], want[i].p)
	}
	for _, procs := range []int{1, 2, 4} {
		got := slices.Clone(jobs)
		old := runtime.GOMAXPROCS(procs)
		before := ms.m.sines
		ms.runApexJobs(bnd, got)
		runtime.GOMAXPROCS(old)
		for i := range got {
			if got[i].p != want[i].p || got[i].obj != want[i].obj {
				t.Fatalf("GOMAXPROCS=%d, job %d: %v %v, alone %v %v", procs, i, got[i].p, got[i].obj, want[i].p, want[i].obj)
			}
		}
		if ms.m.sines-before != alone.sines {
			t.Fatalf("GOMAXPROCS=%d: charged %d, alone %d", procs, ms.m.sines-before, alone.sines)
		}
	}
	// A sliver whose every region is too big has no jobs: nothing runs
	// and nothing is charged (a fresh mesher has no workers to index).
	fresh := &mesher{m: &tri{}}
	fresh.runApexJobs(nil, nil)
	if fresh.m.sines != 0 {
		t.Fatalf("no jobs charged %d", fresh.m.sines)
	}
}

// A reinsertion pass stops once its evaluations pass
// min(reinsertWork·tets, reinsertPerBad·bad), checked before each
// attempt, the scan for bad tets aside. On cylinders before sliver
// removal — at least one with few bad tets (the per-bad bound the
// smaller) and one with many (the per-tet one), each with attempts whose
// spending falls between the two bounds, so that either bound alone
// would stop elsewhere; cylinders that show neither are passed over, so
// that a change to the stages before does not leave the test without
// cases — the pass must spend exactly what the same attempts, run one by
// one without a bound on an identical mesher, have spent by the first
// attempt that takes them past the bound (so no more than that attempt's
// cost beyond it) and replace the same tets; without the bound they
// spend more.
func TestReinsertPassCap(t *testing.T) {
	if fptest.Fused() {
		t.Skip("this build fuses multiply-adds: its cases are chosen for the meshes a build that does not makes")
	}
	var perBad, perTet int // cases checked
	for _, c := range []struct {
		sides, rows int
		quality     float64
	}{{24, 6, 1.414}, {28, 4, 1.8}, {32, 6, 1.6}, {40, 6, 1.8}, {32, 6, 1.8}, {40, 6, 1.6}} {
		if perBad > 0 && perTet > 0 {
			break
		}
		name := fmt.Sprintf("%d×%d -q %v", c.sides, c.rows, c.quality)
		cyl := func() *mesher {
			return meshedBefore(t, shapes.Cylinder(1, 2, c.sides, c.rows), Options{Quality: c.quality}, "slivers")
		}
		capped, free := cyl(), cyl()
		m, fm := capped.m, free.m
		bad := len(m.badWorstFirst(math.Sin(optTarget)))
		limit := min(reinsertWork*m.liveTets(), reinsertPerBad*bad)
		// Without a bound: what the scan for bad tets costs (the pass's
		// too), and what the attempts have spent and replaced after each.
		scan := fm.sines
		list := fm.badWorstFirst(math.Sin(optTarget))
		scan = fm.sines - scan
		var spent, replaced []int
		start, n := fm.sines, 0
		for _, b := range list {
			if !fm.gone(b) && free.reinsertSliver(b.t) {
				n++
			}
			spent, replaced = append(spent, fm.sines-start), append(replaced, n)
		}
		stop := slices.IndexFunc(spent, func(s int) bool { return s > limit })
		if stop < 0 || spent[stop] > max(reinsertWork*m.liveTets(), reinsertPerBad*bad) {
			t.Logf("%s: %d tets, %d bad, bound %d: passed over (no attempt between the bounds)", name, m.liveTets(), bad, limit)
			continue
		}
		if limit == reinsertPerBad*bad {
			perBad++
		} else {
			perTet++
		}
		before := m.sines
		got := capped.reinsertSlivers()
		used := m.sines - before - scan
		last := spent[stop]
		if stop > 0 {
			last -= spent[stop-1]
		}
		t.Logf("%s: %d tets, %d bad, bound %d; pass %d evaluations, %d replaced; unbounded %d, %d replaced; the bound ends it after attempt %d of %d (cost %d)",
			name, m.liveTets(), bad, limit, used, got, spent[len(spent)-1], n, stop+1, len(spent), last)
		if used != spent[stop] || got != replaced[stop] {
			t.Errorf("%s: pass spent %d and replaced %d, want %d and %d", name, used, got, spent[stop], replaced[stop])
		}
		if used <= limit || used > limit+last {
			t.Errorf("%s: pass spent %d: bound %d, its last attempt %d", name, used, limit, last)
		}
		if spent[len(spent)-1] <= used {
			t.Errorf("%s: unbounded attempts spent %d, no more than the bounded pass's %d", name, spent[len(spent)-1], used)
		}
	}
	if perBad == 0 || perTet == 0 {
		t.Fatalf("cases where the per-bad bound binds: %d, the per-tet bound: %d; want both", perBad, perTet)
	}
}

// bestApex's first ascent (on the distances to the faces' planes) has
// its objective, nearest, recompute the distances into a.fns, the slice
// the gradient step returned: that is sound only if climb reads the
// functions fns returned before it asks obj, never after. Over the skew
// bipyramid's faces from starts inside, outside and on a vertex, climb
// must reach the same point and value, bit for bit, whether obj computes
// into a fresh slice or into a.fns and then overwrites all of it with
// NaN.
func TestClimbObjectiveReusesFns(t *testing.T) {
	ms, v := centred(t, skewBipyramid())
	m := ms.m
	var bnd [][3]geom.Vec
	var nrm []geom.Vec
	for _, s := range m.star(v, nil) {
		f := m.faceVerts(4*s + int32(slices.Index(m.tet(s), v)))
		a, b, c := m.pos(f[0]), m.pos(f[1]), m.pos(f[2])
		bnd = append(bnd, [3]geom.Vec{a, b, c})
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		nrm = append(nrm, geom.Scale(-1/geom.Norm(n), n))
	}
	dist := func(fs []ascentFn, x geom.Vec) []ascentFn {
		fs = fs[:0]
		for i, f := range bnd {
			fs = append(fs, ascentFn{F: geom.Dot(nrm[i], geom.Sub(x, f[0])), G: nrm[i]})
		}
		return fs
	}
	lowest := func(fs []ascentFn) float64 {
		lo := math.Inf(1)
		for _, f := range fs {
			lo = min(lo, f.F)
		}
		return lo
	}
	same := func(g geom.Vec) geom.Vec { return g }
	asks := 0
	for _, p0 := range []geom.Vec{m.pos(v), {0.2, -0.1, 1.3}, {0.3, 0.3, 0.1}, {-0.4, 0.1, -0.2}, bnd[0][0], {1.5, 1.5, -1}} {
		var fresh, shared ascent
		fns := func(a *ascent) func(geom.Vec, float64) []ascentFn {
			return func(x geom.Vec, _ float64) []ascentFn { a.fns = dist(a.fns, x); return a.fns }
		}
		apart := func(y geom.Vec, _ float64) (float64, geom.Vec) { return lowest(dist(nil, y)), y }
		reusing := func(y geom.Vec, _ float64) (float64, geom.Vec) {
			asks++
			shared.fns = dist(shared.fns, y)
			lo := lowest(shared.fns)
			for i := range shared.fns[:cap(shared.fns)] {
				shared.fns[:cap(shared.fns)][i] = ascentFn{F: math.NaN(), G: geom.Vec{math.NaN(), math.NaN(), math.NaN()}}
			}
			return lo, y
		}
		lo := lowest(dist(nil, p0))
		wx, wv := fresh.climb(p0, lo, 4*ascentSteps, 0.05, fns(&fresh), apart, same)
		gx, gv := shared.climb(p0, lo, 4*ascentSteps, 0.05, fns(&shared), reusing, same)
		if gx != wx || math.Float64bits(gv) != math.Float64bits(wv) {
			t.Fatalf("from %v: %v (%v) reusing a.fns, %v (%v) apart", p0, gx, gv, wx, wv)
		}
		if wv <= lo && lo < 0 {
			t.Fatalf("from %v, outside: no rise (%v)", p0, wv)
		}
	}
	if asks < 20 {
		t.Fatalf("obj asked %d times", asks)
	}
}
