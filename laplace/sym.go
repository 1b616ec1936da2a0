package laplace

import (
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/par"
)

// symMatrix is a symmetric sparse matrix stored for block-parallel work.
// Rows are cut into blocks of gsBlock consecutive rows — the smoother's
// blocks and the unit of parallel work — and each row keeps
//   - its diagonal entry;
//   - its couplings to earlier rows of its own block ("lower"), with
//     columns as 16-bit offsets from the block's first row: each such
//     pair is stored once;
//   - its couplings to rows of other blocks ("outer"), with 32-bit
//     columns: each such pair is stored in both rows.
//
// Each part is sorted by column. On a mesh numbered along a Hilbert curve
// about 89% of the pairs lie within a block, so this takes 56% of the
// memory of CSR with 32-bit columns. A row's couplings to later rows of
// its block are applied by those rows: they gather from the earlier rows
// and, in the same pass, push into them. Every operation so stays local to
// a block, and its result does not depend on which goroutine runs it.
type symMatrix[T float32 | float64] struct {
	n      int
	diag   []T
	lowPtr []int32 // row i's lower couplings are lowCol/lowVal[lowPtr[i]:lowPtr[i+1]]
	lowCol []uint16
	lowVal []T
	outPtr []int32 // row i's outer couplings are outCol/outVal[outPtr[i]:outPtr[i+1]]
	outCol []int32
	outVal []T
}

// blockOf returns the block [lo, hi) holding row i of an n-row matrix.
func blockOf(i, n int) (lo, hi int) {
	lo = i / gsBlock * gsBlock
	return lo, min(lo+gsBlock, n)
}

// nnz returns the number of nonzeros of the full matrix.
func (a *symMatrix[T]) nnz() int { return a.n + 2*len(a.lowCol) + len(a.outCol) }

// diagonal returns the diagonal in float64.
func (a *symMatrix[T]) diagonal() []float64 {
	d := make([]float64, a.n)
	for i, v := range a.diag {
		d[i] = float64(v)
	}
	return d
}

// errTooLarge reports a matrix whose parts exceed the 32-bit offsets.
var errTooLarge = fmt.Errorf("laplace: system too large: more than %d stored couplings", math.MaxInt32)

// buildSym builds a symmetric matrix from its rows in two parallel passes
// over the blocks. count(s, i) returns how many entries of row i lie in
// its lower and outer parts; row(s, i) returns the whole row, sorted by
// column, whose upper in-block entries are dropped (the caller guarantees
// symmetry). s is per-goroutine scratch made by init. A row without a
// diagonal entry gets 0.
func buildSym[S any, T float32 | float64](n int, init func() S, count func(s S, i int) (low, out int), row func(s S, i int) ([]int32, []float64)) (symMatrix[T], error) {
	a := symMatrix[T]{n: n, diag: make([]T, n), lowPtr: make([]int32, n+1), outPtr: make([]int32, n+1)}
	par.ForWith(n, gsBlock, init, func(s S, lo, hi int) {
		for i := lo; i < hi; i++ {
			l, o := count(s, i) // at most n each
			a.lowPtr[i+1], a.outPtr[i+1] = int32(l), int32(o)
		}
	})
	if err := a.prefixSums(); err != nil {
		return symMatrix[T]{}, err
	}
	par.ForWith(n, gsBlock, init, func(s S, lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := row(s, i)
			vals = vals[:len(cols)]
			kl, ko := a.lowPtr[i], a.outPtr[i]
			for k, j := range cols {
				switch {
				case int(j) == i:
					a.diag[i] = T(vals[k])
				case int(j) < lo || int(j) >= hi:
					a.outCol[ko], a.outVal[ko] = j, T(vals[k])
					ko++
				case int(j) < i:
					a.lowCol[kl], a.lowVal[kl] = uint16(int(j)-lo), T(vals[k])
					kl++
				}
			}
		}
	})
	return a, nil
}

// prefixSums turns the per-row counts in lowPtr and outPtr into offsets
// and allocates the parts.
func (a *symMatrix[T]) prefixSums() error {
	var nl, no int
	for i := 0; i < a.n; i++ {
		nl += int(a.lowPtr[i+1])
		no += int(a.outPtr[i+1])
		if nl > math.MaxInt32 || no > math.MaxInt32 {
			return errTooLarge
		}
		a.lowPtr[i+1], a.outPtr[i+1] = int32(nl), int32(no)
	}
	a.lowCol, a.lowVal = make([]uint16, nl), make([]T, nl)
	a.outCol, a.outVal = make([]int32, no), make([]T, no)
	return nil
}

