package tetgen

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Zero-pressure voids. ε is 0 at every boundary vertex, so a tet whose
// four vertices are on the boundary, an interior face whose three are, or
// an interior edge whose two are, is a region of zero pressure inside the
// body. splitVoids removes them by inserting interior Steiner points.
// In a coarse mesh the point is the simplex's centre, by Delaunay
// insertion: it lies strictly inside the circumsphere of every tet that
// has the simplex, so inserting it destroys the simplex, and insertion
// never creates an edge between two old vertices. A refined mesh also
// has simplices flat against the surface, whose centre is on it (see
// splitVoidCentred): there the point goes off the surface, by a forced
// insertion. Likewise for the core: a tet, face or edge of the body
// (outside the core) whose vertices all lie on the core surface is split,
// so that ε = 1 stays on the core.
//
// Tets go first, then faces, then edges, rescanning after each kind: one
// point in the middle of a tet usually clears many faces and edges, which
// keeps the coarse mesh small (the icosahedron gets one centre point and
// 20 tets). A face of three points of one input edge has no area for a
// point to split, nor a tet with three such vertices volume: it is
// mended by a flip (splitSpanningEdge), where no point did.

// voidSimplex is a zero-pressure tet, face or edge: its vertices (2 to 4).
type voidSimplex struct {
	v [4]int32
	n int
}

func (ms *mesher) splitVoids() error {
	for round := 0; ; round++ {
		found := ms.findVoids()
		if len(found) == 0 {
			return nil
		}
		if round > 100 {
			return fmt.Errorf("tetgen: internal error: zero-pressure voids remain after %d rounds", round)
		}
		split := 0
		var stuck *voidSimplex
		for _, sx := range found {
			at := ms.holder(sx)
			if at < 0 {
				continue
			}
			// Refined: the middle of the holders, then the centre, then
			// off the surface; the centre last if the holders are flat
			// (it may lie on the surface). Coarse: the centre. Then a
			// forced point nearby, and, refined, last any point in the
			// middle of the holders, even one that makes flat tets.
			floor := 0.0
			if ms.opt.Coarse {
				floor = coarseFloorSine
			}
			v := int32(-1)
			if !ms.opt.Coarse {
				v = ms.splitVoidCentred(sx, inMiddle)
			}
			flat := !ms.opt.Coarse && ms.flatHolders(sx)
			if v < 0 && flat {
				if v = ms.splitVoidCentred(sx, offWall); v < 0 {
					v = ms.forceVoid(sx, at, voidFloorSine)
				}
			}
			if v < 0 {
				v = ms.splitVoidAtCentre(sx, at, floor)
			}
			if v < 0 && !ms.opt.Coarse && !flat {
				v = ms.splitVoidCentred(sx, offWall)
			}
			if v < 0 {
				v = ms.forceVoid(sx, at, floor)
			}
			if v < 0 && !ms.opt.Coarse {
				v = ms.splitVoidCentred(sx, anyFlat)
			}
			if v < 0 && ms.splitSpanningEdge(sx) {
				split++
				continue
			}
			if v < 0 {
				// Splits of its neighbours may free it: skip it while
				// the round splits others.
				if stuck == nil {
					stuck = &sx
				}
				continue
			}
			ms.tagSteiner(v)
			ms.rep.VoidSplits++
			split++
		}
		if split == 0 && stuck != nil {
			// Coarse mode's last resort, where nothing else split: a
			// point off the wall next to the simplex, whose holders are
			// flat on a planar wall (see voidFloorSine). Refined mode
			// tried it already.
			v := int32(-1)
			if ms.opt.Coarse {
				v = ms.splitVoidCentred(*stuck, offWall)
			}
			if v < 0 {
				return ms.voidError(*stuck)
			}
			ms.tagSteiner(v)
			ms.rep.VoidSplits++
		}
	}
}

