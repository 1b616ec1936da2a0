package stuffing

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// A lattice that misses the tolerance at a few points — a fold the sizing
// did not foresee, a boundary vertex the quality stage slid too far —
// would cost a whole new round (octree, lattice, stuffing, snapping,
// quality) for a change of a few hundred leaves. mend tries local fixes
// first:
//
//   - an input point far from the output: the nearest free boundary vertex
//     of the output triangle closest to it slides along its own patch onto
//     it, so the boundary passes through the point;
//   - an output edge (or triangle) far from the input: the edge is split
//     at the input point nearest its midpoint, on the patch of both ends.
//
// Every new or moved vertex is on the input; moves and splits keep all
// tets positive (exact predicate) and no flatter than mendFloor or than
// they were, and, the mesh being free of zero-pressure voids, a split of
// a boundary edge makes none (a boundary vertex sharing a tet with both
// ends is on a boundary face with them). The fidelity is measured again
// afterwards; only what mending could not fix asks for a finer lattice.

// mendFloorCos is the cosine of the smallest dihedral angle a mending move
// may leave (unless the tets were already worse, which it must not make
// worse still): mending must not undo the quality stages.
var mendFloorCos = math.Cos(10 * math.Pi / 180)

// mendable reports whether the misses of f are few and near enough for
// mend: within twice the tolerance.
func (f *fidelity) mendable(tol float64) bool {
	return len(f.bad) > 0 && f.out <= 2*tol && f.in <= 2*tol
}

// mended lists what mend changed.
type mended struct {
	moved []int32    // vertices moved,
	old   []geom.Vec // from there;
	added int32      // vertices from this index on are new
}

// mend fixes what it can of the misses bad of the boundary triangles tris
// and returns what it changed. Misses are taken worst first; one a
// previous fix already brought within tol is skipped.
func (s *snapper) mend(bad []miss, tris []int32, tol float64) mended {
	m := s.m
	done := mended{added: int32(m.NumVertices())}
	bad = slices.Clone(bad)
	slices.SortFunc(bad, func(a, b miss) int {
		return cmp.Or(cmp.Compare(b.d, a.d), cmp.Compare(a.p[0], b.p[0]), cmp.Compare(a.p[1], b.p[1]), cmp.Compare(a.p[2], b.p[2]))
	})
	out := trisearch.New(m.Positions, tris)
	faces := make(map[int32][]int32) // boundary triangles around a vertex
	for t := range len(tris) / 3 {
		for _, v := range tris[3*t : 3*t+3] {
			faces[v] = append(faces[v], int32(t))
		}
	}
	// fixed reports whether a fix already brought x within tol: an input
	// point near a boundary triangle around a moved vertex, or an output
	// point on an edge that has been split.
	var split [][2]int32
	fixed := func(x miss) bool {
		if x.out {
			return slices.Contains(split, [2]int32{min(x.a, x.b), max(x.a, x.b)})
		}
		for _, v := range done.moved {
			for _, t := range faces[v] {
				if out.TriangleDist2(x.p, t) <= tol*tol {
					return true
				}
			}
		}
		return false
	}
	for _, x := range bad {
		switch {
		case fixed(x):
		case x.out:
			if s.splitOnInput(x.a, x.b) {
				split = append(split, [2]int32{min(x.a, x.b), max(x.a, x.b)})
			}
		default:
			if v, was, ok := s.pullNearest(x.p, tris, out); ok {
				done.moved, done.old = append(done.moved, v), append(done.old, was)
			}
		}
	}
	return done
}

// pullNearest slides the nearest free vertex of the output triangle
// nearest p (a point of the input) onto p, and returns it and where it
// was. (The search answers for the boundary as it was before earlier
// moves, so the triangle may not be the nearest any more: a choice, not a
// measurement.)
func (s *snapper) pullNearest(p geom.Vec, tris []int32, out *trisearch.Index) (int32, geom.Vec, bool) {
	m := s.m
	_, ti, _ := s.in.search.Closest(p)
	_, to, _ := out.Closest(p)
	vs := slices.Clone(tris[3*to : 3*to+3])
	slices.SortFunc(vs, func(a, b int32) int {
		return cmp.Or(cmp.Compare(geom.Dist2(m.Vertex(a), p), geom.Dist2(m.Vertex(b), p)), cmp.Compare(a, b))
	})
	for _, v := range vs {
		if m.Tags[v] != tetmesh.Boundary || !s.movable(v) || s.class(v) != s.in.patch[ti] {
			continue
		}
		was := m.Vertex(v)
		if s.pull(v, p) {
			s.onTri[v] = ti
			return v, was, true
		}
	}
	return 0, geom.Vec{}, false
}

// worstCos returns the largest dihedral cosine of tets ts (2 if one is not
// positive).
func (s *snapper) worstCos(ts []int32) float64 {
	w := -1.0
	for _, t := range ts {
		q := s.m.Tets[4*t : 4*t+4]
		w = max(w, maxCosDihedral(s.m.Vertex(q[0]), s.m.Vertex(q[1]), s.m.Vertex(q[2]), s.m.Vertex(q[3])))
	}
	return w
}

// pull moves v to p if that leaves every tet around v positive by the
// exact predicate and its smallest dihedral angle no smaller than
// mendFloor or than it was.
func (s *snapper) pull(v int32, p geom.Vec) bool {
	if !s.inc.at.free(p, v) {
		return false
	}
	limit := max(mendFloorCos, s.worstCos(s.inc.tets[v]))
	old := s.m.Vertex(v)
	copy(s.m.Positions[3*v:], p[:])
	if !(s.worstCos(s.inc.tets[v]) <= limit) || limit >= 1 {
		copy(s.m.Positions[3*v:], old[:])
		return false
	}
	s.inc.at.move(v, old, p)
	return true
}

// splitOnInput splits boundary edge ab at the input point nearest its
// midpoint, when that point is on a patch of both ends and every tet
// around ab splits into two positive ones no flatter than mendFloor or
// than the tets around ab were.
func (s *snapper) splitOnInput(a, b int32) bool {
	m := s.m
	if s.onTri[a] < 0 || s.onTri[b] < 0 {
		return false // an end on a surface spanning a hole
	}
	if s.fixed(a) && s.fixed(b) {
		return false // likely along a crease, which a point on a patch would leave
	}
	around := s.inc.around(a, b)
	if len(around) == 0 {
		return false // no longer an edge
	}
	p, ti, _ := s.in.search.Closest(mid(m.Vertex(a), m.Vertex(b)))
	var ba, bb [1]int32
	if !slices.Contains(s.patches(a, ba[:]), s.in.patch[ti]) || !slices.Contains(s.patches(b, bb[:]), s.in.patch[ti]) || !s.inc.at.free(p, -1) {
		return false
	}
	limit := max(mendFloorCos, s.worstCos(around))
	for _, t := range around {
		q := m.Tets[4*t : 4*t+4]
		for _, old := range [2]int32{a, b} {
			var c [4]geom.Vec
			for k, v := range q {
				c[k] = m.Vertex(v)
				if v == old {
					c[k] = p
				}
			}
			if !(maxCosDihedral(c[0], c[1], c[2], c[3]) <= limit) || limit >= 1 {
				return false
			}
		}
	}
	s.inc.splitAt([]int32{a, b}, s.addOnInput(p, ti, -1))
	return true
}
