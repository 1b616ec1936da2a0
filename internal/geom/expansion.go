package geom

import (
	"math"
	"sync"
)

// Floating-point expansions: a value represented exactly as a sum of
// float64 components that are non-overlapping and sorted by increasing
// magnitude (Shewchuk 1997). Only the exact stage of the predicates uses
// them. Their components come from an expArena, one per exact
// evaluation: an exact insphere builds a few hundred expansions, and
// allocating each on the heap was most of the exact stage, which CAD
// models' cospherical points reach often (stlmodels_gearwheel.bin.stl's
// refinement spent a third of its time there).

// expArena hands out the storage of one exact evaluation's expansions.
type expArena struct {
	buf    []float64
	lifted liftedMemo
}

// arenas keeps arenas between exact evaluations: a fresh one made and
// zeroed a few thousand components for every evaluation (on
// netgen_hinge.stl with MergeCoplanar at -q 1.414, whose flat faces send
// many in-sphere tests to the exact stage, a fifth of its exact stage's
// time).
var arenas = sync.Pool{New: func() any { return new(expArena) }}

// newArena returns an empty arena; release gives it back once its
// expansions are no longer read.
func newArena() *expArena {
	ar := arenas.Get().(*expArena)
	ar.buf = ar.buf[:0]
	return ar
}

func (ar *expArena) release() { arenas.Put(ar) }

// alloc returns an empty slice of capacity n, not shared with any other.
func (ar *expArena) alloc(n int) []float64 {
	if cap(ar.buf)-len(ar.buf) < n {
		ar.buf = make([]float64, 0, max(n, 2*cap(ar.buf), 512))
	}
	l := len(ar.buf)
	ar.buf = ar.buf[:l+n]
	return ar.buf[l : l : l+n]
}

// twoSum returns x = fl(a+b) and the exact rounding error y: a+b = x+y.
func twoSum(a, b float64) (x, y float64) {
	x = a + b
	bv := x - a
	av := x - bv
	return x, (a - av) + (b - bv)
}

// fastTwoSum is twoSum for |a| ≥ |b|.
func fastTwoSum(a, b float64) (x, y float64) {
	x = a + b
	return x, b - (x - a)
}

// twoProd returns x = fl(a·b) and the exact error y: a·b = x+y. The fused
// multiply-add computes a·b − x with a single rounding, which is exact.
// The conversion rounds x: without it Go may fuse the product into a sum
// it feeds, as it does on arm64 and on amd64 from GOAMD64=v3, and x would
// no longer be the float64 that y is the error of.
func twoProd(a, b float64) (x, y float64) {
	x = float64(a * b)
	return x, math.FMA(a, b, -x)
}

// twoDiff returns x = fl(a−b) and the exact rounding error y: a−b = x+y.
func twoDiff(a, b float64) (x, y float64) {
	x = a - b
	bv := a - x
	av := x + bv
	return x, (a - av) + (bv - b)
}

// diffExp returns a − b as an exact expansion.
func (ar *expArena) diffExp(a, b float64) []float64 {
	x, y := twoDiff(a, b)
	if y == 0 {
		return append(ar.alloc(1), x)
	}
	return append(ar.alloc(2), y, x)
}

// sumExp returns e + f.
func (ar *expArena) sumExp(e, f []float64) []float64 { return sumInto(ar.alloc(len(e)+len(f)), e, f) }

// sumInto appends e + f to h (Shewchuk's fast_expansion_sum_zeroelim),
// which needs room for len(e)+len(f) components and must not share
// storage with e or f.
func sumInto(h, e, f []float64) []float64 {
	i, j := 0, 0
	// smaller reports whether e[i] is the next component in magnitude order.
	smaller := func() bool {
		if j == len(f) {
			return true
		}
		if i == len(e) {
			return false
		}
		fn, en := f[j], e[i]
		return (fn > en) == (fn > -en)
	}
	next := func() float64 {
		if smaller() {
			i++
			return e[i-1]
		}
		j++
		return f[j-1]
	}
	q := next()
	var hh float64
	if i < len(e) || j < len(f) {
		q, hh = fastTwoSum(next(), q)
		if hh != 0 {
			h = append(h, hh)
		}
	}
	for i < len(e) || j < len(f) {
		q, hh = twoSum(q, next())
		if hh != 0 {
			h = append(h, hh)
		}
	}
	if q != 0 || len(h) == 0 {
		h = append(h, q)
	}
	return h
}