// flatHolders reports whether a tet that has the simplex is flat: its
// centre may then lie on the surface.
func (ms *mesher) flatHolders(sx voidSimplex) bool {
	m := ms.m
	for _, t := range ms.holders(sx) {
		q := m.tet(t)
		if m.idsMinSine(q[0], q[1], q[2], q[3]) < voidFloorSine {
			return true
		}
	}
	return false
}

// splitVoidAtCentre splits a zero-pressure simplex by a Delaunay
// insertion of its centre that makes no tet with a dihedral sine below
// minSine. It returns the new vertex, or −1.
func (ms *mesher) splitVoidAtCentre(sx voidSimplex, at int32, minSine float64) int32 {
	m := ms.m
	var c geom.Vec
	for _, v := range sx.v[:sx.n] {
		c = geom.Add(c, m.pos(v))
	}
	v := ms.addVertex(geom.Scale(1/float64(sx.n), c), vVolume, -1, onNone)
	if st, _ := ms.insertInside(v, at, minSine); st != inserted {
		ms.popVertex()
		return -1
	}
	return v
}

// voidError says which zero-pressure simplex could not be split. After
// recovery by flips it is a recoveryError, so that Build starts over with
// conforming recovery: flips and local splits can leave Steiner points
// all but coincident on an input edge, whose flat tets no point splits
// (7e−14 apart on FuzzBuild's seed close-segment-points, before
// maxLocalDepth ended the chain of local splits that made them).
func (ms *mesher) voidError(sx voidSimplex) error {
	p := ms.m.pos(sx.v[0])
	err := fmt.Errorf("tetgen: cannot split a zero-pressure %s at (%g, %g, %g)",
		[5]string{"", "", "edge", "face", "tet"}[sx.n], p[0], p[1], p[2])
	if !ms.conforming {
		return &recoveryError{err}
	}
	return err
}

// voidMinSine is the smallest dihedral sine (about 6°) a void split aims
// for in its new tets: a point on a flat region next to the surface makes
// flat tets on the subfaces below it that no smoothing mends.
const voidMinSine = 0.1

// voidFloorSine is the smallest dihedral sine a void split accepts while
// any candidate meets it: far below any tet a mesh means to have, far
// above the walls' flat tets below, though not above the sine's own
// rounding for every flat tet (see coarseFloorSine). Coplanar facets (the
// triangles of a planar wall) meeting at a subsegment hold flat tets of
// four wall vertices, flat to rounding (sines near 1e−15): a point in the
// middle of such tets lies on the wall, and the tets it makes on the
// wall's subfaces are as flat, with faces of three wall vertices in the
// wall's plane that no later point can split.
const voidFloorSine = 1e-9

// coarseFloorSine is the smallest dihedral sine of a tet coarse mode makes
// or keeps where it can (void splits, flipFlat): coarse mode has no later
// stage to mend a flat tet, and the solve refuses one with no volume in
// floating point. It is above the sine's rounding — minSine takes sin² =
// 1 − cos², so a tet flat in floating point may measure a sine of 1e−8
// (four void-split centres on one plane did: FuzzBuild's seed
// coplanar-centres) — where voidFloorSine is not.
const coarseFloorSine = 1e-6

// voidCandidate is a point a void split may insert and the tets it must
// replace.
type voidCandidate struct {
	p      geom.Vec
	region []int32
}

// Candidate sets of splitVoidCentred.
const (
	inMiddle = iota // the middle of the holders, no flat tet
	offWall         // off the surface next to the simplex, no flat tet
	anyFlat         // the middle of the holders, flat tets allowed: the last resort
)

