package laplace

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Smoothed aggregation (Vaněk, Mandel & Brezina 1996). Each level groups
// strongly coupled unknowns into aggregates; the tentative prolongator is
// piecewise constant on aggregates (the near-kernel of the Laplacian), and
// one damped Jacobi step (see prolongator) smooths it so that coarse
// corrections are themselves smooth. The coarse operator is the Galerkin
// product Pᵀ A P, which keeps every level SPD. The setup works in float64;
// the operators the cycle applies are stored in float32, which halves the
// memory traffic of a cycle and changes the preconditioner by a relative
// 1e-7 (CG itself runs in float64).
const (
	coarsestRows  = 500  // at or below this size a level is solved exactly
	denseMaxRows  = 1000 // largest level factored densely (n³/3 flops); larger stalled levels are smoothed
	maxLevels     = 25
	strengthTheta = 0.08 // strong coupling threshold on the finest level, halved per level
)

// level is one grid of the hierarchy with its work vectors.
type level struct {
	a      csr[float32]
	invL1  []float64
	p, r   csr[float32] // prolongation from the next level and its transpose
	x, b   []float64    // solution and right-hand side (coarse levels)
	scrtch []float64    // residual, then the copy of x for the backward sweep
}

// amg is a symmetric V(1,1) cycle used as the preconditioner of CG.
type amg struct {
	levels []level
	chol   *mat.Cholesky // coarsest level, when small enough
	cx, cb *mat.VecDense
}

// hierarchyStats describe an AMG hierarchy.
type hierarchyStats struct {
	Rows, NNZ          []int
	OperatorComplexity float64 // Σ nnz over levels / nnz of the finest
}

// newAMG builds the hierarchy for the SPD matrix a0.
func newAMG(a0 *csr[float64]) (*amg, error) {
	m := &amg{}
	a := a0
	theta := strengthTheta
	for {
		n := a.rows
		lv := level{a: float32Values(a), invL1: l1InverseDiagonal(a), scrtch: make([]float64, n)}
		if len(m.levels) > 0 { // the finest level works in the caller's vectors
			lv.x, lv.b = make([]float64, n), make([]float64, n)
		}
		if n <= coarsestRows || len(m.levels) == maxLevels-1 {
			m.levels = append(m.levels, lv)
			break
		}
		strong := strongCouplings(a, theta)
		agg, nc := aggregate(a, strong)
		if nc == 0 || 10*nc > 9*n { // coarsening has stalled
			m.levels = append(m.levels, lv)
			break
		}
		// P is rounded to float32 before the Galerkin product, so that the
		// coarse operator is exactly PᵀAP (up to its own rounding) for the
		// P the cycle applies.
		p := prolongator(a, strong, agg, nc)
		r := p.transpose()
		ap := spgemm(a, &p, false)
		lo := spgemm(&r, &ap, true)
		ac := mirrorLower(&lo)
		lv.p, lv.r = p, r
		m.levels = append(m.levels, lv)
		a = &ac
		theta /= 2
	}
	if n := a.rows; n <= denseMaxRows {
		d := mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			cols, vals := a.row(i)
			for k, j := range cols {
				if int(j) >= i {
					d.SetSym(i, int(j), vals[k])
				}
			}
		}
		m.chol = &mat.Cholesky{}
		if !m.chol.Factorize(d) {
			return nil, fmt.Errorf("laplace: coarsest AMG level (%d rows) is not positive definite", n)
		}
		m.cx, m.cb = mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
	}
	return m, nil
}

func (m *amg) stats() hierarchyStats {
	var s hierarchyStats
	total := 0
	for _, lv := range m.levels {
		s.Rows = append(s.Rows, lv.a.rows)
		s.NNZ = append(s.NNZ, lv.a.nnz())
		total += lv.a.nnz()
	}
	s.OperatorComplexity = float64(total) / float64(s.NNZ[0])
	return s
}

// apply sets z = B r, one V-cycle from z = 0.
func (m *amg) apply(z, r []float64) { m.cycle(0, z, r) }