// splitCounts returns how many of the columns of row i (of an n-row
// matrix) fall in its lower and outer parts.
func splitCounts(cols []int32, i, n int) (low, out int) {
	lo, hi := blockOf(i, n)
	for _, j := range cols {
		switch {
		case int(j) < lo || int(j) >= hi:
			out++
		case int(j) < i:
			low++
		}
	}
	return low, out
}

// rowSource is a matrix read row by row, rows sorted by column.
type rowSource interface {
	numRows() int
	row(i int) ([]int32, []float64)
}

// symFromLower builds the symmetric matrix whose lower triangle and
// diagonal are the rows of l (each sorted, ending at the diagonal). The
// outer couplings above the diagonal are l's outer couplings below it,
// transposed: row j receives them from the later rows in increasing
// order, after its own, so its outer part comes out sorted.
//
// With drop > 0 the couplings with |a_ij| < drop·√(a_ii·a_jj) are left
// out and added to both diagonals, a_ii += a_ij and a_jj += a_ij: that
// keeps every row sum, and so the action on constants (the near-kernel
// the next aggregation relies on). Should that take some diagonal below
// half its value, nothing is dropped. (The change, a_ij·(e_i − e_j)(e_i −
// e_j)ᵀ per pair, is positive semidefinite for positive a_ij; for the
// small negative ones it subtracts a sliver of the energy the kept
// couplings carry, which can not be bounded locally — the solver checks
// CG for breakdown instead.) Dropping reorders the entries of l's rows.
func symFromLower[T float32 | float64](l rowSource, drop float64) (symMatrix[T], error) {
	n := l.numRows()
	var d, lumped []float64 // with drop > 0: the diagonal, and with the dropped couplings added
	if drop > 0 {
		d = markDropped(l, drop)
		lumped = slices.Clone(d)
	}
	a := symMatrix[T]{n: n, diag: make([]T, n), lowPtr: make([]int32, n+1), outPtr: make([]int32, n+1)}
	for i := 0; i < n; i++ {
		lo, _ := blockOf(i, n)
		cols, vals := l.row(i)
		for k, j := range cols {
			switch {
			case j < 0: // dropped
				j &^= droppedBit
				lumped[i] += vals[k]
				lumped[j] += vals[k]
			case int(j) < lo:
				a.outPtr[i+1]++
				a.outPtr[j+1]++
			case int(j) < i:
				a.lowPtr[i+1]++
			}
		}
	}
	if lumped != nil {
		for i := 0; i < n; i++ {
			if !(lumped[i] >= d[i]/2) {
				// Too much would be lumped: drop nothing.
				par.For(n, rowChunk, func(lo, hi int) {
					for i := lo; i < hi; i++ {
						cols, vals := l.row(i)
						for k := range cols {
							cols[k] &^= droppedBit
						}
						sortRow(cols, vals)
					}
				})
				return symFromLower[T](l, 0)
			}
		}
	}
	if err := a.prefixSums(); err != nil {
		return symMatrix[T]{}, err
	}
	fill := make([]int32, n)
	copy(fill, a.outPtr[:n])
	for i := 0; i < n; i++ {
		lo, _ := blockOf(i, n)
		cols, vals := l.row(i)
		kl := a.lowPtr[i]
		for k, j := range cols {
			v := T(vals[k])
			switch {
			case j < 0:
			case int(j) == i:
				a.diag[i] = v
				if lumped != nil {
					a.diag[i] = T(lumped[i])
				}
			case int(j) < lo:
				a.outCol[fill[i]], a.outVal[fill[i]] = j, v
				fill[i]++
				a.outCol[fill[j]], a.outVal[fill[j]] = int32(i), v
				fill[j]++
			default:
				a.lowCol[kl], a.lowVal[kl] = uint16(int(j)-lo), v
				kl++
			}
		}
	}
	return a, nil
}

// droppedBit marks a column of a rowSource as dropped (see markDropped).
const droppedBit = -1 << 31