// splitVoidCentred splits a zero-pressure simplex at the centroid of the
// vertices of the tets that have it — in the middle of the region that
// changes rather than on the simplex, which may hug the surface — by a
// forced insertion replacing those tets, or off the surface next to the
// simplex, as set says (refined mode's candidates; coarse mode's last
// resort is offWall). It returns the new vertex, or −1.
func (ms *mesher) splitVoidCentred(sx voidSimplex, set int) int32 {
	holders := ms.holders(sx)
	// First the holders with their neighbours: a simplex on a gently
	// curved surface has flat holders, and a point in the middle of them
	// alone would make flat tets on the subfaces below it.
	wide := ms.withNeighbours(holders)
	around := []voidCandidate{{ms.tetsCentroid(wide), wide}, {ms.tetsCentroid(holders), holders}}
	var off []voidCandidate
	var near []int32
	if set == offWall {
		for _, p := range ms.offWallPoints(sx, holders, true) {
			off = append(off, voidCandidate{p, holders})
		}
		near = ms.withNeighbours(ms.withNeighbours(wide))
	}
	// A point that makes only fat tets first, then any that is not flat.
	// In the middle of the holders with a Delaunay cavity first; then off
	// the wall, and replacing only the tets the point must: flat tets
	// nearby have huge circumspheres, and a Delaunay cavity swallows the
	// whole stack of them.
	type attempt struct {
		cands         []voidCandidate
		off, conflict bool
		floor         float64
	}
	tries := map[int][]attempt{
		inMiddle: {{around, false, true, voidMinSine}, {around, false, true, voidFloorSine}},
		offWall: {
			{off, true, false, voidMinSine}, {around, false, false, voidMinSine},
			{off, true, false, voidFloorSine}, {around, false, false, voidFloorSine},
		},
		anyFlat: {{around, false, true, 0}},
	}[set]
	for _, try := range tries {
		for _, c := range try.cands {
			v := ms.addVertex(c.p, vVolume, -1, onNone)
			// Off the wall, only a point inside the body nearby: on its
			// side of the wall, as the exact orientation of the point
			// says. In the middle, only a point a walk from the holders
			// reaches without crossing the surface: insertForced would
			// scan every tet for another, and none was ever inserted
			// (33 of 15 608 tries on occt_propeller.stl at -q 1.414,
			// merged; 50 of 23 607 at -q 2).
			st := outside
			if try.off {
				if t := ms.containing(v, near); t >= 0 {
					st = ms.insertForced(v, t, c.region, try.conflict, try.floor)
				}
			} else if t, blocked := ms.m.locate(v, holders[0]); blocked < 0 {
				st = ms.insertForcedIn(v, t, c.region, try.conflict, try.floor)
			}
			if st == inserted {
				return v
			}
			ms.popVertex()
		}
	}
	return -1
}

// withNeighbours returns the tets and their neighbours across faces that
// are not subfaces.
func (ms *mesher) withNeighbours(tets []int32) []int32 {
	m := ms.m
	out := slices.Clone(tets)
	for _, t := range tets {
		for k := int32(0); k < 4; k++ {
			if n := m.c[t<<3|4|k]; n >= 0 && !slices.Contains(out, n>>2) {
				out = append(out, n>>2)
			}
		}
	}
	return out
}

// containing returns one of the tets that has vertex v inside or on its
// boundary, or −1.
func (ms *mesher) containing(v int32, tets []int32) int32 {
	m := ms.m
next:
	for _, t := range tets {
		for k := 0; k < 4; k++ {
			if m.orientFace(t, k, v) > 0 {
				continue next
			}
		}
		return t
	}
	return -1
}

// tetsCentroid returns the centroid of the distinct vertices of the tets.
func (ms *mesher) tetsCentroid(tets []int32) geom.Vec {
	m := ms.m
	var c geom.Vec
	n := 0
	seen := map[int32]bool{}
	for _, t := range tets {
		for _, u := range m.tet(t) {
			if !seen[u] {
				seen[u] = true
				c = geom.Add(c, m.pos(u))
				n++
			}
		}
	}
	return geom.Scale(1/float64(n), c)
}

// offWallFractions are the distances of offWallPoints from the simplex,
// as fractions of the holders' size.
var offWallFractions = []float64{0.3, 0.15, 0.05}

