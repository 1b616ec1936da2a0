package stuffing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// Build fills the solid bounded by s — the points where the generalized
// winding number of s exceeds 1/2 — with tetrahedra. s may be open,
// overlapping, self-intersecting or inconsistently oriented. The result
// passes tetmesh.Validate and its boundary keeps within opt.Tolerance of
// the parts of s that bound the solid, as the Report certifies.
func Build(s *format.Surface, opt Options) (*tetmesh.Mesh, *Report, error) {
	if err := checkSurface(s); err != nil {
		return nil, nil, err
	}
	// Exact weld, drop collapsed, zero-area and duplicate triangles, and
	// orient each patch outward: w counts orientation, so an inside-out
	// shell would otherwise bound nothing.
	clean, crep := format.Clean(s, format.CleanOptions{})
	pos, tris := clean.Positions, clean.Triangles
	unions := keepUnions(pos, tris)
	if len(tris) == 0 {
		return nil, nil, errors.New("stuffing: surface has no triangle with three distinct vertices")
	}
	diag := bboxDiagonal(pos)
	if !(diag > 0) {
		return nil, nil, errors.New("stuffing: surface has zero extent")
	}
	tol := opt.Tolerance
	if tol <= 0 {
		tol = 1e-3 * diag
	}
	in := newInput(pos, tris, opt.FeatureAngle)
	b := &builder{in: in, opt: opt, rep: &Report{Tolerance: tol}}
	if unions > 0 {
		b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("%d closed shells overlapping others turned back outward (united, not subtracted)", unions))
	}
	if crep.Changed() {
		b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("input cleaned: %d vertices welded, %d triangles dropped (collapsed, zero-area or duplicate), %d flipped and %d patches reversed to face outward",
			crep.MergedExact, crep.DroppedCollapsed+crep.DroppedZeroArea+crep.DroppedDuplicate, crep.FlippedTriangles, crep.ReversedPatches))
	}
	return b.run()
}

func bboxDiagonal(pos []float64) float64 {
	lo := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Scale(-1, lo)
	for i := 0; i+2 < len(pos); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], pos[i+k]), max(hi[k], pos[i+k])
		}
	}
	return geom.Norm(geom.Sub(hi, lo))
}

// checkSurface rejects input no solid can come from.
func checkSurface(s *format.Surface) error {
	switch {
	case s == nil:
		return errors.New("stuffing: nil surface")
	case len(s.Positions)%3 != 0:
		return fmt.Errorf("stuffing: %d coordinates is not a whole number of vertices", len(s.Positions))
	case len(s.Triangles)%3 != 0:
		return fmt.Errorf("stuffing: %d triangle indices is not a whole number of triangles", len(s.Triangles))
	case len(s.Triangles) == 0:
		return errors.New("stuffing: surface has no triangles")
	}
	for i, x := range s.Positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("stuffing: vertex %d has a non-finite coordinate %v", i/3, x)
		}
	}
	nv := int32(len(s.Positions) / 3)
	for i, v := range s.Triangles {
		if v < 0 || v >= nv {
			return fmt.Errorf("stuffing: triangle %d uses vertex %d, outside [0, %d)", i/3, v, nv)
		}
	}
	return nil
}

// builder runs the rounds of one Build.
type builder struct {
	in  *input
	opt Options
	rep *Report
}

func (b *builder) progress(stage string, done float64) {
	if b.opt.Progress != nil {
		b.opt.Progress(stage, done)
	}
}

// rootCube returns the octree root: the bounding box's largest extent
// over 0.7, so a margin of 15% lies between the input and the root faces
// (wider than a level-3 cell, the coarsest allowed), shifted by odd
// fractions so that lattice planes rarely meet axis-aligned input faces.
func (b *builder) rootCube() (geom.Vec, float64) {
	ext := max(b.in.hi[0]-b.in.lo[0], b.in.hi[1]-b.in.lo[1], b.in.hi[2]-b.in.lo[2])
	size := ext / 0.7
	var origin geom.Vec
	shift := geom.Vec{0.01234567, 0.01789012, 0.00934567}
	for k := range 3 {
		origin[k] = (b.in.lo[k]+b.in.hi[k])/2 - size/2 - shift[k]*size
	}
	return origin, size
}

