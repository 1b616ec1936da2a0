package tetgen

import (
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Merging coplanar input triangles (Options.MergeCoplanar). CAD exports
// cover a flat face with whatever triangles were easiest to write: fans
// of needles with angles down to 10⁻³ degrees. Kept as facets, each
// needle's subfaces keep its shape and pin slivers that no refinement or
// optimization can lift. Retriangulating every planar group (planar.go:
// input triangles joined across edges where they are exactly coplanar
// and face the same way) to its constrained Delaunay triangulation
// removes the needles the group's outline does not force; meshing each
// group as one facet (planar.go, mergePlanarGroups) lets refinement
// split the rest.
//
// The retriangulation is Lawson's: an edge between two triangles of a
// group is flipped while the far vertex lies strictly inside the
// circumcircle of the near triangle (its quad is then strictly convex).
// Edges at a group's rim are never flipped, so the surface keeps its
// point set, its vertices, its orientation and its enclosed volume. Each
// flip strictly lowers the triangulation lifted onto the paraboloid, so
// the flips end, at the constrained Delaunay triangulation of the group.
//
// Every test is exact. Coplanarity and orientation are orient3d signs;
// the in-circle test in the plane is the insphere test of the near
// triangle, a point p off the plane and the far vertex: the sphere
// through a, b, c and p meets the plane in the circumcircle of a, b, c,
// so the far vertex (in the plane) is inside the sphere exactly when it
// is inside that circle. Any p strictly off the plane will do, so p may
// be computed in floating point and is checked by the exact orient3d.

// mergeCoplanar returns s with each planar group retriangulated to its
// constrained Delaunay triangulation, and the number of edges flipped.
// s must be a clean closed surface (checkSurface); it is not changed,
// and the result shares its Positions.
func mergeCoplanar(s *format.Surface) (*format.Surface, int) {
	tri := append([]int32(nil), s.Triangles...)
	nt := int32(len(tri) / 3)
	adj := make([]int32, len(tri)) // half-edge 3t+e (tri[3t+e]→tri[3t+(e+1)%3]) → the reverse half-edge
	half := make(map[uint64]int32, len(tri))
	for h := int32(0); h < 3*nt; h++ {
		a, b := tri[h], tri[3*(h/3)+(h+1)%3]
		if r, ok := half[edgeKey(b, a)]; ok {
			adj[h], adj[r] = r, h
		} else {
			half[edgeKey(a, b)] = h
		}
	}
	link := func(h, r int32) { adj[h], adj[r] = r, h }
	pos := func(v int32) geom.Vec { return geom.At(s.Positions, v) }

	// Half-edges to test, each edge once to start with; a flip pushes
	// the four edges of its quad. Last in, first out: the order is a
	// function of the input.
	stack := make([]int32, 0, 3*nt/2)
	for h := 3*nt - 1; h >= 0; h-- {
		if h < adj[h] {
			stack = append(stack, h)
		}
	}
	flips := 0
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		t, e := h/3, h%3
		r := adj[h]
		g, j := r/3, r%3
		a, b, c := tri[3*t+e], tri[3*t+(e+1)%3], tri[3*t+(e+2)%3]
		d := tri[3*g+(j+2)%3]
		if !flipsToDelaunay(pos(a), pos(b), pos(c), pos(d)) {
			continue
		}
		// t = (a, b, c) and g = (b, a, d) become t = (a, d, c) and
		// g = (d, b, c), both counterclockwise like the quad a, d, b, c.
		// cd is no edge yet: it crosses the open quad, which no other
		// triangle of a surface without self-intersections touches.
		nBC, nCA := adj[3*t+(e+1)%3], adj[3*t+(e+2)%3]
		nAD, nDB := adj[3*g+(j+1)%3], adj[3*g+(j+2)%3]
		tri[3*t], tri[3*t+1], tri[3*t+2] = a, d, c
		tri[3*g], tri[3*g+1], tri[3*g+2] = d, b, c
		link(3*t, nAD)
		link(3*t+2, nCA)
		link(3*g, nDB)
		link(3*g+1, nBC)
		link(3*t+1, 3*g+2)
		stack = append(stack, 3*t, 3*t+2, 3*g, 3*g+1)
		flips++
	}
	return &format.Surface{Positions: s.Positions, Triangles: tri}, flips
}

// flipsToDelaunay reports whether the edge ab between the triangles
// (a, b, c) and (b, a, d) of an oriented surface is to be flipped to cd:
// the four points are exactly coplanar, the triangles face the same way
// (c and d on opposite sides of ab), and d lies strictly inside the
// circumcircle of a, b, c (which makes the quad a, d, b, c strictly
// convex).
func flipsToDelaunay(a, b, c, d geom.Vec) bool {
	if geom.Orient3D(a, b, c, d) != 0 {
		return false
	}
	// p: off the plane by about the triangle's size, along its normal.
	n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
	size := math.Sqrt(max(geom.Dist2(a, b), geom.Dist2(b, c), geom.Dist2(c, a)))
	nn := geom.Norm(n)
	if !(nn > 0) || math.IsInf(nn, 0) {
		return false // the normal is lost to rounding: leave the edge
	}
	p := geom.Add(a, geom.Scale(size/nn, n))
	o := geom.Orient3D(a, b, c, p)
	if o == 0 {
		return false // p rounded onto the plane: leave the edge
	}
	// Seen from p, (b, a, d) turns like (a, b, c) when the triangles
	// face the same way. Then d strictly inside the circle puts the
	// open segment cd inside the disk, across the chord ab: the quad is
	// strictly convex, so no separate convexity test is needed.
	return geom.Orient3D(b, a, d, p) == o && geom.InSphere(a, b, c, p, d) == o
}
