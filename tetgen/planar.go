package tetgen

import (
	"math"

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
// the same way; groups are the connected classes of that relation. With
// MergeCoplanar one tolerance enters (nearGroups): groups also join
// across an edge of a triangle with an angle below 12° whose neighbour is
// coplanar with it to within an ulp, if the joined group is flat to
// within an ulp of its largest triangle's plane, since exporters round
// walls that are flat (a coordinate of −8.9e−16 where its neighbours
// have 0), and such a needle kept as a facet of its own bounds the mesh
// near its apex (to the order of the square root of its angle in
// radians: netgen_hinge.stl's 1.06° floor needle, √α = 7.8°, held its
// mesh at 8.2°).

// groupPlanarFacets sets facetInfo.plane for every facet: the smallest
// facet index of its planar group. Subfaces still have the input
// triangles' shapes (it runs before any Steiner point).
func (ms *mesher) groupPlanarFacets() {
	s, m := &ms.s, ms.m
	sets := unionfind.New(len(ms.facets))
	tri := func(f int32) [3]geom.Vec {
		return [3]geom.Vec{m.pos(s.sv[3*f]), m.pos(s.sv[3*f+1]), m.pos(s.sv[3*f+2])}
	}
	for f := int32(0); f < s.num(); f++ {
		p := tri(f)
		for e := int32(0); e < 3; e++ {
			h := s.adj[3*f+e]
			if h < 0 || h/3 < f {
				continue
			}
			g := h / 3
			d := s.apex(g, h%3)
			if geom.Orient3D(p[0], p[1], p[2], m.pos(d)) != 0 {
				continue
			}
			// Coplanar: the same wall unless the two fold back onto
			// each other (opposite normals, a zero-thickness fin).
			if geom.Dot(triNormal(p), triNormal(tri(g))) <= 0 {
				continue
			}
			sets.Union(s.facet[f], s.facet[g])
		}
	}
	var near []int32
	if ms.opt.MergeCoplanar {
		across := func(f, e int32) int32 {
			if h := s.adj[3*f+e]; h >= 0 {
				return h / 3
			}
			return -1
		}
		exact := make([]int32, s.num())
		for f := range exact {
			exact[f] = sets.Find(s.facet[f])
		}
		for f, g := range nearGroups(s.num(), tri, across, func(f int32) int32 { return exact[f] }) {
			sets.Union(s.facet[f], s.facet[g])
		}
		// A group that joined several exact ones is near: some member's
		// exact root is not the group's (the smallest of theirs).
		for _, r := range exact {
			if sets.Find(r) != r {
				near = append(near, sets.Find(r))
			}
		}
	}
	for f := range ms.facets {
		ms.facets[f].plane = sets.Find(int32(f))
	}
	if ms.opt.MergeCoplanar {
		ms.mergePlanarGroups()
		for _, g := range near {
			ms.facets[g].near = true
		}
	}
}

// mergePlanarGroups makes each planar group of several facets of the
// outer surface one facet (Options.MergeCoplanar, after mergeCoplanar
// retriangulated the surface). The group's subfaces take the facet of
// its root, and the edges between them stop being subsegments:
// refinement then splits and flips across them as inside any facet, so
// the shapes of the group's triangles no longer bound the mesh. Walks
// and in-circle tests in the facet look from an eye as far off the
// plane as the group is wide, above its largest triangle. Lone facets
// are left as they are, so a surface without planar groups meshes as
// without the option.
func (ms *mesher) mergePlanarGroups() {
	s, m := &ms.s, ms.m
	type group struct {
		big    int32   // the subface of largest area
		area2  float64 // its squared doubled area
		lo, hi geom.Vec
	}
	members := map[int32]int{}
	for f := range ms.facets {
		members[ms.facets[f].plane]++
	}
	groups := map[int32]*group{}
	for f := int32(0); f < s.num(); f++ {
		fi := &ms.facets[s.facet[f]]
		if fi.core || members[fi.plane] < 2 {
			continue // a lone facet stays as it is
		}
		g := groups[fi.plane]
		if g == nil {
			g = &group{big: -1, lo: m.pos(s.sv[3*f]), hi: m.pos(s.sv[3*f])}
			groups[fi.plane] = g
		}
		a, b, c := m.pos(s.sv[3*f]), m.pos(s.sv[3*f+1]), m.pos(s.sv[3*f+2])
		if n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a)); geom.Dot(n, n) > g.area2 {
			g.big, g.area2 = f, geom.Dot(n, n)
		}
		for _, p := range [3]geom.Vec{a, b, c} {
			for k := 0; k < 3; k++ {
				g.lo[k], g.hi[k] = min(g.lo[k], p[k]), max(g.hi[k], p[k])
			}
		}
		s.facet[f] = fi.plane
	}
	for root, g := range groups {
		a, b, c := m.pos(s.sv[3*g.big]), m.pos(s.sv[3*g.big+1]), m.pos(s.sv[3*g.big+2])
		fi := newFacet(a, b, c, false)
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		cen := geom.Scale(1.0/3, geom.Add(geom.Add(a, b), c))
		fi.eye = geom.Add(cen, geom.Scale(-math.Sqrt(geom.Dist2(g.lo, g.hi))/geom.Norm(n), n))
		fi.plane = root
		ms.facets[root] = fi
	}
	// Subsegments: the edges between different facets only.
	ms.segIndex = map[uint64]int32{}
	ms.segEnds = ms.segEnds[:0]
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			if h := s.adj[3*f+e]; s.facet[h/3] == s.facet[f] {
				s.segs[f] &^= 1 << e
				continue
			}
			if a, b := s.edge(f, e); a < b {
				ms.segIndex[edgeKey(a, b)] = int32(len(ms.segEnds) / 2)
				ms.segEnds = append(ms.segEnds, a, b)
			}
		}
	}
}