var debugf func(string, ...any)

// reorderIncidence, when not nil, permutes the incidence lists before
// snapping: a test's way to check that no later stage depends on their
// order.
var reorderIncidence func(*incidence)
var debugBad int

// qualityTarget is the dihedral angle (degrees) below which improve
// works on a tet.
const qualityTarget = 15

// flipTarget is the dihedral angle (degrees) below which flipInterior
// works on a tet: the 10° aim with a margin, lower than qualityTarget
// because flips and splits cost more than moves.
const flipTarget = 12

// maxGap is the largest volume gap between output boundary and input, as
// a fraction of the volume, that Build accepts without refining: a
// boundary within the Hausdorff tolerance can still shave thin rounded
// parts (propeller blades) by more than a percent.
const maxGap = 0.006

// maxRounds bounds the lattices one Build makes.
const maxRounds = 9

func (b *builder) run() (*tetmesh.Mesh, *Report, error) {
	in := b.in
	tol := b.rep.Tolerance
	origin, size := b.rootCube()
	z := &sizing{in: in, opt: &b.opt, tol: tol, surfCap: in.diag / 20, floor: tol,
		forced: newKeyMap(0), minLevel: 3}
	bestWorst, flat := math.Inf(1), 0 // smallest worst miss so far, rounds since
	gapBefore := math.Inf(1)
	for round := 1; ; round++ {
		frac := func(x float64) float64 { return (float64(round-1) + x) / maxRounds }
		b.progress("octree", frac(0))
		o := buildOctree(origin, size, in, z.split)
		o.balance(func(level int, i, j, k uint32) bool {
			c, h := o.cell(level, i, j, k)
			return in.meetsBox(c, h)
		})
		b.progress("lattice", frac(0.1))
		L := newLattice(o)
		b.progress("winding", frac(0.2))
		w, side := classify(L, in)
		b.progress("cuts", frac(0.4))
		cuts := findCuts(L, in, w, side)
		b.progress("stuffing", frac(0.5))
		d := b.stuffValid(L, side, cuts)
		if len(d.tets) == 0 {
			return nil, nil, errors.New("stuffing: the surface encloses no volume: the winding number is at most 1/2 at every lattice vertex")
		}
		m, info := d.compact()
		tris := b.tagBoundary(m, info.tris)
		b.progress("features", frac(0.55))
		checkInv := func(stage string) {
			if debugf != nil {
				d := &draft{pos: m.Positions, tets: m.Tets}
				if bad := d.inverted(); len(bad) > 0 {
					debugf("after %s: %d inverted, first %v", stage, len(bad), m.Tets[4*bad[0]:4*bad[0]+4])
				}
			}
		}
		// Snap, make room by moving vertices, snap what could not move
		// before, then break voids (splits made while snapping can make
		// some) and improve again.
		sn := newSnapper(m, info.onTri, in)
		if reorderIncidence != nil {
			reorderIncidence(sn.inc)
		}
		b.rep.SnappedToEdges, b.rep.SnappedToCorners, tris = sn.snapAll(tris)
		b.progress("quality", frac(0.6))
		improve(m, sn.inc, qualityTarget, 2, sn.movable, sn.slide)
		var n int
		n, tris = sn.snapEdges(tris)
		b.rep.SnappedToEdges += n
		checkInv("snap")
		b.progress("voids", frac(0.62))
		b.rep.Steiner = breakVoids(m)
		checkInv("voids")
		sn.refresh()
		b.progress("quality", frac(0.65))
		cos := improve(m, sn.inc, qualityTarget, 4, sn.movable, sn.slide)
		b.progress("flips", frac(0.68))
		flips, splits := flipInterior(m, sn.inc, cos, flipTarget, sn.movable, sn.slide)
		sn.addedInterior()
		b.rep.Flips += flips
		b.rep.Steiner += splits
		info.onTri = sn.onTri
		checkInv("improve")
		b.progress("fidelity", frac(0.7))
		ms, fid := measure(&locator{in: in, o: o, L: L, w: w}, m, tris, info.onTri, tol)
		gapLimit := maxGap * m.Volume()
		// Refinement follows the measurement before mending unless mending
		// fixed every miss: a partial fix must not steer (or stall) the
		// refinement differently.
		steer := fid
		if fid.mendable(tol) && len(fid.widest(gapLimit)) == 0 {
			done := sn.mend(fid.bad, tris, tol)
			b.rep.Mended += len(done.moved) + m.NumVertices() - int(done.added)
			if int(done.added) < m.NumVertices() {
				tris = sn.boundary()
			}
			info.onTri = sn.onTri
			fid = ms.update(done, tris, info.onTri, fid)
			if len(fid.bad) == 0 {
				steer = fid
			}
		}
		b.rep.HausdorffIn, b.rep.HausdorffOut, b.rep.FillArea = fid.in, fid.out, fid.fillArea
		b.rep.Rounds, b.rep.Leaves = round, len(o.leaves)
		b.progress("measured", frac(0.75))
		if debugf != nil {
			debugf("round %d: leaves %d tets %d in %.4g out %.4g bad %d snapped %d/%d", round, len(o.leaves), m.NumTets(), fid.in, fid.out, len(fid.bad), b.rep.SnappedToEdges, b.rep.SnappedToCorners)
			worst := slices.Clone(fid.bad)
			slices.SortFunc(worst, func(x, y miss) int { return cmp.Compare(y.d, x.d) })
			for _, x := range worst[:min(4, len(worst))] {
				_, fe, fd := in.feat.closestOnEdges(x.p)
				debugf("   miss %.4g at %.5v: feature %d at %.3g, sides %v", x.d, x.p, fe, math.Sqrt(fd), in.feat.edgeSides(fe))
				ix := trisearch.New(m.Positions, tris)
				q, tt, _ := ix.Closest(x.p)
				debugf("      closest output point %.5v on tri %d", q, tt)
				for _, v := range tris[3*tt : 3*tt+3] {
					cl := int32(-9)
					if info.onTri[v] >= 0 {
						cl = in.patch[info.onTri[v]]
					}
					debugf("      v%d at %.5v class %d fixed %v", v, m.Vertex(v), cl, sn.fixed(v))
				}
			}
		}
		// Refining helps only while the worst miss or the gap shrinks: a
		// miss a finer lattice cannot reach (a crease the snapping cannot
		// follow) would otherwise multiply the tets until maxRounds. The
		// worst miss need not shrink every round, so two rounds without a
		// new best end the refinement.
		worst := max(steer.in, steer.out)
		if worst < 0.99*bestWorst {
			bestWorst, flat = worst, 0
		} else {
			flat++
		}
		wide := steer.widest(gapLimit)
		gapStalled := round >= 3 && steer.gap >= 0.99*gapBefore
		stalled := flat >= 2
		gapBefore = steer.gap
		b.rep.VolumeGap = fid.gap
		if debugf != nil {
			debugf("round %d tets %d gap %.3g%% wide %d bad %d in %.3g out %.3g", round, m.NumTets(), 100*fid.gap/m.Volume(), len(wide), len(fid.bad), fid.in, fid.out)
		}
		refine := len(steer.bad) > 0 && !stalled || len(wide) > 0 && !gapStalled
		if refine && round < maxRounds {
			for _, x := range steer.bad {
				z.force(o, x)
			}
			for _, p := range wide {
				z.splitLeaf(o, p)
			}
			continue
		}
		if len(fid.bad) > 0 {
			b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("tolerance %.3g not reached after %d rounds: %d samples farther (input→output %.3g, output→input %.3g)",
				tol, round, len(fid.bad), fid.in, fid.out))
		}
		if len(wide) > 0 {
			b.rep.Notes = append(b.rep.Notes, fmt.Sprintf("volume gap %.3g is %.2f%% of the volume after %d rounds (aim %.2f%%)",
				fid.gap, 100*fid.gap/m.Volume(), round, 100*maxGap))
		}
		b.progress("thickness", frac(0.8))
		b.rep.ThinnestFeature = thinnest(m, tris)
		b.progress("summary", frac(0.9))
		b.tagCore(m)
		b.summarise(m)
		b.progress("done", 1)
		return m, b.rep, nil
	}
}