// offWallPoints returns points off the surface next to the simplex,
// nearest last: its centre moved against the mean normal of the holders'
// subfaces (into the body) by fractions of the holders' size, then, with
// plane, either way along the normal of the simplex's own plane. A flat tet under
// a saddle-shaped pair of subfaces must be seen from there, and so must a
// stack of flat tets on a planar wall (coplanar facets meeting at
// subsegments hold them, flat to rounding), whose faces need not be
// subfaces at all; which side is inside, the exact location of the point
// decides.
func (ms *mesher) offWallPoints(sx voidSimplex, holders []int32, plane bool) []geom.Vec {
	m := ms.m
	var c, n geom.Vec
	size := 0.0
	for _, t := range holders {
		q := m.tet(t)
		for k := int32(0); k < 4; k++ {
			if m.c[t<<3|4|k] < noTet {
				f := m.faceVerts(4*t + k)
				a, b, cc := m.pos(f[0]), m.pos(f[1]), m.pos(f[2])
				n = geom.Add(n, geom.Cross(geom.Sub(b, a), geom.Sub(cc, a)))
			}
		}
		for _, e := range tetEdges {
			size = max(size, math.Sqrt(geom.Dist2(m.pos(q[e[0]]), m.pos(q[e[1]]))))
		}
	}
	for _, u := range sx.v[:sx.n] {
		c = geom.Add(c, m.pos(u))
	}
	c = geom.Scale(1/float64(sx.n), c)
	var out []geom.Vec
	if ln := geom.Norm(n); ln > 0 {
		// The faces point out of their tets, into the surface's outside.
		for _, d := range offWallFractions {
			out = append(out, geom.Add(c, geom.Scale(-d*size/ln, n)))
		}
	}
	if !plane {
		return out
	}
	// The simplex's plane: its largest face's.
	var pn geom.Vec
	if sx.n >= 3 {
		for k := 0; k < sx.n-2; k++ {
			a, b, cc := m.pos(sx.v[k]), m.pos(sx.v[(k+1)%sx.n]), m.pos(sx.v[(k+2)%sx.n])
			if fn := geom.Cross(geom.Sub(b, a), geom.Sub(cc, a)); geom.Norm(fn) > geom.Norm(pn) {
				pn = fn
			}
		}
	}
	if ln := geom.Norm(pn); ln > 0 {
		for _, d := range offWallFractions {
			out = append(out, geom.Add(c, geom.Scale(d*size/ln, pn)), geom.Add(c, geom.Scale(-d*size/ln, pn)))
		}
	}
	return out
}