func (m *amg) cycle(l int, x, b []float64) {
	lv := &m.levels[l]
	if l == len(m.levels)-1 {
		m.solveCoarsest(lv, x, b)
		return
	}
	next := &m.levels[l+1]
	lv.a.forwardFromZero(x, b, lv.invL1)
	lv.a.residual(lv.scrtch, b, x)
	lv.r.mulVec(next.b, lv.scrtch)
	m.cycle(l+1, next.x, next.b)
	lv.p.prolongAdd(x, lv.scrtch, next.x)
	lv.a.backward(x, lv.scrtch, b, lv.invL1)
}

func (m *amg) solveCoarsest(lv *level, x, b []float64) {
	if m.chol != nil {
		copy(m.cb.RawVector().Data, b)
		if err := m.chol.SolveVecTo(m.cx, m.cb); err != nil {
			// Factorize succeeded, so only a shape mismatch could get
			// here; that is a bug in this file.
			panic(err)
		}
		copy(x, m.cx.RawVector().Data)
		return
	}
	// A level too large for a dense factor: symmetric sweeps.
	lv.a.forwardFromZero(x, b, lv.invL1)
	for s := 0; s < 4; s++ {
		copy(lv.scrtch, x)
		lv.a.backward(x, lv.scrtch, b, lv.invL1)
		if s < 3 {
			copy(lv.scrtch, x)
			lv.a.forward(x, lv.scrtch, b, lv.invL1)
		}
	}
}

// prolongAdd sets x += P·xc and copies the result into snap.
func (p *csr[T]) prolongAdd(x, snap, xc []float64) {
	forChunks(p.rows, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := p.row(i)
			vals = vals[:len(cols)]
			s := x[i]
			for k, j := range cols {
				s += float64(vals[k]) * xc[j]
			}
			x[i] = s
			snap[i] = s
		}
	})
}

// prolongator returns P = (I − ω D⁻¹ A_F) P₀ with P₀ the aggregates'
// indicator (rows of unaggregated unknowns of P₀ are zero), A_F the
// filtered matrix — A without its weak couplings, which are added to the
// diagonal so that row sums are kept — D its diagonal, and ω = 4/(3ρ) with
// ρ the Gershgorin bound on the spectral radius of D⁻¹A_F. Filtering keeps
// P as sparse as the aggregates' strong neighbourhoods.
func prolongator(a *csr[float64], strong []bool, agg []int32, nc int) csr[float32] {
	// Filtered diagonal and the Gershgorin bound, per chunk then in order.
	fdiag := make([]float64, a.rows)
	rhoPart := make([]float64, numChunks(a.rows))
	forChunks(a.rows, rowChunk, func(lo, hi int) {
		rho := 0.0
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			off := a.rowPtr[i]
			d, sum, diag := 0.0, 0.0, 0.0
			for k, j := range cols {
				switch {
				case int(j) == i:
					diag = vals[k]
				case strong[off+k]:
					sum += math.Abs(vals[k])
				default:
					d += vals[k]
				}
			}
			if d += diag; !(d > 0) { // weak positive couplings outweigh the diagonal: do not lump
				d = diag
			}
			fdiag[i] = d
			rho = max(rho, (d+sum)/d)
		}
		rhoPart[lo/rowChunk] = rho
	})
	omega := 4 / (3 * slices.Max(rhoPart))
	// P's row i has a column for each aggregate among i and its strong
	// neighbours.
	return buildCSROnePass(a.rows, nc, func() *marker { return newMarker(nc) }, func(s *marker, i int, out *rowSink[float32]) {
		cols, vals := a.row(i)
		st := strong[a.rowPtr[i]:a.rowPtr[i+1]]
		st = st[:len(cols)]
		first := len(out.col)
		for k, j := range cols {
			if g := agg[j]; g >= 0 && (st[k] || int(j) == i) && s.row[g] != int32(i) {
				s.row[g] = int32(i)
				out.col = append(out.col, g)
			}
		}
		pc := out.col[first:]
		sortSmall(pc)
		for k, g := range pc {
			s.pos[g] = int32(k)
			out.val = append(out.val, 0)
		}
		pv := out.val[first:]
		scale := -omega / fdiag[i]
		for k, j := range cols {
			g := agg[j]
			switch {
			case g < 0:
			case st[k]:
				pv[s.pos[g]] += float32(scale * vals[k])
			case int(j) == i:
				pv[s.pos[g]] += float32(1 + scale*fdiag[i])
			}
		}
	})
}

