package laplace

import "github.com/pfmesh/pfmesh/internal/par"

// dotRange returns Σ x[i]·y[i] over [lo, hi).
func dotRange(x, y []float64, lo, hi int) float64 {
	x, y = x[lo:hi], y[lo:hi]
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// dot returns x·y summed in fixed chunk order.
func dot(x, y, partial []float64) float64 {
	return sumChunks(len(x), partial, func(lo, hi int) float64 { return dotRange(x, y, lo, hi) })
}

// copyVec sets dst = src in parallel.
func copyVec(dst, src []float64) {
	par.For(len(src), rowChunk, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// axpy sets y += a·x.
func axpy(y []float64, a float64, x []float64) {
	par.For(len(y), rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			y[i] += a * x[i]
		}
	})
}
