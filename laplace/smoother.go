package laplace

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/par"
)

// The smoother is ℓ1 hybrid Gauss–Seidel (Baker, Falgout, Kolev & Yang,
// "Multigrid smoothers for ultraparallel computing", SISC 2011) on the
// blocks of a symMatrix: within a block it is Gauss–Seidel, between blocks
// Jacobi, and each row's diagonal is enlarged by the ℓ1 norm of its
// couplings to other blocks (its outer part). The enlargement makes the
// sweep convergent for any SPD matrix and any block size, so the block
// size can be fixed for determinism rather than tuned to the machine.
// Pre-smoothing sweeps forward, post-smoothing backward: the two are each
// other's transpose and the V-cycle stays a symmetric preconditioner for
// CG. A row stores its couplings to earlier rows of its block; in each
// sweep it gathers through them what it needs and pushes back what the
// earlier rows need, so each sweep reads the matrix once.

// l1InverseDiagonal returns ω/(a_ii + Σ_{j outside i's block} |a_ij|):
// the ℓ1 diagonal D_ℓ1 divided by an over-relaxation weight ω. The sweep
// with D_ℓ1/ω stays convergent in the energy norm for every ω < 2 (the
// V-cycle stays SPD): with M = D_ℓ1/ω + L, A = D + L + Lᵀ + O, the
// smoother converges when M + Mᵀ − A = (2/ω − 1)·D + (2/ω)·Δ − O is
// positive definite, Δ the diagonal of the outer couplings' |a_ij| row
// sums, and (2/ω)·Δ − O is diagonally dominant for ω ≤ 2. ℓ1 diagonals
// over-damp: ω = 1.2 on the finest level and 1.4 below took 15 to 13 CG
// iterations at 10⁶ unknowns (see smoothWeight).
func l1InverseDiagonal[T float32 | float64](a *symMatrix[T], omega float64) []float32 {
	inv := make([]float32, a.n)
	par.For(a.n, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := float64(a.diag[i])
			for _, v := range a.outVal[a.outPtr[i]:a.outPtr[i+1]] {
				d += math.Abs(float64(v))
			}
			inv[i] = float32(omega / d)
		}
	})
	return inv
}

// forwardFromZero sets x to one forward sweep for A x = b from x = 0 and
// r to the residual b − A x. From a zero start the couplings to other
// blocks drop out of the sweep: row i gathers b_i − Σ_{j<i} a_ij x_j over
// its block, and once x_i is known pushes a_ij x_i into the residuals of
// those earlier rows, which are otherwise complete. The residual's outer
// couplings follow when all blocks are done.
func (a *symMatrix[T]) forwardFromZero(x, r, b []float64, invL1 []float32) {
	a.updateForwardFromZero(x, r, b, invL1, nil, 0, nil)
}

// updateForwardFromZero is forwardFromZero that first updates b: with q
// non-nil, each b_i is replaced by b_i − α·q_i as the sweep reaches it
// (CG's residual update, saving a pass over b and q), and bb[k] is set to
// b·b over block k.
func (a *symMatrix[T]) updateForwardFromZero(x, r, b []float64, invL1 []float32, q []float64, alpha float64, bb []float64) {
	par.For(a.n, gsBlock, func(lo, hi int) {
		xb, rb := x[lo:hi], r[lo:hi]
		var ss float64
		for i := lo; i < hi; i++ {
			li := i - lo
			k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
			cols, vals := a.lowCol[k0:k1], a.lowVal[k0:k1]
			vals = vals[:len(cols)]
			s := b[i]
			if q != nil {
				s -= alpha * q[i]
				b[i] = s
				ss += s * s
			}
			for k, j := range cols {
				s -= float64(vals[k]) * xb[j]
			}
			xi := s * float64(invL1[i])
			xb[li] = xi
			rb[li] = s - float64(a.diag[i])*xi
			for k, j := range cols {
				rb[j] -= float64(vals[k]) * xi
			}
		}
		if q != nil {
			bb[lo/gsBlock] = ss
		}
	})
	par.For(a.n, gsBlock, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			o0, o1 := a.outPtr[i], a.outPtr[i+1]
			cols, vals := a.outCol[o0:o1], a.outVal[o0:o1]
			vals = vals[:len(cols)]
			var s float64
			for k, j := range cols {
				s += float64(vals[k]) * x[j]
			}
			r[i] -= s
		}
	})
}

