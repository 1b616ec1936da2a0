package geom

import (
	"math/rand"
	"testing"
)

// flatCase returns five points of which e and three others lie exactly on
// one plane — a lattice plane through o spanned by integer vectors u, w,
// tilted, scaled by a dyadic so the coordinates stay exact — with the
// fourth point off it; with cocircular in-plane points (the corners of
// a rectangle, or lattice points at equal distance) often.
func flatCase(r *rand.Rand) (p [5]Vec, m int) {
	ri := func(n int) float64 { return float64(r.Intn(2*n+1) - n) }
	var u, w Vec
	for {
		u = Vec{ri(3), ri(3), ri(3)}
		w = Vec{ri(3), ri(3), ri(3)}
		if r.Intn(2) == 0 {
			// A rectangle's corners are cocircular: w ⟂ u.
			w = Cross(u, Cross(u, w))
		}
		if n := Cross(u, w); n != (Vec{}) {
			break
		}
	}
	s := []float64{1, 1.0 / 64, 3, 1024}[r.Intn(4)]
	o := Vec{ri(50) * s, ri(50) * s, ri(50) * s}
	at := func(x, y float64) Vec { return Add(o, Scale(s, Add(Scale(x, u), Scale(y, w)))) }
	var in [4]Vec
	if r.Intn(2) == 0 {
		in = [4]Vec{at(0, 0), at(1, 0), at(1, 1), at(0, 1)}
	} else {
		for k := range in {
			in[k] = at(ri(2), ri(2))
		}
	}
	off := Add(o, Scale(s, Vec{ri(4), ri(4), ri(4)}))
	m = r.Intn(4)
	// e is in[3]; the others go to the rows other than m.
	j := 0
	for i := 0; i < 4; i++ {
		if i == m {
			p[i] = off
		} else {
			p[i] = in[j]
			j++
		}
	}
	p[4] = in[3]
	return p, m
}

// TestInSphereFlatAgainstRational checks inSphereFlat, where it answers,
// and InSphere against the rational determinant on exactly flat
// configurations, and on the same nudged by a few ulps.
func TestInSphereFlatAgainstRational(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	answered, zeros := 0, 0
	for i := 0; i < 20000; i++ {
		p, _ := flatCase(r)
		if i%4 == 3 {
			for k := range p {
				// A zero nudged by ulps is subnormal, out of the
				// predicates' range (doc.go).
				if r.Intn(3) == 0 && p[k][0]*p[k][1]*p[k][2] != 0 {
					p[k] = nudge(r, p[k])
				}
			}
		}
		want := -refInSphere(p[0], p[1], p[2], p[3], p[4]) // Shewchuk's sign
		if s, ok := inSphereFlat(p[0], p[1], p[2], p[3], p[4]); ok {
			answered++
			if s != want {
				t.Fatalf("inSphereFlat(%v) = %d, want %d", p, s, want)
			}
		}
		if got := shewInSphere(p[0], p[1], p[2], p[3], p[4]); got != want {
			t.Fatalf("shewInSphere(%v) = %d, want %d", p, got, want)
		}
		if want == 0 {
			zeros++
		}
	}
	t.Logf("%d of 20000 answered by the flat identity, %d cospherical", answered, zeros)
	if answered < 10000 || zeros < 1000 {
		t.Fatalf("too few flat (%d) or cospherical (%d) cases to test the identity", answered, zeros)
	}
}

// BenchmarkInSphereFlat is an exact in-sphere test of the shape flat faces
// send there: e and three of the points on a tilted plane, on one circle.
func BenchmarkInSphereFlat(b *testing.B) {
	o := Vec{10.125, -3.5, 7.25}
	u := Scale(0.37109375, Vec{2, -1, 0})
	w := Scale(0.2890625, Vec{3, 6, -5}) // ⟂ u: the corners of a rectangle
	p, q, r, e := o, Add(o, u), Add(Add(o, u), w), Add(o, w)
	s := Add(o, Vec{0.3, 0.7, 0.9})
	if InSphere(p, q, r, s, e) != 0 {
		b.Fatal("not cospherical")
	}
	for i := 0; i < b.N; i++ {
		_ = InSphere(p, q, r, s, e)
	}
}
