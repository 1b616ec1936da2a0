package laplace

import (
	"math"
	"slices"
)

// strength flags the strong couplings of a symMatrix per stored entry
// (lower and outer parts); a pair held in two places gets the same flag in
// both.
type strength struct{ low, out []bool }

// strongCouplings flags the entries a_ij, i ≠ j, with −a_ij ≥ θ·√(a_ii·a_jj).
// Positive off-diagonal entries (from obtuse dihedral angles) are never
// strong: aggregating across them would put unknowns that pull in opposite
// directions into one coarse unknown.
func strongCouplings[T float32 | float64](a *symMatrix[T], theta float64) *strength {
	isd := a.diagonal()
	for i, d := range isd {
		isd[i] = 1 / math.Sqrt(d)
	}
	st := &strength{low: make([]bool, len(a.lowCol)), out: make([]bool, len(a.outCol))}
	// isd[i]·isd[j] is commutative, so the flag of a pair does not depend
	// on the row it is computed in.
	strong := func(x T, i, j int) bool { return -float64(x)*(isd[i]*isd[j]) >= theta }
	forChunks(a.n, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k := a.lowPtr[i]; k < a.lowPtr[i+1]; k++ {
				st.low[k] = strong(a.lowVal[k], i, lo+int(a.lowCol[k]))
			}
			for k := a.outPtr[i]; k < a.outPtr[i+1]; k++ {
				st.out[k] = strong(a.outVal[k], i, int(a.outCol[k]))
			}
		}
	})
	return st
}

// aggregate groups the unknowns into aggregates of strongly coupled
// neighbours (Vaněk, Mandel & Brezina 1996, the greedy three-pass
// algorithm):
//  1. every unknown whose strong neighbours are all still free starts an
//     aggregate with them;
//  2. each remaining unknown joins the aggregate of a strong neighbour
//     from pass 1 (the most strongly coupled one);
//  3. what is left forms aggregates with its still-free strong neighbours
//     (a singleton if none is free).
//
// Unknowns without strong neighbours stay unaggregated (−1); the smoother
// alone handles them. The passes run in index order, and aggregates are
// numbered in the order of their first unknowns, so with a Hilbert vertex
// order they are compact and numbered along the curve, and the coarse
// matrix's blocks are compact too.
func aggregate[T float32 | float64](v *symMatrix[T], st *strength) (agg []int32, count int) {
	n := v.n
	agg = make([]int32, n)
	for i := range agg {
		agg[i] = -1
	}
	var root []int32 // root[c] is the unknown that started aggregate c
	var buf rowBuf
	// Pass 1: roots whose strong neighbourhood is entirely free.
	for i := 0; i < n; i++ {
		if agg[i] >= 0 {
			continue
		}
		v.row(i, &buf, st)
		free, any := true, false
		for k, j := range buf.col {
			if buf.strong[k] {
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
		c := int32(len(root))
		root = append(root, int32(i))
		agg[i] = c
		for k, j := range buf.col {
			if buf.strong[k] {
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
		v.row(i, &buf, st)
		best, bestV := int32(-1), 0.0
		for k, j := range buf.col {
			if buf.strong[k] && agg[j] >= 0 && math.Abs(buf.val[k]) > bestV {
				best, bestV = agg[j], math.Abs(buf.val[k])
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
	pass1 := len(root)
	for i := 0; i < n; i++ {
		if agg[i] >= 0 {
			continue
		}
		v.row(i, &buf, st)
		if !slices.Contains(buf.strong, true) {
			continue
		}
		c := int32(len(root))
		root = append(root, int32(i))
		agg[i] = c
		for k, j := range buf.col {
			if agg[j] < 0 && buf.strong[k] {
				agg[j] = c
			}
		}
	}
	// Renumber by root: merge the two increasing runs of roots.
	renum := make([]int32, len(root))
	p, q := 0, pass1
	for c := range renum {
		if q == len(root) || (p < pass1 && root[p] < root[q]) {
			renum[p] = int32(c)
			p++
		} else {
			renum[q] = int32(c)
			q++
		}
	}
	for i, g := range agg {
		if g >= 0 {
			agg[i] = renum[g]
		}
	}
	return agg, len(root)
}
