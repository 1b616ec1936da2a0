package shapes

import (
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// FromBytes returns a closed surface made from data, valid by
// construction, and a box strictly inside it (lo–hi), for fuzz targets:
// family picks HeightField, StarShape or Prism (family mod 3), whose
// shapes exercise what meshers find hard — exact flat faces, collinear
// and cospherical points, creases, steps, thin plates, spikes, sharp and
// reflex corners.
func FromBytes(family byte, data []byte) (s *format.Surface, lo, hi geom.Vec) {
	switch family % 3 {
	case 0:
		return HeightField(data)
	case 1:
		return StarShape(data)
	}
	return Prism(data)
}

// HeightField returns the closed surface of {0 ≤ z ≤ h(x, y)} over an
// n×m grid of unit cells (n, m from 1 to 4), h at each grid point from 1
// to 8, then every z scaled by the first byte's choice of 1, 1/2 or 1/4
// (a plate: quality mode makes tets about its smallest thickness all
// over, so a thinner one takes long), and the diagonals of the top cells
// chosen by the bytes; the sides and bottom are split at the grid lines,
// so the surface has no T-junctions.
func HeightField(data []byte) (s *format.Surface, lo, hi geom.Vec) {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	dims := next()
	n, m := 1+int(dims%4), 1+int(dims/4%4)
	zs := [...]float64{1, 1.0 / 2, 1.0 / 4}[dims/16%3]
	s = &format.Surface{}
	// Vertices: the top grid, then the bottom grid.
	for layer := range 2 {
		for j := 0; j <= m; j++ {
			for i := 0; i <= n; i++ {
				z := 0.0
				if layer == 0 {
					z = float64(1+next()%8) * zs
				}
				s.Positions = append(s.Positions, float64(i), float64(j), z)
			}
		}
	}
	at := func(layer, i, j int) int32 { return int32(layer*(n+1)*(m+1) + j*(n+1) + i) }
	tri := func(a, b, c int32) { s.Triangles = append(s.Triangles, a, b, c) }
	diagonals := next()
	for j := range m {
		for i := range n {
			// Top faces up (counter-clockwise seen from above), bottom
			// faces down.
			for layer := range 2 {
				a, b, c, d := at(layer, i, j), at(layer, i+1, j), at(layer, i+1, j+1), at(layer, i, j+1)
				if layer == 1 {
					b, d = d, b
				}
				if (diagonals>>uint((i+j*n)%8))&1 == 0 {
					tri(a, b, c)
					tri(a, c, d)
				} else {
					tri(a, b, d)
					tri(b, c, d)
				}
			}
		}
	}
	// Side walls, a quad per grid edge on the rim, facing out.
	wall := func(i0, j0, i1, j1 int) {
		bot0, bot1, top1, top0 := at(1, i0, j0), at(1, i1, j1), at(0, i1, j1), at(0, i0, j0)
		tri(bot0, bot1, top1)
		tri(bot0, top1, top0)
	}
	for i := range n {
		wall(i, 0, i+1, 0) // y = 0, outward −y
		wall(i+1, m, i, m) // y = m, outward +y
	}
	for j := range m {
		wall(n, j, n, j+1) // x = n, outward +x
		wall(0, j+1, 0, j) // x = 0, outward −x
	}
	return s, geom.Vec{0.1, 0.1, 0.1 * zs}, geom.Vec{float64(n) - 0.1, float64(m) - 0.1, 0.9 * zs}
}

// StarShape returns a level-1 icosphere (42 vertices) with each vertex
// scaled by a radius from 0.5 to 1.25 that the bytes give (1 where they
// have run out). Its faces are about 0.4 or more from the centre.
func StarShape(data []byte) (s *format.Surface, lo, hi geom.Vec) {
	s = Icosphere(1, 1)
	for v := range s.NumVertices() {
		r := 1.0
		if v < len(data) {
			r = 0.5 + 0.75*float64(data[v])/255
		}
		p := geom.Scale(r, geom.At(s.Positions, int32(v)))
		copy(s.Positions[3*v:], p[:])
	}
	return s, geom.Vec{-0.1, -0.1, -0.1}, geom.Vec{0.1, 0.1, 0.1}
}

// Prism returns a star-shaped polygon with 3 to 12 corners at even
// angles and radii from 0.05 to 1, extruded to height 1. Its edges are at
// least 0.025 from the axis (three corners at the smallest radius).
func Prism(data []byte) (s *format.Surface, lo, hi geom.Vec) {
	n := 3
	if len(data) > 0 {
		n += int(data[0] % 10)
		data = data[1:]
	}
	poly := make([][2]float64, n)
	for i := range poly {
		r := 1.0
		if i < len(data) {
			r = 0.05 + 0.95*float64(data[i])/255
		}
		a := 2 * math.Pi * float64(i) / float64(n)
		poly[i] = [2]float64{r * math.Cos(a), r * math.Sin(a)}
	}
	return Extrude(poly, 1), geom.Vec{-0.015, -0.015, 0.1}, geom.Vec{0.015, 0.015, 0.9}
}
