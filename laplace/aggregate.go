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

// aggregateSegment is the number of rows of one segment of the parallel
// aggregation passes (see aggregate): fixed, so that the aggregates do not
// depend on the number of threads.
var aggregateSegment = 64 * gsBlock

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
// Passes 1 and 2 run in parallel over fixed segments of aggregateSegment
// rows. In pass 1 an unknown with a strong neighbour in another segment is
// deferred, so that segments never touch each other's unknowns; the
// deferred ones (a few per cent) then get their turn in index order. Pass
// 2 only reads what pass 1 left. Unknowns without strong neighbours stay
// unaggregated (−1); the smoother alone handles them. Aggregates are
// numbered in the order of their first unknowns, so with a Hilbert vertex
// order they are compact and numbered along the curve, and the coarse
// matrix's blocks are compact too.
func aggregate[T float32 | float64](v *symMatrix[T], st *strength) ([]int32, int) {
	n := v.n
	first := make([]int32, n) // pass 1's aggregates, numbered within the segment until all segments are done
	for i := range first {
		first[i] = -1
	}
	segs := (n + aggregateSegment - 1) / aggregateSegment
	segRoots := make([][]int32, segs) // per segment, the unknowns that started its aggregates
	deferred := make([][]int32, segs)
	start := func(agg []int32, i int, buf *rowBuf, c int32) {
		agg[i] = c
		for k, j := range buf.col {
			if buf.strong[k] {
				agg[j] = c
			}
		}
	}
	forChunksWith(n, aggregateSegment, func() *rowBuf { return new(rowBuf) }, func(buf *rowBuf, lo, hi int) {
		var root, later []int32
		for i := lo; i < hi; i++ {
			if first[i] >= 0 {
				continue
			}
			v.row(i, buf, st)
			free, any, inside := true, false, true
			for k, j := range buf.col {
				if buf.strong[k] {
					any = true
					if int(j) < lo || int(j) >= hi {
						inside = false
					} else if first[j] >= 0 {
						free = false
						break
					}
				}
			}
			switch {
			case !any || !free:
			case !inside:
				later = append(later, int32(i))
			default:
				start(first, i, buf, int32(len(root)))
				root = append(root, int32(i))
			}
		}
		segRoots[lo/aggregateSegment], deferred[lo/aggregateSegment] = root, later
	})
	offset := make([]int32, segs)
	var root []int32 // root[c] is the unknown that started aggregate c
	for s, r := range segRoots {
		offset[s] = int32(len(root))
		root = append(root, r...)
	}
	forChunks(n, aggregateSegment, func(lo, hi int) {
		off := offset[lo/aggregateSegment]
		for i := lo; i < hi; i++ {
			if first[i] >= 0 {
				first[i] += off
			}
		}
	})
	var buf rowBuf
	for _, later := range deferred {
		for _, i := range later {
			if first[i] >= 0 {
				continue
			}
			v.row(int(i), &buf, st)
			free := true
			for k, j := range buf.col {
				if buf.strong[k] && first[j] >= 0 {
					free = false
					break
				}
			}
			if free {
				start(first, int(i), &buf, int32(len(root)))
				root = append(root, i)
			}
		}
	}
	// Pass 2: join the most strongly coupled pass-1 aggregate, reading
	// only pass 1's result, so that nobody joins through an unknown that
	// joined (aggregates stay within distance 2 of their root).
	agg := make([]int32, n)
	forChunksWith(n, aggregateSegment, func() *rowBuf { return new(rowBuf) }, func(buf *rowBuf, lo, hi int) {
		for i := lo; i < hi; i++ {
			agg[i] = first[i]
			if first[i] >= 0 {
				continue
			}
			v.row(i, buf, st)
			best, bestV := int32(-1), 0.0
			for k, j := range buf.col {
				if buf.strong[k] && first[j] >= 0 && math.Abs(buf.val[k]) > bestV {
					best, bestV = first[j], math.Abs(buf.val[k])
				}
			}
			agg[i] = best
		}
	})
	// Pass 3: leftovers aggregate with their free strong neighbours.
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
	// Renumber in the order of the roots.
	byRoot := make([]int32, len(root))
	for c := range byRoot {
		byRoot[c] = int32(c)
	}
	slices.SortFunc(byRoot, func(c, d int32) int { return int(root[c]) - int(root[d]) })
	renum := make([]int32, len(root))
	for k, c := range byRoot {
		renum[c] = int32(k)
	}
	forChunks(n, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if g := agg[i]; g >= 0 {
				agg[i] = renum[g]
			}
		}
	})
	return agg, len(root)
}
