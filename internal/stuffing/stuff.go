package stuffing

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// Isosurface stuffing (Labelle & Shewchuk 2007): every lattice vertex is
// inside (+) or outside (−) the solid; each lattice edge with ends on both
// sides has a cut point where it leaves the solid. A vertex too close to a
// cut point on one of its edges — nearer than α times the edge length — is
// warped onto it and becomes a boundary vertex (sign 0), and the cuts on
// its edges vanish. Then each lattice tet keeps its part inside the
// solid, filled with tets by a stencil that depends only on its signs.

// Warp thresholds of Labelle & Shewchuk for long (axis-parallel: corner to
// corner, centre to centre) and short (corner to centre) lattice edges;
// with these, uniform BCC stencils have dihedral angles in [10.7°, 164.8°].
const (
	alphaLong  = 0.24999
	alphaShort = 0.41189
)

// Where a piece vertex came from, for surface vertices.
const (
	notOnSurface = -2 // inside the solid: a + lattice vertex or a Steiner point
	onLevelSet   = -1 // on a w = 1/2 surface spanning a hole
)

// cutSet holds the cut points of the lattice edges whose ends are on
// opposite sides.
type cutSet struct {
	a, b  []int32   // lattice ends, a < b
	t     []float64 // parameter from a to b
	tri   []int32   // input triangle at the cut, or onLevelSet
	index *keyMap   // edgeKey → cut
}

func edgeKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(b)
}

func (c *cutSet) point(L *lattice, i int32) geom.Vec {
	a, b := L.vertex(c.a[i]), L.vertex(c.b[i])
	return geom.Add(a, geom.Scale(c.t[i], geom.Sub(b, a)))
}

// draft is a stuffed mesh before repair: vertex ids are lattice vertices
// [0, nL), then cut points, then Steiner points; unused ones are dropped
// by compact.
type draft struct {
	pos     []float64
	tets    []int32
	lat     []int32 // lattice vertex per output vertex, or −1
	onTri   []int32 // input triangle of a surface vertex, onLevelSet, or notOnSurface
	nL      int
	badTets []int32 // tets whose orientation the exact predicate rejects
	// recheck lists the ranges [lo, hi) of tets stuffed again since the
	// last check (nil: all are new); the others passed it then.
	recheck []int32
	tris    []int32 // boundary triangles, once stuffValid has found them
}

// stuffer carries what the stencils need.
type stuffer struct {
	L      *lattice
	side   []int8 // +1 inside, −1 outside, per lattice vertex
	cuts   *cutSet
	warp   []int32 // cut each lattice vertex is warped to, or −1
	sign   []int8  // side after warping: 0 on the surface
	in     *input
	d      *draft     // read only while stuffing: lattice and cut vertices
	refPts []geom.Vec // reference positions of draft vertices for the current tet
	// What a run of tets makes: tets, with its own Steiner points
	// numbered −1, −2, …, and their positions.
	tets    []int32
	steiner []float64
}

// warpVertices chooses, for each lattice vertex not in keep, the nearest
// cut point that violates it (ties to the lower cut), scanning cuts in
// index order so the choice is deterministic.
func warpVertices(L *lattice, cuts *cutSet, keep []bool) []int32 {
	warp := make([]int32, len(L.keys))
	best := make([]float64, len(L.keys))
	for i := range warp {
		warp[i], best[i] = -1, math.Inf(1)
	}
	for c := range cuts.t {
		a, b := cuts.a[c], cuts.b[c]
		alpha := alphaLong
		if L.centre[a] != L.centre[b] {
			alpha = alphaShort
		}
		l := math.Sqrt(geom.Dist2(L.vertex(a), L.vertex(b)))
		t := cuts.t[c]
		if t < alpha && !keep[a] && t*l < best[a] {
			warp[a], best[a] = int32(c), t*l
		}
		if 1-t < alpha && !keep[b] && (1-t)*l < best[b] {
			warp[b], best[b] = int32(c), (1-t)*l
		}
	}
	return warp
}

