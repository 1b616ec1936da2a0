package laplace

import "math"

// The smoother is ℓ1 hybrid Gauss–Seidel (Baker, Falgout, Kolev & Yang,
// "Multigrid smoothers for ultraparallel computing", SISC 2011): rows are
// cut into fixed blocks of gsBlock rows; within a block it is Gauss–Seidel,
// between blocks Jacobi, and each row's diagonal is enlarged by the ℓ1 norm
// of its couplings to other blocks. The enlargement makes the sweep
// convergent for any SPD matrix and any block size, so the block size can
// be fixed for determinism rather than tuned to the machine. Pre-smoothing
// sweeps forward, post-smoothing backward: the two are each other's
// transpose and the V-cycle stays a symmetric preconditioner for CG.

// l1InverseDiagonal returns 1/(a_ii + Σ_{j outside i's block} |a_ij|).
func l1InverseDiagonal(a *csr[float64]) []float64 {
	inv := make([]float64, a.rows)
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			var d float64
			for k, j := range cols {
				switch {
				case int(j) == i:
					d += vals[k]
				case int(j) < lo || int(j) >= hi:
					d += math.Abs(vals[k])
				}
			}
			inv[i] = 1 / d
		}
	})
	return inv
}

// forwardFromZero sets x to one forward sweep for A x = b from x = 0.
// Couplings to other blocks see the zero start and drop out, and so do the
// not yet updated rows of the block, leaving the strictly lower part of
// the block: in a sorted row, the entries with lo ≤ j < i.
func (a *csr[T]) forwardFromZero(x, b, invL1 []float64) {
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			vals = vals[:len(cols)]
			k := 0
			for k < len(cols) && int(cols[k]) < lo {
				k++
			}
			s := b[i]
			for ; k < len(cols) && int(cols[k]) < i; k++ {
				s -= float64(vals[k]) * x[cols[k]]
			}
			x[i] = s * invL1[i]
		}
	})
}

// backward does one backward sweep on x, each block's rows in reverse
// order. old must hold a copy of x: rows of other blocks, which may be
// changing concurrently, and rows of this block not yet updated are read
// from it, so the result does not depend on the order in which blocks run.
func (a *csr[T]) backward(x, old, b, invL1 []float64) {
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := hi - 1; i >= lo; i-- {
			cols, vals := a.row(i)
			vals = vals[:len(cols)]
			s := b[i]
			k := 0
			for ; k < len(cols) && int(cols[k]) <= i; k++ { // j ≤ i: not yet updated
				s -= float64(vals[k]) * old[cols[k]]
			}
			for ; k < len(cols) && int(cols[k]) < hi; k++ { // updated rows of the block
				s -= float64(vals[k]) * x[cols[k]]
			}
			for ; k < len(cols); k++ { // other blocks
				s -= float64(vals[k]) * old[cols[k]]
			}
			x[i] = old[i] + s*invL1[i]
		}
	})
}

// forward is backward's mirror image: rows in increasing order, updated
// rows of the block below i.
func (a *csr[T]) forward(x, old, b, invL1 []float64) {
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			vals = vals[:len(cols)]
			s := b[i]
			k := 0
			for ; k < len(cols) && int(cols[k]) < lo; k++ { // other blocks
				s -= float64(vals[k]) * old[cols[k]]
			}
			for ; k < len(cols) && int(cols[k]) < i; k++ { // updated rows of the block
				s -= float64(vals[k]) * x[cols[k]]
			}
			for ; k < len(cols); k++ { // j ≥ i: not yet updated, or other blocks
				s -= float64(vals[k]) * old[cols[k]]
			}
			x[i] = old[i] + s*invL1[i]
		}
	})
}
