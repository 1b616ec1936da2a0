package stuffing

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// Boundary vertices come out of stuffing on the input surface but not on
// its sharp features, so a lattice coarser than the tolerance would round
// every crease and corner. snapFeatures moves boundary vertices onto them:
//
//  1. each input corner pulls the nearest boundary vertex onto itself;
//  2. a boundary edge whose ends share no smooth patch crosses a feature:
//     one end moves onto the nearest point of the feature edges bounding
//     its own patch — preferring those that also bound a patch of the
//     other end — so the boundary gets vertices along creases, rims and
//     seams, and edges between them.
//
// A vertex on a feature edge belongs to the patches on both its sides, a
// corner to all patches around it. A move is kept only if every tet
// around the vertex stays positive by the exact predicate with its
// smallest dihedral angle above snapFloor; otherwise the other end is
// tried, and failing that the edge is left for the fidelity check to
// refine. Snapped vertices are fixed: later quality moves leave them.

// snapFloorCos is the cosine of the smallest dihedral angle a snap may
// create, 0.3°; interior relocation lifts what it can afterwards.
var snapFloorCos = math.Cos(0.3 * math.Pi / 180)

// snapper holds the state of snapFeatures.
type snapper struct {
	m      *tetmesh.Mesh
	inc    *incidence
	in     *input
	onTri  []int32
	edgeOf []int32 // feature edge a vertex was snapped to, or −1
	corner []int32 // corner a vertex was snapped to, or −1
}

func (s *snapper) fixed(v int32) bool { return s.edgeOf[v] >= 0 || s.corner[v] >= 0 }

// class is the smooth patch a boundary vertex lies on, or onLevelSet.
func (s *snapper) class(v int32) int32 {
	if t := s.onTri[v]; t >= 0 {
		return s.in.patch[t]
	}
	return onLevelSet
}

// patches returns the patches v belongs to.
func (s *snapper) patches(v int32, buf []int32) []int32 {
	switch {
	case s.corner[v] >= 0:
		return s.in.feat.cornerPatchList(s.corner[v])
	case s.edgeOf[v] >= 0:
		return s.in.feat.edgeSides(s.edgeOf[v])
	}
	return append(buf[:0], s.class(v))
}

func (s *snapper) compatible(a, b int32) bool {
	var ba, bb [1]int32
	pb := s.patches(b, bb[:])
	for _, p := range s.patches(a, ba[:]) {
		if slices.Contains(pb, p) {
			return true
		}
	}
	return false
}

// fine reports whether v's tets are positive with no angle under the
// snap floor.
func (s *snapper) fine(v int32) bool {
	for _, t := range s.inc.tets[v] {
		q := s.m.Tets[4*t : 4*t+4]
		if !(maxCosDihedral(s.m.Vertex(q[0]), s.m.Vertex(q[1]), s.m.Vertex(q[2]), s.m.Vertex(q[3])) <= snapFloorCos) {
			return false
		}
	}
	return true
}

// move puts v at p if no other vertex is there and that keeps its tets
// valid and not too flat.
func (s *snapper) move(v int32, p geom.Vec) bool {
	if !s.inc.at.free(p, v) {
		return false
	}
	old := s.m.Vertex(v)
	copy(s.m.Positions[3*v:], p[:])
	if !s.fine(v) {
		copy(s.m.Positions[3*v:], old[:])
		return false
	}
	s.inc.at.move(v, old, p)
	return true
}

// target returns where v should snap so that its edge to other stops
// straddling: the nearest point of the feature edges around v's patch
// that also border one of other's patches, else of any feature edge
// around v's patch; ok = false when there is none.
func (s *snapper) target(v, other int32) (p geom.Vec, e int32, d2 float64) {
	f := s.in.feat
	pv := s.class(v)
	var buf [1]int32
	po := s.patches(other, buf[:])
	at := s.m.Vertex(v)
	p, e, d2 = f.closestWhere(at, func(e int32) bool {
		sides := f.edgeSides(e)
		if !slices.Contains(sides, pv) {
			return false
		}
		for _, q := range po {
			if slices.Contains(sides, q) {
				return true
			}
		}
		return false
	})
	if e < 0 {
		p, e, d2 = f.closestWhere(at, func(e int32) bool { return slices.Contains(f.edgeSides(e), pv) })
	}
	return p, e, d2
}

