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
// not yet updated rows of the block, leaving the strictly lower part.
func (a *csr[T]) forwardFromZero(x, b, invL1 []float64) {
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			vals = vals[:len(cols)]
			s := b[i]
			for k, j := range cols {
				if int(j) >= i {
					break
				}
				if int(j) >= lo {
					s -= float64(vals[k]) * x[j]
				}
			}
			x[i] = s * invL1[i]
		}
	})
}

// forward does one forward sweep on x; old must hold a copy of x, from
// which couplings to other blocks are read so that the result does not
// depend on the order in which blocks run.
func (a *csr[T]) forward(x, old, b, invL1 []float64) {
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x[i] += a.blockResidual(i, lo, hi, x, old, b) * invL1[i]
		}
	})
}

// backward is forward with the rows of each block in reverse order.
func (a *csr[T]) backward(x, old, b, invL1 []float64) {
	forChunks(a.rows, gsBlock, func(lo, hi int) {
		for i := hi - 1; i >= lo; i-- {
			x[i] += a.blockResidual(i, lo, hi, x, old, b) * invL1[i]
		}
	})
}

// blockResidual returns b_i − Σ_j a_ij·x̂_j with x̂ = x inside [lo, hi) and
// x̂ = old outside.
func (a *csr[T]) blockResidual(i, lo, hi int, x, old, b []float64) float64 {
	cols, vals := a.row(i)
	vals = vals[:len(cols)]
	s := b[i]
	for k, j := range cols {
		v := float64(vals[k])
		if int(j) >= lo && int(j) < hi {
			s -= v * x[j]
		} else {
			s -= v * old[j]
		}
	}
	return s
}
