package laplace

import (
	"math"
	"runtime"
	"slices"
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

// A coarsest level that factors but is ill-conditioned beyond gonum's
// ConditionTolerance (1e16) is still solved: SolveVecTo reports
// mat.Condition after solving, and the cycle must not take that for a
// failure (the gearwheel's --coarse build panicked so). The 2×2 matrix
// [[1, c], [c, 1]] with c = −(1 − 2⁻⁵³) has condition number about
// 1.8e16; for b = (1, 1) the solution is 1/(1 + c) in both entries.
func TestAMGIllConditionedCoarsest(t *testing.T) {
	c := -(1 - math.Ldexp(1, -53))
	a := tridiagonal(t, 2, 1, c)
	h, err := newAMG(&a)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.levels) != 1 || h.chol == nil {
		t.Fatalf("%d levels, dense factor %v", len(h.levels), h.chol != nil)
	}
	z := make([]float64, 2)
	h.apply(z, []float64{1, 1})
	want := 1 / (1 + c)
	for i, v := range z {
		if math.Abs(v-want) > 1e-6*want {
			t.Errorf("z[%d] = %g, want %g", i, v, want)
		}
	}
}

// Aggregation over several segments in parallel: the aggregates do not
// depend on the number of threads, every unknown with a strong coupling is
// in one, each aggregate is connected through strong couplings, and the
// count stays near that of one segment (the sequential greedy algorithm):
// within 5% for these segments of about 500 unknowns, whose borders hold a
// large share of them (0.1% on the 10⁶-vertex benchmark's segments).
func TestAggregateSegments(t *testing.T) {
	sys := meshSystem(t, jitteredCube(16, 0.4, 9))
	a := &sys.a
	st, err := strongCouplings(a, strengthTheta)
	if err != nil {
		t.Fatal(err)
	}
	defer func(s int) { aggregateSegment = s }(aggregateSegment)
	aggregateSegment = a.n + 1
	_, whole := aggregate(st)
	aggregateSegment = 512 // seven segments
	if a.n < 3*aggregateSegment {
		t.Fatalf("%d unknowns: want several segments", a.n)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	runtime.GOMAXPROCS(1)
	ref, nc := aggregate(st)
	runtime.GOMAXPROCS(4)
	if agg, _ := aggregate(st); !slices.Equal(agg, ref) {
		t.Fatal("aggregates depend on GOMAXPROCS")
	}
	if d := math.Abs(float64(nc-whole)) / float64(whole); d > 0.05 {
		t.Errorf("%d aggregates over segments, %d in one: %.1f%% apart", nc, whole, 100*d)
	}
	t.Logf("%d unknowns: %d aggregates over %d segments, %d in one", a.n, nc, (a.n+aggregateSegment-1)/aggregateSegment, whole)
	// Connectivity: flood each aggregate from one member through strong
	// couplings inside it.
	members := make([][]int32, nc)
	for i, g := range ref {
		cols, _ := st.row(i)
		strong := len(cols) > 0
		switch {
		case g < 0 && strong:
			t.Fatalf("unknown %d has strong couplings but no aggregate", i)
		case g >= int32(nc):
			t.Fatalf("unknown %d in aggregate %d of %d", i, g, nc)
		case g >= 0:
			members[g] = append(members[g], int32(i))
		}
	}
	seen := make([]bool, a.n)
	for g, mem := range members {
		if len(mem) == 0 {
			t.Fatalf("aggregate %d is empty", g)
		}
		stack, reached := []int32{mem[0]}, 1
		seen[mem[0]] = true
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cols, _ := st.row(int(i))
			for _, j := range cols {
				if ref[j] == int32(g) && !seen[j] {
					seen[j] = true
					reached++
					stack = append(stack, j)
				}
			}
		}
		if reached != len(mem) {
			t.Fatalf("aggregate %d: %d of %d members connected", g, reached, len(mem))
		}
	}
}

