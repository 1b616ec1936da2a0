package tetgen

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// FuzzBuild meshes closed surfaces made from the fuzzer's bytes, each
// valid by construction, and checks every result as the other tests do
// (checkMesh, checkMergedMesh): Build must neither fail nor panic on
// them. Three families:
//   - height fields: a box on an n×m grid whose top is at integer
//     heights, each cell split along a diagonal the bytes choose. Its
//     coordinates are small integers, so flat faces, collinear and
//     cospherical points, creases and steps are exact, as in CAD parts;
//     a byte may squash it into a plate.
//   - star shapes: an icosphere whose vertices are scaled by radii the
//     bytes give, in general position (a cone over each triangle from
//     the centre holds it alone, so the surface is embedded).
//   - prisms: a star-shaped polygon of 3 to 12 corners at radii the
//     bytes give (sharp and reflex corners), extruded.
//
// The first byte picks the family; the second the options: quality mode
// at the default bound or at √2, coarse mode, flat faces merged or not,
// and caller points (some tagged Core) in a box the family keeps
// strictly inside.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 0, 2, 2, 3, 1, 4, 1, 5, 9, 2, 6})
	f.Add([]byte{0, 5, 3, 1, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0xaa, 0x55})
	f.Add([]byte{0, 2, 1, 3, 200, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{1, 1, 10, 200, 30, 250, 40, 90, 255, 0, 128, 77})
	f.Add([]byte{1, 6, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255})
	f.Add([]byte{2, 0, 5, 255, 10, 255, 10, 255, 10, 255, 10})
	f.Add([]byte{2, 9, 0, 0, 0, 0, 40, 90, 140})
	f.Add([]byte{0, 10, 5, 7, 1, 8, 3, 3, 3, 3, 3, 3, 3, 3, 0x0f, 1, 2, 3, 200, 100, 50})
	f.Add([]byte{1, 12, 77, 88, 99, 11, 22, 33, 44, 55, 66, 0, 128, 255, 255, 128, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		kind, opts, data := data[0], data[1], data[2:]
		var s *format.Surface
		var lo, hi geom.Vec // a box strictly inside s
		switch kind % 3 {
		case 0:
			s, lo, hi = heightField(data)
		case 1:
			s, lo, hi = starShape(data)
		default:
			s, lo, hi = prism(data)
		}
		opt := Options{Coarse: opts&1 != 0, MergeCoplanar: opts&2 != 0}
		if opts&4 != 0 {
			opt.Quality = math.Sqrt2
		}
		if opts&8 != 0 {
			opt.Points, opt.PointTags = innerPoints(data, lo, hi)
		}
		m, _, err := Build(s, opt)
		if err != nil {
			t.Fatalf("Build(%+v) of a valid surface: %v", opt, err)
		}
		if opt.MergeCoplanar {
			checkMergedMesh(t, s, m)
		} else {
			checkMesh(t, s, m)
		}
	})
}

// heightField returns the closed surface of {0 ≤ z ≤ h(x, y)} over an
// n×m grid of unit cells (n, m from 1 to 4), h at each grid point from 1
// to 8, then every z scaled by the first byte's choice of 1, 1/2 or 1/4
// (a plate: quality mode makes tets about its smallest thickness all
// over, so a thinner one takes long), and the diagonals of the top cells
// chosen by the bytes; the sides and bottom are split at the grid lines,
// so the surface has no T-junctions.
func heightField(data []byte) (s *format.Surface, lo, hi geom.Vec) {
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

// starShape returns a level-1 icosphere (42 vertices) with each vertex
// scaled by a radius from 0.5 to 1.25 that the bytes give (1 where they
// have run out). Its faces are about 0.4 or more from the centre.
func starShape(data []byte) (s *format.Surface, lo, hi geom.Vec) {
	s = shapes.Icosphere(1, 1)
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

// prism returns a star-shaped polygon with 3 to 12 corners at even
// angles and radii from 0.05 to 1, extruded to height 1. Its edges are at
// least 0.025 from the axis (three corners at the smallest radius).
func prism(data []byte) (s *format.Surface, lo, hi geom.Vec) {
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
	return shapes.Extrude(poly, 1), geom.Vec{-0.015, -0.015, 0.1}, geom.Vec{0.015, 0.015, 0.9}
}

// innerPoints returns up to 8 distinct points of the box lo–hi from the
// last bytes of data, every other one tagged Core.
func innerPoints(data []byte, lo, hi geom.Vec) ([]float64, []tetmesh.Tag) {
	var pts []float64
	var tags []tetmesh.Tag
	seen := map[geom.Vec]bool{}
	for k := len(data) - 3; k >= 0 && len(tags) < 8; k -= 3 {
		var p geom.Vec
		for c := range 3 {
			p[c] = lo[c] + (hi[c]-lo[c])*float64(data[k+c])/255
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		pts = append(pts, p[:]...)
		tags = append(tags, []tetmesh.Tag{tetmesh.Interior, tetmesh.Core}[len(tags)%2])
	}
	return pts, tags
}