// markDropped moves the couplings of l with a_ij² < drop²·a_ii·a_jj to
// the end of their rows, after the diagonal, with droppedBit set on their
// columns (the rest keep their order), in parallel over rows — each
// decides its own entries — and returns the diagonal. Kept and dropped
// couplings then come in runs, not at random, for symFromLower's
// branches.
func markDropped(l rowSource, drop float64) []float64 {
	n := l.numRows()
	d := make([]float64, n)
	par.For(n, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			_, vals := l.row(i)
			d[i] = vals[len(vals)-1]
		}
	})
	d2 := drop * drop
	par.ForWith(n, rowChunk, func() *rowSink[float64] { return &rowSink[float64]{} }, func(out *rowSink[float64], lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := l.row(i)
			last := len(cols) - 1
			vals = vals[:len(cols)]
			di := d2 * d[i]
			out.col, out.val = out.col[:0], out.val[:0]
			w := 0
			for k, j := range cols[:last] {
				if v := vals[k]; v*v < di*d[j] {
					out.col = append(out.col, j|droppedBit)
					out.val = append(out.val, v)
				} else {
					cols[w], vals[w] = j, v
					w++
				}
			}
			cols[w], vals[w] = cols[last], vals[last]
			copy(cols[w+1:], out.col)
			copy(vals[w+1:], out.val)
		}
	})
	return d
}

// sortRow sorts a row's entries by column (insertion sort: rows are short
// and here made of two sorted runs).
func sortRow(cols []int32, vals []float64) {
	for i := 1; i < len(cols); i++ {
		c, v := cols[i], vals[i]
		j := i
		for ; j > 0 && cols[j-1] > c; j-- {
			cols[j], vals[j] = cols[j-1], vals[j-1]
		}
		cols[j], vals[j] = c, v
	}
}

// mulVecDot sets y = A x and returns x·y, summed in block order. Rows run
// from the end of each block, so that when row i is reached the later
// rows have pushed their couplings to it and y_i is complete.
func (a *symMatrix[T]) mulVecDot(y, x, partial []float64) float64 {
	return sumChunks(a.n, partial, func(lo, hi int) float64 {
		yb, xb := y[lo:hi], x[lo:hi]
		clear(yb)
		var dot float64
		for i := hi - 1; i >= lo; i-- {
			li := i - lo
			xi := xb[li]
			s := yb[li] + float64(a.diag[i])*xi
			k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
			cols, vals := a.lowCol[k0:k1], a.lowVal[k0:k1]
			vals = vals[:len(cols)]
			for k, j := range cols {
				v := float64(vals[k])
				s += v * xb[j]
				yb[j] += v * xi
			}
			o0, o1 := a.outPtr[i], a.outPtr[i+1]
			oc, ov := a.outCol[o0:o1], a.outVal[o0:o1]
			ov = ov[:len(oc)]
			for k, j := range oc {
				s += float64(ov[k]) * x[j]
			}
			yb[li] = s
			dot += s * xi
		}
		return dot
	})
}

// residual sets r = b − A x.
func (a *symMatrix[T]) residual(r, b, x []float64) {
	par.For(a.n, gsBlock, func(lo, hi int) { a.blockResidual(r[lo:hi], x, b, lo, hi) })
}

// blockResidual sets rb = b − A x over the rows [lo, hi) of a block.
func (a *symMatrix[T]) blockResidual(rb, x, b []float64, lo, hi int) {
	xb := x[lo:hi]
	copy(rb, b[lo:hi])
	for i := hi - 1; i >= lo; i-- {
		li := i - lo
		xi := xb[li]
		s := rb[li] - float64(a.diag[i])*xi
		k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
		cols, vals := a.lowCol[k0:k1], a.lowVal[k0:k1]
		vals = vals[:len(cols)]
		for k, j := range cols {
			v := float64(vals[k])
			s -= v * xb[j]
			rb[j] -= v * xi
		}
		o0, o1 := a.outPtr[i], a.outPtr[i+1]
		oc, ov := a.outCol[o0:o1], a.outVal[o0:o1]
		ov = ov[:len(oc)]
		for k, j := range oc {
			s -= float64(ov[k]) * x[j]
		}
		rb[li] = s
	}
}