// The nested-iteration start is much closer to the solution than zero —
// its residual is a small fraction of b's — and CG needs fewer iterations
// from it.
func TestInitialGuess(t *testing.T) {
	sys := meshSystem(t, jitteredCube(18, 0.4, 5))
	a := &sys.a
	h := multilevelAMG(t, a)
	w, x := newCGWork(a.n), make([]float64, a.n)
	h.initialGuess(x, sys.b, w.z, w.p)
	r := make([]float64, a.n)
	a.residual(r, sys.b, x)
	rel := math.Sqrt(dot(r, r, w.partial) / dot(sys.b, sys.b, w.partial))
	if rel > 0.2 {
		t.Errorf("relative residual of the start %.3g, want ≤ 0.2", rel)
	}
	from := pcg(a, sys.b, x, h, w, 1e-10, 100, nil)
	zero := pcg(a, sys.b, make([]float64, a.n), h, w, 1e-10, 100, nil)
	if !from.converged || from.iterations >= zero.iterations {
		t.Errorf("%d iterations from the start (converged %v), %d from zero", from.iterations, from.converged, zero.iterations)
	}
	t.Logf("%d unknowns: start's residual %.3g, %d iterations from it, %d from zero", a.n, rel, from.iterations, zero.iterations)
}

// CG stops at once, not converged, when the preconditioner is not
// positive definite (r·z < 0), instead of iterating to its limit.
func TestPCGStopsOnIndefinitePreconditioner(t *testing.T) {
	a := randomSPD(symTestRows, 3).sym(t)
	b := make([]float64, a.n)
	for i := range b {
		b[i] = float64(i%7) - 3
	}
	inv := a.diagonal()
	for i, d := range inv {
		inv[i] = -1 / d
	}
	x := make([]float64, a.n)
	res := pcg(&a, b, x, jacobi{inv}, newCGWork(a.n), 1e-10, 1000, nil)
	if res.converged || res.iterations != 0 {
		t.Fatalf("%+v", res)
	}
	for i, d := range inv {
		inv[i] = -d
	}
	if res = pcg(&a, b, x, jacobi{inv}, newCGWork(a.n), 1e-10, 1000, nil); !res.converged {
		t.Fatalf("with the SPD preconditioner: %+v", res)
	}
}

