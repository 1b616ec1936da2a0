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
type expArena struct{ buf []float64 }

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
func twoProd(a, b float64) (x, y float64) {
	x = a * b
	return x, math.FMA(a, b, -x)
}

// diffExp returns a − b as an exact expansion.
func (ar *expArena) diffExp(a, b float64) []float64 {
	x := a - b
	bv := a - x
	av := x + bv
	y := (a - av) + (bv - b)
	if y == 0 {
		return append(ar.alloc(1), x)
	}
	return append(ar.alloc(2), y, x)
}

// sumExp returns e + f (Shewchuk's fast_expansion_sum_zeroelim).
func (ar *expArena) sumExp(e, f []float64) []float64 {
	h := ar.alloc(len(e) + len(f))
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

// scaleExp returns b·e (Shewchuk's scale_expansion_zeroelim).
func (ar *expArena) scaleExp(e []float64, b float64) []float64 {
	h := ar.alloc(2 * len(e))
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