// scaleInto appends b·e to h (Shewchuk's scale_expansion_zeroelim),
// which needs room for 2·len(e) components.
func scaleInto(h, e []float64, b float64) []float64 {
	q, hh := twoProd(e[0], b)
	if hh != 0 {
		h = append(h, hh)
	}
	for _, c := range e[1:] {
		p1, p0 := twoProd(c, b)
		var s float64
		s, hh = twoSum(q, p0)
		if hh != 0 {
			h = append(h, hh)
		}
		q, hh = fastTwoSum(p1, s)
		if hh != 0 {
			h = append(h, hh)
		}
	}
	if q != 0 || len(h) == 0 {
		h = append(h, q)
	}
	return h
}

// scaleExp returns b·e.
func (ar *expArena) scaleExp(e []float64, b float64) []float64 {
	return scaleInto(ar.alloc(2*len(e)), e, b)
}

// mulExp returns e·f.
func (ar *expArena) mulExp(e, f []float64) []float64 {
	// One scaling of e per component of f, then a sum per scaling after
	// the first: f the shorter makes the fewest.
	if len(f) > len(e) {
		e, f = f, e
	}
	r := ar.scaleExp(e, f[0])
	for _, c := range f[1:] {
		r = ar.sumExp(r, ar.scaleExp(e, c))
	}
	return r
}

// mulInto returns e·f, computed in buf, which needs room for
// 4·len(e)·len(f) components (two halves used in turn), with tmp, room
// for 2·len(e): one scaling of e per component of f, then a sum per
// scaling after the first.
func mulInto(buf, tmp, e, f []float64) []float64 {
	n := 2 * len(e) * len(f)
	a, b := buf[:0:n], buf[n:n:2*n]
	r := scaleInto(a, e, f[0])
	for _, c := range f[1:] {
		r = sumInto(b, r, scaleInto(tmp[:0], e, c))
		a, b = b, a
	}
	return r
}

// negExp returns −e.
func (ar *expArena) negExp(e []float64) []float64 {
	r := ar.alloc(len(e))[:len(e)]
	for i, c := range e {
		r[i] = -c
	}
	return r
}