// exactAMG rebuilds a sparsified hierarchy with exact coarse operators —
// the same hierarchy newAMGDrop(a, 0) builds — and leaves other
// preconditioners alone.
func TestExactAMG(t *testing.T) {
	a := randomSPD(symTestRows, 3).sym(t)
	h, err := newAMG(&a)
	if err != nil {
		t.Fatal(err)
	}
	e, err := exactAMG(h)
	if err != nil || e == nil || e.drop != 0 {
		t.Fatalf("exactAMG of a sparsified hierarchy: %v, %v", e, err)
	}
	want, err := newAMGDrop(&a, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, w := e.stats(), want.stats(); !slices.Equal(got.NNZ, w.NNZ) || !slices.Equal(got.Rows, w.Rows) {
		t.Errorf("levels %v / %v nonzeros, want %v / %v", got.Rows, got.NNZ, w.Rows, w.NNZ)
	}
	for _, p := range []preconditioner{e, jacobi{a.diagonal()}, nil} {
		if x, err := exactAMG(p); x != nil || err != nil {
			t.Errorf("exactAMG(%T) = %v, %v; want nil", p, x, err)
		}
	}
}

// The V-cycle with over-relaxed ℓ1 sweeps is a symmetric positive
// definite operator for smoothing weights below 2 (see
// l1InverseDiagonal): x·By = y·Bx and x·Bx > 0 for random x, y, at the
// weights used and near the bound.
func TestVCycleIsSPD(t *testing.T) {
	defer func(w [2]float64) { smoothWeight = w }(smoothWeight)
	sys := meshSystem(t, jitteredCube(24, 0.4, 3))
	for _, w := range [][2]float64{smoothWeight, {1.9, 1.9}} {
		smoothWeight = w
		h := multilevelAMG(t, &sys.a)
		n := sys.a.n
		bx, by := make([]float64, n), make([]float64, n)
		for seed := uint64(20); seed < 25; seed++ {
			x, y := randomVector(n, seed), randomVector(n, seed+100)
			h.apply(bx, x)
			h.apply(by, y)
			var xby, ybx, xbx float64
			for i := range x {
				xby += x[i] * by[i]
				ybx += y[i] * bx[i]
				xbx += x[i] * bx[i]
			}
			if math.Abs(xby-ybx) > 1e-12*math.Sqrt(xbx*xbx+xby*xby) || !(xbx > 0) {
				t.Errorf("ω = %v: x·By = %.17g, y·Bx = %.17g, x·Bx = %g", w, xby, ybx, xbx)
			}
		}
	}
}

// The prolongator is P = (I − ωD⁻¹A_F)·P₀ as defined — A_F the strong
// couplings (−a_ij ≥ θ·√(a_ii·a_jj)) with the weak ones lumped into the
// diagonal, ω = 1.6/ρ, ρ the Gershgorin bound of D⁻¹A_F — formed here
// from whole rows of A; and it interpolates constants exactly (P·1 = 1)
// on the rows where A's row sum vanishes, as the Laplacian's does away
// from Dirichlet vertices.
func TestProlongatorDefinition(t *testing.T) {
	sys := meshSystem(t, jitteredCube(16, 0.4, 3))
	a := &sys.a
	st, err := strongCouplings(a, strengthTheta)
	if err != nil {
		t.Fatal(err)
	}
	agg, nc := aggregate(st)
	p := prolongator(st, agg, nc)
	n, diag := a.n, a.diagonal()
	type row struct {
		cols []int32
		vals []float64
	}
	rows := make([]row, n)
	var buf rowBuf
	d, strongSum, rho := make([]float64, n), make([]float64, n), 0.0
	for i := range n {
		a.row(i, &buf)
		rows[i] = row{slices.Clone(buf.col), slices.Clone(buf.val)}
		weak := 0.0
		for k, j := range rows[i].cols {
			v := rows[i].vals[k]
			switch {
			case int(j) == i:
			case -v >= strengthTheta*math.Sqrt(diag[i]*diag[j]):
				strongSum[i] -= v
			default:
				weak += v
			}
		}
		d[i] = diag[i]
		if diag[i]+weak > 0 {
			d[i] += weak
		}
		rho = max(rho, (d[i]+strongSum[i])/d[i])
	}
	omega := 1.6 / rho
	interior := 0
	for i := range n {
		want := map[int32]float64{}
		if agg[i] >= 0 {
			want[agg[i]] += 1 - omega
		}
		rowSum := 0.0
		for k, j := range rows[i].cols {
			v := rows[i].vals[k]
			rowSum += v
			if int(j) != i && -v >= strengthTheta*math.Sqrt(diag[i]*diag[j]) && agg[j] >= 0 {
				want[agg[j]] -= omega * v / d[i]
			}
		}
		cols, vals := p.row(i)
		if len(cols) != len(want) {
			t.Fatalf("row %d of P has columns %v, want %v", i, cols, want)
		}
		sum := 0.0
		for k, c := range cols {
			w, ok := want[c]
			if !ok || math.Abs(float64(vals[k])-w) > 1e-6 {
				t.Fatalf("row %d of P: P_%d = %g, want %g (listed %v)", i, c, vals[k], w, ok)
			}
			sum += float64(vals[k])
		}
		if math.Abs(rowSum) < 1e-12*diag[i] && agg[i] >= 0 && len(want) > 0 {
			interior++
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("row %d of P sums to %g, want 1", i, sum)
			}
		}
	}
	if interior < n/4 {
		t.Fatalf("only %d of %d rows checked for P·1 = 1", interior, n)
	}
	t.Logf("%d rows, %d aggregates, ω = %.4f, P·1 = 1 checked on %d rows", n, nc, omega, interior)
}

// multilevelAMG returns the hierarchy of a, failing unless it has at
// least three levels: the V-cycle tests need coarse levels to test.
func multilevelAMG(t *testing.T, a *symMatrix[float64]) *amg {
	t.Helper()
	h, err := newAMG(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.levels) < 3 {
		t.Fatalf("%d levels", len(h.levels))
	}
	return h
}
