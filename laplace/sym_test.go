package laplace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refMatrix is a symmetric matrix as plain sorted rows, the reference the
// block storage is checked against.
type refMatrix [][]refEntry

type refEntry struct {
	j int32
	v float64
}

// randomSPD returns a diagonally dominant (so SPD) symmetric matrix over
// several blocks and a partial one: each row couples to nearby rows, some
// far ones (outer couplings), a few with positive entries.
func randomSPD(n int, seed uint64) refMatrix {
	rng := rand.New(rand.NewPCG(seed, 7))
	pairs := map[[2]int32]float64{}
	for i := 0; i < n; i++ {
		for range 4 {
			j := i + 1 + rng.IntN(60)
			if rng.IntN(10) == 0 {
				j = rng.IntN(n)
			}
			if j == i || j >= n {
				continue
			}
			v := -rng.Float64()
			if rng.IntN(8) == 0 {
				v = 0.3 * rng.Float64()
			}
			pairs[[2]int32{int32(min(i, j)), int32(max(i, j))}] = v
		}
	}
	a := make(refMatrix, n)
	abs := make([]float64, n)
	for p, v := range pairs {
		a[p[0]] = append(a[p[0]], refEntry{p[1], v})
		a[p[1]] = append(a[p[1]], refEntry{p[0], v})
		abs[p[0]] += math.Abs(v)
		abs[p[1]] += math.Abs(v)
	}
	for i := range a {
		a[i] = append(a[i], refEntry{int32(i), abs[i] + 0.1 + rng.Float64()})
		slices.SortFunc(a[i], func(x, y refEntry) int { return int(x.j - y.j) })
	}
	return a
}

func (a refMatrix) sym(t *testing.T) symMatrix[float64] {
	t.Helper()
	type scratch struct {
		col []int32
		val []float64
	}
	row := func(s *scratch, i int) ([]int32, []float64) {
		s.col, s.val = s.col[:0], s.val[:0]
		for _, e := range a[i] {
			s.col, s.val = append(s.col, e.j), append(s.val, e.v)
		}
		return s.col, s.val
	}
	m, err := buildSym[*scratch, float64](len(a), func() *scratch { return &scratch{} }, func(s *scratch, i int) (int, int) {
		cols, _ := row(s, i)
		return splitCounts(cols, i, len(a))
	}, row)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func (a refMatrix) mul(x []float64) []float64 {
	y := make([]float64, len(a))
	for i, row := range a {
		for _, e := range row {
			y[i] += e.v * x[e.j]
		}
	}
	return y
}

// sweep is hybrid ℓ1 Gauss–Seidel from its definition: per block, rows in
// the given direction, rows of the block already visited at their new
// values, all other values at old.
func (a refMatrix) sweep(old, b []float64, omega float64, forward bool) []float64 {
	n := len(a)
	x := slices.Clone(old)
	for lo := 0; lo < n; lo += gsBlock {
		hi := min(lo+gsBlock, n)
		for k := range hi - lo {
			i := lo + k
			if !forward {
				i = hi - 1 - k
			}
			s, d := b[i], 0.0
			for _, e := range a[i] {
				j := int(e.j)
				switch {
				case j == i:
					d += e.v
					s -= e.v * old[i]
				case j < lo || j >= hi:
					d += math.Abs(e.v)
					s -= e.v * old[j]
				case (j < i) == forward:
					s -= e.v * x[j]
				default:
					s -= e.v * old[j]
				}
			}
			x[i] = old[i] + s*float64(float32(omega/d)) // the smoother keeps ω/d in float32
		}
	}
	return x
}

func randomVector(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 3))
	x := make([]float64, n)
	for i := range x {
		x[i] = 2*rng.Float64() - 1
	}
	return x
}

func assertClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	var scale float64
	for _, w := range want {
		scale = max(scale, math.Abs(w))
	}
	for i := range want {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*scale) {
			t.Fatalf("%s: entry %d is %.17g, want %.17g", what, i, got[i], want[i])
		}
	}
}

const symTestRows = 2*gsBlock + 777 // two full blocks and a partial one

