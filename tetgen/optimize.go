package tetgen

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Mesh optimization after refinement: tets whose smallest dihedral angle
// is below the target are improved by
//   - moving free Steiner points (of refinement and void splitting; never
//     input vertices or caller points) where the worst tet of their star
//     is best, by compass search in the first pass and by non-smooth
//     ascent in the sliver stage's (see smooth and smoothFor), and
//   - flips (2-3 and edge removal) that raise the worst tet of the
//     region they change.
// Every change keeps all tets positive (exact test) and creates no
// zero-pressure simplex: no new edge or interior face joins only
// boundary vertices. The measure is the smallest sine of the six
// dihedral angles, which is small for flat tets of every kind (slivers,
// caps, needles, wedges) and 1 for none.

// optTarget is the smallest dihedral angle optimization works towards.
const optTarget = 15 * math.Pi / 180

// cosOptTarget is math.Cos(optTarget), for tri.cappedDihedral.
var cosOptTarget = math.Cos(optTarget)

// optRounds bounds the optimization rounds and smoothSteps the compass
// search steps of one vertex move.
const (
	optRounds   = 12
	smoothSteps = 24
	// optWork bounds the tet quality evaluations of optimization, per
	// tet of the mesh: near a small input angle no move mends the tets,
	// and without a bound the search would go on trying.
	optWork = 100
)

// minSine returns the smallest sine of the dihedral angles of the tet
// with vertices a, b, c, d (0 for a flat one). With face normals nᵢ,
// sin² = 1 − (nᵢ·nⱼ)²/(|nᵢ|²|nⱼ|²): one square root per tet. It is the
// measure of optimization, void splitting and sliver removal, called for
// every tet of the mesh, so it is written out in scalars: Go keeps
// [3]float64 values in memory, which made the vector form 8× slower. The
// normals are those of tetmesh.TetFaces, n = (p₁−p₀)×(p₂−p₀) per face.
func minSine(a, b, c, d geom.Vec) float64 { return pointsMinSine(&a, &b, &c, &d) }

// pointsMinSine is minSine of the points a, b, c, d. Reading them
// through pointers, from the mesh's coordinates (tri.idsMinSine), takes
// half the time of minSine's geom.Vec values, which Go passes on the
// stack.
func pointsMinSine(a, b, c, d *geom.Vec) float64 {
	n0x, n0y, n0z := normal(b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2])
	n1x, n1y, n1z := normal(a[0], a[1], a[2], d[0], d[1], d[2], c[0], c[1], c[2])
	n2x, n2y, n2z := normal(a[0], a[1], a[2], b[0], b[1], b[2], d[0], d[1], d[2])
	n3x, n3y, n3z := normal(a[0], a[1], a[2], c[0], c[1], c[2], b[0], b[1], b[2])
	l0 := n0x*n0x + n0y*n0y + n0z*n0z
	l1 := n1x*n1x + n1y*n1y + n1z*n1z
	l2 := n2x*n2x + n2y*n2y + n2z*n2z
	l3 := n3x*n3x + n3y*n3y + n3z*n3z
	c01 := n0x*n1x + n0y*n1y + n0z*n1z
	c02 := n0x*n2x + n0y*n2y + n0z*n2z
	c03 := n0x*n3x + n0y*n3y + n0z*n3z
	c12 := n1x*n2x + n1y*n2y + n1z*n2z
	c13 := n1x*n3x + n1y*n3y + n1z*n3z
	c23 := n2x*n3x + n2y*n3y + n2z*n3z
	worst := min(1, 1-c01*c01/(l0*l1), 1-c02*c02/(l0*l2), 1-c03*c03/(l0*l3),
		1-c12*c12/(l1*l2), 1-c13*c13/(l1*l3), 1-c23*c23/(l2*l3))
	if !(worst > 0) { // flat, or NaN from a zero-area face
		return 0
	}
	return math.Sqrt(worst)
}

// idsMinSine is minSine of the tet with vertices a, b, c, d.
func (m *tri) idsMinSine(a, b, c, d int32) float64 {
	return pointsMinSine(m.at(a), m.at(b), m.at(c), m.at(d))
}

// at returns a pointer to vertex v's coordinates.
func (m *tri) at(v int32) *geom.Vec { return (*geom.Vec)(m.xyz[3*int(v):]) }

// normal returns (q−p)×(r−p), computed as geom.Cross(geom.Sub(q, p),
// geom.Sub(r, p)) is.
func normal(px, py, pz, qx, qy, qz, rx, ry, rz float64) (x, y, z float64) {
	ux, uy, uz := qx-px, qy-py, qz-pz
	vx, vy, vz := rx-px, ry-py, rz-pz
	return uy*vz - uz*vy, uz*vx - ux*vz, ux*vy - uy*vx
}

// sineTet is a tet and its smallest dihedral sine.
type sineTet struct {
	sine float64
	t    int32
}

