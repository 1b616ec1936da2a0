package tetgen

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Sliver insertion after optimization: a tet whose smallest dihedral
// angle flips and smoothing left below the target gets a vertex at its
// circumcentre (as TetGen and HXT do), which removes it and every tet
// whose circumsphere holds that point; the next optimization pass then
// smooths the new vertex and its neighbours. Where that fails, an
// interior Steiner vertex of the tet is relocated: a point at the
// centroid of its neighbours replaces its star by forced insertion, the
// cavity grown until the new point sees all of it — smoothing cannot do
// this when the vertex is trapped in a flat region against a subface. A circumcentre that lies
// outside the body, encroaches a subface (it would sit too close to the
// surface and make new flat tets there) or falls near a vertex of its
// cavity is skipped, as is one that would make an angle below the mesh's
// smallest. Failing both, a point goes in front of one of the tet's faces
// (insertInFront): at creases and walls the circumcentre lies outside the
// body. The new vertex is inside the body, so every new edge and face has
// a free vertex: no zero-pressure simplex appears.

// sliverRounds bounds the rounds of sliver insertion, each followed by
// an optimization pass.
const sliverRounds = 4

// removeSlivers alternates sliver insertion and optimization (with
// surface edge removal) until a round inserts nothing or gains nothing,
// then edge contraction (contract.go) and optimization, then optimal
// reinsertion (reinsert.go) and optimization.
func (ms *mesher) removeSlivers() error {
	if ms.opt.Coarse {
		return nil
	}
	defer ms.m.stopLog()
	// A round of insertion and its optimization pass that neither raised
	// the mesh's smallest angle nor cut its bad tets by a twenty-fifth
	// ends the insertion rounds: where the input bounds the worst tets
	// (needle triangles, small crease angles) later rounds only churn,
	// each inserting its 2 % and smoothing for twelve rounds
	// (gmsh_lever.stl at -q 1.414: the worst sine stayed 0.0256 through
	// rounds two to four while the bad tets grew from 3 268 to 3 536;
	// occt_propeller.stl at about a million tets: its fourth round put
	// in 4.4 k points to cut the bad tets by 3 %, 19 608 to 18 977).
	watch := stallWatch{patience: 1, share: 25}
	if err := ms.rounds(sliverRounds, func() int {
		if watch.stalled(ms.badAcute()) {
			return 0
		}
		return ms.splitSlivers()
	}); err != nil {
		return err
	}
	// Contraction after insertion: before or between its rounds it moved
	// the mushroom's smallest angle from 11.7° to 9.96° (docs/meshing.md).
	ms.endStalled = true
	defer func() { ms.endStalled = false }()
	if err := ms.rounds(contractRounds, ms.contractSlivers); err != nil {
		return err
	}
	// Reinsertion last: each of its changes raises the smallest sine of
	// the region it replaces, and the optimization after it smooths and
	// flips around the new vertices, which is where its gains come from
	// (reinsert.go). Its flips then keep the smallest acute angle too,
	// as its smoothing and reinsertion do, so that no stage after
	// contraction lowers the mesh's smallest angle.
	ms.keepAcute = true
	defer func() { ms.keepAcute = false }()
	return ms.rounds(reinsertRounds, ms.reinsertSlivers)
}

// rounds runs op, which returns how many changes it made, at most n
// times, each followed by an optimization pass, until it makes none.
func (ms *mesher) rounds(n int, op func() int) error {
	for range n {
		if op() == 0 {
			return nil
		}
		if err := ms.improve(true); err != nil {
			return err
		}
	}
	return nil
}

// badAcute returns the number of tets below optTarget and the mesh's
// smallest dihedral angle (optTarget when none is below it). It scans
// as optimization does (scanBad), which the next scan continues from.
func (ms *mesher) badAcute() (int, float64) {
	bad := ms.m.scanBad(math.Sin(optTarget))
	return len(bad), ms.m.smallestAngle(bad)
}

// contractRounds bounds the rounds of edge contraction after sliver
// insertion, each followed by an optimization pass.
const contractRounds = 2

// reinsertRounds bounds the rounds of optimal reinsertion, each followed
// by an optimization pass.
const reinsertRounds = 4

// keyedTet is a tet, its smallest dihedral sine and its sorted vertices,
// which tell whether the tet is still there after other changes.
type keyedTet struct {
	sine float64
	t    int32
	key  [4]int32
}