func newSnapper(m *tetmesh.Mesh, onTri []int32, in *input) *snapper {
	nv := m.NumVertices()
	s := &snapper{m: m, inc: newIncidence(m), in: in, onTri: onTri, edgeOf: make([]int32, nv), corner: make([]int32, nv)}
	for v := range nv {
		s.edgeOf[v], s.corner[v] = -1, -1
	}
	return s
}

// refresh catches up with vertices and tets added to the mesh since the
// snapper last looked (interior ones: they are not on the input).
func (s *snapper) refresh() {
	s.inc = newIncidence(s.m)
	s.addedInterior()
}

// addOnInput adds a boundary vertex at p on input triangle tri (and on
// feature edge e, or −1), after catching up with interior vertices added
// since the snapper last looked, so that its per-vertex entries line up.
func (s *snapper) addOnInput(p geom.Vec, tri, e int32) int32 {
	s.addedInterior()
	v := s.inc.addVertex(p, tetmesh.Boundary)
	s.onTri = append(s.onTri, tri)
	s.edgeOf = append(s.edgeOf, e)
	s.corner = append(s.corner, -1)
	return v
}

// addedInterior catches up with interior vertices added to the mesh
// through s.inc (flips and splits keep it current): they are not on the
// input.
func (s *snapper) addedInterior() {
	for len(s.onTri) < s.m.NumVertices() {
		s.onTri = append(s.onTri, notOnSurface)
		s.edgeOf = append(s.edgeOf, -1)
		s.corner = append(s.corner, -1)
	}
}

// snapAll snaps edges, then corners, then edges again, and returns how
// many vertices went onto feature edges and onto corners, and the
// boundary triangles tris has become.
func (s *snapper) snapAll(tris []int32) (edges, corners int, after []int32) {
	if len(s.in.feat.edges) == 0 {
		return 0, 0, tris
	}
	var n int
	n, tris = s.snapEdges(tris)
	edges += n
	corners = s.snapCorners(tris)
	n, tris = s.snapEdges(tris)
	return edges + n, corners, tris
}

// boundary returns the boundary triangles of the mesh; only vertices
// tagged Boundary can be on one.
func (s *snapper) boundary() []int32 {
	return boundaryAmong(s.m.Tets, s.m.NumVertices(), func(v int32) bool { return s.m.Tags[v] == tetmesh.Boundary })
}

// movable says which vertices quality moves and mending may touch:
// interior ones, and boundary vertices on the input that are not on a
// feature.
func (s *snapper) movable(v int32) bool {
	return s.m.Tags[v] != tetmesh.Boundary || !s.fixed(v) && s.onTri[v] >= 0
}

// slide maps a trial position p of movable boundary vertex v back onto
// the input, which must be v's own patch there.
func (s *snapper) slide(v int32, p geom.Vec) (geom.Vec, bool) {
	q, t, _ := s.in.search.Closest(p)
	return q, s.in.patch[t] == s.in.patch[s.onTri[v]]
}

// snapCorners moves, for each input corner, the nearest vertex of the
// boundary triangle closest to it onto it. It runs after the edges are
// snapped: a triangle that cuts a corner off has its three vertices on the
// three creases meeting there, and is the closest one, so one of its own
// vertices (free, or on a crease ending at the corner) is the one to move.
func (s *snapper) snapCorners(tris []int32) (corners int) {
	m, f := s.m, s.in.feat
	// The search answers for the boundary before this pass's moves.
	out := trisearch.New(m.Positions, tris)
	for c, cv := range f.corners {
		p := geom.At(s.in.pos, cv)
		_, t, _ := out.Closest(p)
		vs := slices.Clone(tris[3*t : 3*t+3])
		slices.SortFunc(vs, func(a, b int32) int {
			return cmp.Or(cmp.Compare(geom.Dist2(m.Vertex(a), p), geom.Dist2(m.Vertex(b), p)), cmp.Compare(a, b))
		})
		for _, v := range vs {
			if s.corner[v] >= 0 {
				continue
			}
			if e := s.edgeOf[v]; e >= 0 && f.edges[2*e] != cv && f.edges[2*e+1] != cv {
				continue // on a crease that does not end here
			}
			if s.move(v, p) {
				s.corner[v], s.edgeOf[v] = int32(c), -1
				corners++
				break
			}
		}
	}
	return corners
}

