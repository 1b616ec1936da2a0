package tetgen

import (
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/unionfind"
)

// Planar facet groups. A planar wall of a CAD surface is usually several
// input triangles (every side quad of an extruded part is two), each its
// own facet. Steiner points on the segments between them are rounded off
// the wall's plane, so a test that asks "does this tet touch a subface of
// the facet the new point lies in" must ask it of the whole wall: a point
// joined to a subface of the coplanar neighbour makes a tet flat to
// rounding. Facets are grouped by rule, not by tolerance: two facets
// sharing an input edge are in one group when the neighbour's far vertex
// is exactly coplanar with the facet (geom.Orient3D is 0) and both face
// the same way; groups are the connected classes of that relation.

// groupPlanarFacets sets facetInfo.plane for every facet: the smallest
// facet index of its planar group. Subfaces still have the input
// triangles' shapes (it runs before any Steiner point).
func (ms *mesher) groupPlanarFacets() {
	s, m := &ms.s, ms.m
	sets := unionfind.New(len(ms.facets))
	normal := func(f int32) geom.Vec {
		a, b, c := m.pos(s.sv[3*f]), m.pos(s.sv[3*f+1]), m.pos(s.sv[3*f+2])
		return geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
	}
	for f := int32(0); f < s.num(); f++ {
		q := s.sv[3*f : 3*f+3]
		for e := int32(0); e < 3; e++ {
			h := s.adj[3*f+e]
			if h < 0 || h/3 < f {
				continue
			}
			g := h / 3
			d := s.apex(g, h%3)
			if geom.Orient3D(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(d)) != 0 {
				continue
			}
			// Coplanar: the same wall unless the two fold back onto
			// each other (opposite normals, a zero-thickness fin).
			if geom.Dot(normal(f), normal(g)) <= 0 {
				continue
			}
			sets.Union(s.facet[f], s.facet[g])
		}
	}
	for f := range ms.facets {
		ms.facets[f].plane = sets.Find(int32(f))
	}
}

// samePlane reports whether facets f and g lie in one planar group.
func (ms *mesher) samePlane(f, g int32) bool { return ms.facets[f].plane == ms.facets[g].plane }
