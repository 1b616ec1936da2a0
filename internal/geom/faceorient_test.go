package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// FaceOrient agrees with Orient3D on random points, on points on and a
// rounding error off the triangle's plane, and on degenerate triangles.
func TestFaceOrient(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pt := func() Vec { return Vec{rng.Float64(), rng.Float64(), rng.Float64()} }
	grid := func() Vec { return Vec{float64(rng.IntN(5)), float64(rng.IntN(5)), float64(rng.IntN(5))} }
	signs := map[int]int{}
	for i := range 20000 {
		var a, b, c Vec
		var ds []Vec
		switch i % 4 {
		case 0: // general position
			a, b, c = pt(), pt(), pt()
			ds = []Vec{pt(), pt()}
		case 1: // on the plane, and just off it
			a, b, c = pt(), pt(), pt()
			s, r := rng.Float64(), rng.Float64()
			on := Add(a, Add(Scale(s, Sub(b, a)), Scale(r, Sub(c, a))))
			ds = []Vec{on, {on[0], on[1], math.Nextafter(on[2], 2)}, {on[0], on[1], math.Nextafter(on[2], -1)}}
		case 2: // small integer grid: many exactly coplanar
			a, b, c = grid(), grid(), grid()
			ds = []Vec{grid(), grid()}
		case 3: // degenerate triangle (collinear corners)
			a, b = pt(), pt()
			c = Add(a, Scale(2, Sub(b, a)))
			ds = []Vec{pt(), c}
		}
		f := NewFaceOrient(a, b, c)
		if f.Normal() != Cross(Sub(b, a), Sub(c, a)) {
			t.Fatalf("normal of %v %v %v: %v", a, b, c, f.Normal())
		}
		for _, d := range ds {
			want := Orient3D(a, b, c, d)
			signs[want]++
			if got := f.Orient3D(d); got != want {
				t.Fatalf("Orient3D(%v, %v, %v, %v): %d, want %d", a, b, c, d, got, want)
			}
		}
	}
	if signs[0] == 0 || signs[1] == 0 || signs[-1] == 0 {
		t.Errorf("signs seen %v: some case not exercised", signs)
	}
}