// snapEdges resolves straddling boundary edges in up to four passes; it
// returns how many it resolved and the boundary triangles after its
// splits.
func (s *snapper) snapEdges(tris []int32) (edges int, after []int32) {
	m := s.m
	split := false
	for pass := 0; pass < 4; pass++ {
		if split { // splits changed the boundary
			tris = s.boundary()
			split = false
		}
		var straddle []uint64
		for i := 0; i < len(tris); i += 3 {
			for k := 0; k < 3; k++ {
				a, b := tris[i+k], tris[i+(k+1)%3]
				if a < b && !s.compatible(a, b) {
					straddle = append(straddle, edgeKey(a, b))
				}
			}
		}
		moved := 0
		slices.Sort(straddle)
		for _, key := range straddle {
			a, b := int32(key>>32), int32(uint32(key))
			if s.compatible(a, b) {
				continue // an earlier move settled it
			}
			reach := geom.Dist2(m.Vertex(a), m.Vertex(b))
			type cand struct {
				v  int32
				p  geom.Vec
				e  int32
				d2 float64
			}
			var cs []cand
			for _, v := range [2]int32{a, b} {
				other := a + b - v
				if s.fixed(v) {
					continue
				}
				if p, e, d2 := s.target(v, other); e >= 0 && d2 <= reach {
					cs = append(cs, cand{v, p, e, d2})
				}
			}
			if len(cs) == 2 && cs[1].d2 < cs[0].d2 {
				cs[0], cs[1] = cs[1], cs[0]
			}
			done := false
			for _, c := range cs {
				if s.move(c.v, c.p) {
					s.edgeOf[c.v] = c.e
					done = true
					break
				}
			}
			if !done && s.splitOnto(a, b) {
				done, split = true, true
			}
			if done {
				edges++
				moved++
			}
		}
		if moved == 0 {
			if debugf != nil {
				for _, key := range straddle {
					a, b := int32(key>>32), int32(uint32(key))
					if !s.compatible(a, b) {
						var ba, bb [1]int32
						debugf("   unresolved straddle v%d %v (corner %d edge %d) – v%d %v (corner %d edge %d)", a, s.patches(a, ba[:]), s.corner[a], s.edgeOf[a], b, s.patches(b, bb[:]), s.corner[b], s.edgeOf[b])
					}
				}
			}
			break
		}
	}
	if split {
		tris = s.boundary()
	}
	return edges, tris
}

// splitOnto resolves a straddling boundary edge ab that neither end can
// snap across, by splitting it with a new boundary vertex placed on the
// feature edge it crosses, nearest its midpoint. Every tet around ab
// becomes two, with a or b replaced by the new vertex; the split is made
// only if all of them are positive with angles above the snap floor.
func (s *snapper) splitOnto(a, b int32) bool {
	f := s.in.feat
	pa, pb := s.class(a), s.class(b)
	mid := geom.Scale(0.5, geom.Add(s.m.Vertex(a), s.m.Vertex(b)))
	p, e, d2 := f.closestWhere(mid, func(e int32) bool {
		sides := f.edgeSides(e)
		return slices.Contains(sides, pa) && slices.Contains(sides, pb)
	})
	if e < 0 || d2 > geom.Dist2(s.m.Vertex(a), s.m.Vertex(b))/4 || !s.inc.at.free(p, -1) {
		return false
	}
	around := s.inc.around(a, b)
	for _, t := range around {
		q := s.m.Tets[4*t : 4*t+4]
		for _, old := range [2]int32{a, b} {
			var c [4]geom.Vec
			for k, v := range q {
				c[k] = s.m.Vertex(v)
				if v == old {
					c[k] = p
				}
			}
			if !(maxCosDihedral(c[0], c[1], c[2], c[3]) <= snapFloorCos) {
				return false
			}
		}
	}
	tri := s.onTri[a]
	if tri < 0 {
		tri = s.onTri[b]
	}
	s.inc.splitAt([]int32{a, b}, s.addOnInput(p, tri, e))
	return true
}
