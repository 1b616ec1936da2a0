package trisearch

import (
	"math"
	"math/rand"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// bruteClosest samples the triangle densely in barycentric coordinates: an
// independent (if approximate) reference.
func bruteClosest(p, a, b, c geom.Vec) float64 {
	best := math.Inf(1)
	const n = 200
	for i := 0; i <= n; i++ {
		for j := 0; i+j <= n; j++ {
			u, v := float64(i)/n, float64(j)/n
			q := geom.Add(a, geom.Add(geom.Scale(u, geom.Sub(b, a)), geom.Scale(v, geom.Sub(c, a))))
			best = min(best, geom.Dist2(p, q))
		}
	}
	return best
}

func TestClosestOnTriangle(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	rv := func() geom.Vec { return geom.Vec{r.Float64(), r.Float64(), r.Float64()} }
	for i := 0; i < 300; i++ {
		a, b, c, p := rv(), rv(), rv(), geom.Scale(3, geom.Sub(rv(), geom.Vec{0.3, 0.3, 0.3}))
		if i%10 == 0 {
			c = geom.Add(a, geom.Scale(2, geom.Sub(b, a))) // collinear
		}
		q := ClosestOnTriangle(p, a, b, c)
		got, ref := geom.Dist2(p, q), bruteClosest(p, a, b, c)
		// The sampled reference is never closer than the true minimum, and
		// is within the sampling resolution of it.
		if got > ref+1e-12 || math.Sqrt(ref)-math.Sqrt(got) > 0.02 {
			t.Fatalf("case %d: distance² %g, sampled reference %g", i, got, ref)
		}
	}
}

// vectorClosest is ClosestOnTriangle in the vector form it had before it
// was written out in scalars.
func vectorClosest(p, a, b, c geom.Vec) geom.Vec {
	ab, ac, ap := geom.Sub(b, a), geom.Sub(c, a), geom.Sub(p, a)
	d1, d2 := geom.Dot(ab, ap), geom.Dot(ac, ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := geom.Sub(p, b)
	d3, d4 := geom.Dot(ab, bp), geom.Dot(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return geom.Add(a, geom.Scale(d1/(d1-d3), ab))
	}
	cp := geom.Sub(p, c)
	d5, d6 := geom.Dot(ab, cp), geom.Dot(ac, cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return geom.Add(a, geom.Scale(d2/(d2-d6), ac))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return geom.Add(b, geom.Scale((d4-d3)/((d4-d3)+(d5-d6)), geom.Sub(c, b)))
	}
	den := va + vb + vc
	if den <= 0 {
		best := closestOnSegment(p, a, b)
		for _, q := range []geom.Vec{closestOnSegment(p, b, c), closestOnSegment(p, c, a)} {
			if geom.Dist2(p, q) < geom.Dist2(p, best) {
				best = q
			}
		}
		return best
	}
	v, w := vb/den, vc/den
	return geom.Add(a, geom.Add(geom.Scale(v, ab), geom.Scale(w, ac)))
}

// ClosestOnTriangle's scalars give the vector form's answer to the bit,
// on which the cores and the robust path's meshes depend: in every
// Voronoi region (points spread well beyond the triangles), on degenerate
// triangles and at the corners.
func TestClosestMatchesVectorForm(t *testing.T) {
	if fptest.Fused() {
		t.Skip("this build fuses multiply-adds: the scalar and vector forms may round differently")
	}
	r := rand.New(rand.NewSource(5))
	rv := func() geom.Vec { return geom.Vec{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()} }
	regions := map[string]int{}
	for i := range 50000 {
		a, b, c, p := rv(), rv(), rv(), geom.Scale(3, rv())
		switch i % 5 {
		case 1:
			c = geom.Add(a, geom.Scale(r.Float64(), geom.Sub(b, a))) // collinear
		case 2:
			b = a // a repeated corner
		case 3:
			p = c
		}
		got, want := ClosestOnTriangle(p, a, b, c), vectorClosest(p, a, b, c)
		for k := range 3 {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("ClosestOnTriangle(%v, %v, %v, %v) = %v, the vector form %v", p, a, b, c, got, want)
			}
		}
		switch got {
		case a:
			regions["a"]++
		case b:
			regions["b"]++
		case c:
			regions["c"]++
		default:
			regions["edge or face"]++
		}
	}
	if len(regions) < 4 {
		t.Errorf("regions reached: %v", regions)
	}
}

// On a sphere mesh, the distance from a point to the surface is close to
// |r − R| and the BVH answer equals the linear scan; its triangle is the
// one the tree's search finds without Closest's bounds. Points near the
// centre, where every triangle is nearly as far as the nearest, are the
// test's hardest; vertices, on the surface, are nearest to every triangle
// of their fan, and on a box's faces many more triangles lie in their
// plane.
func TestClosestMatchesScan(t *testing.T) {
	for name, s := range map[string]*format.Surface{"sphere": shapes.Icosphere(1, 3), "box": shapes.Box(2, 2, 2, 6)} {
		ix := New(s.Positions, s.Triangles)
		r := rand.New(rand.NewSource(2))
		for i := 0; i < 1000; i++ {
			p := geom.Vec{4*r.Float64() - 2, 4*r.Float64() - 2, 4*r.Float64() - 2}
			switch i % 4 {
			case 1, 3:
				p = geom.Scale(math.Pow(10, -12*r.Float64()), p)
			case 2:
				p = geom.At(s.Positions, int32(r.Intn(s.NumVertices())))
			}
			_, tri, d2 := ix.Closest(p)
			want := math.Inf(1)
			// TriangleDist2 is the search's own distance (in any build:
			// fused multiply-adds may round the vector form's otherwise).
			for t := int32(0); t < int32(s.NumTriangles()); t++ {
				want = min(want, ix.TriangleDist2(p, t))
			}
			plain, _ := ix.Tree.Nearest(p, func(t int32) float64 { return ix.TriangleDist2(p, t) })
			if d2 != want || tri != plain {
				t.Fatalf("%s, %v: closest %g (tri %d), scan %g, plain search's tri %d", name, p, d2, tri, want, plain)
			}
			if d := math.Abs(geom.Norm(p) - 1); name == "sphere" && math.Abs(math.Sqrt(d2)-d) > 0.02 {
				t.Fatalf("distance %g, sphere says %g", math.Sqrt(d2), d)
			}
		}
	}
}

// NearestLifted with a lift per triangle matches the scan of the lifted
// distances, and its triangle is the plain search's.
func TestNearestLiftedMatchesScan(t *testing.T) {
	s := shapes.Icosphere(1, 3)
	ix := New(s.Positions, s.Triangles)
	r := rand.New(rand.NewSource(4))
	lifts := make([]float64, s.NumTriangles())
	for i := range lifts {
		if i%3 == 0 {
			lifts[i] = 0.05 * r.Float64()
		}
	}
	lift := func(t int32, _ geom.Vec) float64 { return lifts[t] }
	lifted := func(p geom.Vec, t int32) float64 {
		d := math.Sqrt(ix.TriangleDist2(p, t)) + lifts[t]
		return d * d
	}
	for i := 0; i < 1000; i++ {
		p := geom.Vec{4*r.Float64() - 2, 4*r.Float64() - 2, 4*r.Float64() - 2}
		if i%2 == 1 {
			p = geom.Scale(math.Pow(10, -12*r.Float64()), p)
		}
		tri, d2 := ix.NearestLifted(p, lift)
		want := math.Inf(1)
		for t := int32(0); t < int32(s.NumTriangles()); t++ {
			want = min(want, lifted(p, t))
		}
		plain, _ := ix.Tree.Nearest(p, func(t int32) float64 { return lifted(p, t) })
		if d2 != want || tri != plain {
			t.Fatalf("%v: nearest %g (tri %d), scan %g, plain search's tri %d", p, d2, tri, want, plain)
		}
	}
}

// BenchmarkClosest: queries from inside a sphere of 5 120 triangles, at
// depths a medial core's surface puts them (half the radius and more).
func BenchmarkClosest(b *testing.B) {
	s := shapes.Icosphere(1, 4)
	ix := New(s.Positions, s.Triangles)
	r := rand.New(rand.NewSource(3))
	pts := make([]geom.Vec, 1024)
	for i := range pts {
		d := geom.Vec{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		pts[i] = geom.Scale(0.5*r.Float64()/geom.Norm(d), d)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ix.Closest(pts[i%len(pts)])
	}
}

// TriangleDist2 is the squared distance to the vector form's closest
// point, and ClosestOn that point, bit for bit, with the corners where
// they are now: the robust mesher moves vertices after indexing its
// boundary.
func TestTriangleDist2(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	pos := make([]float64, 3*300)
	for i := range pos {
		pos[i] = r.NormFloat64()
	}
	tris := make([]int32, 3*100)
	for i := range tris {
		tris[i] = int32(i)
	}
	tris[5] = tris[4] // a degenerate triangle
	ix := New(pos, tris)
	for i := range 3 * 50 {
		pos[i] += 0.5 // after New: the first 50 triangles moved
	}
	for range 200 {
		p := geom.Vec{3 * r.NormFloat64(), 3 * r.NormFloat64(), 3 * r.NormFloat64()}
		for tr := range int32(100) {
			a, b, c := ix.Triangle(tr)
			q := vectorClosest(p, a, b, c)
			got, want := ix.TriangleDist2(p, tr), geom.Dist2(p, q)
			if !fptest.Same(got, want, 1+want) {
				t.Fatalf("triangle %d, p %v: %v, want %v", tr, p, got, want)
			}
			scale := 1 + math.Sqrt(geom.Dot(p, p))
			if got := ix.ClosestOn(p, tr); !fptest.Same(got[0], q[0], scale) || !fptest.Same(got[1], q[1], scale) || !fptest.Same(got[2], q[2], scale) {
				t.Fatalf("triangle %d, p %v: closest %v, want %v", tr, p, got, q)
			}
		}
	}
}
