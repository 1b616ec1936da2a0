package tetgen

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Delaunay refinement (Shewchuk 1998, "Tetrahedral mesh generation by
// Delaunay refinement"): a tet whose radius-edge ratio exceeds the bound,
// or that is too big for MaxVolume, EdgeLength or Sizing, gets a vertex
// at its circumcentre, unless that point lies outside the body or in the
// diametral sphere of a subface, which is then split at its circumcentre
// — or, if that point encroaches a subsegment, the subsegment is split.
// Every insertion queues its new tets; surface splits happen only for
// the circumcentres that ask for them (a subface no circumcentre
// encroaches may stay encroached by a vertex near it), except for one
// pass before the tets: creases that run close to another crease of the
// same planar group are split to about twice their distance
// (splitCloseSegments).
//
// Refinement ends by two local rules, not by a vertex budget; both
// apply only to tets bad by their shape, never to size bounds:
//   - no vertex goes inside a protecting ball around an input vertex
//     where input edges meet at a small angle (protect.go);
//   - a circumcentre goes no nearer to the vertices of its cavity than
//     parentFraction times the insertion radius of its parent, the later
//     vertex of the tet's shortest edge (Shewchuk). A Delaunay tet's
//     circumcentre is at least Quality times that far from every vertex,
//     so this fires only at tets that are not Delaunay (next to
//     subfaces, or left by cavities shrunk to star shape); there,
//     circumcentres near vertices made ever shorter edges (on
//     yade_baraban.stl, down to 1e−7 inside the body); and no chain of
//     such splits comes nearer than its parent's insertion radius more
//     than maxLosses times, for each loss lets the next go nearer still.
// Below a bound of 2 (growingBound) they tighten against the two ways
// insertion radii fell there: the parent rule takes the full insertion
// radius, not parentFraction of it, and a tet whose shortest edge joins
// points of two input edges meeting at a small angle, on no common input
// edge, or points inside two facets meeting at a small angle, is not
// split (acrossSmallAngle; Shewchuk, "Delaunay refinement algorithms for
// triangular mesh generation", 2002, leaves such triangles alone): its
// badness comes from the input angle, and its split only makes a
// shorter edge across it. At -q 1.414 the hinge's late vertices went to
// non-Delaunay tets in one spot inside the body, where cavities shrunk
// to star shape left them, each split at as little as half its parent's
// radius; the lever's, beside its 0.35-0.56° needles;
// occt_propeller.stl's, 670 k of its 748 k, to edges of 3e−6 across its
// 9.9° crease between two facets, one a needle. All three reached the
// vertex cap; now none does (735 k → 107 k and 414 k → 104 k tets; the
// propeller adds 98 k vertices for shape). At 2 and above the rules
// stay as they were: the parent rule at 1× lowered the hinge's
// quality-mode minimum (7.24° → 4.75°), and not splitting across small
// angles the lever's (1.91° → 0.90°).
// Below 2 too, the mesh graded away from the close-crease pass's points
// (their descendants by the parent relation) is refined as at 2
// (closeBornBound): the tighter bound multiplied the vertices there
// without ending sooner. And below 2 a chain of splits runs on through
// the subface and subsegment splits a tet's split asks for: the point
// such a split inserts continues the chain of the tet that asked for it
// (maxLosses), where from 2 up it starts a chain of its own.
// A tet these rules stop keeps its shape. A split for a size bound
// (MaxVolume, EdgeLength, Sizing) has a rule of its own: its
// circumcentre goes no nearer to the vertices of its cavity than sizeGap
// times the circumradius. A Delaunay tet's circumcentre is a full
// circumradius from every vertex, so this too refuses only tets that are
// not Delaunay, whose circumcentres otherwise landed by existing
// vertices; the radius-edge bound then chased those near-duplicate pairs
// without end (the default build of the corpus's back-to-back pyramid,
// its medial core surface 0.09 away, reached the vertex cap at 796 k
// tets; 60 k with the rule). Such a tet stays too big unless a
// neighbour's split takes it.
// With Sizing, a split for shape whose cavity meets no subface fills the
// cavity as found or nothing: where the mesh is constrained Delaunay that
// cavity is star-shaped; where it is not, shrinking the cavity to star
// shape leaves more tets that are not Delaunay, whose circumcentres land
// by vertices, each allowed half its parent's radius. The default build
// of stlmodels_gearwheel.bin.stl with MergeCoplanar (core points and the
// close-crease pass leave such tets) split 441 k tets for shape, 243 k
// of them not Delaunay, and grew 3.07 M tets in one region beside its
// core; 395 k with the rule. Without Sizing the rule lowered the lever's
// quality-mode minimum (1.9° → 1.37°); for size splits too, which have
// sizeGap, it made the cura plate's default build refine for minutes
// longer.
// The global cap on vertices added for shape (qualityVertices) stays as a
// safety net, which of the corpus models only the cura plate still
// reaches (docs/meshing.md).

// refiner holds the work queues of refinement.
type refiner struct {
	tets []int32 // tet slots to refine (checked when taken)
	head int     // tets[:head] are done
	// sized is a stack of the slots of tets bad for a size bound
	// (MaxVolume, EdgeLength, Sizing), taken before tets: the tets the
	// last insertion made come first, so size refinement works on around
	// the last cavity while its tets and vertices are in cache. Taken
	// first in, first out, like the others, it swept the whole mesh over
	// and over, and the icosphere benchmark's refine stage took 1.8
	// times as long (2.20 s against 1.23 s). Tets bad by their shape
	// stay first in, first out: taken last in, first out they chased
	// small input angles deeper before the local rules stopped them
	// (gmsh_lever.stl: 28% more tets and a minimum dihedral angle of
	// 1.42° against 1.75°; 8.36° against 10.5° with MergeCoplanar).
	sized []int32
	// radius2 holds, per vertex, the squared distance to its nearest
	// vertex when it was inserted (Shewchuk's insertion radius; for the
	// vertices refinement starts with, the shortest edge they have).
	radius2 []float64
	balls   *protection // where the radius-edge bound does not refine
	// tries counts, per tet slot, the failed attempts to refine the tet
	// there (reset when a tet is judged there): a tet whose refinement
	// failed maxAttempts times, or that a rule refuses outright, is left
	// alone — its verdict in why becomes tetFine (giveUp). A tet keeps its
	// slot while it lives, and no tet refinement makes can have the
	// vertices of one it removed (every new tet has the new vertex), so
	// the slot stands for the tet. Counted per tet by its sorted vertices
	// in a map, as before, the given-up tets were found there again from
	// every stale queue entry of their slot (with MergeCoplanar at
	// -q 1.414, 392 k of cura_pbr3d_g1_buildplate.stl's 491 k splitTet
	// calls, 261 k of stlmodels_gearwheel.bin.stl's 381 k); sorting the
	// keys, the map and a per-slot memo of the given-up keys took 1.2 %
	// of their instructions (cachegrind).
	tries []uint8
	// why holds, per tet slot, what badness said of the tet made there
	// when it was made, while its vertices were in cache: a tet's verdict
	// cannot change while it lives (positions do not move during
	// refinement), except that the vertex cap may end badShape, which
	// taking a tet checks, and giving up on it makes it tetFine (tries).
	// Most queued slots hold a good tet or a dead one (on the icosphere
	// benchmark, all queued first in, first out, 3.58 M of 3.74 M), and
	// reading the verdict spares reading their records and vertices.
	why []uint8
	// sizeBounds is set when a size bound (MaxVolume, EdgeLength,
	// Sizing) may make tets badSize: judge then judges tets as they are
	// made, to stack them.
	sizeBounds bool
	// failed holds, per surface split that refinement tried and could
	// not make (splitKey), m.fills then. A failed split inserts nothing,
	// and while no cavity has been filled since, the mesh is the same, so
	// the same split fails again: many tets ask for the split of one
	// subface or subsegment (on stlmodels_gearwheel.bin.stl with
	// MergeCoplanar at -q 1.414, 437 545 of 469 291 subsegment splits
	// whose point's cavity could not be made star-shaped, on 525
	// subsegments, and 241 842 of 477 608 failed subface splits came with
	// no insertion since the same split failed).
	failed map[[3]int32]uint64
	// closeBorn marks, per vertex, the close-crease pass's points and the
	// vertices refinement added for the shape of a tet whose parent was
	// so marked (rule (e), see closeBornBound); born says whether the
	// vertices being inserted now are.
	closeBorn []bool
	born      bool
	// losses counts, per vertex, the splits for shape along its chain of
	// parents that put their vertex nearer to its neighbours than the
	// parent's insertion radius (see maxLosses); parent is the parent of
	// the tet being split for its shape, whose chain its circumcentre
	// continues, and below growingBound (surfaceChains) the surface
	// points it asks for too (−1 outside such a split).
	losses        []uint8
	parent        int32
	surfaceChains bool
}

// splitKey names a split for refiner.failed: of subface f (e = −1) or of
// its subsegment e, for a tet's shape or not (balls refuse only the
// former).
func splitKey(f, e int32, shape bool) [3]int32 {
	if shape {
		return [3]int32{f, e, 1}
	}
	return [3]int32{f, e, 0}
}

// failedAsIs reports whether split key failed with the mesh as it is.
func (ms *mesher) failedAsIs(key [3]int32) bool {
	n, ok := ms.ref8.failed[key]
	return ok && n == ms.m.fills
}

// judge records the verdicts of tets just made and queues them: those
// bad for a size bound on the stack, the others, good ones too, in the
// queue. A slot freed keeps its verdict until reused: taking it checks
// that it is alive. A queued slot may hold another tet by the time it is
// taken; a good tet's entry stays queued so that, without size bounds,
// the order is the one refinement always had.
//
// Without size bounds every tet goes to the queue whatever its verdict,
// so the verdict waits (unjudged) until an entry of the slot is taken
// while the tet lives: most tets die first, inside a later cavity (with
// MergeCoplanar at -q 1.414, cura_pbr3d_g1_buildplate.stl judges 0.30 M
// of the 1.67 M tets it queues, stlmodels_gearwheel.bin.stl 0.40 M of
// 1.39 M). The
// verdict is the same then: positions do not move during refinement, and
// the vertex cap, which may have been reached since, ends badShape when a
// tet is taken either way.
func (ms *mesher) judge(tets []int32) {
	m, r := ms.m, ms.ref8
	if n := m.numTets(); len(r.why) < n {
		r.why = append(r.why, make([]uint8, n-len(r.why))...)
		r.tries = append(r.tries, make([]uint8, n-len(r.tries))...)
	}
	if !r.sizeBounds {
		for _, t := range tets {
			r.why[t], r.tries[t] = unjudged, 0
		}
		r.tets = append(r.tets, tets...)
		return
	}
	for _, t := range tets {
		why := ms.badness(t)
		r.why[t], r.tries[t] = uint8(why), 0
		r.requeue(t, why == badSize)
	}
}

// giveUp leaves the tet in slot t alone: every queue entry of the slot
// finds it fine until another tet is judged there.
func (r *refiner) giveUp(t int32) { r.why[t] = tetFine }

// triedAndFailed counts a failed attempt to refine the tet in slot t,
// and gives up on it after maxAttempts.
func (r *refiner) triedAndFailed(t int32) {
	if r.tries[t]++; r.tries[t] >= maxAttempts {
		r.giveUp(t)
	}
}

// requeue queues tet slot t, on the stack of size refinement if sized.
func (r *refiner) requeue(t int32, sized bool) {
	if sized {
		r.sized = append(r.sized, t)
	} else {
		r.tets = append(r.tets, t)
	}
}

// qualityVertices bounds the vertices refinement may add for the
// radius-edge bound alone, per input vertex (of the surface and the core
// surface; caller points make no small angles): a safety net for inputs
// the local rules do not cover. Past it only size bounds (MaxVolume,
// EdgeLength, Sizing) still refine, and Report.QualityCapped says so.
// Vertices added for size bounds do not count: when they did, and caller
// points raised the cap, the cura plate's default build (10 509 medial
// points) refined for shape up to 2.4 M vertices, 14 M tets, instead of
// the 0.24 M vertices its surface allows.
const qualityVertices = 200

// parentFraction is how much nearer than its parent's insertion radius a
// circumcentre may go (see the top of the file). 1 ends refinement on
// every corpus model, the cura plate included (½ leaves it reaching the
// vertex cap), but measured on the whole corpus (session 11,
// docs/meshing.md) it took the cura plate with MergeCoplanar from 12.6°
// to 8.3° and lowered four other models' minima.
const parentFraction = 0.5

// maxAttempts is how many times refinement tries a bad tet whose split
// fails before leaving it alone.
const maxAttempts = 3

// maxLosses is how many splits for shape along a chain of parents may
// put their vertex nearer to its neighbours than the parent's insertion
// radius (refiner.losses) before the chain's tets are left alone. A
// circumcentre can do so only where the tet is not Delaunay (next to
// subfaces, or left by cavities shrunk to star shape), and only by a
// bounded factor each time (parentFraction), but each loss lets the next
// come closer still: with MaxVolume 1 (m³, far above its tets' volumes)
// plb_aneurysm.stl refined 600 k vertices into one spot beside its
// surface, insertion radii falling from 0.2 to 1e−5 along chains of up
// to 44 losses, and stopped only at the vertex cap (4.09 M tets against
// 0.55 M; 618 k with the limit); stlmodels_gearwheel.bin.stl with
// MergeCoplanar and the volume bound that gives about a million tets
// (0.0223) lost up to 100 times: 2.21 M tets, 7.49° (955 k, 15.0° with
// the limit). Without size bounds the corpus's chains of circumcentres
// lose at most 10 times (stlmodels_gearwheel.bin.stl with MergeCoplanar
// at -q 1.414), so the limit leaves those meshes alone — except
// cura_pbr3d_g1_buildplate.stl as given at -q 2, whose refinement loses
// up to 19 times in many places and reaches the cap either way.
// Below growingBound chains also run through the surface splits a tet
// asks for (session 31). Where each surface point began a chain of its
// own, at -q 1.414 the apex of a spike where six input edges meet 21.6°
// apart (above the protecting balls' 20.7° there) had its tets ask for
// subface splits that asked for subsegment splits on concentric shells
// at the apex, each shell half as far out, down to 3.7e−9, where the
// zero-pressure stage met a tet flat to rounding and Build failed
// (TestRefineEndsAtSpikeApex). As a surface point's insertion radius is
// known only once it is in, a tet whose parent's chain has lost
// maxLosses times asks for no surface split (chainEnds). From 2 up,
// where the radii along a chain do not fall (growingBound), the rule
// moved most corpus meshes with small input angles, minima both ways,
// and the propeller's default build took a fifth longer in its sliver
// stage (docs/meshing.md): there surface points still start chains.
const maxLosses = 12

// growingBound is the radius-edge bound below which refinement refuses
// the splits for shape that let insertion radii fall (see the top of the
// file). From a bound of 2 up, a circumcentre's insertion radius is at
// least twice its parent's, and the subface split it may ask for, then
// the subsegment split that one may ask for, each at least 1/√2 of the
// one before: along a chain of splits the radii do not fall (Shewchuk
// 1998). Below 2 they can, and at -q 1.414 gmsh_lever.stl and
// netgen_hinge.stl refined to the vertex cap.
const growingBound = 2

// closeBornBound is the radius-edge bound, below growingBound, of a tet
// whose parent (the later vertex of its shortest edge) is one of the
// close-crease pass's points (splitCloseSegments) or was added for the
// shape of such a tet (rule (e)): such tets are refined as at
// growingBound, by its rules. The pass resolves features far smaller
// than the mesh around them: gmsh_lever.stl's strip in the plane y =
// −19.2356 between two polylines of one arc, 0.001-0.004 wide along 24
// units on each side, gets 15 103 points 0.0034 apart, where the input
// triangles around it are 0.4 wide. Grading the mesh away from them
// costs more the lower the bound (shape vertices within 0.5 of that
// plane, with MergeCoplanar and the cap lifted: 47.7 k at 2, 50.5 k at
// 1.9, 58.2 k at 1.7, 74.7 k at 1.5, 88.6 k at 1.414), without any
// falling chain of insertion radii (their median held at 0.008-0.01
// through the run), so at -q 1.414 the lever reached the shape-vertex
// cap (85 400; 433 532 tets, 259 664 with the rule). From 2 up the radii
// grow along every chain of splits (Shewchuk 1998), which bounds the
// grading by the feature itself. The merged gearwheel and cura plate
// went 430 614 → 266 451 and 426 171 → 220 442 tets at 1.414, at 15°.
const closeBornBound = growingBound

// minRefineEdge is the shortest edge refinement creates, relative to the
// body's size: below it, points would crowd within rounding distance of
// each other (only near very small input angles).
const minRefineEdge = 1e-9

// centreGap is the smallest distance, relative to the circumradius,
// between a refining circumcentre and the vertices of its cavity. A
// Delaunay tet has none closer than its circumradius, but tets near
// subfaces (constrained, or left by cavities shrunk to star shape) need
// not be Delaunay: on the torus with its medial core, circumcentres fell
// within 1e−15 of existing vertices, and the near-duplicates made tets
// of dihedral angle 1e−6° that no smoothing mends and that stalled the ε
// solve.
const centreGap = 0.01

// sizeGap is how much nearer than the circumradius a split for a size
// bound may put its circumcentre to a vertex (see the top of the file).
const sizeGap = 0.5

// regularRadius2 is the squared circumradius of the regular tet of unit
// edge: L·√(3/8) for edge L.
const regularRadius2 = 0.375

func (ms *mesher) refine() error {
	if ms.opt.Coarse {
		return nil
	}
	m, r := ms.m, ms.startRefine()
	ms.s.circ = make([]circle, ms.s.num())
	for i := range ms.s.circ {
		ms.s.circ[i].r2 = -1
	}
	defer func() { ms.s.circ = nil }()
	// Only with MergeCoplanar: without it, where each input triangle is a
	// facet, the pass lowered stlmodels_gearwheel's minimum (0.676° →
	// 0.543°) and took the hinge and the lever to the vertex cap.
	if ms.opt.MergeCoplanar {
		r.born = true
		ms.splitCloseSegments()
		r.born = false
	}
	for steps := 0; ; steps++ {
		var t int32
		switch {
		case len(r.sized) > 0:
			t = r.sized[len(r.sized)-1]
			r.sized = r.sized[:len(r.sized)-1]
		case r.head < len(r.tets):
			t = r.tets[r.head]
			r.head++
			if r.head > 1<<16 && r.head > len(r.tets)/2 {
				r.tets = append(r.tets[:0], r.tets[r.head:]...)
				r.head = 0
			}
		default:
			ms.rep.QualityCapped = ms.shapeVertices >= ms.qualityCap
			return nil
		}
		why := int(r.why[t])
		if why == unjudged && m.alive(t) {
			why = ms.badness(t)
			r.why[t] = uint8(why)
		}
		if why == badShape && ms.shapeVertices >= ms.qualityCap {
			why, r.why[t] = tetFine, tetFine
		}
		if why != tetFine && m.alive(t) {
			n := len(ms.kind)
			ms.splitTet(t, why)
			if why == badShape {
				ms.shapeVertices += len(ms.kind) - n
			}
		}
		if ms.opt.Progress != nil && steps%65536 == 0 {
			ms.opt.Progress("refine", 0)
		}
	}
}

// startRefine sets up refinement's queues, bounds and protecting balls,
// and queues every tet.
func (ms *mesher) startRefine() *refiner {
	m := ms.m
	o := &ms.opt
	r := &refiner{failed: map[[3]int32]uint64{}, sizeBounds: o.MaxVolume > 0 || o.EdgeLength > 0 || o.Sizing != nil}
	ms.ref8 = r
	lo, hi := ms.bounds()
	ms.minEdge2 = math.Pow(minRefineEdge*math.Sqrt(geom.Dist2(lo, hi)), 2)
	ms.qualityCap = qualityVertices*ms.nInput + 10000
	r.balls = ms.protectSmallAngles()
	r.radius2 = make([]float64, len(ms.kind))
	r.closeBorn = make([]bool, len(ms.kind))
	r.losses = make([]uint8, len(ms.kind))
	r.parent, r.surfaceChains = -1, o.Quality < growingBound
	for i := range r.radius2 {
		r.radius2[i] = math.Inf(1)
	}
	var live []int32
	for t := int32(0); t < int32(m.numTets()); t++ {
		if m.alive(t) {
			live = append(live, t)
			if !m.isGhost(t) {
				r.shortestEdges(m.tet(t), m)
			}
		}
	}
	ms.judge(live)
	return r
}

// shortestEdges lowers the radius of each vertex of tet q to its
// squared length of its shortest edge in q.
func (r *refiner) shortestEdges(q []int32, m *tri) {
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			d := geom.Dist2(m.pos(q[i]), m.pos(q[j]))
			r.radius2[q[i]], r.radius2[q[j]] = min(r.radius2[q[i]], d), min(r.radius2[q[j]], d)
		}
	}
}

