package contact

import (
	"math"
	"sort"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// maxPolyVerts bounds a contact polygon: a tet sliced by a plane has at most
// 4 vertices, and each of the 4 clipping planes adds at most one.
const maxPolyVerts = 8

// polygon is a convex planar polygon in a fixed-size buffer.
type polygon struct {
	n int
	v [maxPolyVerts]geom.Vec
}

// tetFaces lists, for each local vertex k, the face opposite it, with its
// right-handed normal pointing out of a positively oriented tet.
var tetFaces = &tetmesh.TetFaces

// sliceEdges lists, for each sign case of a tet's four vertices (bit k set
// when vertex k is strictly on the positive side), the tet edges the plane
// crosses, in counterclockwise order seen from the positive side. It is
// derived once from a reference tet: positively oriented affine maps keep
// that order, since the order is fixed by which faces the edges share and
// by the orientation, not by the shape.
var sliceEdges = func() (tab [16][]int) {
	ref := [4]geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for c := 1; c < 15; c++ {
		var s [4]float64
		for k := range 4 {
			s[k] = -1
			if c>>k&1 == 1 {
				s[k] = 1
			}
		}
		grad := geom.Vec{s[1] - s[0], s[2] - s[0], s[3] - s[0]}
		type hit struct {
			edge int
			p    geom.Vec
		}
		var hits []hit
		var mid geom.Vec
		for e, ij := range tetmesh.TetEdges {
			if s[ij[0]] != s[ij[1]] {
				p := geom.Scale(0.5, geom.Add(ref[ij[0]], ref[ij[1]]))
				hits = append(hits, hit{e, p})
				mid = geom.Add(mid, p)
			}
		}
		mid = geom.Scale(1/float64(len(hits)), mid)
		// An in-plane basis (u, w) with u × w along grad.
		u := geom.Sub(hits[0].p, mid)
		w := geom.Cross(grad, u)
		sort.Slice(hits, func(i, j int) bool {
			di, dj := geom.Sub(hits[i].p, mid), geom.Sub(hits[j].p, mid)
			return math.Atan2(geom.Dot(di, w), geom.Dot(di, u)) < math.Atan2(geom.Dot(dj, w), geom.Dot(dj, u))
		})
		for _, h := range hits {
			tab[c] = append(tab[c], h.edge)
		}
	}
	return tab
}()

// slice sets p to tet v ∩ {x : s(x) = 0}, where s is affine with values s
// at the vertices, ordered counterclockwise about ∇s (for a positively
// oriented tet). A vertex counts as positive only when s > 0, so a face
// lying in the plane belongs to exactly one of the two tets sharing it.
func (p *polygon) slice(v *[4]geom.Vec, s *[4]float64) {
	c := 0
	for k := range 4 {
		if s[k] > 0 {
			c |= 1 << k
		}
	}
	p.n = 0
	for _, e := range sliceEdges[c] {
		i, j := tetmesh.TetEdges[e][0], tetmesh.TetEdges[e][1]
		t := s[i] / (s[i] - s[j])
		a, b := &v[i], &v[j]
		p.v[p.n] = geom.Vec{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1]), a[2] + t*(b[2]-a[2])}
		p.n++
	}
}

// clip writes to out the part of p where n·x + d ≤ 0, keeping the vertex
// order (Sutherland–Hodgman on one plane). It returns false, leaving out
// untouched, when all of p is inside.
func (p *polygon) clip(out *polygon, n geom.Vec, d float64) bool {
	var s [maxPolyVerts]float64
	inside := 0
	for k := range p.n {
		x := &p.v[k]
		s[k] = n[0]*x[0] + n[1]*x[1] + n[2]*x[2] + d
		if s[k] <= 0 {
			inside++
		}
	}
	if inside == p.n {
		return false
	}
	out.n = 0
	if inside == 0 {
		return true
	}
	for k := range p.n {
		k1 := k + 1
		if k1 == p.n {
			k1 = 0
		}
		if s[k] <= 0 {
			out.v[out.n] = p.v[k]
			out.n++
		}
		if (s[k] < 0 && s[k1] > 0) || (s[k] > 0 && s[k1] < 0) {
			t := s[k] / (s[k] - s[k1])
			a, b := &p.v[k], &p.v[k1]
			out.v[out.n] = geom.Vec{a[0] + t*(b[0]-a[0]), a[1] + t*(b[1]-a[1]), a[2] + t*(b[2]-a[2])}
			out.n++
		}
	}
	return true
}

// clipByPlanes returns the part of p inside the four planes (n, d) in
// planes (inside where n·x + d ≤ 0), in p or in tmp, whichever holds it
// last.
func clipByPlanes(p, tmp *polygon, planes []float64) *polygon {
	for k := 0; k < 4 && p.n > 0; k++ {
		f := planes[4*k : 4*k+4]
		if p.clip(tmp, geom.Vec{f[0], f[1], f[2]}, f[3]) {
			p, tmp = tmp, p
		}
	}
	return p
}

// dedup removes vertices equal to their predecessor (cyclically), which
// clipping produces when a vertex lies exactly on a plane.
func (p *polygon) dedup() {
	m := 0
	for k := range p.n {
		if m > 0 && p.v[k] == p.v[m-1] {
			continue
		}
		p.v[m] = p.v[k]
		m++
	}
	for m > 1 && p.v[m-1] == p.v[0] {
		m--
	}
	p.n = m
}
