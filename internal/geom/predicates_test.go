package geom

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"sync"
	"testing"
)

// Independent reference: the same determinants in exact rational
// arithmetic.

func rat(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

func ratSub(a, b float64) *big.Rat { return new(big.Rat).Sub(rat(a), rat(b)) }

func ratDet3(m [3][3]*big.Rat) *big.Rat {
	t := func(a, b, c *big.Rat) *big.Rat { return new(big.Rat).Mul(new(big.Rat).Mul(a, b), c) }
	s := new(big.Rat)
	s.Add(s, t(m[0][0], m[1][1], m[2][2]))
	s.Add(s, t(m[0][1], m[1][2], m[2][0]))
	s.Add(s, t(m[0][2], m[1][0], m[2][1]))
	s.Sub(s, t(m[0][2], m[1][1], m[2][0]))
	s.Sub(s, t(m[0][0], m[1][2], m[2][1]))
	s.Sub(s, t(m[0][1], m[1][0], m[2][2]))
	return s
}

func refOrient3D(a, b, c, d Vec) int {
	var m [3][3]*big.Rat
	for i, p := range []Vec{b, c, d} {
		for k := 0; k < 3; k++ {
			m[i][k] = ratSub(p[k], a[k])
		}
	}
	return ratDet3(m).Sign()
}

// refInSphere: e inside the circumsphere of a positive tet abcd gives +1.
// Rows (p−e, |p−e|²) for p = a,b,c,d; the 4×4 determinant by cofactors.
func refInSphere(a, b, c, d, e Vec) int {
	rows := make([][4]*big.Rat, 4)
	for i, p := range []Vec{a, b, c, d} {
		l := new(big.Rat)
		for k := 0; k < 3; k++ {
			x := ratSub(p[k], e[k])
			rows[i][k] = x
			l.Add(l, new(big.Rat).Mul(x, x))
		}
		rows[i][3] = l
	}
	det := new(big.Rat)
	for skip := 0; skip < 4; skip++ {
		var m [3][3]*big.Rat
		r := 0
		for i := 0; i < 4; i++ {
			if i == skip {
				continue
			}
			m[r] = [3]*big.Rat{rows[i][0], rows[i][1], rows[i][2]}
			r++
		}
		term := new(big.Rat).Mul(rows[skip][3], ratDet3(m))
		if skip%2 == 0 { // cofactor sign (−1)^(skip+3)
			det.Sub(det, term)
		} else {
			det.Add(det, term)
		}
	}
	// The lifted determinant is negative for e inside a tetrahedron that is
	// positive in our convention (the paraboloid lifting reverses the
	// orientation); TestPredicateConventions pins this on the unit tet.
	return -det.Sign()
}

func TestPredicateConventions(t *testing.T) {
	o, x, y, z := Vec{0, 0, 0}, Vec{1, 0, 0}, Vec{0, 1, 0}, Vec{0, 0, 1}
	if Orient3D(o, x, y, z) != 1 {
		t.Fatal("unit tet should be positive")
	}
	in, out := Vec{0.25, 0.25, 0.25}, Vec{2, 2, 2}
	if InSphere(o, x, y, z, in) != 1 || InSphere(o, x, y, z, out) != -1 {
		t.Fatal("InSphere sign convention")
	}
	if refInSphere(o, x, y, z, in) != 1 || refInSphere(o, x, y, z, out) != -1 {
		t.Fatal("reference InSphere sign convention")
	}
	if Orient2D([2]float64{0, 0}, [2]float64{1, 0}, [2]float64{0, 1}) != 1 {
		t.Fatal("Orient2D ccw")
	}
	if InCircle([2]float64{0, 0}, [2]float64{1, 0}, [2]float64{0, 1}, [2]float64{0.3, 0.3}) != 1 {
		t.Fatal("InCircle inside")
	}
}

// nearDegenerate returns points on a plane or sphere nudged by a few ulps,
// where the float filter cannot decide and the exact stage must.
func nudge(r *rand.Rand, v Vec) Vec {
	for k := range v {
		for n := r.Intn(5) - 2; n != 0; {
			if n > 0 {
				v[k] = math.Nextafter(v[k], math.Inf(1))
				n--
			} else {
				v[k] = math.Nextafter(v[k], math.Inf(-1))
				n++
			}
		}
	}
	return v
}

func randVec(r *rand.Rand, scale float64) Vec {
	return Vec{scale * (r.Float64() - 0.5), scale * (r.Float64() - 0.5), scale * (r.Float64() - 0.5)}
}

func TestOrient3DAgainstRational(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	zeros := 0
	for i := 0; i < 20000; i++ {
		a, b, c := randVec(r, 1), randVec(r, 1), randVec(r, 1)
		var d Vec
		switch i % 3 {
		case 0:
			d = randVec(r, 1)
		case 1: // on the plane abc up to rounding, then nudged
			s, u := r.Float64(), r.Float64()
			d = nudge(r, Add(a, Add(Scale(s, Sub(b, a)), Scale(u, Sub(c, a)))))
		case 2: // far from the others: large cancellation
			d = Add(Scale(1e8, Sub(b, a)), a)
			d = nudge(r, d)
		}
		got, want := Orient3D(a, b, c, d), refOrient3D(a, b, c, d)
		if got != want {
			t.Fatalf("Orient3D(%v,%v,%v,%v) = %d, want %d", a, b, c, d, got, want)
		}
		if want == 0 {
			zeros++
		}
	}
	t.Logf("%d exactly coplanar cases", zeros)
}

func TestInSphereAgainstRational(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 5000; i++ {
		var p [5]Vec
		if i%2 == 0 {
			for k := range p {
				p[k] = randVec(r, 2)
			}
		} else { // points on a sphere up to rounding, nudged
			c := randVec(r, 1)
			rad := 0.5 + r.Float64()
			for k := range p {
				u := randVec(r, 2)
				u = Scale(rad/Norm(u), u)
				p[k] = nudge(r, Add(c, u))
			}
		}
		got, want := InSphere(p[0], p[1], p[2], p[3], p[4]), refInSphere(p[0], p[1], p[2], p[3], p[4])
		if got != want {
			t.Fatalf("InSphere(%v) = %d, want %d", p, got, want)
		}
	}
}

// Lattice points: coplanar and cospherical sets that are exactly
// degenerate, scaled by a dyadic and offset so the differences stay exact.
func TestDegenerateLattice(t *testing.T) {
	for _, s := range []float64{1, 1.0 / 1024, 3.0 / 7, 1e5} {
		off := Vec{0.1, -7.3, 1e3}
		p := func(x, y, z float64) Vec { return Vec{off[0] + s*x, off[1] + s*y, off[2] + s*z} }
		// Coplanar: four corners of a cube face; plus the refs agree.
		a, b, c, d := p(0, 0, 0), p(1, 0, 0), p(1, 1, 0), p(0, 1, 0)
		if got, want := Orient3D(a, b, c, d), refOrient3D(a, b, c, d); got != want {
			t.Errorf("s=%g coplanar face: got %d want %d", s, got, want)
		}
		// Cospherical: any five cube corners.
		e := p(1, 1, 1)
		f := p(0, 0, 1)
		if got, want := InSphere(a, b, d, f, e), refInSphere(a, b, d, f, e); got != want {
			t.Errorf("s=%g cube corners: got %d want %d", s, got, want)
		}
		if s == 1 && (Orient3D(a, b, c, d) != 0 || InSphere(a, b, d, f, e) != 0) {
			t.Errorf("unit lattice should be exactly degenerate")
		}
	}
	// Collinear points make every tetrahedron flat.
	a, b, c, d := Vec{0, 0, 0}, Vec{1, 1, 1}, Vec{2, 2, 2}, Vec{5, -1, 3}
	if Orient3D(a, b, c, d) != 0 {
		t.Error("collinear triple should give 0")
	}
	if Orient2D([2]float64{0, 0}, [2]float64{1, 1}, [2]float64{3, 3}) != 0 {
		t.Error("Orient2D collinear")
	}
	if InCircle([2]float64{0, 0}, [2]float64{2, 0}, [2]float64{2, 2}, [2]float64{0, 2}) != 0 {
		t.Error("InCircle cocircular square")
	}
}

// Points one ulp apart: the smallest distinct configurations.
func TestOneUlp(t *testing.T) {
	x := 1.0
	u := math.Nextafter(x, 2)
	a, b, c := Vec{x, x, x}, Vec{u, x, x}, Vec{x, u, x}
	for _, d := range []Vec{{x, x, u}, {x, x, math.Nextafter(x, 0)}, {u, u, x}} {
		if got, want := Orient3D(a, b, c, d), refOrient3D(a, b, c, d); got != want {
			t.Errorf("Orient3D ulp case %v: %d want %d", d, got, want)
		}
	}
	e := Vec{u, u, u}
	d := Vec{x, x, u}
	if got, want := InSphere(a, b, c, d, e), refInSphere(a, b, c, d, e); got != want {
		t.Errorf("InSphere ulp case: %d want %d", got, want)
	}
}

func TestPermutationProperties(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 2000; i++ {
		a, b, c, d, e := randVec(r, 1), randVec(r, 1), randVec(r, 1), randVec(r, 1), randVec(r, 1)
		if i%2 == 1 { // make it degenerate-ish
			d = nudge(r, Add(a, Scale(0.5, Sub(b, a))))
		}
		o := Orient3D(a, b, c, d)
		if Orient3D(b, a, c, d) != -o || Orient3D(b, c, a, d) != o || Orient3D(a, b, d, c) != -o {
			t.Fatalf("Orient3D permutation property fails at %d", i)
		}
		s := InSphere(a, b, c, d, e)
		if InSphere(b, a, c, d, e) != -s || InSphere(b, c, a, d, e) != s || InSphere(a, b, c, e, d) != -s {
			t.Fatalf("InSphere permutation property fails at %d", i)
		}
	}
}

func TestOrient2DAgainstRational(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for i := 0; i < 20000; i++ {
		a := [2]float64{r.Float64(), r.Float64()}
		b := [2]float64{r.Float64(), r.Float64()}
		s := r.Float64()
		c := [2]float64{a[0] + s*(b[0]-a[0]), a[1] + s*(b[1]-a[1])}
		v := nudge(r, Vec{c[0], c[1], 0})
		c = [2]float64{v[0], v[1]}
		m := [3][3]*big.Rat{
			{ratSub(b[0], a[0]), ratSub(b[1], a[1]), rat(0)},
			{ratSub(c[0], a[0]), ratSub(c[1], a[1]), rat(0)},
			{rat(0), rat(0), rat(1)},
		}
		if got, want := Orient2D(a, b, c), ratDet3(m).Sign(); got != want {
			t.Fatalf("Orient2D(%v,%v,%v) = %d want %d", a, b, c, got, want)
		}
	}
}

func BenchmarkOrient3D(b *testing.B) {
	r := rand.New(rand.NewSource(5))
	pts := make([]Vec, 1024)
	for i := range pts {
		pts[i] = randVec(r, 1)
	}
	b.ResetTimer()
	s := 0
	for i := 0; i < b.N; i++ {
		j := i & 1023
		s += Orient3D(pts[j], pts[(j+1)&1023], pts[(j+2)&1023], pts[(j+3)&1023])
	}
	_ = s
}

func BenchmarkInSphereDegenerate(b *testing.B) {
	a, c, d, e, f := Vec{0, 0, 0}, Vec{1, 0, 0}, Vec{0, 1, 0}, Vec{0, 0, 1}, Vec{1, 1, 1}
	for i := 0; i < b.N; i++ {
		_ = InSphere(a, c, d, e, f)
	}
}

// TestExactArenasConcurrent runs the exact stage on several goroutines at
// once, as the parallel Delaunay kernel does: arenas come from a pool, and
// two evaluations sharing one would corrupt each other's expansions. Each
// goroutine's signs must match a serial run's, on points of a small
// integer lattice (cospherical and coplanar sets reach the exact stage)
// shifted by a non-representable offset.
func TestExactArenasConcurrent(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	type quint [5]Vec
	cases := make([]quint, 4000)
	for i := range cases {
		for k := range cases[i] {
			cases[i][k] = Vec{float64(r.Intn(3)) + 0.1, float64(r.Intn(3)) + 0.1, float64(r.Intn(3)) + 0.1}
		}
	}
	eval := func(q quint) [2]int {
		return [2]int{InSphere(q[0], q[1], q[2], q[3], q[4]), Orient3D(q[0], q[1], q[2], q[3])}
	}
	want := make([][2]int, len(cases))
	for i, q := range cases {
		want[i] = eval(q)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := range cases {
				j := (i + g*997) % len(cases)
				if got := eval(cases[j]); got != want[j] {
					errs <- fmt.Sprintf("goroutine %d, case %d: %v, serially %v", g, j, got, want[j])
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
