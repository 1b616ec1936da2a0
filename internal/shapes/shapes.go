// Package shapes builds closed, outward-oriented triangle surfaces of
// simple solids with known volume and geometry, for tests, benchmarks and
// the fixtures/ files.
package shapes

import (
	"math"

	"github.com/pfmesh/pfmesh/format"
)

// Box returns the axis-aligned box [0,sx]×[0,sy]×[0,sz], each face split
// into n×n squares of two triangles (n ≥ 1).
func Box(sx, sy, sz float64, n int) *format.Surface {
	return boxGrid(sx, sy, sz, n, n, n)
}

// boxGrid meshes the box with nx×ny×nz cells along its edges.
func boxGrid(sx, sy, sz float64, nx, ny, nz int) *format.Surface {
	s := &format.Surface{}
	index := map[[3]int]int32{}
	vert := func(i, j, k int) int32 {
		key := [3]int{i, j, k}
		if v, ok := index[key]; ok {
			return v
		}
		v := int32(len(s.Positions) / 3)
		s.Positions = append(s.Positions, sx*float64(i)/float64(nx), sy*float64(j)/float64(ny), sz*float64(k)/float64(nz))
		index[key] = v
		return v
	}
	n := [3]int{nx, ny, nz}
	// For each axis a, the faces at 0 and n[a]; (u, v) span the face so
	// that u × v points along +a.
	for a := 0; a < 3; a++ {
		u, v := (a+1)%3, (a+2)%3
		for _, side := range []int{0, n[a]} {
			for i := 0; i < n[u]; i++ {
				for j := 0; j < n[v]; j++ {
					c := func(di, dj int) int32 {
						var idx [3]int
						idx[a], idx[u], idx[v] = side, i+di, j+dj
						return vert(idx[0], idx[1], idx[2])
					}
					p00, p10, p11, p01 := c(0, 0), c(1, 0), c(1, 1), c(0, 1)
					if side == 0 { // outward is −a: reverse
						s.Triangles = append(s.Triangles, p00, p11, p10, p00, p01, p11)
					} else {
						s.Triangles = append(s.Triangles, p00, p10, p11, p00, p11, p01)
					}
				}
			}
		}
	}
	return s
}

// Plate returns a w×w×t box with faces split so that triangles are about
// t across on the thin sides and w/n across on the large faces.
func Plate(w, t float64, n int) *format.Surface {
	return boxGrid(w, w, t, n, n, 1)
}

// Icosphere returns a sphere of radius r centred at the origin: an
// icosahedron whose faces are split into 4^level triangles, vertices
// projected onto the sphere.
func Icosphere(r float64, level int) *format.Surface {
	g := (1 + math.Sqrt(5)) / 2
	s := &format.Surface{Positions: []float64{
		-1, g, 0, 1, g, 0, -1, -g, 0, 1, -g, 0,
		0, -1, g, 0, 1, g, 0, -1, -g, 0, 1, -g,
		g, 0, -1, g, 0, 1, -g, 0, -1, -g, 0, 1,
	}, Triangles: []int32{
		0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11,
		1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
		3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9,
		4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1,
	}}
	for l := 0; l < level; l++ {
		mid := map[[2]int32]int32{}
		midpoint := func(a, b int32) int32 {
			key := [2]int32{min(a, b), max(a, b)}
			if m, ok := mid[key]; ok {
				return m
			}
			m := int32(len(s.Positions) / 3)
			for k := 0; k < 3; k++ {
				s.Positions = append(s.Positions, (s.Positions[3*a+int32(k)]+s.Positions[3*b+int32(k)])/2)
			}
			mid[key] = m
			return m
		}
		var tris []int32
		for i := 0; i < len(s.Triangles); i += 3 {
			a, b, c := s.Triangles[i], s.Triangles[i+1], s.Triangles[i+2]
			ab, bc, ca := midpoint(a, b), midpoint(b, c), midpoint(c, a)
			tris = append(tris, a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca)
		}
		s.Triangles = tris
	}
	for i := 0; i < len(s.Positions); i += 3 {
		x, y, z := s.Positions[i], s.Positions[i+1], s.Positions[i+2]
		f := r / math.Sqrt(x*x+y*y+z*z)
		s.Positions[i], s.Positions[i+1], s.Positions[i+2] = f*x, f*y, f*z
	}
	return s
}

// Torus returns a torus about the z axis with major radius R and minor
// radius r, nu segments around the axis and nv around the tube.
func Torus(R, r float64, nu, nv int) *format.Surface {
	s := &format.Surface{}
	for i := 0; i < nu; i++ {
		u := 2 * math.Pi * float64(i) / float64(nu)
		for j := 0; j < nv; j++ {
			v := 2 * math.Pi * float64(j) / float64(nv)
			rho := R + r*math.Cos(v)
			s.Positions = append(s.Positions, rho*math.Cos(u), rho*math.Sin(u), r*math.Sin(v))
		}
	}
	id := func(i, j int) int32 { return int32((i%nu)*nv + j%nv) }
	for i := 0; i < nu; i++ {
		for j := 0; j < nv; j++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			s.Triangles = append(s.Triangles, a, b, c, a, c, d)
		}
	}
	return s
}