// samePlane reports whether facets f and g lie in one planar group.
func (ms *mesher) samePlane(f, g int32) bool { return ms.facets[f].plane == ms.facets[g].plane }

// nearMergeAngle is the smallest angle below which a triangle is merged
// with a neighbour that is coplanar only to rounding (nearGroups): the 12°
// the sliver stage must reach. Merging every such pair moved
// gmsh_lever.stl's smallest angle from 12.4° to 9.41° (at a corner of
// 0.90° 80 units away from the merged walls, which are quads of two 13°
// triangles), as any change of where points go may there.
const nearMergeAngle = 12 * math.Pi / 180

// nearGroups returns, per triangle (n of them; across(t, e) is the
// triangle across edge e of t, −1 for none), the smallest triangle of its
// planar group with MergeCoplanar, given the exactly coplanar groups
// (exact labels them). Groups also join across an edge where the far
// vertex lies within rounding of the other triangle's plane (nearPlane)
// and one of the two has an angle below nearMergeAngle; a group so joined
// is kept only if every vertex of it lies within rounding of the plane of
// its largest triangle, else its triangles keep their exact groups. The
// check is needed because a needle's plane is ill-conditioned — rounding
// tilts it by its error over its width — so a needle lying along a
// crease is within rounding of both walls, and joins through it would
// make walls meeting at a real angle one group (stlmodels_gearwheel.bin.stl's
// floor and a sloping face, through a 0.0005° needle).
func nearGroups(n int32, tri func(t int32) [3]geom.Vec, across func(t, e int32) int32, exact func(t int32) int32) []int32 {
	sets := unionfind.New(int(n))
	first := map[int32]int32{} // per exact group: its smallest triangle
	for t := range n {
		if f, ok := first[exact(t)]; ok {
			sets.Union(f, t)
		} else {
			first[exact(t)] = t
		}
	}
	for t := range n {
		p := tri(t)
		for e := range int32(3) {
			u := across(t, e)
			if u < t || exact(u) == exact(t) {
				continue
			}
			q := tri(u)
			if geom.Dot(triNormal(p), triNormal(q)) <= 0 || min(smallestTriangleAngle(p), smallestTriangleAngle(q)) >= nearMergeAngle {
				continue
			}
			if nearPlane(p[0], p[1], p[2], q[0]) && nearPlane(p[0], p[1], p[2], q[1]) && nearPlane(p[0], p[1], p[2], q[2]) {
				sets.Union(t, u)
			}
		}
	}
	big := map[int32]int32{} // per group: its largest triangle, the first of equals
	area2 := func(t int32) float64 { m := triNormal(tri(t)); return geom.Dot(m, m) }
	for t := range n {
		if b, ok := big[sets.Find(t)]; !ok || area2(t) > area2(b) {
			big[sets.Find(t)] = t
		}
	}
	bent := map[int32]bool{} // groups with a vertex off their plane
	for t := range n {
		g := sets.Find(t)
		q := tri(big[g])
		for _, v := range tri(t) {
			bent[g] = bent[g] || !nearPlane(q[0], q[1], q[2], v)
		}
	}
	out := make([]int32, n)
	for t := range n {
		if g := sets.Find(t); !bent[g] {
			out[t] = g
		} else {
			out[t] = first[exact(t)]
		}
	}
	return out
}

// triNormal returns twice the area vector of triangle p.
func triNormal(p [3]geom.Vec) geom.Vec { return geom.Cross(geom.Sub(p[1], p[0]), geom.Sub(p[2], p[0])) }

// smallestTriangleAngle returns the smallest angle of triangle t (radians).
func smallestTriangleAngle(t [3]geom.Vec) float64 {
	lo := math.Pi
	for k := range 3 {
		u, w := geom.Sub(t[(k+1)%3], t[k]), geom.Sub(t[(k+2)%3], t[k])
		lo = min(lo, math.Acos(max(-1, min(1, geom.Dot(u, w)/(geom.Norm(u)*geom.Norm(w))))))
	}
	return lo
}

// nearPlane reports whether d lies within one unit in the last place of
// the four points' largest coordinate from the plane of a, b and c,
// along the coordinate axis nearest the plane's normal: moving d that
// far along it one way or the other puts it on the plane or across
// (exact orientations).
func nearPlane(a, b, c, d geom.Vec) bool {
	n := triNormal([3]geom.Vec{a, b, c})
	k := 0
	for j := 1; j < 3; j++ {
		if math.Abs(n[j]) > math.Abs(n[k]) {
			k = j
		}
	}
	var big float64
	for _, p := range [4]geom.Vec{a, b, c, d} {
		for j := 0; j < 3; j++ {
			big = max(big, math.Abs(p[j]))
		}
	}
	ulp := math.Nextafter(big, math.Inf(1)) - big
	lo, hi := d, d
	lo[k] -= ulp
	hi[k] += ulp
	return geom.Orient3D(a, b, c, lo)*geom.Orient3D(a, b, c, hi) <= 0
}
