package laplace

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/par"
)

// preconditioner applies z = B r with B symmetric positive definite.
type preconditioner interface {
	apply(z, r []float64)
}

// jacobi is B = D⁻¹.
type jacobi struct{ inv []float64 }

func (j jacobi) apply(z, r []float64) {
	par.For(len(r), rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			z[i] = r[i] * j.inv[i]
		}
	})
}

// cgWork holds the vectors of PCG.
type cgWork struct{ r, z, p, q, partial []float64 }

func newCGWork(n int) *cgWork {
	return &cgWork{make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, numChunks(n))}
}

// cgResult reports a PCG run.
type cgResult struct {
	iterations int
	residual   float64 // ‖b − A x‖/‖b‖, recomputed from x at the end
	converged  bool
}

// fusedStepper is a preconditioner that CG's vector updates can ride on,
// saving passes over the vectors (see amg): startApply sets r −= α·q,
// returns r·r and begins z = B r; finishApply completes it and returns
// r·z; updateDirections then sets x += αp, p = z + βp and q = A z + βq
// (without a product with A) and returns p·q.
type fusedStepper interface {
	preconditioner
	startApply(z, r, q []float64, alpha float64, partial []float64) float64
	finishApply(z, r, partial []float64) float64
	updateDirections(p, q, z, x []float64, alpha, beta float64, partial []float64) float64
}

// pcg solves A x = b by preconditioned conjugate gradients from the x it
// is given, until ‖b − A x‖ ≤ tol·‖b‖ or maxIter iterations. The residual
// CG updates drifts from the true one over many iterations, so when the
// updated residual reaches the tolerance the true residual is recomputed
// and, if it is still too large, CG restarts from there. CG stops early,
// not converged, if r·z or p·Ap is not positive: then A or the
// preconditioner is not positive definite.
func pcg(a *symMatrix[float64], b, x []float64, prec preconditioner, w *cgWork, tol float64, maxIter int, progress func(float64)) cgResult {
	n := a.n
	r, z, p, q, partial := w.r, w.z, w.p, w.q, w.partial
	bnorm := math.Sqrt(dot(b, b, partial))
	if bnorm == 0 {
		clear(x)
		return cgResult{converged: true}
	}
	fs, _ := prec.(fusedStepper)
	a.residual(r, b, x)
	res := math.Sqrt(dot(r, r, partial)) / bnorm
	it := 0
	for restarts := 0; res > tol && it < maxIter && restarts < 5; restarts++ {
		prec.apply(z, r)
		copyVec(p, z)
		rz := dot(r, z, partial)
		pq := a.mulVecDot(q, p, partial)
		for it < maxIter {
			if !(rz > 0 && pq > 0) {
				return cgResult{iterations: it, residual: res, converged: false}
			}
			it++
			alpha := rz / pq
			if fs != nil {
				// x += αp is put off to updateDirections.
				res = math.Sqrt(fs.startApply(z, r, q, alpha, partial)) / bnorm
				if progress != nil {
					progress(res)
				}
				if res <= tol {
					axpy(x, alpha, p)
					break
				}
				rzNew := fs.finishApply(z, r, partial)
				beta := rzNew / rz
				rz = rzNew
				pq = fs.updateDirections(p, q, z, x, alpha, beta, partial)
				continue
			}
			rr := sumChunks(n, partial, func(lo, hi int) float64 {
				for i := lo; i < hi; i++ {
					x[i] += alpha * p[i]
					r[i] -= alpha * q[i]
				}
				return dotRange(r, r, lo, hi)
			})
			res = math.Sqrt(rr) / bnorm
			if progress != nil {
				progress(res)
			}
			if res <= tol {
				break
			}
			prec.apply(z, r)
			rzNew := dot(r, z, partial)
			beta := rzNew / rz
			rz = rzNew
			par.For(n, rowChunk, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					p[i] = z[i] + beta*p[i]
				}
			})
			pq = a.mulVecDot(q, p, partial)
		}
		a.residual(r, b, x)
		res = math.Sqrt(dot(r, r, partial)) / bnorm
	}
	return cgResult{iterations: it, residual: res, converged: res <= tol}
}