// bounds returns the bounding box of the input vertices.
func (ms *mesher) bounds() (lo, hi geom.Vec) {
	lo = geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = geom.Vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for v := range ms.kind {
		if ms.kind[v] != vInput {
			continue
		}
		p := ms.m.pos(int32(v))
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	return lo, hi
}

// tetCircumcentre returns the circumcentre of tet t and the squared
// circumradius.
func (m *tri) tetCircumcentre(t int32) (geom.Vec, float64) {
	s := m.shapeOf(t)
	return geom.Add(m.pos(m.c[t<<3]), s.off), s.r2
}

// tetShape is what refinement measures of a tet.
type tetShape struct {
	off   geom.Vec // circumcentre − first vertex
	r2    float64  // squared circumradius
	short float64  // squared shortest edge
	vol6  float64  // six times the signed volume
}

// shapeOf measures tet t. It is refinement's most frequent computation, so
// it is written out in scalars (Go keeps [3]float64 values in memory);
// the operations are those of the vector form: with u, v, w the edges
// from the first vertex, the circumcentre is that vertex plus
// (|u|² v×w + |v|² w×u + |w|² u×v) / (2 u·(v×w)).
func (m *tri) shapeOf(t int32) tetShape {
	q, xyz := m.c[t<<3:t<<3+4], m.xyz
	a, b, c, d := 3*int(q[0]), 3*int(q[1]), 3*int(q[2]), 3*int(q[3])
	ax, ay, az := xyz[a], xyz[a+1], xyz[a+2]
	bx, by, bz := xyz[b], xyz[b+1], xyz[b+2]
	cx, cy, cz := xyz[c], xyz[c+1], xyz[c+2]
	dx, dy, dz := xyz[d], xyz[d+1], xyz[d+2]
	ux, uy, uz := bx-ax, by-ay, bz-az
	vx, vy, vz := cx-ax, cy-ay, cz-az
	wx, wy, wz := dx-ax, dy-ay, dz-az
	vwx, vwy, vwz := vy*wz-vz*wy, vz*wx-vx*wz, vx*wy-vy*wx
	wux, wuy, wuz := wy*uz-wz*uy, wz*ux-wx*uz, wx*uy-wy*ux
	uvx, uvy, uvz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
	vol6 := ux*vwx + uy*vwy + uz*vwz
	uu, vv, ww := ux*ux+uy*uy+uz*uz, vx*vx+vy*vy+vz*vz, wx*wx+wy*wy+wz*wz
	inv := 1 / (2 * vol6)
	ox := inv * (uu*vwx + vv*wux + ww*uvx)
	oy := inv * (uu*vwy + vv*wuy + ww*uvy)
	oz := inv * (uu*vwz + vv*wuz + ww*uvz)
	// |p − q|² is the same whichever way round p − q is taken.
	ex, ey, ez := bx-cx, by-cy, bz-cz
	fx, fy, fz := bx-dx, by-dy, bz-dz
	gx, gy, gz := cx-dx, cy-dy, cz-dz
	short := min(uu, vv, ww, ex*ex+ey*ey+ez*ez, fx*fx+fy*fy+fz*fz, gx*gx+gy*gy+gz*gz)
	return tetShape{off: geom.Vec{ox, oy, oz}, r2: ox*ox + oy*oy + oz*oz, short: short, vol6: vol6}
}

// Why a tet needs refinement.
const (
	tetFine  = iota
	badShape // its radius-edge ratio exceeds Quality, and no size bound asks
	badSize  // too big for MaxVolume, EdgeLength or Sizing
	unjudged // not asked yet (refiner.why only; see judge)
)

// badness says whether tet t needs refinement, and why.
func (ms *mesher) badness(t int32) int {
	m := ms.m
	q := m.tet(t)
	sh := m.shapeOf(t)
	r2, short := sh.r2, sh.short
	if math.IsInf(r2, 0) || math.IsNaN(r2) {
		return tetFine
	}
	if short < ms.minEdge2 {
		return tetFine
	}
	o := &ms.opt
	if o.EdgeLength > 0 && r2 > regularRadius2*o.EdgeLength*o.EdgeLength {
		return badSize
	}
	if o.MaxVolume > 0 && sh.vol6/6 > o.MaxVolume {
		return badSize
	}
	// A flat tet with short edges is not too big, however large its
	// circumsphere: its cavity for a size split is most of the mesh
	// around it, and the split mostly ends in subfaces far away (the cura
	// plate's default build spent 220 of its first 224 CPU-s in
	// refinement's splits, most in cavity search and encroachment tests,
	// and took over 15 CPU-min; 162 s with this rule). Where the
	// mesh is not Delaunay such a tet also survives every split of the
	// subfaces its centre encroaches, and ever smaller ones were split
	// under it (the back-to-back pyramid's default build with
	// MergeCoplanar: 847 k tets at the vertex cap, 69 k with the rule).
	// Its shape is the radius-edge bound's to judge.
	if o.Sizing != nil && !ms.allCore(q) {
		if h := ms.vertexSizing(q); h > 0 && r2 > regularRadius2*h*h && m.longestEdge2(q) > h*h {
			return badSize
		}
	}
	// ε = 1 throughout a tet whose four vertices are Core, on any mesh:
	// only the caller's explicit bounds refine it, and the radius-edge
	// bound too where it lies outside the core surface (between sheet
	// points, where flat tets would otherwise stay). Inside the core
	// surface, refinement only multiplied Core vertices: the torus made
	// 20 k of them and 382 k tets against 11 k and 314 k.
	// (The tags are read only when a bound asks: most tets are good.)
	b := o.Quality
	if r2 > b*b*short && ms.shapeVertices < ms.qualityCap &&
		!(m.region != nil && m.region[t] == regionCore && ms.allCore(q)) {
		return badShape
	}
	return tetFine
}

// longestEdge2 returns the squared length of tet q's longest edge.
func (m *tri) longestEdge2(q []int32) float64 {
	l := 0.0
	for i := range 3 {
		for j := i + 1; j < 4; j++ {
			l = max(l, geom.Dist2(m.pos(q[i]), m.pos(q[j])))
		}
	}
	return l
}

// allCore reports whether every vertex of tet q is tagged Core.
func (ms *mesher) allCore(q []int32) bool {
	for _, v := range q {
		if ms.tag[v] != tetmesh.Core {
			return false
		}
	}
	return true
}

// vertexSizing returns the smallest Options.Sizing at the vertices of tet
// q. Sizing is asked once per vertex, not once per tet test: a caller's
// field may be costly (a closest-point query), and a tet is tested every
// time refinement queues it.
func (ms *mesher) vertexSizing(q []int32) float64 {
	h := math.Inf(1)
	for _, v := range q {
		for int(v) >= len(ms.size) {
			ms.size = append(ms.size, math.NaN())
		}
		if math.IsNaN(ms.size[v]) {
			ms.size[v] = ms.opt.Sizing(ms.m.pos(v))
		}
		h = min(h, ms.size[v])
	}
	return h
}

// splitTet inserts the circumcentre of bad tet t, or splits the subfaces
// it encroaches.
func (ms *mesher) splitTet(t int32, why int) {
	m, r := ms.m, ms.ref8
	sh := m.shapeOf(t) // once: the close-born rule reads its shortest edge
	cc, r2 := geom.Add(m.pos(m.c[t<<3]), sh.off), sh.r2
	// The local rules that end refinement (see the top of the file).
	shape, floor2 := why == badShape, sizeGap*sizeGap*r2
	r.born, r.parent = false, -1
	var parent int32
	if shape {
		// The shortest edge, once: the rules below asked for it up to
		// three times (2.3 % of the merged cura plate's CPU profile).
		var a int32
		a, parent = m.shortestEdge(t)
		r.born = ms.opt.Quality < growingBound && r.closeBorn[parent]
		if r.born && r2 <= closeBornBound*closeBornBound*sh.short {
			r.giveUp(t)
			return
		}
		f := parentFraction
		if ms.opt.Quality < growingBound && !r.born {
			if ms.acrossSmallAngle(a, parent) {
				r.giveUp(t)
				return
			}
			f = 1
		}
		floor2 = f * f * r.radius2[parent]
		r.parent = parent
	}
	v := ms.addVertex(cc, vVolume, -1, onNone)
	t0, blocked := m.locate(v, t)
	if blocked >= 0 {
		// Outside the body (or beyond the core surface): the subface in
		// the way is split if the point encroaches it.
		ms.popVertex()
		if n := m.across(blocked); n >= noTet || r.chainEnds() || !ms.encroaches(cc, refSubface(n)) || !ms.splitSubfaceRefine(refSubface(n), shape) {
			r.giveUp(t)
			return
		}
		r.requeue(t, !shape)
		return
	}
	if m.hasVertexAt(t0, cc) >= 0 {
		ms.popVertex()
		r.giveUp(t)
		return
	}
	m.findCavity(v, t0)
	// A circumcentre inside a subface's diametral sphere would sit too
	// close to the surface: split the subface instead.
	var enc []int32
	walled := false // the cavity meets a subface
	for _, n := range m.outer {
		if n < noTet {
			walled = true
			if ms.encroaches(cc, refSubface(n)) {
				enc = append(enc, refSubface(n))
			}
		}
	}
	if len(enc) > 0 {
		m.clearMarks()
		ms.popVertex()
		if r.chainEnds() {
			r.giveUp(t)
			return
		}
		split, fine := false, true
		for _, f := range enc {
			// An earlier split may have replaced it: test again. (A
			// failed split changes nothing.)
			if !split || f < ms.s.num() && ms.encroaches(cc, f) {
				fine = fine && ms.coreFaceFine(f)
				if ms.splitSubfaceRefine(f, shape) {
					split = true
				}
			}
		}
		if !split && fine {
			// Only protected core facets are in the way: no other
			// attempt can do better.
			r.giveUp(t)
			return
		}
		if !split {
			// Taken again at once, it would fail the same way: it waits
			// in the queue for the insertions around it.
			r.triedAndFailed(t)
		}
		r.requeue(t, split && !shape)
		return
	}
	// A cavity that meets no subface is star-shaped where the mesh is
	// constrained Delaunay; one that is not lies among tets that are not
	// Delaunay, and shrinking it would leave more such tets, whose
	// circumcentres land near vertices (see the top of the file). With
	// Sizing, which refines deep inside the body, a tet bad for its shape
	// waits for the insertions around it instead.
	if !m.starShape(v, t0, !walled && shape && ms.opt.Sizing != nil) {
		m.clearMarks()
		ms.popVertex()
		r.triedAndFailed(t)
		r.tets = append(r.tets, t)
		return
	}
	d2 := m.cavityNearest2(cc)
	var losses uint8
	// With MaxVolume or EdgeLength, a split that loses its parent's
	// insertion radius must at least take its tet into its cavity. Size
	// splits deep in the body leave cavities shrunk to star shape, and the
	// flat tets there that are not Delaunay have circumcentres far outside
	// them, in cavities that leave them out: each such split put a point
	// beside other vertices and left its tet as it was, and the chains of
	// losses branched. openscad_example001.stl at MaxVolume 1 lost 12.4 k
	// times, 12.1 k of them so, only 470 beside a subface: 40 k points in
	// one 4-unit cell, 18 k at the losses limit, 591 k tets (176 k with the
	// rule, 147 k without the bound). Quality mode's chains stay short
	// (maxLosses) and its meshes as they were: there the rule moved them
	// (example001 at -q 2 4.51° → 5.41°, plb_aneurysm.stl 2.97° → 4.35°;
	// not run against the corpus floors). With Sizing, whose splits for
	// shape never shrink a cavity that meets no subface, the default
	// builds do not cascade, and the rule moved their minima both ways
	// (example001 2.47° → 1.60°, matgeom_mushroom.off 12.6° → 13.8°).
	leavesTet := false
	if shape {
		losses = r.chainLosses(d2)
		leavesTet = losses > r.losses[parent] && (ms.opt.MaxVolume > 0 || ms.opt.EdgeLength > 0) && m.mark[t] != inCavity
	}
	if d2 < centreGap*centreGap*r2 || d2 < floor2 || shape && r.balls.covers(cc) || losses > maxLosses || leavesTet {
		m.clearMarks()
		ms.popVertex()
		r.giveUp(t)
		return
	}
	m.fillCavity(v)
	ms.tagSteiner(v)
	ms.rep.SteinerVolume++
	ms.afterInsert(d2, true)
}

// shortestEdge returns the vertices of tet t's shortest edge, the later
// one second: the later is the one whose insertion made the edge
// (Shewchuk's parent of the circumcentre). Of equal edges the first in
// the order 01, 02, 03, 12, 13, 23 wins. Written out in scalars, as
// shapeOf.
func (m *tri) shortestEdge(t int32) (a, b int32) {
	q, xyz := (*[4]int32)(m.c[t<<3:t<<3+4]), m.xyz
	best := math.Inf(1)
	for i := 0; i < 3; i++ {
		pi := 3 * int(q[i])
		xi, yi, zi := xyz[pi], xyz[pi+1], xyz[pi+2]
		for j := i + 1; j < 4; j++ {
			pj := 3 * int(q[j])
			dx, dy, dz := xi-xyz[pj], yi-xyz[pj+1], zi-xyz[pj+2]
			if d := dx*dx + dy*dy + dz*dz; d < best {
				best, a, b = d, min(q[i], q[j]), max(q[i], q[j])
			}
		}
	}
	return a, b
}

// acrossSmallAngle reports whether a tet's shortest edge ab joins two
// points of input edges that meet at a small angle (protection.acute),
// and the two lie on no common input edge, or two points inside facets
// that meet at a small angle (protection.acuteFacets): the tet is bad
// because of the input angle, and its split would only make another
// such edge (see the top of the file).
func (ms *mesher) acrossSmallAngle(a, b int32) bool {
	if ms.kind[a] == vFacet && ms.kind[b] == vFacet && ms.ref[a] != ms.ref[b] {
		fa, fb := ms.ref[a], ms.ref[b]
		return ms.ref8.balls.acuteFacets[[2]int32{min(fa, fb), max(fa, fb)}]
	}
	sa, sb := ms.segmentsOf(a), ms.segmentsOf(b)
	if len(sa) == 0 || len(sb) == 0 {
		return false
	}
	for _, x := range sa {
		if slices.Contains(sb, x) {
			return false
		}
	}
	acute := ms.ref8.balls.acute
	for _, x := range sa {
		for _, y := range sb {
			if acute[[2]int32{min(x, y), max(x, y)}] {
				return true
			}
		}
	}
	return false
}

// segmentsOf returns the segments vertex v lies on: its own for a
// Steiner point on a segment, those at it for an input vertex, none for
// others.
func (ms *mesher) segmentsOf(v int32) []int32 {
	switch ms.kind[v] {
	case vSegment:
		return ms.ref[v : v+1]
	case vInput:
		return ms.ref8.balls.segmentsAt[v]
	}
	return nil
}

// cavityVertexNear reports whether a vertex of the cavity's boundary
// lies within squared distance d2 of p (after starShape accepted it, as
// cavityNearest2).
func (m *tri) cavityVertexNear(p geom.Vec, d2 float64) bool { return m.cavityNearest2(p) < d2 }

// cavityNearest2 returns the squared distance from p to the nearest
// vertex of the cavity's boundary: for a Delaunay insertion, p's nearest
// vertex. It runs for every refinement insertion, so it is written out in
// scalars, and only after starShape has accepted the cavity, whose last
// markBoundaryVertices listed the boundary's vertices once each: the
// boundary faces' corners are about six times as many (on the merged
// cura plate at -q 1.414, the corners took 1.6 % of the instructions).
func (m *tri) cavityNearest2(p geom.Vec) float64 {
	px, py, pz := p[0], p[1], p[2]
	best := math.Inf(1)
	for _, u := range m.bverts {
		i := 3 * int(u)
		x, y, z := m.xyz[i]-px, m.xyz[i+1]-py, m.xyz[i+2]-pz
		best = min(best, x*x+y*y+z*z)
	}
	return best
}

func sortedTet(q []int32) [4]int32 {
	k := [4]int32{q[0], q[1], q[2], q[3]}
	for i := 1; i < 4; i++ {
		for j := i; j > 0 && k[j] < k[j-1]; j-- {
			k[j], k[j-1] = k[j-1], k[j]
		}
	}
	return k
}

// afterInsert queues the new tets of the last insertion, whose vertex,
// the last, is at squared distance near2 from its nearest vertex (one
// of the cavity's boundary), and judges them. chained says whether the
// vertex continues the chain of the tet being split for its shape
// (refiner.parent).
func (ms *mesher) afterInsert(near2 float64, chained bool) {
	m, r := ms.m, ms.ref8
	for len(r.radius2) < len(ms.kind) {
		r.radius2 = append(r.radius2, math.Inf(1))
	}
	r.radius2[len(ms.kind)-1] = near2
	for len(r.closeBorn) < len(ms.kind) {
		r.closeBorn = append(r.closeBorn, false)
	}
	r.closeBorn[len(ms.kind)-1] = r.born
	for len(r.losses) < len(ms.kind) {
		r.losses = append(r.losses, 0)
	}
	// A vertex continues the chain of the tet whose split for shape
	// inserted it (chained); any other starts one.
	l := uint8(0)
	if chained && r.parent >= 0 {
		l = r.chainLosses(near2)
	}
	r.losses[len(ms.kind)-1] = l
	ms.judge(m.newTets)
}

// chainLosses returns the losses of the chain of the tet being split for
// its shape (r.parent ≥ 0) once a vertex at squared distance near2 from
// its nearest vertex continues it.
func (r *refiner) chainLosses(near2 float64) uint8 {
	l := r.losses[r.parent]
	if near2 < r.radius2[r.parent] {
		l++
	}
	return l
}

// chainEnds reports whether the tet being split for its shape may ask
// for no surface split: below growingBound, its parent's chain has lost
// maxLosses times, and the split's vertex, whose insertion radius is
// known only once it is inserted, might lose once more.
func (r *refiner) chainEnds() bool {
	return r.surfaceChains && r.parent >= 0 && r.losses[r.parent] >= maxLosses
}

// subfaceCircle returns the circumcentre and squared circumradius of
// subface f, in its facet's plane. During refinement it keeps them
// (surface.circ): every split tests the subfaces around its cavity
// against its circumcentre (encroaches), the same subfaces for many
// splits: computing their circles each time took 0.37 s of the 3.9 s
// refine stage of stlmodels_gearwheel.bin.stl with MergeCoplanar at
// -q 1.414 (CPU profile), 0.12 s kept.
func (ms *mesher) subfaceCircle(f int32) (geom.Vec, float64) {
	circ := ms.s.circ
	if int(f) < len(circ) && circ[f].r2 >= 0 {
		return circ[f].c, circ[f].r2
	}
	q := ms.s.sv[3*f : 3*f+3]
	a, b, c := ms.m.pos(q[0]), ms.m.pos(q[1]), ms.m.pos(q[2])
	if fi := &ms.facets[ms.s.facet[f]]; fi.near {
		a, b, c = fi.project(a), fi.project(b), fi.project(c)
	}
	cc := circumcentre(a, b, c)
	r2 := geom.Dist2(cc, a)
	if int(f) < len(circ) {
		circ[f] = circle{cc, r2}
	}
	return cc, r2
}

// encroaches reports whether p lies inside the diametral sphere of
// subface f.
func (ms *mesher) encroaches(p geom.Vec, f int32) bool {
	c, r2 := ms.subfaceCircle(f)
	return geom.Dist2(p, c) < r2*(1-1e-12)
}

// splitSubfaceRefine splits subface f at its circumcentre, or splits the
// subsegment that point encroaches, and reports whether a vertex was
// inserted. A split for a tet's shape puts none in a protecting ball.
func (ms *mesher) splitSubfaceRefine(f int32, shape bool) bool {
	key := splitKey(f, -1, shape)
	if ms.failedAsIs(key) {
		return false
	}
	if ms.splitSubface(f, shape) {
		return true
	}
	ms.ref8.failed[key] = ms.m.fills
	return false
}

// splitSubface is splitSubfaceRefine without the record of failures.
func (ms *mesher) splitSubface(f int32, shape bool) bool {
	s := &ms.s
	cc, r2 := ms.subfaceCircle(f)
	if r2 < ms.minEdge2 || ms.coreFaceFine(f) {
		return false
	}
	near := s.sv[3*f]
	v := ms.addVertex(cc, vFacet, s.facet[f], ms.on[near])
	g, e, blocked := ms.locateInFacet(f, v)
	if blocked || (e >= 0 && s.isSeg(g, e)) {
		ms.popVertex()
		return ms.splitSubsegmentRefine(g, e, shape)
	}
	// The surface cavity the encroachment test finds is the one the
	// insertion fills: nothing changes in between, so it is found once.
	if !ms.surfaceCavity(v, g, e) {
		ms.popVertex()
		return false
	}
	if sf, se, enc := ms.cavityEncroached(v); enc {
		ms.popVertex()
		return ms.splitSubsegmentRefine(sf, se, shape)
	}
	if shape && ms.ref8.balls.covers(cc) || ms.insertSurfaceCavity(v) != inserted {
		ms.popVertex()
		return false
	}
	ms.countSteiner(vFacet)
	ms.afterSurfaceInsert()
	return true
}

// splitSubsegmentRefine splits subsegment e of subface f and reports
// whether it did. A split for a tet's shape puts no vertex in a
// protecting ball.
func (ms *mesher) splitSubsegmentRefine(f, e int32, shape bool) bool {
	key := splitKey(f, e, shape)
	if ms.failedAsIs(key) || !ms.maySplitSubsegment(f, e, shape) {
		return false
	}
	a, b := ms.s.edge(f, e)
	if ms.splitSubsegmentFor(f, e, shape, ms.encroacher(a, b, refineSearch), nil) {
		return true
	}
	ms.ref8.failed[key] = ms.m.fills
	return false
}

// maySplitSubsegment reports whether subsegment e of subface f is long
// enough to split, and, for a split for a tet's shape, not wholly inside
// a protecting ball.
func (ms *mesher) maySplitSubsegment(f, e int32, shape bool) bool {
	a, b := ms.s.edge(f, e)
	if geom.Dist2(ms.m.pos(a), ms.m.pos(b)) < 4*ms.minEdge2 || ms.coreSegmentFine(f, e) {
		return false
	}
	// The split point lies between a and b: in a ball that holds both,
	// it is refused below; finding it searches the vertices near the
	// subsegment (on stlmodels_gearwheel.bin.stl, near needles, a tenth
	// of the refine stage).
	return !shape || !ms.ref8.balls.holdsSegment(ms.m.pos(a), ms.m.pos(b))
}

// splitSubsegmentFor splits subsegment e of subface f where its
// encroaching vertex w asks (segmentSplitPointFor; −1 for none), or, if
// that point cannot be inserted, at the fractions retries of its length
// from its first end, and reports whether it did.
func (ms *mesher) splitSubsegmentFor(f, e int32, shape bool, w int32, retries []float64) bool {
	a, b := ms.s.edge(f, e)
	p, ref, err := ms.segmentSplitPointFor(a, b, w)
	if err != nil || shape && ms.ref8.balls.covers(p) {
		return false
	}
	if ms.splitSubsegmentAt(f, e, p, ref) {
		return true
	}
	pa, pb := ms.m.pos(a), ms.m.pos(b)
	for _, t := range retries {
		q := geom.Add(pa, geom.Scale(t, geom.Sub(pb, pa)))
		if !(shape && ms.ref8.balls.covers(q)) && ms.splitSubsegmentAt(f, e, q, ref) {
			return true
		}
	}
	return false
}

// splitSubsegmentAt inserts a vertex at p, a point of segment ref inside
// subsegment e of subface f, and reports whether it did.
func (ms *mesher) splitSubsegmentAt(f, e int32, p geom.Vec, ref int32) bool {
	a, _ := ms.s.edge(f, e)
	v := ms.addVertex(p, vSegment, ref, ms.on[a])
	if ms.insertOnSurface(v, f, e) != inserted {
		ms.popVertex()
		return false
	}
	ms.countSteiner(vSegment)
	ms.afterSurfaceInsert()
	return true
}

// closeRetries are the fractions of a subsegment's length, from its
// first end, where splitCloseSubsegment tries again.
var closeRetries = [...]float64{0.4, 0.6}

// splitCloseSubsegment splits subsegment e of subface f for
// splitCloseSegments where recovery would, or, if that point cannot be
// inserted (its cavity cannot be made star-shaped), at closeRetries of
// its length, and reports whether it did. On stlmodels_gearwheel.bin.stl
// with MergeCoplanar, 254 of the 1 223 subsegments the pass would split
// failed so in every round and were left (among them the lower half, 4
// long, of a tooth flank's crease 0.081 from the next one, where a tet
// in the split point's conflict region had a face the point sees from
// outside); the retries split 43 of them, and the mesh's minimum
// dihedral angle went from 6.5° to 10.4° (149 → 41 tets below 12°).
// (Those counts are from before splitCloseSegments split longest first.)
//
// Why such a point fails: the mesh recovery leaves there is Delaunay (on
// the gear no face between two tets fails the in-sphere test), but the
// pass's own insertions leave faces that are not locally Delaunay (3 401
// of 117 314 after it), where cavities kept out tets that would have
// joined the point to a coplanar subface, or were shrunk to star shape.
// Each failing point's conflict region reaches such a face from the
// wrong side: a tet in conflict beside one that is not, across a face
// the point sees from outside (all three of its vertices on creases or
// facets). For the gear's 28 points still failing after local flips, no
// 2-3 or 3-2 flip removes any of these faces. Taking the tets behind
// them into the cavity, flipping them first, or moving the point to
// their inner side each lowered the gear's minimum or let refinement run
// to the vertex cap (session 17, C39).
func (ms *mesher) splitCloseSubsegment(f, e int32) bool {
	return ms.splitSubsegmentFor(f, e, true, -1, closeRetries[:])
}

// nearInStar reports whether visit holds for a vertex other than a and
// b of one of the first search tets of a's star (in star's order),
// walking the star only up to the first such tet. nearVertices searches
// those tets first, so where this holds, nearVertices(a, b, …, search,
// visit) finds a vertex too, and the close-crease pass asks it only
// where this does not (stlmodels_gearwheel.bin.stl with MergeCoplanar at
// -q 1.414: 1 635 of the pass's 25 415 searches): the star's walk stops
// at the close vertex's tet, and the search is not grown round the tets
// before it (the build's instructions −0.7 %).
func (ms *mesher) nearInStar(a, b int32, search int, visit func(x int32) bool) bool {
	found, n := false, 0
	ms.buf, _ = ms.m.starFind(a, ms.buf, func(t int32) bool {
		if n++; n > search {
			return true
		}
		for _, x := range ms.m.tet(t) {
			if x >= 0 && x != a && x != b && visit(x) {
				found = true
				break
			}
		}
		return found
	})
	return found
}

// afterSurfaceInsert queues what a new surface vertex, the last,
// changed. Its nearest vertex is one it is joined to: a vertex of the
// cavity's boundary, which shrinkToStar's last markBoundaryVertices
// listed (its new tets are the cone over that boundary, and nothing
// since has listed another). Read from the new tets' corners instead,
// about six times as many, it took 1.4 % of the instructions of
// cura_pbr3d_g1_buildplate.stl's build with MergeCoplanar at -q 1.414.
func (ms *mesher) afterSurfaceInsert() {
	ms.afterInsert(ms.m.cavityNearest2(ms.m.pos(int32(len(ms.kind)-1))), ms.ref8.surfaceChains)
}

// The core surface is the mesher's own construction, not the user's
// boundary: its facets must be present, not finer than the sizing asks.
// Encroachment would split them on and on (every tet vertex the layer's
// refinement puts within a facet's diametral sphere halves it, and the
// halves cascade across the facet's neighbours): the bunny's core surface
// of 3 k triangles grew 30 k Core vertices. So a core subface or
// subsegment already as small as a regular tet of the local target edge
// (Sizing at its vertices, EdgeLength if smaller) is never split: points
// that encroach it are not inserted, and the tet that wanted one keeps
// its shape. Splits lie in the facets' planes, so the polyhedral 1-set is
// the same whichever facets are split.

// coreFaceFine reports whether subface f is a core facet that is fine
// enough.
func (ms *mesher) coreFaceFine(f int32) bool {
	if !ms.facets[ms.s.facet[f]].core {
		return false
	}
	_, r2 := ms.subfaceCircle(f)
	return ms.fineAt(ms.s.sv[3*f:3*f+3], r2)
}

// coreSegmentFine reports whether subsegment e of subface f lies on the
// core surface and is fine enough.
func (ms *mesher) coreSegmentFine(f, e int32) bool {
	if !ms.facets[ms.s.facet[f]].core {
		return false
	}
	a, b := ms.s.edge(f, e)
	return ms.fineAt([]int32{a, b}, geom.Dist2(ms.m.pos(a), ms.m.pos(b))/4)
}

// fineAt reports whether a circumradius √r2 at vertices q is within that
// of the regular tet of the target edge length there; without a Sizing
// or EdgeLength there is no target.
func (ms *mesher) fineAt(q []int32, r2 float64) bool {
	h := math.Inf(1)
	if ms.opt.Sizing != nil {
		h = ms.vertexSizing(q)
	}
	if ms.opt.EdgeLength > 0 {
		h = min(h, ms.opt.EdgeLength)
	}
	return r2 <= regularRadius2*h*h
}

// closeAngle is the largest angle between two creases that
// splitCloseSegments takes for nearly parallel: 30° missed some of the
// lever's ledge; 60° leaves yade_baraban's rim and spokes (at 90°) alone.
const closeAngle = math.Pi / 3

// thinFraction bounds the distance of a crease that splitCloseSegments
// takes for close, relative to the length of the input edge it splits,
// so that long coarse creases with neighbours within half their length
// (occt_propeller.stl's) are left alone.
const thinFraction = 0.125

// splitCloseSegments splits, before the tets are refined (with
// MergeCoplanar), every subsegment of a crease (an input edge between two
// planar groups, see planar.go) that lies within half its length, and
// within thinFraction of its input edge's length, of a vertex of another
// crease of one of the same groups running within closeAngle of it,
// where boundary recovery would split it (power-of-two shells from an
// input end, else midpoints; splitCloseSubsegment tries other points
// where that one fails), until none does. Creases that meet, or
// whose ends are joined by an input edge, are left to the concentric
// shells and protecting balls; no split goes inside a protecting ball.
//
// Each round first finds the subsegments to split, then splits them
// longest first (Ruppert's and Shewchuk's order for encroached
// subsegments), so that the long ones go in before their neighbours'
// short pieces leave faces that are not locally Delaunay around them
// (see splitCloseSubsegment). Split in the order found, the gear's
// 4-long lower halves of tooth-flank creases 0.081 from the next crease
// came after such pieces and failed in every round, and the tets beside
// them stayed at 10.4-11.8° (41 below 12°, stlmodels_gearwheel.bin.stl
// with MergeCoplanar); longest first they split: 15°, none below 12°,
// 248 151 → 229 688 tets. A subsegment whose subface slot an earlier
// split of the round reused waits for the next round (finding it again
// the same round lowered gmsh_lever.stl's minimum, 12.4° → 8.4°).
//
// Two close, nearly parallel creases (gmsh_lever.stl's ledge, 0.004-0.01
// wide along 0.45) otherwise keep Steiner points up to seven times their
// distance apart: the faces between them are needles, the tets on them
// slivers, and no circumcentre asks for these splits while those tets
// meet the radius-edge bound. Afterwards the subsegments are about twice
// as long as their distance from the other crease. Diametral balls would
// not find them: points of the two creases at the same heights never lie
// in each other's balls. (Splitting at the near vertex's projection, and
// taking creases at any angle, lowered other models: meshing-history.md.)
func (ms *mesher) splitCloseSegments() {
	s := &ms.s
	// The planar groups on the two sides of each segment.
	sides := make([][2]int32, len(ms.segEnds)/2)
	for i := range sides {
		sides[i] = [2]int32{-1, -1}
	}
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			if !s.isSeg(f, e) {
				continue
			}
			g := &sides[ms.segmentOf(s.edge(f, e))]
			switch p := ms.facets[s.facet[f]].plane; {
			case g[0] < 0 || g[0] == p:
				g[0] = p
			default:
				g[1] = p
			}
		}
	}
	crease := func(g [2]int32) bool { return g[1] >= 0 }
	// The creases at each input vertex, and each segment's direction.
	at := map[int32][]int32{}
	dir := make([]geom.Vec, len(sides))
	for i, g := range sides {
		e := ms.segEnds[2*i : 2*i+2]
		d := geom.Sub(ms.m.pos(e[1]), ms.m.pos(e[0]))
		dir[i] = geom.Scale(1/geom.Norm(d), d)
		if crease(g) {
			for _, v := range e {
				at[v] = append(at[v], int32(i))
			}
		}
	}
	// nearlyParallel reports whether crease c shares a group with the
	// creases of group pair g and runs within closeAngle of direction d.
	cosClose := math.Cos(closeAngle)
	nearlyParallel := func(c int32, g [2]int32, d geom.Vec) bool {
		h := sides[c]
		return crease(h) && (h[0] == g[0] || h[0] == g[1] || h[1] == g[0] || h[1] == g[1]) &&
			math.Abs(geom.Dot(dir[c], d)) > cosClose
	}
	// The vertices that can be close to a crease: a crease's, on the
	// outer surface (a segment's own vertices, or input vertices where a
	// crease ends).
	creaseAt := func(x int32) []int32 {
		switch {
		case ms.on[x] != onOuter:
			return nil
		case ms.kind[x] == vSegment && crease(sides[ms.ref[x]]):
			return ms.ref[x : x+1]
		case ms.kind[x] == vInput:
			return at[x]
		}
		return nil
	}
	var index pointIndex
	var indexed []int32
	// Per subface edge slot, the subsegment a→b last searched there and
	// how many of the index's trees then held no vertex close to it (0 if
	// some did). Which vertices are close to a–b does not change, and
	// vertices are only added: the next round need only search the trees
	// added since (cura_pbr3d_g1_buildplate.stl with MergeCoplanar: the
	// pass's searches and index builds 0.73 → 0.32 s over five runs).
	type searched struct{ a, b, trees int32 }
	var last []searched
	// A subsegment to split: edge e (a→b) of subface f, of squared
	// length l2.
	type closeSplit struct {
		f, e, a, b int32
		l2         float64
	}
	var todo []closeSplit
	for added := int32(0); ; {
		n := 0
		indexed = indexed[:0]
		for x := added; x < int32(len(ms.kind)); x++ {
			if creaseAt(x) != nil {
				indexed = append(indexed, x)
			}
		}
		index.add(ms.m, indexed)
		added = int32(len(ms.kind))
		for len(last) < 3*int(s.num()) {
			last = append(last, searched{})
		}
		for f := int32(0); f < s.num(); f++ {
			for e := int32(0); e < 3 && ms.shapeVertices < ms.qualityCap; e++ {
				a, b := s.edge(f, e)
				if !s.isSeg(f, e) || a > b || ms.on[a] != onOuter {
					continue
				}
				was := &last[3*f+e]
				since := int32(0)
				if was.a == a && was.b == b {
					since = was.trees
				}
				*was = searched{a, b, 0}
				seg := ms.segmentOf(a, b)
				if !crease(sides[seg]) || !ms.maySplitSubsegment(f, e, true) {
					continue
				}
				ends, g := ms.segEnds[2*seg:][:2], sides[seg]
				segLen2 := geom.Dist2(ms.m.pos(ends[0]), ms.m.pos(ends[1]))
				pa, pb := ms.m.pos(a), ms.m.pos(b)
				l2, ab := geom.Dist2(pa, pb), geom.Sub(pb, pa)
				r2 := min(l2/4, thinFraction*thinFraction*segLen2)
				close := func(x int32) bool {
					cs := creaseAt(x)
					if cs == nil {
						return false
					}
					// The distance first: it rules out most vertices,
					// and costs less than the creases' tests.
					return segmentDist2(ms.m.pos(x), pa, ab, l2) < r2 &&
						slices.ContainsFunc(cs, func(c int32) bool { return nearlyParallel(c, g, dir[seg]) }) &&
						!ms.joined(x, ends[0]) && !ms.joined(x, ends[1])
				}
				// The index holds every vertex that can be close; the
				// search below reads only the tets around a–b that it
				// reaches without crossing a subface, at most
				// refineSearch of them. So where the index finds none,
				// the search would find none; where it finds one, the
				// search decides, as before the index.
				if !index.nearSegment(pa, pb, r2, int(since), func(x int32) bool { return x != a && x != b && close(x) }) {
					was.trees = int32(len(index.trees))
					continue
				}
				found := ms.nearInStar(a, b, refineSearch, close)
				if !found {
					// The ball around the midpoint that holds every point
					// within l/2 of a–b.
					ms.nearVertices(a, b, geom.Scale(0.5, geom.Add(pa, pb)), l2, refineSearch, func(x int32) bool {
						found = close(x)
						return found
					})
				}
				if found {
					todo = append(todo, closeSplit{f, e, a, b, l2})
				}
			}
		}
		slices.SortStableFunc(todo, func(x, y closeSplit) int { return cmp.Compare(y.l2, x.l2) })
		for _, c := range todo {
			if ms.shapeVertices >= ms.qualityCap {
				break
			}
			if !s.isSeg(c.f, c.e) {
				continue
			}
			if a, b := s.edge(c.f, c.e); a != c.a || b != c.b {
				continue
			}
			if ms.splitCloseSubsegment(c.f, c.e) {
				ms.shapeVertices++
				n++
			}
		}
		todo = todo[:0]
		if n == 0 {
			return
		}
	}
}