// backward does one backward sweep from old (which x must not alias):
// rows from the end of each block, row i taking later rows of the block
// at their new values and everything else at old. Row i gathers the old
// values of its earlier rows and pushes its new value into them; x holds
// those pushes until each row overwrites its own.
//
// With az non-nil it also sets az to A·x, less the couplings to other
// blocks applied to x (which the other blocks are still computing): the
// sweep solved (D_ℓ1 + U) δ = b − A·old for x = old + δ, U the couplings
// to later rows of the block, so A·x = b − (D_ℓ1 − D) δ + L δ + O x − O
// old, where L and O are the couplings each row stores (earlier rows of
// its block, other blocks). O·old is the sweep's own gather and L δ is
// formed while the block is in cache; the caller adds O·x.
//
// With bx non-nil it also sets bx[k] to b·x over block k while the block
// is in cache (CG's r·z, saving a pass over both).
func (a *symMatrix[T]) backward(x, old, b []float64, invL1 []float32, az, bx []float64) {
	par.For(a.n, gsBlock, func(lo, hi int) {
		xb, ob := x[lo:hi], old[lo:hi]
		clear(xb)
		for i := hi - 1; i >= lo; i-- {
			li := i - lo
			oi := ob[li]
			s := b[i] - xb[li] - float64(a.diag[i])*oi
			k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
			cols, vals := a.lowCol[k0:k1], a.lowVal[k0:k1]
			vals = vals[:len(cols)]
			for k, j := range cols {
				s -= float64(vals[k]) * ob[j]
			}
			o0, o1 := a.outPtr[i], a.outPtr[i+1]
			oc, ov := a.outCol[o0:o1], a.outVal[o0:o1]
			ov = ov[:len(oc)]
			var g float64
			for k, j := range oc {
				g += float64(ov[k]) * old[j]
			}
			inv := float64(invL1[i])
			d := (s - g) * inv
			xi := oi + d
			xb[li] = xi
			for k, j := range cols {
				xb[j] += float64(vals[k]) * xi
			}
			if az != nil {
				az[i] = b[i] - (1/inv-float64(a.diag[i]))*d - g
			}
		}
		if bx != nil {
			bx[lo/gsBlock] = dotRange(b, x, lo, hi)
		}
		if az == nil {
			return
		}
		for i := lo; i < hi; i++ {
			k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
			cols, vals := a.lowCol[k0:k1], a.lowVal[k0:k1]
			vals = vals[:len(cols)]
			var s float64
			for k, j := range cols {
				s += float64(vals[k]) * (xb[j] - ob[j])
			}
			az[i] += s
		}
	})
}

// forward is backward's mirror image: rows from the start of each block,
// row i taking earlier rows at their new values. It forms the residual
// b − A·old, then solves for the correction δ with the lower part alone:
// x = old + δ, (D_ℓ1 + L) δ = b − A·old.
func (a *symMatrix[T]) forward(x, old, b []float64, invL1 []float32) {
	par.For(a.n, gsBlock, func(lo, hi int) {
		xb, ob := x[lo:hi], old[lo:hi]
		a.blockResidual(xb, old, b, lo, hi)
		for i := lo; i < hi; i++ {
			li := i - lo
			k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
			cols, vals := a.lowCol[k0:k1], a.lowVal[k0:k1]
			vals = vals[:len(cols)]
			s := xb[li]
			for k, j := range cols {
				s -= float64(vals[k]) * xb[j]
			}
			xb[li] = s * float64(invL1[i])
		}
		for k, o := range ob {
			xb[k] += o
		}
	})
}