// forceVoid removes a zero-pressure simplex too flat for a point inside
// it, or (for flipFlat) a tet with no volume in floating point: it
// inserts a point just inside the surface below it or the centroid of a
// fat tet nearby, replacing every tet that has the simplex (insertForced),
// preferring points that make no flat tet. It returns the new vertex, or
// −1.
func (ms *mesher) forceVoid(sx voidSimplex, at int32, floor float64) int32 {
	m := ms.m
	holders := ms.holders(sx)
	// Candidates: the holders and their neighbours, fattest first.
	cand := ms.withNeighbours(holders)
	slices.SortStableFunc(cand, func(a, b int32) int {
		va, vb := m.tetVolume(a), m.tetVolume(b)
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	points := ms.offWallPoints(sx, holders, false)
	for _, t := range cand {
		points = append(points, ms.tetsCentroid([]int32{t}))
	}
	for _, p := range points {
		v := ms.addVertex(p, vVolume, -1, onNone)
		if ms.insertForced(v, at, holders, true, floor) == inserted {
			return v
		}
		ms.popVertex()
	}
	return -1
}

// holders returns the tets that have the simplex.
func (ms *mesher) holders(sx voidSimplex) []int32 {
	m := ms.m
	var out []int32
	ms.buf = m.star(sx.v[0], ms.buf)
	for _, t := range ms.buf {
		q := m.tet(t)
		hits := 0
		for _, v := range sx.v[:sx.n] {
			if slices.Contains(q, v) {
				hits++
			}
		}
		if hits == sx.n {
			out = append(out, t)
		}
	}
	return out
}

// voidVertex reports whether v counts for voids of the given kind: a
// boundary vertex (outer surface), or a core-surface vertex.
func (ms *mesher) voidVertex(v int32, on uint8) bool { return ms.on[v] == on }

// findVoids lists the zero-pressure simplices of the lowest dimension
// that has any, tets first. Ranges of tet slots are scanned concurrently
// and their finds joined in slot order: the list is the one a serial scan
// makes, whatever GOMAXPROCS is.
func (ms *mesher) findVoids() []voidSimplex {
	m := ms.m
	surfEdge := ms.surfaceEdges() // read concurrently, written by none
	kinds := []uint8{onOuter}
	if ms.nInput > ms.nOuter { // a core surface
		kinds = append(kinds, onCore)
	}
	r := workRanges(m.numTets())
	type finds struct{ tets, tris, edges []voidSimplex }
	part := make([]finds, len(r))
	runRanges(r, func(i, from, to int) {
		p := &part[i]
		for t := int32(from); t < int32(to); t++ {
			if !m.alive(t) {
				continue
			}
			q := m.tet(t)
			// Outer-boundary voids anywhere in the body; core-surface
			// voids only outside the core.
			for _, on := range kinds {
				if on == onCore && m.region[t] == regionCore {
					continue
				}
				var mask int
				for k, v := range q {
					if ms.voidVertex(v, on) {
						mask |= 1 << k
					}
				}
				if mask == 15 {
					p.tets = append(p.tets, voidSimplex{[4]int32{q[0], q[1], q[2], q[3]}, 4})
					continue
				}
				if mask&(mask-1) == 0 {
					continue // no two void vertices: no face or edge
				}
				for k := int32(0); k < 4; k++ {
					// An interior face: its neighbour is a tet, seen once.
					n := m.c[t<<3|4|k]
					if mask|1<<k == 15 && n >= 0 && n>>2 > t {
						f := m.faceVerts(4*t + k)
						p.tris = append(p.tris, voidSimplex{[4]int32{f[0], f[1], f[2]}, 3})
					}
				}
				for _, e := range tetEdges {
					a, b := q[e[0]], q[e[1]]
					if mask>>e[0]&1 == 0 || mask>>e[1]&1 == 0 || surfEdge.has(a, b) {
						continue
					}
					p.edges = append(p.edges, voidSimplex{[4]int32{min(a, b), max(a, b)}, 2})
				}
			}
		}
	})
	var tets, tris, edges []voidSimplex
	for _, p := range part {
		tets, tris, edges = append(tets, p.tets...), append(tris, p.tris...), append(edges, p.edges...)
	}
	switch {
	case len(tets) > 0:
		return tets
	case len(tris) > 0:
		return tris
	}
	// An edge is found once per tet around it: sorted, once.
	slices.SortFunc(edges, func(x, y voidSimplex) int {
		if x.v[0] != y.v[0] {
			return int(x.v[0] - y.v[0])
		}
		return int(x.v[1] - y.v[1])
	})
	return slices.Compact(edges)
}

var tetEdges = [6][2]int{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}}

// surfaceEdges returns the set of edges of subfaces.
func (ms *mesher) surfaceEdges() edgeSet {
	s := &ms.s
	n := len(ms.kind)
	row := make([]int32, n+1)
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			a, b := s.edge(f, e)
			row[min(a, b)+1]++
		}
	}
	for a := range n {
		row[a+1] += row[a]
	}
	hi, at := make([]int32, row[n]), slices.Clone(row[:n])
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			a, b := s.edge(f, e)
			hi[at[min(a, b)]] = max(a, b)
			at[min(a, b)]++
		}
	}
	// Each subface at an edge entered it: sorted and compacted, a row is
	// as long as its vertex has higher neighbours on the surface.
	w := int32(0)
	for a := range n {
		r := hi[row[a]:row[a+1]]
		slices.Sort(r)
		r = slices.Compact(r)
		row[a] = w
		w += int32(copy(hi[w:], r))
	}
	row[n] = w
	return edgeSet{row, hi[:w]}
}

