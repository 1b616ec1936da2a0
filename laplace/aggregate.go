package laplace

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/par"
)

// strongGraph lists the strong couplings of each row of a symMatrix (see
// strongCouplings) with their values, and each row's filtered diagonal:
// a_ii plus the row's weak couplings, lumped, or a_ii alone if that sum is
// not positive. Aggregation and the prolongator read only these, so they
// neither gather whole rows nor look at weak couplings again. Values are
// float32: they only shape P, which is stored in float32.
type strongGraph struct {
	ptr  []int32 // row i's strong couplings are col/val[ptr[i]:ptr[i+1]]
	col  []int32
	val  []float32
	diag []float64
	rho  float64 // Gershgorin bound on the spectral radius of D⁻¹A_F: max_i (d_i + Σ_strong |a_ij|)/d_i
}

// row returns the strong couplings of row i.
func (g *strongGraph) row(i int) ([]int32, []float32) {
	k0, k1 := g.ptr[i], g.ptr[i+1]
	return g.col[k0:k1], g.val[k0:k1]
}

// strongCouplings returns the graph of the couplings a_ij, i ≠ j, with
// −a_ij ≥ θ·√(a_ii·a_jj). Positive off-diagonal entries (from obtuse
// dihedral angles) are never strong: aggregating across them would put
// unknowns that pull in opposite directions into one coarse unknown.
// Two passes over the matrix's blocks, each on its own rows: a pair
// within a block is stored once and entered in both its rows there, an
// outer pair is stored in both rows. Row i lists its outer couplings, then
// those to earlier rows of its block, then those to later rows, each in
// column order.
func strongCouplings[T float32 | float64](a *symMatrix[T], theta float64) (*strongGraph, error) {
	n := a.n
	isd := a.diagonal()
	for i, d := range isd {
		isd[i] = 1 / math.Sqrt(d)
	}
	// isd[i]·isd[j] is commutative, so the flag of a pair does not depend
	// on the row it is computed in. (Written out below: a closure would not
	// be inlined in this generic function.)
	g := &strongGraph{ptr: make([]int32, n+1), diag: make([]float64, n)}
	count, weak := g.ptr[1:], g.diag // weak sums first, then the filtered diagonal
	strongSum := make([]float64, n)  // Σ_strong |a_ij| = −Σ_strong a_ij
	rho := make([]float64, numChunks(n))
	par.For(n, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k := a.lowPtr[i]; k < a.lowPtr[i+1]; k++ {
				j := lo + int(a.lowCol[k])
				if x := a.lowVal[k]; -float64(x)*(isd[i]*isd[j]) >= theta {
					count[i]++
					count[j]++
					strongSum[i] -= float64(x)
					strongSum[j] -= float64(x)
				} else {
					weak[i] += float64(x)
					weak[j] += float64(x)
				}
			}
			for k := a.outPtr[i]; k < a.outPtr[i+1]; k++ {
				if x := a.outVal[k]; -float64(x)*(isd[i]*isd[a.outCol[k]]) >= theta {
					count[i]++
					strongSum[i] -= float64(x)
				} else {
					weak[i] += float64(x)
				}
			}
		}
		r := 0.0
		for i := lo; i < hi; i++ {
			d := float64(a.diag[i])
			if f := d + weak[i]; f > 0 {
				d = f
			}
			g.diag[i] = d
			r = max(r, (d+strongSum[i])/d)
		}
		rho[lo/gsBlock] = r
	})
	g.rho = slices.Max(rho)
	total := 0
	for i := range n {
		c := int(g.ptr[i+1])
		g.ptr[i+1] = int32(total) // row i's start, the cursor while filling
		if total += c; total > math.MaxInt32 {
			return nil, errTooLarge
		}
	}
	g.col, g.val = make([]int32, total), make([]float32, total)
	// ptr[i+1] is row i's next free place; once the row is filled it is
	// the row's end, as it should be.
	cursor, col, val := g.ptr[1:], g.col, g.val
	par.For(n, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			ci := cursor[i]
			for k := a.outPtr[i]; k < a.outPtr[i+1]; k++ {
				if j, x := a.outCol[k], a.outVal[k]; -float64(x)*(isd[i]*isd[j]) >= theta {
					col[ci], val[ci] = j, float32(x)
					ci++
				}
			}
			for k := a.lowPtr[i]; k < a.lowPtr[i+1]; k++ {
				if j, x := lo+int(a.lowCol[k]), a.lowVal[k]; -float64(x)*(isd[i]*isd[j]) >= theta {
					col[ci], val[ci] = int32(j), float32(x)
					ci++
					cj := cursor[j]
					col[cj], val[cj] = int32(i), float32(x)
					cursor[j] = cj + 1
				}
			}
			cursor[i] = ci
		}
	})
	return g, nil
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
func aggregate(g *strongGraph) ([]int32, int) {
	n := len(g.diag)
	first := make([]int32, n) // pass 1's aggregates, numbered within the segment until all segments are done
	for i := range first {
		first[i] = -1
	}
	segs := (n + aggregateSegment - 1) / aggregateSegment
	segRoots := make([][]int32, segs) // per segment, the unknowns that started its aggregates
	deferred := make([][]int32, segs)
	start := func(agg []int32, i int, c int32) {
		agg[i] = c
		cols, _ := g.row(i)
		for _, j := range cols {
			agg[j] = c
		}
	}
	par.For(n, aggregateSegment, func(lo, hi int) {
		var root, later []int32
		for i := lo; i < hi; i++ {
			if first[i] >= 0 {
				continue
			}
			cols, _ := g.row(i)
			free, inside := true, true
			for _, j := range cols {
				if int(j) < lo || int(j) >= hi {
					inside = false
				} else if first[j] >= 0 {
					free = false
					break
				}
			}
			switch {
			case len(cols) == 0 || !free:
			case !inside:
				later = append(later, int32(i))
			default:
				start(first, i, int32(len(root)))
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
	par.For(n, aggregateSegment, func(lo, hi int) {
		off := offset[lo/aggregateSegment]
		for i := lo; i < hi; i++ {
			if first[i] >= 0 {
				first[i] += off
			}
		}
	})
	for _, later := range deferred {
		for _, i := range later {
			if first[i] >= 0 {
				continue
			}
			cols, _ := g.row(int(i))
			free := true
			for _, j := range cols {
				if first[j] >= 0 {
					free = false
					break
				}
			}
			if free {
				start(first, int(i), int32(len(root)))
				root = append(root, i)
			}
		}
	}
	// Pass 2: join the most strongly coupled pass-1 aggregate, reading
	// only pass 1's result, so that nobody joins through an unknown that
	// joined (aggregates stay within distance 2 of their root).
	agg := make([]int32, n)
	par.For(n, aggregateSegment, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			agg[i] = first[i]
			if first[i] >= 0 {
				continue
			}
			cols, vals := g.row(i)
			vals = vals[:len(cols)]
			best, bestV := int32(-1), float32(0)
			for k, j := range cols {
				if v := -vals[k]; first[j] >= 0 && v > bestV { // strong couplings are negative
					best, bestV = first[j], v
				}
			}
			agg[i] = best
		}
	})
	// Pass 3: leftovers aggregate with their free strong neighbours.
	for i := 0; i < n; i++ {
		cols, _ := g.row(i)
		if agg[i] >= 0 || len(cols) == 0 {
			continue
		}
		c := int32(len(root))
		root = append(root, int32(i))
		agg[i] = c
		for _, j := range cols {
			if agg[j] < 0 {
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
	par.For(n, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if g := agg[i]; g >= 0 {
				agg[i] = renum[g]
			}
		}
	})
	return agg, len(root)
}
