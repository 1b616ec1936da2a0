package geom

import "math"

// Floating-point expansions: a value represented exactly as a sum of
// float64 components that are non-overlapping and sorted by increasing
// magnitude (Shewchuk 1997). Only the exact stage of the predicates uses
// them, so clarity wins over the last allocation.

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
func diffExp(a, b float64) []float64 {
	x := a - b
	bv := a - x
	av := x + bv
	y := (a - av) + (bv - b)
	if y == 0 {
		return []float64{x}
	}
	return []float64{y, x}
}

// sumExp returns e + f (Shewchuk's fast_expansion_sum_zeroelim).
func sumExp(e, f []float64) []float64 {
	h := make([]float64, 0, len(e)+len(f))
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
func scaleExp(e []float64, b float64) []float64 {
	h := make([]float64, 0, 2*len(e))
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
func mulExp(e, f []float64) []float64 {
	r := scaleExp(e, f[0])
	for _, c := range f[1:] {
		r = sumExp(r, scaleExp(e, c))
	}
	return r
}

// negExp returns −e.
func negExp(e []float64) []float64 {
	r := make([]float64, len(e))
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
func det2Exp(a, b, c, d []float64) []float64 {
	return sumExp(mulExp(a, d), negExp(mulExp(b, c)))
}

// det3Exp returns the determinant of the rows (r0, r1, r2), each an
// exact expansion per coordinate.
func det3Exp(r0, r1, r2 [3][]float64) []float64 {
	m0 := mulExp(r0[0], det2Exp(r1[1], r1[2], r2[1], r2[2]))
	m1 := mulExp(r0[1], det2Exp(r1[0], r1[2], r2[0], r2[2]))
	m2 := mulExp(r0[2], det2Exp(r1[0], r1[1], r2[0], r2[1]))
	return sumExp(sumExp(m0, negExp(m1)), m2)
}