// signExp returns the sign of e: that of its largest component, which is
// nonzero unless e is exactly zero (zero components are eliminated).
func signExp(e []float64) int {
	switch v := e[len(e)-1]; {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// det2Exp returns a·d − b·c.
func (ar *expArena) det2Exp(a, b, c, d []float64) []float64 {
	return ar.sumExp(ar.mulExp(a, d), ar.negExp(ar.mulExp(b, c)))
}

// det3Exp returns the determinant of the rows (r0, r1, r2), each an
// exact expansion per coordinate.
func (ar *expArena) det3Exp(r0, r1, r2 [3][]float64) []float64 {
	m0 := ar.mulExp(r0[0], ar.det2Exp(r1[1], r1[2], r2[1], r2[2]))
	m1 := ar.mulExp(r0[1], ar.det2Exp(r1[0], r1[2], r2[0], r2[2]))
	m2 := ar.mulExp(r0[2], ar.det2Exp(r1[0], r1[1], r2[0], r2[1]))
	return ar.sumExp(ar.sumExp(m0, ar.negExp(m1)), m2)
}

// Fixed-size exact stages. When every coordinate difference a predicate
// takes is exact — a single float64, as between points on a lattice or
// with float32 coordinates (STL input) — its expansions have bounded
// lengths and fit in fixed buffers: a fixed sequence of operations on
// arrays on the stack (or, for the 4×4, one arena's). That is most of
// what flat CAD faces send to the exact stage: all the differences of
// the flat in-sphere tests (inSphereFlat) at -q 1.414 with MergeCoplanar
// are exact in 99 % of them on cura_pbr3d_g1_buildplate.stl, 89 % on
// stlmodels_gearwheel.bin.stl, 54 % on netgen_hinge.stl.

// diff3 returns p − e and whether all three differences are exact.
func diff3(p, e Vec) (d Vec, exact bool) {
	var t0, t1, t2 float64
	d[0], t0 = twoDiff(p[0], e[0])
	d[1], t1 = twoDiff(p[1], e[1])
	d[2], t2 = twoDiff(p[2], e[2])
	return d, t0 == 0 && t1 == 0 && t2 == 0
}

// prodExp returns a·b as an expansion in h.
func prodExp(h *[2]float64, a, b float64) []float64 {
	x, y := twoProd(a, b)
	if y == 0 {
		h[0] = x
		return h[:1]
	}
	h[0], h[1] = y, x
	return h[:2]
}

// prodDiff returns a·b − c·d as an expansion in h.
func prodDiff(h *[4]float64, a, b, c, d float64) []float64 {
	var p, q [2]float64
	return sumInto(h[:0], prodExp(&p, a, b), prodExp(&q, -c, d))
}

// det3Small returns det[a; b; c] as an expansion in h.
func det3Small(h *[24]float64, a, b, c Vec) []float64 {
	var m [3][4]float64
	var s [3][8]float64
	var u [16]float64
	// Along the z column: az·(bx·cy − cx·by) + bz·(cx·ay − ax·cy) +
	// cz·(ax·by − bx·ay).
	t := sumInto(u[:0], scaleInto(s[0][:0], prodDiff(&m[0], b[0], c[1], c[0], b[1]), a[2]),
		scaleInto(s[1][:0], prodDiff(&m[1], c[0], a[1], a[0], c[1]), b[2]))
	return sumInto(h[:0], t, scaleInto(s[2][:0], prodDiff(&m[2], a[0], b[1], b[0], a[1]), c[2]))
}

// liftSmall returns x²+y²+z² as an expansion in h.
func liftSmall(h *[6]float64, x, y, z float64) []float64 {
	var sq [3][2]float64
	var l4 [4]float64
	return sumInto(h[:0], sumInto(l4[:0], prodExp(&sq[0], x, x), prodExp(&sq[1], y, y)), prodExp(&sq[2], z, z))
}

// liftedSmall returns the sign of the determinant of the rows
// (x_n, y_n, x_n²+y_n²+z_n²), n = 0, 1, 2.
func liftedSmall(x, y, z [3]float64) int {
	var buf [96]float64
	var tmp [12]float64
	var sums [2][144]float64
	var acc []float64
	for n := range 3 {
		// Along the lift column, with (n, p, q) cyclic:
		// Σ lift_n·(x_p·y_q − x_q·y_p).
		p, q := (n+1)%3, (n+2)%3
		var l [6]float64
		var m [4]float64
		t := mulInto(buf[:], tmp[:], liftSmall(&l, x[n], y[n], z[n]), prodDiff(&m, x[p], y[q], x[q], y[p]))
		acc = sumInto(sums[n%2][:0], acc, t)
	}
	return signExp(acc)
}

// inSphereSmall returns the sign of the determinant of the rows
// (r_n, |r_n|²), n = 0 … 3. Its longest expansions (1 152 components)
// come from an arena, which is not cleared as arrays on the stack are.
func inSphereSmall(r [4]Vec) int {
	ar := newArena()
	defer ar.release()
	buf, tmp := ar.alloc(576)[:576], ar.alloc(48)[:48]
	sums := [2][]float64{ar.alloc(1152), ar.alloc(1152)}
	var acc []float64
	for n := range 4 {
		// Along the lift column: the minor of the other rows, with the
		// cofactor sign (−1)^(n+1) put on the lift.
		var o [3]Vec
		for i, k := 0, 0; i < 4; i++ {
			if i != n {
				o[k] = r[i]
				k++
			}
		}
		var h [24]float64
		var l [6]float64
		lift := liftSmall(&l, r[n][0], r[n][1], r[n][2])
		if n%2 == 0 {
			for i := range lift {
				lift[i] = -lift[i]
			}
		}
		acc = sumInto(sums[n%2][:0], acc, mulInto(buf, tmp, det3Small(&h, o[0], o[1], o[2]), lift))
	}
	return signExp(acc)
}

// orient3dSmall returns the sign of det[a; b; c].
func orient3dSmall(a, b, c Vec) int {
	var h [24]float64
	return signExp(det3Small(&h, a, b, c))
}