// meetsBox reports whether any input triangle meets the cube (centre,
// half), padded as in trianglesIn.
func (in *input) meetsBox(c geom.Vec, half float64) bool {
	h := half * 1.02
	box := [6]float64{c[0] - h, c[1] - h, c[2] - h, c[0] + h, c[1] + h, c[2] + h}
	hit := false
	in.search.Tree.Query(box, func(t int32) bool {
		p, q, r := in.corners(t)
		hit = triBoxOverlap(p, q, r, c, h)
		return !hit
	})
	return hit
}

// stuffValid stuffs the lattice, then refuses the warps that invert a tet
// or pinch the boundary and stuffs again, until neither happens. Without
// warps every piece lies inside its lattice tet with cuts strictly inside
// edges, and the boundary is a level set of a piecewise linear function,
// so the loop ends.
func (b *builder) stuffValid(L *lattice, side []int8, cuts *cutSet) *draft {
	keep := make([]bool, len(L.keys))
	fresh := make([]bool, len(L.keys)) // refused in the last round
	b.rep.Unwarped = 0
	var runs []stuffer
	for {
		warp := warpVertices(L, cuts, keep)
		var d *draft
		d, runs = stuff(L, b.in, side, cuts, warp, runs, fresh)
		clear(fresh)
		changed := false
		refuse := func(v int32) {
			if int(v) < d.nL && warp[v] >= 0 && !keep[v] {
				keep[v], fresh[v], changed = true, true, true
				b.rep.Unwarped++
			}
		}
		d.badTets = d.inverted()
		for _, t := range d.badTets {
			for _, v := range d.tets[4*t : 4*t+4] {
				refuse(v)
			}
		}
		d.tris = boundaryAmong(d.tets, len(d.pos)/3, func(v int32) bool { return d.onTri[v] != notOnSurface })
		for _, v := range pinchedVertices(d.tris, len(d.pos)/3) {
			refuse(v)
		}
		if !changed {
			return d
		}
	}
}