// scanBad returns the live tets whose smallest dihedral sine is below
// target. While logChanges stays set, a call after the first rescans only
// the tets the previous call returned and those changed since (made by an
// insertion or a flip, or moved by smoothing): no other tet can have
// become bad. Otherwise it scans every slot, ranges of slots concurrently.
// Either way the scan is charged to m.sines as one evaluation per live
// tet, so the work budget does not depend on how the scan was done.
func (m *tri) scanBad(target float64) []sineTet {
	var bad []sineTet
	if m.logChanges && m.lastScan == target {
		if n := m.numTets(); len(m.scanSeen) < n {
			m.scanSeen = append(m.scanSeen, make([]int32, n-len(m.scanSeen))...)
		}
		m.scanStamp++
		for _, list := range [2][]int32{m.lastBad, m.changed} {
			for _, t := range list {
				if !m.alive(t) || m.scanSeen[t] == m.scanStamp {
					continue
				}
				m.scanSeen[t] = m.scanStamp
				q := m.tet(t)
				if s := m.idsMinSine(q[0], q[1], q[2], q[3]); s < target {
					bad = append(bad, sineTet{s, t})
				}
			}
		}
	} else {
		r := workRanges(m.numTets())
		part := make([][]sineTet, len(r))
		runRanges(r, func(i, from, to int) {
			for t := int32(from); t < int32(to); t++ {
				if !m.alive(t) {
					continue
				}
				q := m.tet(t)
				if s := m.idsMinSine(q[0], q[1], q[2], q[3]); s < target {
					part[i] = append(part[i], sineTet{s, t})
				}
			}
		})
		bad = slices.Concat(part...)
	}
	m.sines += m.numTets() - len(m.free)
	m.changed = m.changed[:0]
	m.lastBad = m.lastBad[:0]
	for _, b := range bad {
		m.lastBad = append(m.lastBad, b.t)
	}
	m.lastScan = -1
	if m.logChanges {
		m.lastScan = target
	}
	return bad
}

// logFrom starts logging changed tets for scanBad; stopLog ends it.
func (m *tri) logFrom() {
	if !m.logChanges {
		m.logChanges, m.lastScan = true, -1
		m.changed = m.changed[:0]
	}
}

func (m *tri) stopLog() { m.logChanges, m.lastScan = false, -1 }

func (m *tri) tetMinSine(t int32) float64 {
	m.sines++
	q := m.tet(t)
	return m.idsMinSine(q[0], q[1], q[2], q[3])
}