// spgemm returns the product A·B (or, with lower set, its lower triangle
// and diagonal), each row accumulated in a dense scratch row in the order
// of A's entries.
func spgemm[TA, TB float32 | float64](a *csr[TA], b *csr[TB], lower bool) csr[float64] {
	type slot struct {
		row int32 // row being built when the column was last touched
		acc float64
	}
	type scratch struct{ slots []slot }
	init := func() *scratch {
		s := &scratch{slots: make([]slot, b.cols)}
		for j := range s.slots {
			s.slots[j].row = -1
		}
		return s
	}
	// limit returns how much of row c of B to use: all of it, or with
	// lower set the columns ≤ i (rows are sorted).
	limit := func(bc []int32, i int) int {
		if !lower {
			return len(bc)
		}
		n, _ := slices.BinarySearch(bc, int32(i)+1)
		return n
	}
	return buildCSROnePass(a.rows, b.cols, init, func(s *scratch, i int, out *rowSink[float64]) {
		first := len(out.col)
		cols, vals := a.row(i)
		for k, c := range cols {
			v := float64(vals[k])
			bc, bv := b.row(int(c))
			bc = bc[:limit(bc, i)]
			bv = bv[:len(bc)]
			for m, j := range bc {
				if sl := &s.slots[j]; sl.row != int32(i) {
					sl.row = int32(i)
					sl.acc = v * float64(bv[m])
					out.col = append(out.col, j)
				} else {
					sl.acc += v * float64(bv[m])
				}
			}
		}
		oc := out.col[first:]
		sortSmall(oc)
		for _, j := range oc {
			out.val = append(out.val, s.slots[j].acc)
		}
	})
}

// mirrorLower returns the symmetric matrix whose lower triangle and
// diagonal are those of l. The Galerkin product of a symmetric matrix is
// symmetric only up to rounding; the smoother's forward and backward
// sweeps are transposes of each other only if it is exactly so.
func mirrorLower(l *csr[float64]) csr[float64] {
	n := l.rows
	// Strict lower part, transposed: row j lists the i > j with l_ij ≠ 0.
	up := csr[float64]{rows: n, cols: n, rowPtr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		cols, _ := l.row(i)
		for _, j := range cols {
			if int(j) < i {
				up.rowPtr[j+1]++
			}
		}
	}
	for j := 0; j < n; j++ {
		up.rowPtr[j+1] += up.rowPtr[j]
	}
	up.col = make([]int32, up.rowPtr[n])
	up.val = make([]float64, up.rowPtr[n])
	fill := slices.Clone(up.rowPtr[:n])
	for i := 0; i < n; i++ {
		cols, vals := l.row(i)
		for k, j := range cols {
			if int(j) < i {
				up.col[fill[j]] = int32(i)
				up.val[fill[j]] = vals[k]
				fill[j]++
			}
		}
	}
	a := csr[float64]{rows: n, cols: n, rowPtr: make([]int, n+1)}
	for i := 0; i < n; i++ {
		a.rowPtr[i+1] = a.rowPtr[i] + l.rowPtr[i+1] - l.rowPtr[i] + up.rowPtr[i+1] - up.rowPtr[i]
	}
	a.col = make([]int32, a.rowPtr[n])
	a.val = make([]float64, a.rowPtr[n])
	forChunks(n, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			lc, lv := l.row(i)
			uc, uv := up.row(i)
			k := a.rowPtr[i]
			copy(a.col[k:], lc)
			copy(a.val[k:], lv)
			copy(a.col[k+len(lc):], uc)
			copy(a.val[k+len(lc):], uv)
		}
	})
	return a
}