// flatCos is the cosine of 1°: stuffing refuses warps that leave a tet
// with a smaller dihedral angle, as it refuses inverted ones. Such slivers
// are nearly flat, and splitting one to break a void could round into an
// inverted pair.
var flatCos = math.Cos(math.Pi / 180)

// inverted returns the tets with a warped vertex that the exact predicate
// finds not positive, or that have a dihedral angle under 1°. (Tets
// without one are pieces of lattice tets with cuts inside edges: positive,
// and refusing warps could not change them.) Only the tets in d.recheck
// are checked, when it is set.
func (d *draft) inverted() []int32 {
	nt := len(d.tets) / 4
	flag := make([]bool, nt)
	par.For(nt, chunk, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			if d.recheck != nil && !inRanges(d.recheck, int32(t)) {
				continue
			}
			q := d.tets[4*t : 4*t+4]
			warped := false
			for _, v := range q {
				warped = warped || int(v) < d.nL && d.onTri[v] != notOnSurface
			}
			flag[t] = warped && !(maxCosDihedral(geom.At(d.pos, q[0]), geom.At(d.pos, q[1]), geom.At(d.pos, q[2]), geom.At(d.pos, q[3])) <= flatCos)
		}
	})
	var bad []int32
	for t, f := range flag {
		if f {
			bad = append(bad, int32(t))
		}
	}
	return bad
}