// stuff fills the solid with tets given the warp choice, and returns the
// runs of lattice tets it stuffed. With the runs of an earlier stuffing
// (prev) it stuffs again only the runs with a tet on a vertex whose warp
// changed since (changed): a lattice tet's pieces depend only on its own
// vertices' warps and the cuts on its edges, so the others are the same.
func stuff(L *lattice, in *input, side []int8, cuts *cutSet, warp []int32, prev []stuffer, changed []bool) (*draft, []stuffer) {
	nL := len(L.keys)
	s := &stuffer{L: L, side: side, cuts: cuts, warp: warp, in: in}
	s.sign = make([]int8, nL)
	d := &draft{nL: nL}
	s.d = d
	d.pos = make([]float64, 0, 3*(nL+len(cuts.t)))
	d.pos = append(d.pos, L.pos...)
	d.lat = make([]int32, nL, nL+len(cuts.t))
	d.onTri = make([]int32, nL, nL+len(cuts.t))
	for v := range nL {
		d.lat[v] = int32(v)
		d.onTri[v] = notOnSurface
		s.sign[v] = side[v]
		if c := warp[v]; c >= 0 {
			s.sign[v] = 0
			p := cuts.point(L, c)
			copy(d.pos[3*v:], p[:])
			d.onTri[v] = cuts.tri[c]
		}
	}
	for c := range cuts.t {
		p := cuts.point(L, int32(c))
		d.pos = append(d.pos, p[0], p[1], p[2])
		d.lat = append(d.lat, -1)
		d.onTri = append(d.onTri, cuts.tri[c])
	}
	// Runs of lattice tets are stuffed at once, each into its own tets
	// and Steiner points (numbered −1, −2, … until the runs are joined in
	// order, when they get the ids appending one by one would give).
	const run = 1 << 11
	nt := len(L.tets) / 4
	parts := make([]stuffer, (nt+run-1)/run)
	redo := make([]bool, len(parts))
	par.For(len(parts), 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			ts := L.tets[4*r*run : 4*min((r+1)*run, nt)]
			if prev != nil && !slices.ContainsFunc(ts, func(v int32) bool { return changed[v] }) {
				parts[r] = prev[r]
				continue
			}
			redo[r] = true
			part := &parts[r]
			*part = *s
			for t := 0; t < len(ts); t += 4 {
				part.tet([4]int32(ts[t : t+4]))
			}
		}
	})
	// Where each run's tets and Steiner points go; then the runs are
	// copied there at once.
	type offset struct{ tets, verts int }
	at := make([]offset, len(parts)+1)
	at[0].verts = len(d.pos) / 3
	for r, part := range parts {
		at[r+1] = offset{at[r].tets + len(part.tets), at[r].verts + len(part.steiner)/3}
	}
	if prev != nil {
		d.recheck = []int32{}
		for r, again := range redo {
			if again {
				d.recheck = append(d.recheck, int32(at[r].tets/4), int32(at[r+1].tets/4))
			}
		}
	}
	nv := at[len(parts)].verts
	d.tets = make([]int32, at[len(parts)].tets)
	d.pos = slices.Grow(d.pos, 3*nv-len(d.pos))[:3*nv]
	d.lat = slices.Grow(d.lat, nv-len(d.lat))[:nv]
	d.onTri = slices.Grow(d.onTri, nv-len(d.onTri))[:nv]
	par.For(len(parts), 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			base := int32(at[r].verts)
			for i, v := range parts[r].tets {
				if v < 0 {
					v = base - v - 1
				}
				d.tets[at[r].tets+i] = v
			}
			copy(d.pos[3*at[r].verts:], parts[r].steiner)
			for v := at[r].verts; v < at[r+1].verts; v++ {
				d.lat[v], d.onTri[v] = -1, notOnSurface
			}
		}
	})
	return d, parts
}

// Reference geometry: the stencils are oriented on a reference tet with
// every cut at its edge's midpoint, where every piece is non-degenerate;
// the real positions are then checked by the exact predicate.
var refCorner = [4]geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// pv is a piece vertex: its draft id and reference position.
type pv struct {
	id  int32
	ref geom.Vec
}

func (s *stuffer) slot(v [4]int32, k int) pv { return pv{v[k], refCorner[k]} }

// cut returns the cut point on the edge between slots i and j.
func (s *stuffer) cut(v [4]int32, i, j int) pv {
	c := s.cuts.index.get(edgeKey(v[i], v[j]))
	return pv{int32(s.d.nL) + c, geom.Scale(0.5, geom.Add(refCorner[i], refCorner[j]))}
}

// emit appends the tet abcd oriented positively on the reference.
func (s *stuffer) emit(a, b, c, d pv) {
	if geom.Orient3D(a.ref, b.ref, c.ref, d.ref) < 0 {
		c, d = d, c
	}
	s.tets = append(s.tets, a.id, b.id, c.id, d.id)
}

func (s *stuffer) pos(id int32) geom.Vec { return geom.At(s.d.pos, id) }

// diagonal chooses how quad (a0, a1, b1, b0) is split: 0 for a0–b1, 1 for
// a1–b0. The shorter diagonal wins, ties going to the one through the
// smallest id, so both tets sharing the quad choose alike.
func (s *stuffer) diagonal(a0, a1, b1, b0 int32) uint8 {
	d0 := geom.Dist2(s.pos(a0), s.pos(b1))
	d1 := geom.Dist2(s.pos(a1), s.pos(b0))
	if d0 != d1 {
		if d0 < d1 {
			return 0
		}
		return 1
	}
	if min(a0, b1) < min(a1, b0) {
		return 0
	}
	return 1
}