// rowBuf gathers whole rows of a symMatrix: columns and values. A row's
// couplings to later rows of its block are read through an index of the
// matrix (see upperIndex), made when the buffer first reads from it.
type rowBuf struct {
	col []int32
	val []float64

	src any // the matrix indexed by up
	up  upperIndex
}

// upperIndex lists, for each row of a symMatrix, its couplings to later
// rows of its block, which only those rows store: row i's are at[k], k in
// [ptr[i], ptr[i+1]), in increasing order of the later row. It lets the
// Galerkin product read a row's upper couplings where they are, instead of
// copying out the rest of the block for each of the few rows a chunk may
// need there (which scanned 4.8× the couplings). The pairs of a block are
// its lower couplings, so its entries take the same range as those, and
// the blocks are indexed independently.
type upperIndex struct {
	ptr []int32
	at  []upperAt
}

// upperAt locates a coupling to a later row: the row, as an offset from
// the block's start, and the coupling's place among its lower couplings
// (both < gsBlock).
type upperAt struct{ row, k uint16 }

// upperIndexOf indexes the upper couplings of a, in parallel over its
// blocks.
func upperIndexOf[T float32 | float64](a *symMatrix[T]) upperIndex {
	u := upperIndex{ptr: make([]int32, a.n+1), at: make([]upperAt, len(a.lowCol))}
	par.For(a.n, gsBlock, func(lo, hi int) {
		// A lower coupling's column is at most hi−lo−2 (the last row of a
		// block has no upper couplings), so a block writes only
		// ptr[lo+1:hi+1]: ptr[lo+c+2] first counts row lo+c's couplings,
		// then ptr[lo+c+1] is its cursor, which ends at its end.
		k0, k1 := a.lowPtr[lo], a.lowPtr[hi]
		for _, c := range a.lowCol[k0:k1] {
			u.ptr[lo+int(c)+2]++
		}
		u.ptr[lo+1] = k0
		for i := lo + 2; i <= hi; i++ {
			u.ptr[i] += u.ptr[i-1]
		}
		for r := lo + 1; r < hi; r++ {
			l0 := a.lowPtr[r]
			for k, c := range a.lowCol[l0:a.lowPtr[r+1]] {
				cur := &u.ptr[lo+int(c)+1]
				u.at[*cur] = upperAt{uint16(r - lo), uint16(k)}
				*cur++
			}
		}
	})
	return u
}

// row gathers row i, sorted by column, into buf (diagonal included).
func (a *symMatrix[T]) row(i int, buf *rowBuf) {
	if buf.src != any(a) {
		buf.src, buf.up = a, upperIndexOf(a)
	}
	lo := i / gsBlock * gsBlock
	o0, o1 := int(a.outPtr[i]), int(a.outPtr[i+1])
	l0, l1 := int(a.lowPtr[i]), int(a.lowPtr[i+1])
	u0, u1 := int(buf.up.ptr[i]), int(buf.up.ptr[i+1])
	oc, ov := a.outCol[o0:o1], a.outVal[o0:o1]
	ov = ov[:len(oc)]
	split := 0 // outer couplings to earlier blocks come first
	for split < len(oc) && int(oc[split]) < lo {
		split++
	}
	size := o1 - o0 + l1 - l0 + 1 + u1 - u0
	buf.col = slices.Grow(buf.col[:0], size)[:size]
	buf.val = slices.Grow(buf.val[:0], size)[:size]
	cols, vals := buf.col, buf.val[:size]
	m := copy(cols, oc[:split])
	for k, x := range ov[:split] {
		vals[k] = float64(x)
	}
	lc, lv := a.lowCol[l0:l1], a.lowVal[l0:l1]
	lv = lv[:len(lc)]
	for k, j := range lc {
		cols[m], vals[m] = int32(lo+int(j)), float64(lv[k])
		m++
	}
	cols[m], vals[m] = int32(i), float64(a.diag[i])
	m++
	for _, u := range buf.up.at[u0:u1] {
		j := lo + int(u.row)
		cols[m], vals[m] = int32(j), float64(a.lowVal[a.lowPtr[j]+int32(u.k)])
		m++
	}
	copy(cols[m:], oc[split:])
	for k, x := range ov[split:] {
		vals[m+k] = float64(x)
	}
}
