package laplace

import "math"

// preconditioner applies z = B r with B symmetric positive definite.
type preconditioner interface {
	apply(z, r []float64)
}

// jacobi is B = D⁻¹.
type jacobi struct{ inv []float64 }

func (j jacobi) apply(z, r []float64) {
	forChunks(len(r), rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			z[i] = r[i] * j.inv[i]
		}
	})
}

// cgWork holds the vectors of PCG. q (A·p) is dead while the
// preconditioner runs, which may use it as scratch.
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

// pcg solves A x = b by preconditioned conjugate gradients from the x it
// is given, until ‖b − A x‖ ≤ tol·‖b‖ or maxIter iterations. The residual
// CG updates drifts from the true one over many iterations, so when the
// updated residual reaches the tolerance the true residual is recomputed
// and, if it is still too large, CG restarts from there.
func pcg(a *symMatrix[float64], b, x []float64, prec preconditioner, w *cgWork, tol float64, maxIter int, progress func(float64)) cgResult {
	n := a.n
	r, z, p, q, partial := w.r, w.z, w.p, w.q, w.partial
	bnorm := math.Sqrt(dot(b, b, partial))
	if bnorm == 0 {
		clear(x)
		return cgResult{converged: true}
	}
	a.residual(r, b, x)
	res := math.Sqrt(dot(r, r, partial)) / bnorm
	it := 0
	for restarts := 0; res > tol && it < maxIter && restarts < 5; restarts++ {
		prec.apply(z, r)
		copyVec(p, z)
		rz := dot(r, z, partial)
		for it < maxIter {
			it++
			alpha := rz / a.mulVecDot(q, p, partial)
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
			forChunks(n, rowChunk, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					p[i] = z[i] + beta*p[i]
				}
			})
		}
		a.residual(r, b, x)
		res = math.Sqrt(dot(r, r, partial)) / bnorm
	}
	return cgResult{iterations: it, residual: res, converged: res <= tol}
}