// edgeSet is a set of edges between vertices 0..n−1 by rows: the edges
// from a to higher vertices end at hi[row[a]:row[a+1]], in order.
// findVoids asks it of every tet edge between two surface vertices, in
// every round; as a map (hashing, then a probe far in memory) the lookups
// and the map's construction took half of findVoids' time
// (cura_pbr3d_g1_buildplate.stl and stlmodels_gearwheel.bin.stl with
// MergeCoplanar at -q 1.414, CPU profile).
type edgeSet struct {
	row, hi []int32
}

// has reports whether the set holds the edge a–b.
func (s edgeSet) has(a, b int32) bool {
	a, b = min(a, b), max(a, b)
	return slices.Contains(s.hi[s.row[a]:s.row[a+1]], b)
}

// holder returns a tet that has the simplex, or −1 if it is gone.
func (ms *mesher) holder(sx voidSimplex) int32 {
	if h := ms.holders(sx); len(h) > 0 {
		return h[0]
	}
	return -1
}

// splitSpanningEdge removes a zero-pressure face whose three vertices
// are points of one input edge, or a tet with three such vertices: a
// flat tet pair around an edge a–b that spans the third, m, which lies
// between them on the segment. Such an edge is left when m's insertion
// kept, by rounding, a tet of a and b on its far side (m off their line
// by an ulp, so the tet is positive by the exact predicate): no point
// splits the face or the tet, its area or volume being nil. The tets
// around a–b are split at m instead, each into two, and the two that
// have m dropped — what inserting m on a–b makes — if every new tet is
// positive. It reports whether it did.
func (ms *mesher) splitSpanningEdge(sx voidSimplex) bool {
	m := ms.m
	// Three of its vertices on one input edge: Steiner points of it, or
	// its ends.
	var v [4]int32
	n := 0
	for _, u := range sx.v[:sx.n] {
		if ms.kind[u] != vSegment {
			continue
		}
		seg := ms.ref[u]
		e0, e1 := ms.segEnds[2*seg], ms.segEnds[2*seg+1]
		n = 0
		for _, w := range sx.v[:sx.n] {
			if ms.kind[w] == vSegment && ms.ref[w] == seg || w == e0 || w == e1 {
				v[n] = w
				n++
			}
		}
		if n == 3 {
			// Order the three along the segment: m is the middle one.
			p0, d := m.pos(e0), geom.Sub(m.pos(e1), m.pos(e0))
			along := func(x int32) float64 { return geom.Dot(geom.Sub(m.pos(x), p0), d) }
			slices.SortFunc(v[:3], func(x, y int32) int { return cmp.Compare(along(x), along(y)) })
			break
		}
	}
	if n != 3 {
		return false
	}
	a, mid, b := v[0], v[1], v[2]
	hs := ms.holders(sx)
	if len(hs) == 0 {
		return false
	}
	tets, link, ok := m.ring(a, b, hs[0], nil, nil)
	if !ok {
		return false
	}
	var newq [][4]int32
	for i := range link {
		x, y := link[i], link[(i+1)%len(link)]
		if x == mid || y == mid {
			continue
		}
		for _, q := range [2][4]int32{{a, mid, x, y}, {mid, b, x, y}} {
			if geom.Orient3DAt(m.xyz, q[0], q[1], q[2], q[3]) <= 0 {
				return false
			}
			newq = append(newq, q)
		}
	}
	m.replaceTets(tets, newq)
	return true
}