// Cylinder returns a closed cylinder of radius r about the z axis from
// z = 0 to z = h, with n segments around and m along, capped by fans
// around centre vertices.
func Cylinder(r, h float64, n, m int) *format.Surface {
	s := &format.Surface{}
	for j := 0; j <= m; j++ {
		z := h * float64(j) / float64(m)
		for i := 0; i < n; i++ {
			u := 2 * math.Pi * float64(i) / float64(n)
			s.Positions = append(s.Positions, r*math.Cos(u), r*math.Sin(u), z)
		}
	}
	id := func(i, j int) int32 { return int32(j*n + i%n) }
	for j := 0; j < m; j++ {
		for i := 0; i < n; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			s.Triangles = append(s.Triangles, a, b, c, a, c, d)
		}
	}
	bottom := int32(len(s.Positions) / 3)
	s.Positions = append(s.Positions, 0, 0, 0, 0, 0, h)
	for i := 0; i < n; i++ {
		s.Triangles = append(s.Triangles, bottom, id(i+1, 0), id(i, 0))
		s.Triangles = append(s.Triangles, bottom+1, id(i, m), id(i+1, m))
	}
	return s
}

// Extrude returns the prism swept by a simple counterclockwise polygon
// (x, y pairs) from z = 0 to z = h, caps triangulated by ear clipping.
func Extrude(poly [][2]float64, h float64) *format.Surface {
	n := len(poly)
	s := &format.Surface{}
	for _, z := range []float64{0, h} {
		for _, p := range poly {
			s.Positions = append(s.Positions, p[0], p[1], z)
		}
	}
	for i := 0; i < n; i++ {
		a, b := int32(i), int32((i+1)%n)
		s.Triangles = append(s.Triangles, a, b, b+int32(n), a, b+int32(n), a+int32(n))
	}
	for _, t := range earClip(poly) {
		s.Triangles = append(s.Triangles, t[0], t[2], t[1])                            // bottom, facing −z
		s.Triangles = append(s.Triangles, t[0]+int32(n), t[1]+int32(n), t[2]+int32(n)) // top
	}
	return s
}

// earClip triangulates a simple counterclockwise polygon.
func earClip(poly [][2]float64) [][3]int32 {
	idx := make([]int32, len(poly))
	for i := range idx {
		idx[i] = int32(i)
	}
	cross := func(o, a, b [2]float64) float64 { return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0]) }
	var tris [][3]int32
	for len(idx) > 3 {
		clipped := false
		for i := range idx {
			a, b, c := idx[(i+len(idx)-1)%len(idx)], idx[i], idx[(i+1)%len(idx)]
			if cross(poly[a], poly[b], poly[c]) <= 0 {
				continue
			}
			ear := true
			for _, q := range idx {
				if q == a || q == b || q == c {
					continue
				}
				p := poly[q]
				if cross(poly[a], poly[b], p) >= 0 && cross(poly[b], poly[c], p) >= 0 && cross(poly[c], poly[a], p) >= 0 {
					ear = false
					break
				}
			}
			if ear {
				tris = append(tris, [3]int32{a, b, c})
				idx = append(idx[:i], idx[i+1:]...)
				clipped = true
				break
			}
		}
		if !clipped {
			panic("shapes: polygon is not simple and counterclockwise")
		}
	}
	return append(tris, [3]int32{idx[0], idx[1], idx[2]})
}

// LBracket returns an L-shaped prism: a unit-thick L with arms of length a.
func LBracket(a, thick, depth float64) *format.Surface {
	return Extrude([][2]float64{{0, 0}, {a, 0}, {a, thick}, {thick, thick}, {thick, a}, {0, a}}, depth)
}

// Wedge returns a prism whose cross-section is a triangle with apex angle
// deg degrees at the origin and legs of length l, extruded by depth.
func Wedge(deg, l, depth float64) *format.Surface {
	t := deg * math.Pi / 180
	return Extrude([][2]float64{{0, 0}, {l, 0}, {l * math.Cos(t), l * math.Sin(t)}}, depth)
}

// Volume returns the enclosed volume of a closed outward surface (the
// divergence theorem over its triangles).
func Volume(s *format.Surface) float64 {
	var v float64
	p := s.Positions
	for i := 0; i < len(s.Triangles); i += 3 {
		a, b, c := 3*s.Triangles[i], 3*s.Triangles[i+1], 3*s.Triangles[i+2]
		v += p[a]*(p[b+1]*p[c+2]-p[b+2]*p[c+1]) - p[a+1]*(p[b]*p[c+2]-p[b+2]*p[c]) + p[a+2]*(p[b]*p[c+1]-p[b+1]*p[c])
	}
	return v / 6
}
