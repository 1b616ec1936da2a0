package tetgen

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// sharpestCrease returns the smallest angle, in degrees, inside the solid
// bounded by the closed, outward-oriented surface s between two triangles
// that share an edge; with bothSides, the smaller of that angle and the
// one outside (for the core surface, meshed on both sides). The tets
// around any piece of such an edge divide the angle between them, so no
// mesh that keeps the surface has its smallest dihedral angle above it:
// it tells a user whether a small angle comes from the input or from the
// mesher.
func sharpestCrease(s *format.Surface, bothSides bool) float64 {
	// Each edge appears once in each direction on a closed oriented
	// surface: sorting the half-edges by their undirected key pairs them.
	type half struct {
		lo, hi  int32 // the edge's vertices, lo < hi
		a, b, c int32 // the triangle, a→b along the edge
	}
	hs := make([]half, 0, len(s.Triangles))
	for t := range s.NumTriangles() {
		q := s.Triangles[3*t : 3*t+3]
		for k := range 3 {
			a, b, c := q[k], q[(k+1)%3], q[(k+2)%3]
			hs = append(hs, half{min(a, b), max(a, b), a, b, c})
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		return cmp.Or(cmp.Compare(x.lo, y.lo), cmp.Compare(x.hi, y.hi), cmp.Compare(x.a, y.a))
	})
	best := 180.0
	for i := 0; i+1 < len(hs); i++ {
		h, g := hs[i], hs[i+1]
		if h.lo == g.lo && h.hi == g.hi {
			ang := creaseAngle(s.Positions, h.a, h.b, h.c, g.c)
			if bothSides {
				ang = min(ang, 360-ang)
			}
			best = min(best, ang)
			i++
		}
	}
	return best
}

// creaseAngle returns the angle inside the solid, in degrees, at edge
// a→b between the outward-oriented triangle abc and the triangle across
// the edge, whose third vertex is d: the angle between the two
// triangles' in-plane directions away from the edge, reflex when d lies
// on the outer side of abc. The exact predicate decides that side; near
// 180° either answer is near 180°.
func creaseAngle(xyz []float64, a, b, c, d int32) float64 {
	pa, pb, pc, pd := geom.At(xyz, a), geom.At(xyz, b), geom.At(xyz, c), geom.At(xyz, d)
	e := geom.Sub(pb, pa)
	perp := func(p geom.Vec) geom.Vec {
		w := geom.Sub(p, pa)
		return geom.Sub(w, geom.Scale(geom.Dot(w, e)/geom.Dot(e, e), e))
	}
	u, v := perp(pc), perp(pd)
	ang := math.Atan2(geom.Norm(geom.Cross(u, v)), geom.Dot(u, v)) * 180 / math.Pi
	if geom.Orient3D(pa, pb, pc, pd) > 0 {
		ang = 360 - ang
	}
	return ang
}