// The block storage holds exactly the matrix it was built from: every
// row gathered through a view, and products with it, match the plain rows.
func TestSymMatrixHoldsTheMatrix(t *testing.T) {
	ref := randomSPD(symTestRows, 1)
	a := ref.sym(t)
	if a.nnz() != func() (k int) {
		for _, r := range ref {
			k += len(r)
		}
		return
	}() {
		t.Fatalf("nnz %d", a.nnz())
	}
	// Rows in order, then jumping between blocks and between two matrices
	// sharing one buffer (which indexes the matrix it reads).
	other := randomSPD(symTestRows, 3).sym(t)
	var buf, spare rowBuf
	visit := make([]int, 0, a.n+200)
	for i := range a.n {
		visit = append(visit, i)
	}
	for k := range 200 {
		visit = append(visit, (k*gsBlock+k*k*37)%a.n)
	}
	for k, i := range visit {
		if k >= a.n && k%5 == 0 {
			other.row(k%a.n, &buf)
			other.row(k%a.n, &spare)
			if !slices.Equal(buf.val, spare.val) {
				t.Fatalf("row %d of the other matrix differs between buffers", k%a.n)
			}
		}
		row := ref[i]
		a.row(i, &buf)
		if len(buf.col) != len(row) {
			t.Fatalf("row %d has %d entries, want %d", i, len(buf.col), len(row))
		}
		for k, e := range row {
			if buf.col[k] != e.j || buf.val[k] != e.v {
				t.Fatalf("row %d entry %d is (%d, %g), want (%d, %g)", i, k, buf.col[k], buf.val[k], e.j, e.v)
			}
		}
	}
	x := randomVector(a.n, 2)
	want := ref.mul(x)
	y := make([]float64, a.n)
	partial := make([]float64, numChunks(a.n))
	d := a.mulVecDot(y, x, partial)
	assertClose(t, "A x", y, want, 1e-14)
	var wd float64
	for i := range x {
		wd += x[i] * want[i]
	}
	if math.Abs(d-wd) > 1e-12*math.Abs(wd) {
		t.Errorf("x·Ax = %g, want %g", d, wd)
	}
	b := randomVector(a.n, 3)
	r := make([]float64, a.n)
	a.residual(r, b, x)
	for i := range want {
		want[i] = b[i] - want[i]
	}
	assertClose(t, "b − A x", r, want, 1e-14)
}

// A matrix built from its lower triangle is the one built from full rows.
// lowerOf returns the lower triangle and diagonal of ref.
func lowerOf(ref refMatrix) csr[float64] {
	l := csr[float64]{rows: len(ref), cols: len(ref), rowPtr: make([]int32, len(ref)+1)}
	for i, row := range ref {
		for _, e := range row {
			if int(e.j) <= i {
				l.col, l.val = append(l.col, e.j), append(l.val, e.v)
			}
		}
		l.rowPtr[i+1] = int32(len(l.col))
	}
	return l
}

// rowMaps returns the whole rows of a, column → value.
func rowMaps[T float32 | float64](a *symMatrix[T]) []map[int32]float64 {
	m := make([]map[int32]float64, a.n)
	for i := range m {
		m[i] = map[int32]float64{int32(i): float64(a.diag[i])}
	}
	for i := 0; i < a.n; i++ {
		lo, _ := blockOf(i, a.n)
		for k := a.lowPtr[i]; k < a.lowPtr[i+1]; k++ {
			j := int32(lo + int(a.lowCol[k]))
			m[i][j], m[j][int32(i)] = float64(a.lowVal[k]), float64(a.lowVal[k])
		}
		for k := a.outPtr[i]; k < a.outPtr[i+1]; k++ {
			m[i][a.outCol[k]] = float64(a.outVal[k])
		}
	}
	return m
}