// tetVolume returns the volume of tet t in floating point.
func (m *tri) tetVolume(t int32) float64 {
	q := m.tet(t)
	return geom.TetVolume(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
}

// optimize improves the tets below the target for a few rounds. In a
// round each vertex is smoothed at most once: a tet whose small angle no
// move of its vertices mends (one at a small input angle) costs one try
// per vertex, not one per bad tet around it.
func (ms *mesher) optimize() error {
	if ms.opt.Coarse {
		return ms.flipFlat()
	}
	return ms.improve(false)
}

// flipFlat is coarse mode's optimization: it flips away the tets whose
// dihedral sine is below coarseFloorSine, and inserts a point only where
// it must. Such tets are made where a caller's point lies in a plane with
// three vertices it joins (by rounding on its positive side), and may have
// no volume in floating point, which the solve refuses: one of those that
// no flip removes is split by a forced point nearby (forceVoid), as a
// void too flat for its centre is. The others stay (the mushroom has some
// on its surface).
func (ms *mesher) flipFlat() error {
	m := ms.m
	for range optRounds {
		flipped := 0
		for t := range int32(m.numTets()) {
			if !m.alive(t) {
				continue
			}
			if st := m.tetMinSine(t); st < coarseFloorSine && ms.flipBetter(t, st, false) {
				flipped++
			}
		}
		if flipped == 0 {
			break
		}
	}
	for t := range int32(m.numTets()) {
		if !m.alive(t) || m.tetVolume(t) > 0 {
			continue
		}
		v := ms.forceVoid(voidSimplex{[4]int32(m.tet(t)), 4}, t, coarseFloorSine)
		if v < 0 {
			p := m.pos(m.tet(t)[0])
			return fmt.Errorf("tetgen: no flip or point removes a tet with no volume in floating point at (%g, %g, %g)", p[0], p[1], p[2])
		}
		ms.tagSteiner(v)
		ms.rep.SteinerVolume++
	}
	return nil
}

// improve is optimize, with removal of surface edges (removeSurfaceEdge)
// among the flips when surface is set: sliver removal sets it. Before
// sliver insertion it did harm: the flips mend the flattest tets there
// only part way, and leave them where insertion no longer reaches them
// (the mushroom's 0.0006° tet at 11.1°, 13.4° without).
func (ms *mesher) improve(surface bool) error {
	if ms.opt.Coarse {
		return nil
	}
	m := ms.m
	p := &optPass{
		target:   math.Sin(optTarget),
		surface:  surface,
		tried:    make([]int32, len(ms.kind)),
		budget:   m.sines + optWork*m.liveTets(),
		hopeless: map[[4]int32]struct{}{},
	}
	// Ascent smooths in the sliver stage's passes only: before sliver
	// insertion it mends no more, and where the sliver stage has nothing
	// to do it ends on the smallest sine, not the smallest angle (the L
	// bracket of TestBuildQuality 15.2° instead of 16.5°).
	var asc *ascent
	if surface {
		asc = &ascent{}
	}
	// The log of changed tets stays on through sliver removal, whose
	// scans continue from this one.
	m.logFrom()
	stall := stallWatch{patience: 3, share: 50}
	for ; p.round < optRounds; p.round++ {
		// Worst first, so that the budget goes to the worst tets.
		bad := m.scanBad(p.target)
		slices.SortFunc(bad, func(a, b sineTet) int {
			if c := cmp.Compare(a.sine, b.sine); c != 0 {
				return c
			}
			return cmp.Compare(a.t, b.t)
		})
		// After edge contraction and reinsertion, smoothing goes on
		// trading angles between neighbouring tets where the surface
		// pins them (gmsh_lever.stl: some 1 300 vertices moved a round,
		// all 12 rounds, while the bad tets and the smallest angle
		// stayed), so such a pass ends after three idle rounds. Ending
		// the earlier passes so lowered minima (docs/meshing.md).
		if ms.endStalled && stall.stalled(len(bad), m.smallestAngle(bad)) {
			return nil
		}
		improved, spent := ms.mendRound(bad, p, asc, runtime.GOMAXPROCS(0))
		// Stop when a round mends little (what is left is mostly pinned
		// by the surface), or when the budget is spent.
		if spent || improved <= len(bad)/50 {
			return nil
		}
	}
	return nil
}

// optPass is the state an optimization pass's rounds share.
type optPass struct {
	target  float64 // the sine a tet must reach
	surface bool    // whether surface edges may be removed
	round   int32
	tried   []int32 // per vertex, round+1 once smoothed in that round
	budget  int     // m.sines at which the pass ends
	// hopeless holds the tets (sorted vertices) no flip mends and none
	// of whose vertices may move: the same tet would fail again in
	// every later round. Turns only read it; they add such tets to
	// lost, which their caller moves into it.
	hopeless map[[4]int32]struct{}
	lost     [][4]int32
}

// keepLost moves p.lost into p.hopeless.
func (p *optPass) keepLost() {
	for _, k := range p.lost {
		p.hopeless[k] = struct{}{}
	}
	p.lost = p.lost[:0]
}

// takeTurn is tet t's turn in a round of pass p: the first flip around
// it that raises the worst tet of the region it changes (flipBetter),
// or else a move of one of its vertices not yet tried this round
// (marked in p.tried) that raises the worst tet of its star, logged as
// changed for the next scanBad. It reports whether the tet was mended.
// A tet no flip mends and none of whose vertices may move is added to
// p.lost.
func (ms *mesher) takeTurn(t int32, p *optPass, asc *ascent) bool {
	m := ms.m
	if !m.alive(t) {
		return false
	}
	st := m.tetMinSine(t)
	if st >= p.target {
		return false
	}
	q := m.tet(t)
	if _, ok := p.hopeless[sortedTet(q)]; ok {
		return false
	}
	if ms.flipBetter(t, st, p.surface) {
		return true
	}
	for _, v := range q {
		if !ms.movable(v) || p.tried[v] == p.round+1 {
			continue
		}
		p.tried[v] = p.round + 1
		if ms.smoothFor(v, asc) {
			m.changed = append(m.changed, ms.buf...) // v's star
			return true
		}
	}
	if !slices.ContainsFunc(q, ms.movable) {
		p.lost = append(p.lost, sortedTet(q))
	}
	return false
}

// movable reports whether smoothing may move vertex v: Steiner points
// inside the body, on input edges and inside input triangles; never input
// vertices or caller points.
func (ms *mesher) movable(v int32) bool {
	k := ms.kind[v]
	return k == vVolume || k == vSegment || k == vFacet
}

// constrain returns where vertex v goes when asked to move to p: p for a
// point inside the body, the nearest point of its input edge or of its
// input triangle's plane for a surface Steiner point. Such a point stays
// inside its edge or triangle because the tets around it stay positive,
// so every input triangle remains the union of its subfaces (rounding
// leaves the point within an ulp of the plane, as at its insertion).
func (ms *mesher) constrain(v int32, p geom.Vec) geom.Vec {
	switch ms.kind[v] {
	case vSegment:
		a, b := ms.m.pos(ms.segEnds[2*ms.ref[v]]), ms.m.pos(ms.segEnds[2*ms.ref[v]+1])
		e := geom.Sub(b, a)
		return geom.Add(a, geom.Scale(geom.Dot(geom.Sub(p, a), e)/geom.Dot(e, e), e))
	case vFacet:
		return ms.facets[ms.ref[v]].project(p)
	}
	return p
}

// smooth moves vertex v where the worst tet of its star is best: it
// tries the centroid of its neighbours, then a compass search (steps away
// from the worst tet and along the axes, halved when none helps). Every
// accepted position keeps the star's tets positive. The first
// optimization pass smooths this way; the sliver stage's passes by
// smoothFor.
func (ms *mesher) smooth(v int32) bool {
	m := ms.m
	ms.buf = m.star(v, ms.buf)
	star := ms.buf
	worst := 0 // index in star of the worst tet: tested first, it rejects most candidates
	orig := m.pos(v)
	bestQ, guard := ms.starStart(star, &worst)
	best := orig
	if math.IsInf(bestQ, -1) {
		return false
	}
	try := func(p geom.Vec) bool {
		p = ms.constrain(v, p)
		if p == best {
			return false
		}
		m.setPos(v, p)
		if q := ms.starObjective(star, &worst, guard, bestQ); q > bestQ {
			best, bestQ = p, q
			return true
		}
		m.setPos(v, best)
		return false
	}
	centroid, sum, n := ms.centroid(v, star)
	try(centroid)
	h := 0.2 * sum / n
	for iter := 0; iter < smoothSteps && h > 1e-3*sum/n; iter++ {
		// Away from the face opposite v in the worst tet.
		q := m.tet(star[worst])
		f := m.faceVerts(4*star[worst] + int32(slices.Index(q, v)))
		nrm := geom.Cross(geom.Sub(m.pos(f[1]), m.pos(f[0])), geom.Sub(m.pos(f[2]), m.pos(f[0])))
		moved := false
		if l := geom.Norm(nrm); l > 0 {
			// The face's normal points out of the tet, away from v.
			moved = try(geom.Add(best, geom.Scale(-h/l, nrm)))
		}
		for k := 0; k < 6 && !moved; k++ {
			var d geom.Vec
			d[k/2] = float64(1 - 2*(k%2))
			moved = try(geom.Add(best, geom.Scale(h, d)))
		}
		if !moved {
			h /= 2
		}
	}
	m.setPos(v, best)
	return best != orig
}

// smoothFor is smooth with ascent steps (ascend) instead of the compass
// search, with the buffers a; smooth itself when a is nil.
func (ms *mesher) smoothFor(v int32, a *ascent) bool {
	if a == nil {
		return ms.smooth(v)
	}
	m := ms.m
	ms.buf = m.star(v, ms.buf)
	star := ms.buf
	a.worst = 0
	// starStart refills ms.starSines without recording where: the last
	// vertex's evaluation no longer describes them.
	a.known = false
	orig := m.pos(v)
	cur, guard := ms.starStart(star, &a.worst)
	if math.IsInf(cur, -1) {
		return false
	}
	centroid, sum, n := ms.centroid(v, star)
	step := 0.2 * sum / n
	p := ms.constrain(v, centroid)
	m.setPos(v, p)
	obj := ms.starObjective(star, &a.worst, guard, cur)
	a.evaluated(p, obj)
	if obj > cur {
		cur = obj
	} else {
		m.setPos(v, orig)
	}
	ms.ascend(v, star, a, guard, step, cur)
	return m.pos(v) != orig
}

// centroid returns the centroid of v's neighbours in star, the sum of
// their distances from v and their number.
func (ms *mesher) centroid(v int32, star []int32) (c geom.Vec, sum, n float64) {
	m := ms.m
	var nb geom.Vec
	nbrs := ms.neighbours(v, star)
	for _, u := range nbrs {
		nb = geom.Add(nb, m.pos(u))
		sum += math.Sqrt(geom.Dist2(m.pos(u), m.pos(v)))
	}
	n = float64(len(nbrs))
	return geom.Scale(1/n, nb), sum, n
}

// neighbours returns (in ms.buf2) the vertices other than v of the tets
// in star, v's star, in the order they first appear there. A stamp per
// vertex finds the repeats: a search of the list did, and on the
// stars relocate meets it took most of that pass
// (stlmodels_gearwheel.bin.stl at -q 1.414: 5.7 of 9.4 s).
func (ms *mesher) neighbours(v int32, star []int32) []int32 {
	ms.buf2 = ms.buf2[:0]
	seen := &ms.nbrSeen
	seen.next(len(ms.m.vt))
	seen.mark(v)
	for _, t := range star {
		for _, u := range ms.m.tet(t) {
			if seen.mark(u) {
				ms.buf2 = append(ms.buf2, u)
			}
		}
	}
	return ms.buf2
}

func (m *tri) setPos(v int32, p geom.Vec) {
	j := 3 * int(v)
	m.xyz[j], m.xyz[j+1], m.xyz[j+2] = p[0], p[1], p[2]
}

// flipBetter tries the flips that remove a face or an edge of tet t,
// whose minSine is st, and keeps the first that raises the smallest sine
// of the region it changes.
func (ms *mesher) flipBetter(t int32, st float64, surface bool) bool {
	m := ms.m
	q := m.tet(t)
	fs := newFlipSines(m, t, st)
	// removeRing charges each score to m.sines.
	score := func(nq [4]int32) float64 {
		return m.idsMinSine(nq[0], nq[1], nq[2], nq[3])
	}
	for _, e := range tetEdges {
		x, y := q[e[0]], q[e[1]]
		tets, link, ok := m.ring(x, y, t, ms.ringTets, ms.ringLink)
		ms.ringTets, ms.ringLink = tets, link
		if !ok && surface && ms.isBoundaryVertex(x) && ms.isBoundaryVertex(y) && ms.removeSurfaceEdge(x, y, t, &fs, score) {
			return true
		}
		if !ok || len(link) > maxRemovalRing {
			continue
		}
		before := 1.0
		ms.ringSines = ms.ringSines[:0]
		for _, u := range tets {
			s := fs.sine(m, u)
			ms.ringSines = append(ms.ringSines, s)
			before = min(before, s)
		}
		// A void needs two boundary vertices in the link: most rings
		// have none, and need no check.
		var keep func(tr [3]int32) bool
		nb := 0
		for _, v := range link {
			if ms.isBoundaryVertex(v) {
				nb++
			}
		}
		if nb >= 2 {
			keep = func(tr [3]int32) bool { return !ms.voidTriangle(tr, link) }
		}
		if ms.keepAcute {
			keep = ms.acuteKept(tets, ms.ringSines, x, y, keep)
		}
		if m.removeRing(x, y, tets, link, nil, keep, score, before*1.05) {
			return true
		}
	}
	for k := int32(0); k < 4; k++ {
		f := 4*t + k
		o := m.across(f)
		if o < 0 {
			continue
		}
		d, e := q[k], m.c[(o>>2)<<3|o&3]
		if ms.isBoundaryVertex(d) && ms.isBoundaryVertex(e) {
			continue // the new edge d–e would join two boundary vertices
		}
		st, so := fs.sine(m, t), fs.sine(m, o>>2)
		before := min(st, so)
		abc := m.faceVerts(f)
		after := 1.0
		for i := 0; i < 3; i++ {
			m.sines++
			after = min(after, score([4]int32{abc[i], abc[(i+1)%3], e, d}))
		}
		if after > before*1.05 && ms.keepAcute {
			acute := min(m.cappedSine(q, st), m.cappedSine(m.tet(o>>2), so))
			for i := 0; i < 3; i++ {
				if m.dihedralBelow([]int32{abc[i], abc[(i+1)%3], e, d}, acute) {
					after = 0
				}
			}
		}
		if after > before*1.05 && m.flip23(f) {
			return true
		}
	}
	return false
}

// flipSines holds the minSines of a tet and of its neighbours across its
// faces for flipBetter, which asks each of them in several rings (the
// tet in all six, a neighbour in three) and again for the 2-3 flips, and
// changes nothing until it flips: each is computed once, and charged to
// m.sines as often as it is asked (the work budget counts the asking).
type flipSines struct {
	t [5]int32
	s [5]float64 // −1: not yet computed
}

// newFlipSines returns the flipSines of tet t, whose minSine is st.
func newFlipSines(m *tri, t int32, st float64) flipSines {
	fs := flipSines{t: [5]int32{t, -1, -1, -1, -1}, s: [5]float64{st, -1, -1, -1, -1}}
	for k := range int32(4) {
		if o := m.across(4*t + k); o >= 0 {
			fs.t[k+1] = o >> 2
		}
	}
	return fs
}

// sine returns m.tetMinSine(u).
func (fs *flipSines) sine(m *tri, u int32) float64 {
	for i, v := range fs.t {
		if v == u {
			if fs.s[i] < 0 {
				q := m.tet(u)
				fs.s[i] = m.idsMinSine(q[0], q[1], q[2], q[3])
			}
			m.sines++
			return fs.s[i]
		}
	}
	return m.tetMinSine(u)
}

// acuteKept returns keep (nil: any) that also refuses a triangle of the
// link of edge x–y, whose tets and their minSines are given, when a tet
// it makes with x or y has an angle below their smallest acute one or
// optTarget: with keepAcute set, a flip may raise the smallest sine only
// as smoothing does.
func (ms *mesher) acuteKept(tets []int32, sines []float64, x, y int32, keep func(tr [3]int32) bool) func(tr [3]int32) bool {
	m := ms.m
	acute := optTarget
	for i, u := range tets {
		acute = min(acute, m.cappedSine(m.tet(u), sines[i]))
	}
	return func(tr [3]int32) bool {
		if m.dihedralBelow([]int32{tr[0], tr[1], tr[2], x}, acute) || m.dihedralBelow([]int32{tr[0], tr[1], tr[2], y}, acute) {
			return false
		}
		return keep == nil || keep(tr)
	}
}

// isBoundaryVertex reports whether v lies on the outer surface.
func (ms *mesher) isBoundaryVertex(v int32) bool { return ms.on[v] == onOuter }

// voidTriangle reports whether triangle tr of a triangulation of link
// polygon link has a new edge (a diagonal) joining two boundary
// vertices, or three boundary vertices.
func (ms *mesher) voidTriangle(tr [3]int32, link []int32) bool {
	n := len(link)
	isLinkEdge := func(a, b int32) bool {
		i, j := slices.Index(link, a), slices.Index(link, b)
		return (i+1)%n == j || (j+1)%n == i
	}
	all := true
	for k := 0; k < 3; k++ {
		a, b := tr[k], tr[(k+1)%3]
		ba, bb := ms.isBoundaryVertex(a), ms.isBoundaryVertex(b)
		all = all && ba
		if ba && bb && !isLinkEdge(a, b) {
			return true
		}
	}
	return all
}

// Non-smooth ascent (Freitag & Ollivier-Gooch 1997, as in Klingner &
// Shewchuk's Stellar): the star's objective is the smallest of its tets'
// dihedral sines. Compass search moves along
// a few fixed directions and stalls where two or more sines tie at the
// minimum; ascent takes the direction that raises all the tied ones at
// once, the point nearest the origin of the convex hull of their
// gradients, and goes along it until, by the gradients, another sine
// would become the smallest.
const (
	ascentSteps = 6    // steps of one ascent
	ascentTol   = 2e-3 // a sine this close to the smallest is active
	ascentMax   = 10   // active sines the direction search considers, worst first
	// ascentWindow is how far above the smallest a tet's sines get
	// gradients, and ascentHalvings how often a step is halved before
	// the ascent gives up.
	ascentWindow   = 0.2
	ascentHalvings = 8
)

// ascentFn is one function of an ascent and its gradient: a dihedral
// sine of a star tet in the moving vertex's position, as
// tetmesh.DihedralSineGrads writes them.
type ascentFn = tetmesh.SineGrad

// ascent holds the buffers of smoothing's ascent steps, reused across
// the vertices of an optimization pass.
type ascent struct {
	fns   []ascentFn
	act   []ascentFn // the active ones, within ascentTol of the smallest
	worst int        // index in the star of the tet that rejected the last position
	// known says that the objective's last evaluation, at at, left the
	// minSine of every tet there (in mesher.starSines or
	// apexWorker.faceSines): outOfWindow then rules most tets out of
	// the window without their normals (29 % of smoothing's on the
	// lever as given).
	known bool
	at    geom.Vec
}

// gradCost is what a tet's sines and gradients (addSines) add to the
// count of evaluations that the work budgets bound: the three sets of
// sines of the forward differences they were set with, before the
// gradients were exact.
const gradCost = 3

// addSines appends to a.fns the six dihedral sines of tet p and their
// gradients in vertex k when the smallest is at most limit, and reports
// whether it did. a.fns must have room for them (window).
func (a *ascent) addSines(p *[4]geom.Vec, k int, limit float64) bool {
	n := len(a.fns)
	ok := tetmesh.DihedralSineGrads((*[6]ascentFn)(a.fns[n:n+6]), p, k, limit)
	if ok {
		a.fns = a.fns[:n+6]
	}
	return ok
}

// evaluated records that the objective was obj at y: it leaves every
// tet's minSine there when above −Inf.
func (a *ascent) evaluated(y geom.Vec, obj float64) { a.known, a.at = !math.IsInf(obj, -1), y }

// window empties a.fns with room for the sines of n tets at x, and
// returns the limit of the window for a step from cur and whether the
// tets' minSines at x are known (evaluated), to test with outOfWindow.
func (a *ascent) window(x geom.Vec, cur float64, n int) (limit float64, known bool) {
	a.fns = slices.Grow(a.fns[:0], 6*n)
	return cur + ascentWindow, a.known && x == a.at
}

// outOfWindow reports whether a tet whose minSine is s has every one of
// its tetmesh.DihedralSines above limit, which then leaves it out: the
// squared sines of the two differ by rounding (a few 1e-16, however
// small the sines), far less than the margin of 1e-10 on them.
func outOfWindow(s, limit float64) bool { return s*s > limit*limit+1e-10 }

// starStart returns starObjective(star, worst, guard, −Inf) where the
// moving vertex is, and guard, the smallest dihedral angle a move of it
// may leave in its star: the smallest sine may be an obtuse angle's, so
// raising it can lower the star's smallest angle, which may not fall
// below where it was, or below the target. The objective is taken with
// a guard of 0, which refuses nothing, as the star's own guard would
// not (it is no more than any of its tets' angles); the sines it leaves
// in ms.starSines spare most tets their cosines (cappedSine).
func (ms *mesher) starStart(star []int32, worst *int) (obj, guard float64) {
	obj = ms.starObjective(star, worst, 0, math.Inf(-1))
	if math.IsInf(obj, -1) {
		return obj, 0
	}
	guard = optTarget
	for i, t := range star {
		guard = min(guard, ms.m.cappedSine(ms.m.tet(t), ms.starSines[i]))
	}
	return obj, guard
}

// clearOfTarget is guardSine2(optTarget): a tet whose minSine squared is
// above it has no dihedral angle below optTarget.
var clearOfTarget = guardSine2(optTarget)

// cappedSine is cappedDihedral(q) for the tet q whose minSine is s,
// without its cosines when s clears clearOfTarget (most tets): it is
// then optTarget.
func (m *tri) cappedSine(q []int32, s float64) float64 {
	if s*s > clearOfTarget {
		return optTarget
	}
	return m.cappedDihedral(q)
}

// starObjective returns the smallest minSine over star, with the moving
// vertex where it is, when that is above floor, every star tet is
// positive and the star's smallest angle is at least guard; otherwise
// −Inf. star[*worst] is tested first (it rejects most positions);
// *worst becomes the tet that rejected the position, or the worst tet.
func (ms *mesher) starObjective(star []int32, worst *int, guard, floor float64) float64 {
	m := ms.m
	if cap(ms.starSines) < len(star) {
		ms.starSines = make([]float64, len(star))
	}
	sines := ms.starSines[:len(star)] // each tet's, for the angle test
	obj := m.tetMinSine(star[*worst])
	if obj <= floor {
		return math.Inf(-1)
	}
	sines[*worst] = obj
	wi := *worst
	for i, t := range star {
		if i == *worst {
			continue
		}
		s := m.tetMinSine(t)
		if s <= floor {
			*worst = i
			return math.Inf(-1)
		}
		sines[i] = s
		if s < obj {
			obj, wi = s, i
		}
	}
	for _, t := range star {
		q := m.tet(t)
		if geom.Orient3DAt(m.xyz, q[0], q[1], q[2], q[3]) <= 0 {
			return math.Inf(-1)
		}
	}
	*worst = wi
	// guard ≤ optTarget, so this is starGuard(star) ≥ guard. A tet whose
	// own sine clears the bound needs no angle test either: when the
	// star's does not, most of its tets' still do.
	g2 := guardSine2(guard)
	if obj*obj > g2 {
		return obj
	}
	for i, t := range star {
		if s := sines[i]; s*s <= g2 && m.dihedralBelow(m.tet(t), guard) {
			return math.Inf(-1)
		}
	}
	return obj
}

// guardSine2 returns a squared sine above which a tet's smallest
// dihedral sine shows that no dihedral angle of the tet is below guard
// (radians, below 90°), as dihedralBelow would say: every cosine of its
// dihedral angles (from the same face normals) is then within
// cos(guard) − 1e-8 of 0, ten times the band in which
// tetmesh.MinDihedralBelow compares angles instead of cosines, and 1e-12
// is far more than the rounding between sines and cosines. The star's
// smallest sine usually clears it once a move raised it above the
// guard's sine: its tets then need no angle test.
func guardSine2(guard float64) float64 {
	c := math.Cos(guard) - 1e-8
	return 1 - c*c + 1e-12
}

// ascend moves v by ascent steps of at most step on the star objective
// (starObjective), cur where v is; every accepted position raises the
// objective, keeps the star's tets positive and its smallest angle at
// least guard. It reports whether v moved.
func (ms *mesher) ascend(v int32, star []int32, a *ascent, guard, step, cur float64) bool {
	m := ms.m
	if math.IsInf(cur, -1) {
		return false
	}
	x0 := m.pos(v)
	sines := func(x geom.Vec, cur float64) []ascentFn {
		lim, known := a.window(x, cur, len(star))
		for i, t := range star {
			if known && outOfWindow(ms.starSines[i], lim) {
				continue
			}
			q := m.tet(t)
			var p [4]geom.Vec
			k := 0
			for j, u := range q {
				p[j] = m.pos(u)
				if u == v {
					k = j
				}
			}
			p[k] = x
			// Only the sines near the smallest: one further up rarely
			// meets them within a step, and the step's test catches it
			// when it does (most of the star: 60 % of the cost).
			if a.addSines(&p, k, lim) {
				m.sines += gradCost
			}
		}
		m.sines += len(star)
		return a.fns
	}
	objective := func(y geom.Vec, floor float64) (float64, geom.Vec) {
		y = ms.constrain(v, y)
		m.setPos(v, y)
		obj := ms.starObjective(star, &a.worst, guard, floor)
		a.evaluated(y, obj)
		return obj, y
	}
	// Along the directions v may move: the line search's rates g·d need
	// no projection, d being one of them.
	x, _ := a.climb(x0, cur, ascentSteps, step, sines, objective, func(g geom.Vec) geom.Vec { return ms.tangent(v, g) })
	m.setPos(v, x)
	return x != x0
}

// climb takes up to steps ascent steps of at most step from x, where
// the smallest of the functions fns returns (values and gradients at x;
// it may leave out those far above cur) is cur: each goes along the direction that raises every nearly
// smallest one at once (minNormHull of their gradients, projected by
// project) until, by the gradients, another would become the smallest,
// halving the step until obj (which returns the value at a point and
// the point it took, −Inf unless above floor) rises. It returns the
// point reached and the value there; it stops when no direction raises
// them all or a step fails.
func (a *ascent) climb(x geom.Vec, cur float64, steps int, step float64, fns func(x geom.Vec, cur float64) []ascentFn,
	obj func(y geom.Vec, floor float64) (float64, geom.Vec), project func(g geom.Vec) geom.Vec) (geom.Vec, float64) {
	for range steps {
		fs := fns(x, cur)
		lo := math.Inf(1)
		for i := range fs {
			lo = min(lo, fs[i].F)
		}
		// Sines nearly tied but rising in opposite directions can put
		// the origin in the hull away from the optimum: a smaller
		// tolerance then lets the ascent go on.
		var d geom.Vec
		dd, tol := 0.0, ascentTol
		for ; tol > ascentTol/2000 && !(dd > 0); tol /= 10 {
			a.act = a.act[:0]
			for i := range fs {
				if fn := &fs[i]; fn.F <= lo+tol {
					a.act = append(a.act, ascentFn{F: fn.F, G: project(fn.G)})
				}
			}
			if len(a.act) > ascentMax {
				slices.SortFunc(a.act, func(p, q ascentFn) int { return cmp.Compare(p.F, q.F) })
				a.act = a.act[:ascentMax]
			}
			d = minNormHull(a.act)
			dd = geom.Dot(d, d)
		}
		if !(dd > 0) {
			break
		}
		tol *= 10
		// Each active function rises at rate ≥ |d|² along d; stop where
		// an inactive one, rising slower, would meet them. In scalars,
		// as geom.Dot computes them: its vectors were copied for every
		// function, most of this loop's time.
		dx, dy, dz := d[0], d[1], d[2]
		rate := math.Inf(1)
		for i := range a.act {
			g := &a.act[i].G
			rate = min(rate, g[0]*dx+g[1]*dy+g[2]*dz)
		}
		alpha := step / math.Sqrt(dd)
		for i := range fs {
			fn := &fs[i]
			if !(fn.F > lo+tol) { // an active one (or NaN), whose rate is not asked
				continue
			}
			if r := fn.G[0]*dx + fn.G[1]*dy + fn.G[2]*dz; r < rate {
				alpha = min(alpha, (fn.F-lo)/(rate-r))
			}
		}
		ok := false
		for range ascentHalvings {
			if o, y := obj(geom.Add(x, geom.Scale(alpha, d)), cur); o > cur {
				x, cur, ok = y, o, true
				break
			}
			alpha /= 2
		}
		if !ok {
			break
		}
	}
	return x, cur
}

// tangent returns g projected on the directions vertex v may move in:
// along its input edge, within its input triangle's plane, or any.
func (ms *mesher) tangent(v int32, g geom.Vec) geom.Vec {
	var n geom.Vec
	switch ms.kind[v] {
	case vSegment:
		e := geom.Sub(ms.m.pos(ms.segEnds[2*ms.ref[v]+1]), ms.m.pos(ms.segEnds[2*ms.ref[v]]))
		return geom.Scale(geom.Dot(g, e)/geom.Dot(e, e), e)
	case vFacet:
		c := &ms.facets[ms.ref[v]].corner
		n = geom.Cross(c[1], c[2])
	default:
		return g
	}
	return geom.Sub(g, geom.Scale(geom.Dot(g, n)/geom.Dot(n, n), n))
}

// minNormHull returns the point nearest the origin of the convex hull of
// the gradients of fns, or zero when the origin is in the hull: no
// direction raises all of them. The point lies in the hull of at most
// three of them (the origin aside), so it is the shortest of the
// candidates from every one, two and three of them, each the nearest
// point of their affine hull when that lies inside their simplex. It is
// written out in scalars (as geom's vector functions compute them: the
// same bits), which Go keeps in registers, not in memory as it keeps
// geom.Vec values.
func minNormHull(fns []ascentFn) geom.Vec {
	var bx, by, bz float64
	bestN := math.Inf(1)
	keep := func(x, y, z float64) {
		if n := x*x + y*y + z*z; n < bestN {
			bx, by, bz, bestN = x, y, z, n
		}
	}
	for i := range fns {
		gx, gy, gz := fns[i].G[0], fns[i].G[1], fns[i].G[2]
		keep(gx, gy, gz)
		for j := i + 1; j < len(fns); j++ {
			gj := &fns[j].G
			ux, uy, uz := gj[0]-gx, gj[1]-gy, gj[2]-gz
			a11 := ux*ux + uy*uy + uz*uz
			b1 := -(gx*ux + gy*uy + gz*uz)
			if a11 > 0 {
				if t := b1 / a11; t > 0 && t < 1 {
					keep(gx+t*ux, gy+t*uy, gz+t*uz)
				}
			}
			for k := j + 1; k < len(fns); k++ {
				gk := &fns[k].G
				vx, vy, vz := gk[0]-gx, gk[1]-gy, gk[2]-gz
				a12, a22 := ux*vx+uy*vy+uz*vz, vx*vx+vy*vy+vz*vz
				b2 := -(gx*vx + gy*vy + gz*vz)
				det := a11*a22 - a12*a12
				if !(det > 1e-12*a11*a22) {
					continue
				}
				s, t := (b1*a22-b2*a12)/det, (b2*a11-b1*a12)/det
				if s > 0 && t > 0 && s+t < 1 {
					keep(gx+(s*ux+t*vx), gy+(s*uy+t*vy), gz+(s*uz+t*vz))
				}
			}
		}
	}
	// The nearest point p has p·g ≥ |p|² for every g; when the shortest
	// candidate fails that, the origin is inside the hull.
	for i := range fns {
		g := &fns[i].G
		if bx*g[0]+by*g[1]+bz*g[2] < bestN*(1-1e-9) {
			return geom.Vec{}
		}
	}
	return geom.Vec{bx, by, bz}
}

// stallWatch ends rounds of work that have stopped paying: after
// patience rounds in a row that neither cut the bad tets by 1/share
// nor raised the mesh's smallest angle.
type stallWatch struct {
	patience, share, rounds, lastBad, idle int
	lastAcute                              float64
}

// stalled records a round's count of bad tets and smallest angle and
// reports whether the work should end before it.
func (w *stallWatch) stalled(bad int, acute float64) bool {
	if w.rounds > 0 && w.share*bad > (w.share-1)*w.lastBad && acute <= w.lastAcute {
		w.idle++
	} else {
		w.idle = 0
	}
	w.rounds++
	w.lastBad, w.lastAcute = bad, acute
	return w.idle == w.patience
}

// smallestAngle returns the smallest dihedral angle of the bad tets, or
// optTarget when there are none: the mesh's smallest angle, as every tet
// below optTarget is bad.
func (m *tri) smallestAngle(bad []sineTet) float64 {
	acute := optTarget
	for _, b := range bad {
		acute = min(acute, m.smallestDihedral(m.tet(b.t)))
	}
	return acute
}