// badWorstFirst returns the tets whose smallest dihedral sine is below
// target, worst first (ties by vertices, for determinism).
func (m *tri) badWorstFirst(target float64) []keyedTet {
	var bad []keyedTet
	for _, b := range m.scanBad(target) {
		bad = append(bad, keyedTet{b.sine, b.t, sortedTet(m.tet(b.t))})
	}
	slices.SortFunc(bad, func(a, b keyedTet) int {
		if c := cmp.Compare(a.sine, b.sine); c != 0 {
			return c
		}
		return slices.Compare(a.key[:], b.key[:])
	})
	return bad
}

// gone reports whether an earlier change removed tet b.
func (m *tri) gone(b keyedTet) bool { return !m.alive(b.t) || sortedTet(m.tet(b.t)) != b.key }

// maxSliverSplits bounds the points one pass inserts, per tet of the
// mesh: the pass mends slivers, it is not a second refinement.
const maxSliverSplits = 0.02

// splitSlivers inserts the circumcentres of the tets below optTarget,
// worst first, or relocates one of their interior vertices; it returns
// how many points it inserted.
func (ms *mesher) splitSlivers() int {
	m := ms.m
	bad := m.badWorstFirst(math.Sin(optTarget))
	// A tet's smallest sine may come from an obtuse angle, so a floor of
	// sines alone could let an insertion make an acute angle below the
	// mesh's smallest: insertInFront's new tets keep above both.
	acute := math.Pi / 2 // the mesh's smallest dihedral angle
	for _, b := range bad {
		acute = min(acute, m.smallestDihedral(m.tet(b.t)))
	}
	limit := int(maxSliverSplits*float64(m.liveTets())) + 1
	defer ms.startFront()()
	inserted := 0
	for _, b := range bad {
		if inserted >= limit {
			break
		}
		if m.gone(b) {
			continue
		}
		if ms.insertCircumcentre(b.t, acute) {
			inserted++
			continue
		}
		mended := false
		for _, v := range b.key {
			if ms.kind[v] == vVolume && ms.relocate(v, 1.1*b.sine) {
				mended = true
				break
			}
		}
		if mended || ms.insertInFront(b.t, max(1.1*b.sine, math.Sin(acute))) {
			inserted++
		}
	}
	return inserted
}

// frontHeights are the heights, relative to a face's mean edge length,
// at which insertInFront tries a point in front of it: an equilateral
// tet's is 0.82. The lowest is tried in front of thin subfaces only
// (thinSubface), such as those at the apex of a needle input triangle
// (stlmodels_gearwheel.bin.stl's, 2e-5 wide at a 0.016° apex): a tet on
// one is as flat as its fourth vertex is high, and one perturbed run
// left a 0.079° tet there under a vertex 0.04 high, where no vertex that
// high could give more than 0.18°. In front of every face it took the
// merged aneurysm at about 1M tets from 2.30° to 1.93°, in front of
// every subface the merged propeller there from 0.488° to 0.453°.
var frontHeights = [...]float64{0.8, 0.5, 0.3, 0.1}

