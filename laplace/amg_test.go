package laplace

import (
	"math"
	"testing"
)

// tridiagonal returns the n×n matrix with d on the diagonal and e beside it.
func tridiagonal(t *testing.T, n int, d, e float64) symMatrix[float64] {
	type scratch struct {
		col []int32
		val []float64
	}
	row := func(s *scratch, i int) ([]int32, []float64) {
		s.col, s.val = s.col[:0], s.val[:0]
		if i > 0 {
			s.col, s.val = append(s.col, int32(i-1)), append(s.val, e)
		}
		s.col, s.val = append(s.col, int32(i)), append(s.val, d)
		if i < n-1 {
			s.col, s.val = append(s.col, int32(i+1)), append(s.val, e)
		}
		return s.col, s.val
	}
	a, err := buildSym[*scratch, float64](n, func() *scratch { return &scratch{} }, func(s *scratch, i int) (int, int) {
		cols, _ := row(s, i)
		return splitCounts(cols, i, n)
	}, row)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// When no coupling is strong (here all are positive), coarsening stalls and
// a level too large to factor is handled by symmetric Gauss–Seidel sweeps,
// which still make an SPD preconditioner: CG reaches the tolerance, and the
// residual recomputed here confirms it.
func TestAMGStalledCoarsening(t *testing.T) {
	a := tridiagonal(t, 3*denseMaxRows, 3, 1)
	w := newCGWork(a.n)
	h, err := newAMG(&a)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.levels) != 1 || h.chol != nil {
		t.Fatalf("%d levels, dense factor %v", len(h.levels), h.chol != nil)
	}
	b := make([]float64, a.n)
	for i := range b {
		b[i] = math.Sin(float64(i))
	}
	x := make([]float64, a.n)
	res := pcg(&a, b, x, h, w, 1e-10, 100, nil)
	if !res.converged || res.iterations > 20 {
		t.Fatalf("%+v", res)
	}
	r := make([]float64, a.n)
	a.residual(r, b, x)
	var rr, bb float64
	for i := range r {
		rr += r[i] * r[i]
		bb += b[i] * b[i]
	}
	if math.Sqrt(rr/bb) > 1e-10 {
		t.Errorf("relative residual %g", math.Sqrt(rr/bb))
	}
}

// A 1D Laplacian coarsens level by level down to a dense factor, and the
// V-cycle is a good preconditioner for it.
func TestAMGLaplacian1D(t *testing.T) {
	a := tridiagonal(t, 20000, 2, -1)
	w := newCGWork(a.n)
	h, err := newAMG(&a)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.levels) < 3 || h.chol == nil {
		t.Fatalf("%d levels, dense factor %v", len(h.levels), h.chol != nil)
	}
	b := make([]float64, a.n)
	b[0], b[a.n-1] = 1, 1 // u = 1 at both ends: the solution is u ≡ 1
	x := make([]float64, a.n)
	res := pcg(&a, b, x, h, w, 1e-12, 100, nil)
	if !res.converged {
		t.Fatalf("%+v", res)
	}
	for i, v := range x {
		if math.Abs(v-1) > 1e-6 {
			t.Fatalf("x[%d] = %g, want 1", i, v)
		}
	}
	t.Logf("%d levels, %d iterations", len(h.levels), res.iterations)
}
