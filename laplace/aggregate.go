package laplace

import (
	"math"
	"slices"
)

// strongCouplings marks the entries of A that are strong couplings: i ≠ j
// and −a_ij ≥ θ·√(a_ii·a_jj). Positive off-diagonal entries (from obtuse
// dihedral angles) are never strong: aggregating across them would put
// unknowns that pull in opposite directions into one coarse unknown.
func strongCouplings(a *csr[float64], theta float64) []bool {
	isd := a.diagonal()
	for i, d := range isd {
		isd[i] = 1 / math.Sqrt(d)
	}
	strong := make([]bool, a.nnz())
	forChunks(a.rows, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			off := a.rowPtr[i]
			for k, j := range cols {
				strong[off+k] = int(j) != i && -vals[k]*isd[i]*isd[j] >= theta
			}
		}
	})
	return strong
}

// aggregate groups the unknowns of A into aggregates of strongly coupled
// neighbours (Vaněk, Mandel & Brezina 1996, the greedy three-pass
// algorithm), strong[k] telling whether entry k of A is a strong coupling.
//  1. every unknown whose strong neighbours are all still free starts an
//     aggregate with them;
//  2. each remaining unknown joins the aggregate of a strong neighbour
//     from pass 1 (the most strongly coupled one);
//  3. what is left forms aggregates with its still-free strong neighbours
//     (a singleton if none is free).
//
// Unknowns without strong neighbours stay unaggregated (−1); the smoother
// alone handles them. The passes run in index order, so with a Hilbert
// vertex order aggregates are compact and numbered along the curve.
func aggregate(a *csr[float64], strong []bool) (agg []int32, count int) {
	n := a.rows
	agg = make([]int32, n)
	for i := range agg {
		agg[i] = -1
	}
	// Pass 1: roots whose strong neighbourhood is entirely free.
	for i := 0; i < n; i++ {
		if agg[i] >= 0 {
			continue
		}
		cols, _ := a.row(i)
		free, any := true, false
		for k, j := range cols {
			if strong[a.rowPtr[i]+k] {
				any = true
				if agg[j] >= 0 {
					free = false
					break
				}
			}
		}
		if !any || !free {
			continue
		}
		c := int32(count)
		count++
		agg[i] = c
		for k, j := range cols {
			if strong[a.rowPtr[i]+k] {
				agg[j] = c
			}
		}
	}
	// Pass 2: join the most strongly coupled pass-1 aggregate. Joined
	// unknowns are marked with −2−aggregate so that nobody joins through
	// them (aggregates stay within distance 2 of their root).
	for i := 0; i < n; i++ {
		if agg[i] != -1 {
			continue
		}
		cols, vals := a.row(i)
		best, bestV := int32(-1), 0.0
		for k, j := range cols {
			if agg[j] >= 0 && strong[a.rowPtr[i]+k] && math.Abs(vals[k]) > bestV {
				best, bestV = agg[j], math.Abs(vals[k])
			}
		}
		if best >= 0 {
			agg[i] = -2 - best
		}
	}
	for i, g := range agg {
		if g <= -2 {
			agg[i] = -2 - g
		}
	}
	// Pass 3: leftovers aggregate with their free strong neighbours.
	for i := 0; i < n; i++ {
		if agg[i] >= 0 {
			continue
		}
		cols, _ := a.row(i)
		if !slices.Contains(strong[a.rowPtr[i]:a.rowPtr[i+1]], true) {
			continue
		}
		c := int32(count)
		count++
		agg[i] = c
		for k, j := range cols {
			if agg[j] < 0 && strong[a.rowPtr[i]+k] {
				agg[j] = c
			}
		}
	}
	return agg, count
}