// insertInFront inserts a point in front of a face of tet t (a wall's
// or a crease's face of a cap, say), on the inward normal through the
// face's centroid, by forced insertion over a cavity that holds t, when
// every new tet's smallest dihedral sine exceeds floor; it reports whether it did. It mends what neither the
// circumcentre nor smoothing reaches: caps and crease slivers against
// the surface, whose circumcentres lie outside the body and whose free
// vertex sits near a wall, held there by the rest of its star. The
// point must be reachable from t without crossing a subface.
//
// The points are tried in order, and nearly all fail (plb_aneurysm.stl
// with MergeCoplanar at -q 1.414 -a 0.012: 16 k calls tried 191 k
// points, nearly every call all twelve, in 0.6 s, most of it spent in
// the cavities of tries that fail). A try changes nothing but the random
// state of the walks until it succeeds, so the walks are taken first, in
// order, keeping the random state after each, and the cavities are tried
// on two cores, each try by forcedCavity in a view of the mesh with its
// own scratch; the first try that succeeds is then made again, from its
// walks' random state, as the serial loop made it. The mesh is the
// serial loop's whatever GOMAXPROCS is.
func (ms *mesher) insertInFront(t int32, floor float64) bool {
	m := ms.m
	tries := ms.frontTries[:0]
	defer func() { ms.frontTries = tries }()
	var rng uint64 // the random state before the thin subfaces' tries
	for i, h := range frontHeights {
		if i == len(frontHeights)-1 {
			rng = m.rng
		}
		// Every face: limiting this to faces opposite an interior Steiner
		// vertex lifted some CAD models' minimum but left a 7.3° tet in
		// the pipeline's icosphere fixture (15.0° this way).
		for k := int32(0); k < 4; k++ {
			if i == len(frontHeights)-1 && !m.thinSubface(4*t+k) {
				continue
			}
			p := m.frontPoint(t, k, h)
			v := ms.addVertex(p, vVolume, -1, onNone)
			// The walk from t, then insertForced's from the tet found
			// there: a second walk from t may meet a subface (the walk is
			// randomized), and locateForced's fallback scans every tet.
			at := int32(-1)
			if t0, blocked := m.locate(v, t); blocked < 0 {
				at = m.locateForced(v, t0)
			}
			ms.popVertex()
			tries = append(tries, frontTry{p: p, at: at, rng: m.rng})
		}
	}
	must := []int32{t}
	first := ms.firstForced(tries, must, floor)
	if first < 0 {
		// As if the thin subfaces' tries had not been walked, so that
		// meshes move only where one is made: with their walks' random
		// state kept, the cura plate as given (perturbed, k = 3) fell
		// from 0.737° to 0.706° without one made.
		m.rng = rng
		return false
	}
	m.rng = tries[first].rng
	v := ms.addVertex(tries[first].p, vVolume, -1, onNone)
	status, lost := ms.forcedCavity(v, tries[first].at, must, true, floor)
	if status != inserted {
		// forcedCavity is a function of the mesh, the point and the tet
		// it starts from: a view found it succeed.
		panic("tetgen: a forced insertion tried twice gave two answers")
	}
	ms.fillForced(v, lost)
	ms.tagSteiner(v)
	ms.rep.SteinerVolume++
	return true
}

// frontPoint returns the point in front of face k of tet t, on the
// inward normal through its centroid, h times its mean edge length away.
func (m *tri) frontPoint(t, k int32, h float64) geom.Vec {
	f := m.faceVerts(4*t + k)
	a, b, c := m.pos(f[0]), m.pos(f[1]), m.pos(f[2])
	n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a)) // out of t
	l := (math.Sqrt(geom.Dist2(a, b)) + math.Sqrt(geom.Dist2(b, c)) + math.Sqrt(geom.Dist2(c, a))) / 3
	centroid := geom.Scale(1.0/3, geom.Add(geom.Add(a, b), c))
	return geom.Sub(centroid, geom.Scale(h*l/geom.Norm(n), n))
}

// frontTry is a point insertInFront tries, the tet its walks found (−1
// when they failed) and the random state after them.
type frontTry struct {
	p   geom.Vec
	at  int32
	rng uint64
}

// forcedView is a view of the mesher for forcedCavity beside the mesher's
// own: it shares the mesh and has its own scratch, and its point is the
// vertex after the one the mesher may be trying.
type forcedView struct {
	ms mesher
	m  tri
	// The view's scratch, kept for the next view.
	mark                                 []uint8
	cav, bnd, outer, touched, buf2, bvts []int32
	vseen                                stamps
	cavSide                              [][4]uint8
}

// load makes w a view of ms for points at vertex v, the one after the
// next: ms keeps the next for its own tries.
func (w *forcedView) load(ms *mesher, v int32) {
	m := ms.m
	w.ms, w.m = *ms, *m
	w.ms.m = &w.m
	if n := m.numTets(); len(w.mark) < n {
		w.mark = append(w.mark, make([]uint8, n-len(w.mark))...)
	}
	w.m.mark = w.mark
	w.m.cav, w.m.bnd, w.m.outer, w.m.touched, w.m.buf2, w.m.bverts = w.cav, w.bnd, w.outer, w.touched, w.buf2, w.bvts
	w.m.vseen, w.ms.cavSide = w.vseen, w.cavSide
	w.m.xyz = m.xyz[:3*int(v)+3]
}

// save keeps the view's scratch for the next view.
func (w *forcedView) save() {
	w.cav, w.bnd, w.outer, w.touched, w.buf2, w.bvts = w.m.cav, w.m.bnd, w.m.outer, w.m.touched, w.m.buf2, w.m.bverts
	w.vseen, w.cavSide = w.m.vseen, w.ms.cavSide
}