func (s *stuffer) tet(v [4]int32) {
	var plus, zero, minus []int
	for k, id := range v {
		switch s.sign[id] {
		case 1:
			plus = append(plus, k)
		case 0:
			zero = append(zero, k)
		default:
			minus = append(minus, k)
		}
	}
	sl := func(k int) pv { return s.slot(v, k) }
	switch {
	case len(plus) == 0 && len(zero) == 4:
		// Every vertex on the surface: keep the tet if its middle is inside.
		c := geom.Scale(0.25, geom.Add(geom.Add(s.pos(v[0]), s.pos(v[1])), geom.Add(s.pos(v[2]), s.pos(v[3]))))
		if s.in.wind.At(c) > 0.5 {
			s.emit(sl(0), sl(1), sl(2), sl(3))
		}
	case len(plus) == 0:
	case len(minus) == 0:
		s.emit(sl(0), sl(1), sl(2), sl(3))
	case len(plus) == 1:
		// A tet cut off the + corner: each − vertex moves to its cut.
		var q [4]pv
		for k := range q {
			q[k] = sl(k)
			if s.sign[v[k]] < 0 {
				q[k] = s.cut(v, plus[0], k)
			}
		}
		s.emit(q[0], q[1], q[2], q[3])
	case len(plus) == 2 && len(zero) == 1:
		// A pyramid: apex z over the quad a, b, cut(b,n), cut(a,n).
		a, b, z, n := plus[0], plus[1], zero[0], minus[0]
		ca, cb := s.cut(v, a, n), s.cut(v, b, n)
		if s.diagonal(v[a], v[b], cb.id, ca.id) == 0 { // a–cb
			s.emit(sl(a), sl(b), sl(z), cb)
			s.emit(sl(a), cb, sl(z), ca)
		} else { // b–ca
			s.emit(sl(a), sl(b), sl(z), ca)
			s.emit(ca, sl(b), sl(z), cb)
		}
	case len(plus) == 2:
		// A prism between the + edge ab and the cuts towards x and y; its
		// middle quad lies on the surface and is free, so it is chosen to
		// keep the diagonals acyclic.
		a, b, x, y := plus[0], plus[1], minus[0], minus[1]
		A := [3]pv{sl(a), s.cut(v, a, x), s.cut(v, a, y)}
		B := [3]pv{sl(b), s.cut(v, b, x), s.cut(v, b, y)}
		var diag [3]uint8
		diag[0] = s.diagonal(A[0].id, A[1].id, B[1].id, B[0].id)
		diag[2] = s.diagonal(A[2].id, A[0].id, B[0].id, B[2].id)
		diag[1] = s.diagonal(A[1].id, A[2].id, B[2].id, B[1].id)
		if diag[0] == diag[2] {
			diag[1] = 1 - diag[0]
		}
		s.prism(A, B, diag)
	default:
		// Three + vertices: a prism between them and their cuts towards n.
		a, b, c, n := plus[0], plus[1], plus[2], minus[0]
		A := [3]pv{sl(a), sl(b), sl(c)}
		B := [3]pv{s.cut(v, a, n), s.cut(v, b, n), s.cut(v, c, n)}
		var diag [3]uint8
		for q := 0; q < 3; q++ {
			diag[q] = s.diagonal(A[q].id, A[(q+1)%3].id, B[(q+1)%3].id, B[q].id)
		}
		s.prism(A, B, diag)
	}
}

// prism fills a prism with three tets, or, when its diagonals are cyclic,
// with eight tets around a Steiner point at its centroid.
func (s *stuffer) prism(A, B [3]pv, diag [3]uint8) {
	ids := func(p [3]pv) [3]int32 { return [3]int32{p[0].id, p[1].id, p[2].id} }
	all := [6]pv{A[0], A[1], A[2], B[0], B[1], B[2]}
	byID := func(id int32) pv {
		for _, p := range all {
			if p.id == id {
				return p
			}
		}
		return pv{} // unreachable: ids come from all
	}
	if tets, ok := prismTets(ids(A), ids(B), diag); ok {
		for _, t := range tets {
			s.emit(byID(t[0]), byID(t[1]), byID(t[2]), byID(t[3]))
		}
		return
	}
	var c, ref geom.Vec
	for _, p := range all {
		c = geom.Add(c, s.pos(p.id))
		ref = geom.Add(ref, p.ref)
	}
	st := pv{-int32(len(s.steiner)/3) - 1, geom.Scale(1.0/6, ref)}
	c = geom.Scale(1.0/6, c)
	s.steiner = append(s.steiner, c[0], c[1], c[2])
	for _, f := range prismFaces(ids(A), ids(B), diag) {
		s.emit(byID(f[0]), byID(f[1]), byID(f[2]), st)
	}
}