// inRanges reports whether t is in one of the sorted ranges [lo, hi)
// listed as pairs in rs.
func inRanges(rs []int32, t int32) bool {
	i, _ := slices.BinarySearch(rs, t+1) // ranges before t+1 end at index i
	return i%2 == 1
}

// meshInfo is what the later stages know about each vertex of the mesh.
type meshInfo struct {
	onTri []int32 // input triangle of a surface vertex, onLevelSet, or notOnSurface
	tris  []int32 // boundary triangles
}

// compact drops unused draft vertices, keeping the order of the rest.
func (d *draft) compact() (*tetmesh.Mesh, *meshInfo) {
	nv := len(d.pos) / 3
	id := make([]int32, nv)
	for i := range id {
		id[i] = -1
	}
	for _, v := range d.tets {
		id[v] = 0
	}
	m := &tetmesh.Mesh{}
	info := &meshInfo{}
	n := int32(0)
	for v := range id {
		if id[v] < 0 {
			continue
		}
		id[v] = n
		n++
		m.Positions = append(m.Positions, d.pos[3*v], d.pos[3*v+1], d.pos[3*v+2])
		info.onTri = append(info.onTri, d.onTri[v])
	}
	m.Tets = make([]int32, len(d.tets))
	par.For(len(d.tets), chunk, func(lo, hi int) {
		for i, v := range d.tets[lo:hi] {
			m.Tets[lo+i] = id[v]
		}
	})
	info.tris = make([]int32, len(d.tris))
	for i, v := range d.tris {
		info.tris[i] = id[v]
	}
	return m, info
}

// tagBoundary tags the vertices of the boundary faces tris Boundary, the
// others Interior.
func (b *builder) tagBoundary(m *tetmesh.Mesh, tris []int32) []int32 {
	m.Tags = make([]tetmesh.Tag, m.NumVertices())
	for _, v := range tris {
		m.Tags[v] = tetmesh.Boundary
	}
	b.rep.BoundaryFaces = len(tris) / 3
	return tris
}

// tagCore tags Core the non-boundary vertices where Options.Core holds.
func (b *builder) tagCore(m *tetmesh.Mesh) {
	if b.opt.Core == nil {
		return
	}
	for v := range m.Tags {
		if m.Tags[v] != tetmesh.Boundary && b.opt.Core(m.Vertex(int32(v))) {
			m.Tags[v] = tetmesh.Core
		}
	}
}

func (b *builder) summarise(m *tetmesh.Mesh) {
	if debugf != nil {
		for t := 0; t < m.NumTets(); t++ {
			q := m.Tets[4*t : 4*t+4]
			c := maxCosDihedral(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3]))
			if c > math.Cos(2*math.Pi/180) && debugBad < 8 {
				debugBad++
				debugf("bad tet %d cos %.6f: %v tags %d %d %d %d", t, c, q, m.Tags[q[0]], m.Tags[q[1]], m.Tags[q[2]], m.Tags[q[3]])
			}
			if math.IsNaN(c) {
				debugf("NaN tet %d %v: %v %v %v %v tags %v %v %v %v", t, q, m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3]), m.Tags[q[0]], m.Tags[q[1]], m.Tags[q[2]], m.Tags[q[3]])
			}
		}
	}
	b.rep.MinDihedral, b.rep.MaxDihedral = dihedralRange(m)
	b.rep.Vertices, b.rep.Tets = m.NumVertices(), m.NumTets()
	b.rep.Volume = m.Volume()
	b.rep.FeatureEdges, b.rep.Corners = len(b.in.feat.edges)/2, len(b.in.feat.corners)
	b.rep.Crossings = b.in.feat.crossings
}