// firstForced returns the index of the first try whose forced insertion
// over a cavity holding must would succeed with floor, or −1, changing
// nothing. The mesher and, during splitSlivers with GOMAXPROCS above 1,
// its front worker take the tries in turns; a try after one known to
// succeed is skipped, so every try before the first that succeeds is
// taken.
func (ms *mesher) firstForced(tries []frontTry, must []int32, floor float64) int {
	m := ms.m
	n := int32(len(ms.kind)) // the mesher's point; the worker's is n+1
	m.xyz = slices.Grow(m.xyz, 6)
	b := &frontBatch{tries: tries, must: must, floor: floor}
	b.first.Store(int32(len(tries)))
	if w := ms.front; w != nil {
		w.post(ms, b, n+1)
		b.run(ms, n)
		w.close(b)
	} else {
		b.run(ms, n)
	}
	m.xyz = m.xyz[:3*n]
	if f := int(b.first.Load()); f < len(tries) {
		return f
	}
	return -1
}

// frontBatch is one call's tries for firstForced. inflight counts the
// worker's runs in it; once closed is set, the worker starts none.
type frontBatch struct {
	tries       []frontTry
	must        []int32
	floor       float64
	next, first atomic.Int32
	inflight    atomic.Int32
	closed      atomic.Bool
}

// run takes tries from b until none is left before the first known to
// succeed, with its point at vertex v.
func (b *frontBatch) run(ms *mesher, v int32) {
	m := ms.m
	for i := b.next.Add(1) - 1; i < int32(len(b.tries)) && i < b.first.Load(); i = b.next.Add(1) - 1 {
		try := &b.tries[i]
		if try.at < 0 {
			continue
		}
		m.xyz = append(m.xyz[:3*v], try.p[0], try.p[1], try.p[2])
		if status, _ := ms.forcedCavity(v, try.at, b.must, true, b.floor); status == inserted {
			m.clearMarks()
			for f := b.first.Load(); i < f && !b.first.CompareAndSwap(f, i); f = b.first.Load() {
			}
		}
	}
}

// frontWorker takes tries of firstForced beside the mesher, on a
// goroutine of its own that spins a while between batches before it
// sleeps: a batch is about 38 µs of work (4 k a round, 50 µs apart, on
// plb_aneurysm.stl as above), and a goroutine started or woken for each
// joined too late to gain (insertInFront 0.13 → 0.16 s a round). The
// mesher waits for the worker only while it runs a try: a worker that
// comes late finds its batch closed and leaves the mesh alone.
type frontWorker struct {
	view forcedView
	cur  atomic.Pointer[frontBatch]
	wake chan struct{}
	quit atomic.Bool
}

// frontSpins is how many times the front worker looks for a batch before
// it sleeps, longer than the time between most batches: on the aneurysm
// above, splitSlivers took 0.75 s at 2¹², 0.55 s at 2¹⁷ and 0.60 s at
// 2²⁰ (0.78 s serial).
const frontSpins = 1 << 17

// post gives the worker batch b, with its point at vertex v.
func (w *frontWorker) post(ms *mesher, b *frontBatch, v int32) {
	w.view.load(ms, v)
	w.cur.Store(b)
	w.rouse()
}

// rouse wakes the worker if it sleeps (a token left from before only
// makes it look again).
func (w *frontWorker) rouse() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close ends batch b: the worker starts no run in it, and the one it is
// in, if any, ends before close returns.
func (w *frontWorker) close(b *frontBatch) {
	b.closed.Store(true)
	for b.inflight.Load() != 0 {
		runtime.Gosched()
	}
	w.view.save()
}

// work is the worker's loop.
func (w *frontWorker) work() {
	var last *frontBatch
	for !w.quit.Load() {
		b := w.cur.Load()
		for spins := 0; b == last && spins < frontSpins; spins++ {
			b = w.cur.Load()
		}
		if b == last {
			<-w.wake
			continue
		}
		last = b
		// Against close: either close sees this run in flight and
		// waits, or the run sees the batch closed.
		b.inflight.Add(1)
		if !b.closed.Load() {
			b.run(&w.view.ms, int32(len(w.view.m.xyz)/3-1))
		}
		b.inflight.Add(-1)
	}
}

