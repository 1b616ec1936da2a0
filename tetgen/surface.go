package tetgen

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// surface is the triangulation of the constraint surfaces — the input
// surface and the optional core surface — into subfaces. Every input
// triangle is a facet; Steiner points split its edges (subsegments) and
// its interior, and the subfaces of a facet are kept Delaunay within it
// by flips. Subfaces are oriented like their facet: counterclockwise seen
// from outside (from the body, for the core surface).
type surface struct {
	sv    []int32 // three vertices per subface
	adj   []int32 // per subface edge e (sv[e]→sv[e+1]): 3·s′+e′ of the same edge in the subface across
	segs  []uint8 // per subface: bit e set when edge e is a subsegment (part of an input edge)
	facet []int32 // facet of each subface
	// side holds, once the mesh is carved, two tet faces per subface:
	// the one on the inner side (opposite the normal) and the one on the
	// outer side, or noTet where there is no tet (outside the body).
	side []int32
	// circ holds, during refinement only (subfaceCircle), each subface's
	// circumcircle once computed; r2 < 0 where it is not. add and set
	// reset it; no vertex moves while refinement runs.
	circ []circle
}

// circle is a subface's circumcentre and squared circumradius.
type circle struct {
	c  geom.Vec
	r2 float64
}

func (s *surface) num() int32 { return int32(len(s.facet)) }

func (s *surface) add(a, b, c, facet int32) int32 {
	id := s.num()
	s.sv = append(s.sv, a, b, c)
	s.adj = append(s.adj, -1, -1, -1)
	s.segs = append(s.segs, 0)
	s.facet = append(s.facet, facet)
	if s.side != nil {
		s.side = append(s.side, noTet, noTet)
	}
	if s.circ != nil {
		s.circ = append(s.circ, circle{r2: -1})
	}
	return id
}

// edge returns the vertices of edge e of subface f.
func (s *surface) edge(f, e int32) (a, b int32) {
	return s.sv[3*f+e], s.sv[3*f+(e+1)%3]
}

// apex returns the vertex of subface f opposite its edge e.
func (s *surface) apex(f, e int32) int32 { return s.sv[3*f+(e+2)%3] }

func (s *surface) isSeg(f, e int32) bool { return s.segs[f]>>e&1 != 0 }

// link makes edge e1 of f1 and edge e2 of f2 neighbours.
func (s *surface) link(f1, e1, f2, e2 int32) {
	s.adj[3*f1+e1] = 3*f2 + e2
	s.adj[3*f2+e2] = 3*f1 + e1
}

// relink points the neighbour across half-edge h (3·f+e, as stored in adj
// before a change) back at (f, e).
func (s *surface) relink(h, f, e int32) {
	s.adj[3*f+e] = h
	s.adj[h] = 3*f + e
}

// set overwrites subface f with vertices a, b, c and segment bits.
func (s *surface) set(f, a, b, c int32, segs uint8) {
	s.sv[3*f], s.sv[3*f+1], s.sv[3*f+2] = a, b, c
	s.segs[f] = segs
	if s.circ != nil {
		s.circ[f].r2 = -1
	}
}

func bit(b bool, e uint) uint8 {
	if b {
		return 1 << e
	}
	return 0
}

// facetInfo is what the 2D tests within a facet need.
type facetInfo struct {
	// eye is a fixed point well on the inner side of the facet's plane.
	// Orientations and in-circle tests of (nearly) coplanar points in the
	// facet are taken as seen from it: exact, and for exactly coplanar
	// points identical to the 2D tests in the plane, ties broken as the
	// 3D Delaunay tetrahedralization breaks them (the eye has the lowest
	// symbolic priority).
	eye  geom.Vec
	core bool // a facet of the core surface
	// corner is the input triangle's first vertex and its two edge
	// vectors from there: optimization keeps the facet's Steiner points
	// in this plane.
	corner [3]geom.Vec
	// plane is the planar group of the facet (see planar.go): the
	// smallest index of the facets coplanar with it and joined to it.
	plane int32
	// near marks a planar group joined across edges that are coplanar
	// only to rounding (nearGroups): its subfaces' own planes may be
	// tilted off the group's by rounding over their width, so points
	// computed from a subface are projected onto corner's plane.
	near bool
}

// project returns the point of the facet's plane (through corner) nearest
// p.
func (fi *facetInfo) project(p geom.Vec) geom.Vec {
	c := &fi.corner
	w := geom.Sub(p, c[0])
	g11, g12, g22 := geom.Dot(c[1], c[1]), geom.Dot(c[1], c[2]), geom.Dot(c[2], c[2])
	r1, r2 := geom.Dot(w, c[1]), geom.Dot(w, c[2])
	det := g11*g22 - g12*g12
	u, t := (r1*g22-r2*g12)/det, (r2*g11-r1*g12)/det
	return geom.Add(c[0], geom.Add(geom.Scale(u, c[1]), geom.Scale(t, c[2])))
}

const eyeKey = math.MinInt32

func newFacet(a, b, c geom.Vec, core bool) facetInfo {
	n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
	size := math.Sqrt(max(geom.Dist2(a, b), geom.Dist2(b, c), geom.Dist2(c, a)))
	cen := geom.Scale(1.0/3, geom.Add(geom.Add(a, b), c))
	return facetInfo{eye: geom.Add(cen, geom.Scale(-size/geom.Norm(n), n)), core: core,
		corner: [3]geom.Vec{a, geom.Sub(b, a), geom.Sub(c, a)}}
}

// orient2 is +1 when a, b, c turn counterclockwise in facet f seen from
// outside, −1 clockwise, 0 when collinear (coplanar with the eye).
func (ms *mesher) orient2(f int32, a, b, c int32) int {
	m := ms.m
	return -geom.Orient3D(m.pos(a), m.pos(b), m.pos(c), ms.facets[f].eye)
}

// inCircle reports whether d lies inside the circumcircle of the
// counterclockwise triangle a, b, c of facet f.
func (ms *mesher) inCircle(f int32, a, b, c, d int32) bool {
	m := ms.m
	return geom.InSphereSoS(m.pos(a), m.pos(c), m.pos(b), ms.facets[f].eye, m.pos(d), a, c, b, eyeKey, d) > 0
}

// locateInFacet walks within the facet of subface f towards vertex x. It
// returns the subface containing x and, when x lies on one of its edges,
// that edge (else −1). When the walk would leave the facet it returns
// the subface and the subsegment edge it would cross, with blocked set.
func (ms *mesher) locateInFacet(f, x int32) (sub, edge int32, blocked bool) {
	s := &ms.s
	fc := s.facet[f]
	for steps := 0; steps < 1<<20; steps++ {
		moved := false
		on := int32(-1)
		for e := int32(0); e < 3; e++ {
			a, b := s.edge(f, e)
			switch ms.orient2(fc, a, b, x) {
			case -1:
				if s.isSeg(f, e) {
					return f, e, true
				}
				f = s.adj[3*f+e] / 3
				moved = true
			case 0:
				on = e
			}
			if moved {
				break
			}
		}
		if !moved {
			return f, on, false
		}
	}
	return f, -1, true
}