func TestSymFromLower(t *testing.T) {
	ref := randomSPD(symTestRows, 4)
	l := lowerOf(ref)
	got, err := symFromLower[float64](&l, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := ref.sym(t)
	if !slices.Equal(got.diag, want.diag) || !slices.Equal(got.lowPtr, want.lowPtr) || !slices.Equal(got.lowCol, want.lowCol) ||
		!slices.Equal(got.lowVal, want.lowVal) || !slices.Equal(got.outPtr, want.outPtr) || !slices.Equal(got.outCol, want.outCol) ||
		!slices.Equal(got.outVal, want.outVal) {
		t.Fatal("matrices differ")
	}
}

// Sparsifying drops exactly the couplings below the threshold, keeps the
// others as they are, and keeps every row sum (the action on constants),
// checked against the reference matrix's own rows.
func TestSymFromLowerDrop(t *testing.T) {
	const drop = 0.06
	ref := randomSPD(symTestRows, 5)
	l := lowerOf(ref)
	a, err := symFromLower[float64](&l, drop)
	if err != nil {
		t.Fatal(err)
	}
	got := rowMaps(&a)
	diag := make([]float64, len(ref))
	for i, row := range ref {
		for _, e := range row {
			if int(e.j) == i {
				diag[i] = e.v
			}
		}
	}
	dropped := 0
	for i, row := range ref {
		var sum, gotSum float64
		for _, e := range row {
			sum += e.v
			v, ok := got[i][e.j]
			switch small := int(e.j) != i && math.Abs(e.v) < drop*math.Sqrt(diag[i]*diag[e.j]); {
			case small && ok:
				t.Fatalf("row %d: coupling %d = %g kept", i, e.j, e.v)
			case small:
				dropped++
			case !ok || (int(e.j) != i && v != e.v):
				t.Fatalf("row %d: coupling %d = %g, want %g", i, e.j, v, e.v)
			}
		}
		for _, v := range got[i] {
			gotSum += v
		}
		if math.Abs(gotSum-sum) > 1e-12*diag[i] {
			t.Fatalf("row %d sums to %g, want %g", i, gotSum, sum)
		}
	}
	if dropped == 0 || dropped == a.nnz() {
		t.Fatalf("%d couplings dropped", dropped)
	}
	// A lumping that would take a diagonal below half its value is not
	// done at all.
	two := csr[float64]{rows: 2, cols: 2, rowPtr: []int32{0, 1, 3}, col: []int32{0, 0, 1}, val: []float64{1, -0.6, 1}}
	b, err := symFromLower[float64](&two, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if m := rowMaps(&b); m[1][0] != -0.6 || m[0][0] != 1 {
		t.Fatalf("2×2 matrix became %v", m)
	}
}

// The sweeps are hybrid ℓ1 Gauss–Seidel as defined, over-relaxed or not,
// however they gather and push; forwardFromZero also returns the exact
// residual.
func TestSweepsMatchDefinition(t *testing.T) {
	for _, omega := range []float64{1, 1.4} {
		t.Run(fmt.Sprint("ω=", omega), func(t *testing.T) { testSweeps(t, omega) })
	}
}

func testSweeps(t *testing.T, omega float64) {
	ref := randomSPD(symTestRows, 5)
	a := ref.sym(t)
	inv := l1InverseDiagonal(&a, omega)
	old, b := randomVector(a.n, 6), randomVector(a.n, 7)
	x := make([]float64, a.n)
	a.backward(x, old, b, inv, nil, nil)
	assertClose(t, "backward", x, ref.sweep(old, b, omega, false), 1e-13)
	a.forward(x, old, b, inv)
	assertClose(t, "forward", x, ref.sweep(old, b, omega, true), 1e-13)
	r := make([]float64, a.n)
	a.forwardFromZero(x, r, b, inv)
	assertClose(t, "forwardFromZero", x, ref.sweep(make([]float64, a.n), b, omega, true), 1e-13)
	want := ref.mul(x)
	for i := range want {
		want[i] = b[i] - want[i]
	}
	assertClose(t, "its residual", r, want, 1e-13)
}

// updateDirections forms q = A p from the last sweep: check it against a
// product with A, on a mesh whose hierarchy has several levels, and its
// update of x against x + αp.
func TestUpdateDirectionsIsAProduct(t *testing.T) {
	sys := meshSystem(t, jitteredCube(24, 0.4, 3))
	h := multilevelAMG(t, &sys.a)
	n := sys.a.n
	r, p, q := randomVector(n, 8), randomVector(n, 9), randomVector(n, 10)
	z := make([]float64, n)
	h.apply(z, r)
	const beta = 0.37
	wantP := make([]float64, n)
	for i := range wantP {
		wantP[i] = z[i] + beta*p[i]
	}
	az := make([]float64, n)
	partial := make([]float64, numChunks(n))
	sys.a.mulVecDot(az, z, partial)
	wantQ := make([]float64, n)
	var wantPQ float64
	for i := range wantQ {
		wantQ[i] = az[i] + beta*q[i]
		wantPQ += wantP[i] * wantQ[i]
	}
	const alpha = 0.81
	x := randomVector(n, 11)
	wantX := make([]float64, n)
	for i := range wantX {
		wantX[i] = x[i] + alpha*p[i]
	}
	pq := h.updateDirections(p, q, z, x, alpha, beta, partial)
	assertClose(t, "x", x, wantX, 1e-15)
	assertClose(t, "p", p, wantP, 1e-15)
	assertClose(t, "q", q, wantQ, 1e-12)
	if math.Abs(pq-wantPQ) > 1e-12*math.Abs(wantPQ) {
		t.Errorf("p·q = %g, want %g", pq, wantPQ)
	}
}

// startApply and finishApply fuse CG's residual update and r·z into the
// V-cycle: check them against the steps done one by one (r −= αq, r·r,
// z = B r, r·z), on a hierarchy of several levels and on a single level
// solved exactly.
func TestFusedStepIsPlainStep(t *testing.T) {
	for _, tc := range []struct {
		name   string
		k      int
		levels func(int) bool
	}{
		{"several levels", 24, func(l int) bool { return l >= 3 }},
		{"one level", 5, func(l int) bool { return l == 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := meshSystem(t, jitteredCube(tc.k, 0.4, 3))
			h, err := newAMG(&sys.a)
			if err != nil {
				t.Fatal(err)
			}
			if !tc.levels(len(h.levels)) {
				t.Fatalf("%d levels", len(h.levels))
			}
			n := sys.a.n
			r, q := randomVector(n, 12), randomVector(n, 13)
			const alpha = 0.63
			wantR := make([]float64, n)
			var wantRR, wantRZ float64
			for i := range wantR {
				wantR[i] = r[i] - alpha*q[i]
				wantRR += wantR[i] * wantR[i]
			}
			wantZ := make([]float64, n)
			h.apply(wantZ, wantR)
			for i := range wantZ {
				wantRZ += wantR[i] * wantZ[i]
			}
			partial := make([]float64, numChunks(n))
			z := make([]float64, n)
			rr := h.startApply(z, r, q, alpha, partial)
			rz := h.finishApply(z, r, partial)
			assertClose(t, "r", r, wantR, 1e-15)
			assertClose(t, "z", z, wantZ, 1e-15)
			for _, c := range []struct {
				what      string
				got, want float64
			}{{"r·r", rr, wantRR}, {"r·z", rz, wantRZ}} {
				if math.Abs(c.got-c.want) > 1e-13*math.Abs(c.want) {
					t.Errorf("%s = %g, want %g", c.what, c.got, c.want)
				}
			}
		})
	}
}

// The coarse operator is Pᵀ A P, checked against the triple product
// formed entry by entry.
func TestGalerkinProduct(t *testing.T) {
	ref := randomSPD(symTestRows, 11)
	a := ref.sym(t)
	v := &a
	st, err := strongCouplings(v, strengthTheta)
	if err != nil {
		t.Fatal(err)
	}
	agg, nc := aggregate(st)
	if nc == 0 || nc >= a.n {
		t.Fatalf("%d aggregates", nc)
	}
	p := prolongator(st, agg, nc)
	r := p.transpose()
	l := galerkinLower(v, &p, &r)
	ac, err := symFromLower[float64](&l, 0)
	if err != nil {
		t.Fatal(err)
	}
	// (Pᵀ A P) e_J = Pᵀ (A (P e_J)) for a few coarse columns J.
	cv := &ac
	var buf rowBuf
	for _, J := range []int{0, 1, nc / 3, nc / 2, nc - 1} {
		pe := make([]float64, a.n)
		for i := 0; i < a.n; i++ {
			cols, vals := p.row(i)
			for k, c := range cols {
				if int(c) == J {
					pe[i] = float64(vals[k])
				}
			}
		}
		ape := ref.mul(pe)
		want := make([]float64, nc)
		for i := 0; i < a.n; i++ {
			cols, vals := p.row(i)
			for k, c := range cols {
				want[c] += float64(vals[k]) * ape[i]
			}
		}
		got := make([]float64, nc)
		for I := range nc {
			cv.row(I, &buf)
			for k, c := range buf.col {
				if int(c) == J {
					got[I] = buf.val[k]
				}
			}
		}
		assertClose(t, "coarse column", got, want, 1e-12)
	}
}

// The strong-coupling graph holds exactly the couplings that meet the
// definition, read from whole rows, in both rows of each pair with the same
// value, and each row's filtered diagonal is a_ii plus its weak couplings.
func TestStrongGraph(t *testing.T) {
	ref := randomSPD(symTestRows, 12)
	a := ref.sym(t)
	v := &a
	const theta = 0.25
	st, err := strongCouplings(v, theta)
	if err != nil {
		t.Fatal(err)
	}
	d := v.diagonal()
	inGraph := map[[2]int32]float32{}
	for i := 0; i < a.n; i++ {
		cols, vals := st.row(i)
		for k, j := range cols {
			inGraph[[2]int32{int32(i), j}] = vals[k]
		}
	}
	var buf rowBuf
	count := 0
	for i := 0; i < a.n; i++ {
		v.row(i, &buf)
		weak := 0.0
		for k, j := range buf.col {
			if int(j) == i {
				continue
			}
			x := buf.val[k]
			got, ok := inGraph[[2]int32{int32(i), j}]
			switch want := -x >= theta*math.Sqrt(d[i]*d[j]); {
			case want != ok:
				t.Fatalf("coupling (%d, %d) = %g: strong %v, in the graph %v", i, j, x, want, ok)
			case ok && got != float32(x):
				t.Fatalf("coupling (%d, %d) = %g stored as %g", i, j, x, got)
			case ok:
				count++
			default:
				weak += x
			}
		}
		want := d[i] + weak
		if !(want > 0) {
			want = d[i]
		}
		if math.Abs(st.diag[i]-want) > 1e-12*d[i] {
			t.Fatalf("row %d: filtered diagonal %g, want %g", i, st.diag[i], want)
		}
	}
	if count != len(inGraph) {
		t.Fatalf("the graph holds %d couplings, the rows %d strong ones", len(inGraph), count)
	}
	if count == 0 || count == a.nnz()-a.n {
		t.Fatalf("%d strong couplings of %d: the threshold tests nothing", count, a.nnz()-a.n)
	}
}

// A row that touches every column, and then one of them again, fits.
func TestAccumulatorFullRow(t *testing.T) {
	acc := newAccumulator(3)
	accumulate(acc, []int32{0, 1, 2, 1}, []float64{1, 2, 3, 4}, 1, math.MaxInt32)
	var out rowSink[float64]
	acc.flush(&out)
	if !slices.Equal(out.col, []int32{0, 1, 2}) || !slices.Equal(out.val, []float64{1, 6, 3}) {
		t.Fatalf("%v %v", out.col, out.val)
	}
	accumulate(acc, []int32{2, 0}, []float32{5, 6}, 2, math.MaxInt32)
	out = rowSink[float64]{}
	acc.flushLower(&out, 1)
	if !slices.Equal(out.col, []int32{0}) || !slices.Equal(out.val, []float64{12}) {
		t.Fatalf("%v %v", out.col, out.val)
	}
}

// The upper index lists exactly each row's couplings to later rows of its
// block, read from the plain rows, in increasing order, each where the
// later row stores it, with the plain row's value.
func TestUpperIndex(t *testing.T) {
	ref := randomSPD(symTestRows, 13)
	a := ref.sym(t)
	up := upperIndexOf(&a)
	if int(up.ptr[a.n]) != len(a.lowCol) {
		t.Fatalf("index ends at %d, %d lower couplings", up.ptr[a.n], len(a.lowCol))
	}
	for i, row := range ref {
		lo, hi := blockOf(i, a.n)
		var want []uint16
		vals := map[int]float64{}
		for _, e := range row {
			if j := int(e.j); j > i && j < hi {
				want = append(want, uint16(j-lo))
				vals[j] = e.v
			}
		}
		var got []uint16
		for _, u := range up.at[up.ptr[i]:up.ptr[i+1]] {
			got = append(got, u.row)
			j := lo + int(u.row)
			if k := a.lowPtr[j] + int32(u.k); k >= a.lowPtr[j+1] || int(a.lowCol[k]) != i-lo || float64(a.lowVal[k]) != vals[j] {
				t.Fatalf("row %d: coupling to %d not found where indexed", i, j)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("row %d: upper rows %v, want %v", i, got, want)
		}
	}
}