// startFront starts the front worker when GOMAXPROCS allows; the
// function it returns stops it.
func (ms *mesher) startFront() func() {
	if runtime.GOMAXPROCS(0) < 2 {
		return func() {}
	}
	w := &frontWorker{wake: make(chan struct{}, 1)}
	ms.front = w
	var wg sync.WaitGroup
	wg.Go(w.work)
	return func() {
		w.quit.Store(true)
		w.rouse()
		wg.Wait()
		ms.front = nil
	}
}

// insertCircumcentre inserts the circumcentre of tet t when it lies
// inside the body, encroaches no subface and keeps centreGap from the
// cavity's vertices, and makes no dihedral angle below floor (radians);
// it reports whether it did.
func (ms *mesher) insertCircumcentre(t int32, floor float64) bool {
	m := ms.m
	cc, r2 := m.tetCircumcentre(t)
	v := ms.addVertex(cc, vVolume, -1, onNone)
	t0, blocked := m.locate(v, t)
	if blocked >= 0 || m.hasVertexAt(t0, cc) >= 0 {
		ms.popVertex()
		return false
	}
	m.findCavity(v, t0)
	ok := true
	for _, n := range m.outer {
		ok = ok && !(n < noTet && ms.encroaches(cc, refSubface(n)))
	}
	if !ok || !m.starShape(v, t0, false) || m.cavityVertexNear(cc, centreGap*centreGap*r2) || ms.coneBelow(v, floor) {
		m.clearMarks()
		ms.popVertex()
		return false
	}
	m.fillCavity(v)
	ms.tagSteiner(v)
	ms.rep.SteinerVolume++
	return true
}

// relocate replaces interior Steiner vertex v by a point at the centroid
// of its neighbours (insertForced over v's star, grown to be star-shaped)
// when every new tet's smallest dihedral sine exceeds floor; it reports
// whether it did. A centroid that a walk from the star reaches only
// across the surface is not tried, as insertCircumcentre does not try
// such a centre: insertForced would scan every tet for it (on
// occt_propeller.stl at about 1M tets, 104 of 80 721 relocations, 15 ms
// each, and none of them succeeded).
func (ms *mesher) relocate(v int32, floor float64) bool {
	m := ms.m
	star := slices.Clone(m.star(v, ms.buf))
	var c geom.Vec
	nbrs := ms.neighbours(v, star)
	for _, u := range nbrs {
		c = geom.Add(c, m.pos(u))
	}
	nv := ms.addVertex(geom.Scale(1/float64(len(nbrs)), c), vVolume, -1, onNone)
	t0, blocked := m.locate(nv, star[0])
	if blocked >= 0 || ms.insertForcedIn(nv, t0, star, false, floor) != inserted {
		ms.popVertex()
		return false
	}
	ms.tagSteiner(nv)
	return true
}

// coneBelow reports whether a tet joining v to a face of the cavity
// boundary m.bnd has a dihedral angle below floor (radians).
func (ms *mesher) coneBelow(v int32, floor float64) bool {
	m := ms.m
	p := m.pos(v)
	for _, f := range m.bnd {
		q := m.faceVerts(f)
		if tetmesh.MinDihedralBelow(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), p, floor) {
			return true
		}
	}
	return false
}

// thinSubface reports whether face f is a subface narrower, across its
// longest edge, than thinWidth times its mean edge length.
func (m *tri) thinSubface(f int32) bool {
	if m.across(f) >= noTet {
		return false
	}
	q := m.faceVerts(f)
	a, b, c := m.pos(q[0]), m.pos(q[1]), m.pos(q[2])
	ab, bc, ca := math.Sqrt(geom.Dist2(a, b)), math.Sqrt(geom.Dist2(b, c)), math.Sqrt(geom.Dist2(c, a))
	n := geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a)))
	return n/max(ab, bc, ca) < thinWidth*(ab+bc+ca)/3
}

// thinWidth is how narrow, relative to its mean edge length, a subface
// must be for insertInFront's lowest try. The gearwheel's apex subface
// is 2e-4 of it; at 1e-2 the one try made on the aneurysm (a face 7.5e-3
// wide, perturbed k = 0) took its minimum from 3.66° to 2.98°, and at
// 1e-3 the gearwheel's k = 4 gave 0.437° against 0.626° at 3e-3.
const thinWidth = 3e-3
