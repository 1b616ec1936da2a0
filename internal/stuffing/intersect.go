package stuffing

import "github.com/pfmesh/pfmesh/internal/geom"

// Where two parts of the input cross (a stalk through an apple, an eye
// through a head, two overlapping shells) the solid's boundary has a
// crease that is no edge of the input: the curve along which the parts
// meet. addIntersections adds its segments to the feature edges, the
// patches of the two crossing triangles on its sides, so that snapping
// puts boundary vertices along it as along any crease.

// triangleCut returns the segment where triangles a and b cross, or
// ok = false when they do not, touch only, or are coplanar. It is the
// interval test of Möller ("A Fast Triangle-Triangle Intersection Test",
// 1997) in floating point: where the segment lies only guides snapping,
// and every snap is checked.
func triangleCut(a, b [3]geom.Vec) (p, q geom.Vec, ok bool) {
	na := geom.Cross(geom.Sub(a[1], a[0]), geom.Sub(a[2], a[0]))
	nb := geom.Cross(geom.Sub(b[1], b[0]), geom.Sub(b[2], b[0]))
	dir := geom.Cross(na, nb)
	if geom.Dot(dir, dir) <= 1e-24*geom.Dot(na, na)*geom.Dot(nb, nb) {
		return p, q, false // parallel or coplanar
	}
	// The part of each triangle on the other's plane: a segment.
	ia, okA := planeSection(a, nb, geom.Dot(nb, b[0]))
	ib, okB := planeSection(b, na, geom.Dot(na, a[0]))
	if !okA || !okB {
		return p, q, false
	}
	// Both segments lie on the line of the two planes; overlap them along
	// dir.
	ta0, ta1 := geom.Dot(dir, ia[0]), geom.Dot(dir, ia[1])
	if ta0 > ta1 {
		ia[0], ia[1], ta0, ta1 = ia[1], ia[0], ta1, ta0
	}
	tb0, tb1 := geom.Dot(dir, ib[0]), geom.Dot(dir, ib[1])
	if tb0 > tb1 {
		ib[0], ib[1], tb0, tb1 = ib[1], ib[0], tb1, tb0
	}
	lo, hi := ia[0], ia[1]
	tlo, thi := ta0, ta1
	if tb0 > tlo {
		lo, tlo = ib[0], tb0
	}
	if tb1 < thi {
		hi, thi = ib[1], tb1
	}
	if !(thi > tlo) {
		return p, q, false
	}
	return lo, hi, true
}

// planeSection returns the segment where triangle t meets the plane
// n·x = d, or ok = false when t lies on one side.
func planeSection(t [3]geom.Vec, n geom.Vec, d float64) (s [2]geom.Vec, ok bool) {
	var h [3]float64
	for k := range 3 {
		h[k] = geom.Dot(n, t[k]) - d
	}
	if h[0] > 0 && h[1] > 0 && h[2] > 0 || h[0] < 0 && h[1] < 0 && h[2] < 0 {
		return s, false
	}
	m := 0
	for k := 0; k < 3 && m < 2; k++ {
		i, j := k, (k+1)%3
		if (h[i] < 0) != (h[j] < 0) && h[i] != h[j] {
			f := h[i] / (h[i] - h[j])
			s[m] = geom.Add(t[i], geom.Scale(f, geom.Sub(t[j], t[i])))
			m++
		}
	}
	return s, m == 2
}

// addIntersections appends the crossing curves of the input's triangles
// (pairs sharing no vertex) to f's feature edges.
func (f *features) addIntersections(in *input) {
	type seg struct {
		p, q   geom.Vec
		pa, pb int32 // patches
	}
	var segs []seg
	tri := func(t int32) [3]geom.Vec {
		a, b, c := in.corners(t)
		return [3]geom.Vec{a, b, c}
	}
	in.search.Tree.SelfPairs(func(s, t int32) bool {
		u, v := in.tris[3*s:3*s+3], in.tris[3*t:3*t+3]
		for _, x := range u {
			for _, y := range v {
				if x == y {
					return true
				}
			}
		}
		if p, q, ok := triangleCut(tri(s), tri(t)); ok && geom.Dist2(p, q) > 1e-24*in.diag*in.diag {
			segs = append(segs, seg{p, q, in.patch[s], in.patch[t]})
		}
		return true
	})
	if len(segs) == 0 {
		return
	}
	f.pos = append([]float64(nil), f.pos...)
	for _, s := range segs {
		n := int32(len(f.pos) / 3)
		f.pos = append(f.pos, s.p[0], s.p[1], s.p[2], s.q[0], s.q[1], s.q[2])
		f.edges = append(f.edges, n, n+1)
		f.sideStart = append(f.sideStart[:len(f.sideStart)-1], int32(len(f.sides)))
		f.sides = append(f.sides, s.pa, s.pb)
		f.sideStart = append(f.sideStart, int32(len(f.sides)))
	}
	f.crossings = len(segs)
}
