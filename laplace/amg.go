package laplace

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/par"
	"gonum.org/v1/gonum/mat"
)

// Smoothed aggregation (Vaněk, Mandel & Brezina 1996). Each level groups
// strongly coupled unknowns into aggregates; the tentative prolongator is
// piecewise constant on aggregates (the near-kernel of the Laplacian), and
// one damped Jacobi step (see prolongator) smooths it so that coarse
// corrections are themselves smooth. The coarse operator is the Galerkin
// product Pᵀ A P, which keeps every level SPD. The finest level works with
// the system's own float64 matrix; P and the coarse operators are stored in
// float32, which changes the preconditioner by a relative 1e-7 (CG itself
// runs in float64 on the exact system).
const (
	coarsestRows  = 500  // at or below this size a level is solved exactly
	denseMaxRows  = 1000 // largest level factored densely (n³/3 flops); larger stalled levels are smoothed
	maxLevels     = 25
	strengthTheta = 0.08 // strong coupling threshold on the finest level, halved per level
)

// smoothWeight is the ℓ1 smoother's over-relaxation weight ω on the
// finest level and on the coarse levels (see l1InverseDiagonal). On the
// jittered cubes of BenchmarkSolve at 10⁴, 10⁵, 10⁶ unknowns, CG's mean
// residual reduction per iteration went from 0.197, 0.208, 0.248 (ω = 1)
// to 0.176, 0.175, 0.206 and its iterations from 13, 14, 15 to 13, 12, 13
// (with the prolongator's earlier ω = 4/(3ρ)); ω = 1.3 below gave 12, 12,
// 14, and 1.5 below or 1.3 above no better; ω on the coarse levels alone
// 13, 13, 14, on the finest alone 13, 14, 15.
var smoothWeight = [2]float64{1.2, 1.4}

// coarseDrop is the threshold below which couplings of the coarse
// operators are left out and lumped onto the diagonal (see symFromLower).
// Smoothed aggregation spreads each coarse row over many couplings, most
// of them far and small: at 10⁶ unknowns the first coarse level has 48 per
// row, and dropping those below 0.01·√(a_ii·a_jj) leaves 23 and the
// operator complexity at 1.16 instead of 1.35, for one CG iteration fewer
// (15; 0.02 kept 18 per row for 16 iterations, and lumping them onto the
// diagonal as |a_ij|, which keeps definiteness but not row sums, took 41).
var coarseDrop = 0.01

// galerkinChunk is the number of coarse rows whose part of A·P the
// Galerkin product holds at a time: large enough that few rows of A·P are
// formed twice, for two chunks, and that the blocks whose upper couplings
// a chunk copies out are copied few times; small enough that the part held
// stays a small share of the setup's memory. On the 10⁶-vertex benchmark
// 1024, 2048 and 4096 rows took about 1.29, 1.15 and 1.10 CPU-s (medians
// at load 13), and 2048 rows raise the setup's peak by about 12 B per fine
// vertex over 1024 with two threads.
// It divides rowChunk.
var galerkinChunk = 2048

// levelMatrix is the operator of one level, float64 on the finest level
// and float32 below.
type levelMatrix interface {
	size() int
	nnz() int
	forwardFromZero(x, r, b []float64, invL1 []float32)
	forward(x, old, b []float64, invL1 []float32)
	backward(x, old, b []float64, invL1 []float32, az, bx []float64)
	residual(r, b, x []float64)
}

func (a *symMatrix[T]) size() int { return a.n }

// level is one grid of the hierarchy with its work vectors.
type level struct {
	a      levelMatrix
	invL1  []float32    // the ℓ1 smoother's inverse diagonal (precision does not matter to a smoother)
	p, r   csr[float32] // prolongation from the next level and its transpose
	x, b   []float64    // solution and right-hand side (coarse levels)
	scrtch []float64    // residual, then x after the coarse correction
	az     []float64    // finest level: A·x after the last sweep, less its outer couplings (see backward)
}

// amg is a symmetric V(1,1) cycle used as the preconditioner of CG.
type amg struct {
	a0     *symMatrix[float64] // the finest level's matrix
	drop   float64             // the coarse operators' sparsification threshold (see symFromLower)
	levels []level
	chol   *mat.Cholesky // coarsest level, when small enough
	cx, cb *mat.VecDense
}

// hierarchyStats describe an AMG hierarchy.
type hierarchyStats struct {
	Rows, NNZ          []int
	OperatorComplexity float64 // Σ nnz over levels / nnz of the finest
}

// newAMG builds the hierarchy for the SPD matrix a0, its coarse operators
// sparsified by coarseDrop. The finest level uses a0 itself.
func newAMG(a0 *symMatrix[float64]) (*amg, error) { return newAMGDrop(a0, coarseDrop) }

// exactAMG returns prec's hierarchy rebuilt with exact Galerkin coarse
// operators, for a CG solve that broke down or stalled with the
// sparsified ones (which may, in principle, have lost definiteness: see
// symFromLower); nil when prec is not a sparsified hierarchy.
func exactAMG(prec preconditioner) (*amg, error) {
	h, ok := prec.(*amg)
	if !ok || h == nil || h.drop == 0 {
		return nil, nil
	}
	return newAMGDrop(h.a0, 0)
}

// newAMGDrop is newAMG with couplings of the coarse operators below drop
// (see symFromLower) left out; with drop = 0 they are exact Galerkin
// products.
func newAMGDrop(a0 *symMatrix[float64], drop float64) (*amg, error) {
	m := &amg{a0: a0, drop: drop}
	lv, next, err := setupLevel(a0, strengthTheta, smoothWeight[0], drop, maxLevels > 1)
	lv.scrtch, lv.az = make([]float64, a0.n), make([]float64, a0.n)
	m.levels = append(m.levels, lv)
	theta := strengthTheta / 2
	var last any = a0
	for err == nil && next != nil {
		last = next
		lv, next, err = setupLevel(next, theta, smoothWeight[1], drop, len(m.levels) < maxLevels-1)
		lv.x, lv.b, lv.scrtch = make([]float64, lv.a.size()), make([]float64, lv.a.size()), make([]float64, lv.a.size())
		m.levels = append(m.levels, lv)
		theta /= 2
	}
	if err != nil {
		return nil, err
	}
	if n := m.levels[len(m.levels)-1].a.size(); n <= denseMaxRows {
		switch a := last.(type) {
		case *symMatrix[float64]:
			m.chol, err = denseCholesky(a)
		case *symMatrix[float32]:
			m.chol, err = denseCholesky(a)
		}
		if err != nil {
			return nil, err
		}
		m.cx, m.cb = mat.NewVecDense(n, nil), mat.NewVecDense(n, nil)
	}
	return m, nil
}

// setupLevel makes the level of matrix a, its smoother weighted by omega,
// and, unless a is small enough to be the coarsest, coarsening is not
// allowed or stalls, the next level's matrix.
func setupLevel[T float32 | float64](a *symMatrix[T], theta, omega, drop float64, coarsen bool) (level, *symMatrix[float32], error) {
	lv := level{a: a, invL1: l1InverseDiagonal(a, omega)}
	n := a.n
	if n <= coarsestRows || !coarsen {
		return lv, nil, nil
	}
	st, err := strongCouplings(a, theta)
	if err != nil {
		return level{}, nil, err
	}
	agg, nc := aggregate(st)
	if nc == 0 || 10*nc > 9*n { // coarsening has stalled
		return lv, nil, nil
	}
	// A row of P has the aggregates of the unknown and of its strong
	// neighbours: this bounds P's entries, which csr counts in int32.
	if n+len(st.col) > math.MaxInt32 {
		return level{}, nil, errTooLarge
	}
	// P is rounded to float32 before the Galerkin product, so that the
	// coarse operator is exactly PᵀAP (up to its own rounding) for the P
	// the cycle applies.
	lv.p = prolongator(st, agg, nc)
	lv.r = lv.p.transpose()
	l := galerkinLower(a, &lv.p, &lv.r)
	ac, err := symFromLower[float32](&l, drop)
	if err != nil {
		return level{}, nil, err
	}
	return lv, &ac, nil
}

// denseCholesky factors the (small) matrix a.
func denseCholesky[T float32 | float64](a *symMatrix[T]) (*mat.Cholesky, error) {
	n := a.n
	d := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		lo, _ := blockOf(i, n)
		d.SetSym(i, i, float64(a.diag[i]))
		for k := a.lowPtr[i]; k < a.lowPtr[i+1]; k++ {
			d.SetSym(i, lo+int(a.lowCol[k]), float64(a.lowVal[k]))
		}
		for k := a.outPtr[i]; k < a.outPtr[i+1]; k++ {
			d.SetSym(i, int(a.outCol[k]), float64(a.outVal[k]))
		}
	}
	var c mat.Cholesky
	if !c.Factorize(d) {
		return nil, fmt.Errorf("laplace: coarsest AMG level (%d rows) is not positive definite", n)
	}
	return &c, nil
}

func (m *amg) stats() hierarchyStats {
	var s hierarchyStats
	total := 0
	for _, lv := range m.levels {
		s.Rows = append(s.Rows, lv.a.size())
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
	lv.a.forwardFromZero(x, lv.scrtch, b, lv.invL1)
	m.correct(l, x, b, nil)
}

// correct finishes level l's cycle after its forward sweep: the coarse
// correction and the backward sweep, which with bx non-nil also leaves
// b·x by blocks in bx.
func (m *amg) correct(l int, x, b, bx []float64) {
	lv, next := &m.levels[l], &m.levels[l+1]
	lv.r.mulVec(next.b, lv.scrtch)
	m.cycle(l+1, next.x, next.b)
	lv.p.prolong(lv.scrtch, x, next.x)
	lv.a.backward(x, lv.scrtch, b, lv.invL1, lv.az, bx)
}

// startApply is the first half of CG's step with this preconditioner: it
// sets r −= α·q and returns r·r, and begins z = B r — on several levels,
// the residual update rides on the finest level's first sweep, which
// reads r anyway. finishApply completes z = B r.
func (m *amg) startApply(z, r, q []float64, alpha float64, partial []float64) float64 {
	if len(m.levels) == 1 {
		return sumChunks(len(r), partial, func(lo, hi int) float64 {
			for i := lo; i < hi; i++ {
				r[i] -= alpha * q[i]
			}
			return dotRange(r, r, lo, hi)
		})
	}
	lv := &m.levels[0]
	m.a0.updateForwardFromZero(z, lv.scrtch, r, lv.invL1, q, alpha, partial)
	return sumPartials(len(r), partial)
}

// finishApply completes z = B r after startApply and returns r·z, summed
// on several levels by the last sweep as it goes.
func (m *amg) finishApply(z, r, partial []float64) float64 {
	if len(m.levels) == 1 {
		m.apply(z, r)
		return dot(r, z, partial)
	}
	m.correct(0, z, r, partial)
	return sumPartials(len(r), partial)
}

// initialGuess sets x to a start for CG by nested iteration (the "full
// multigrid" start): b restricted to every level, the coarsest level
// solved, then on each finer level the coarser solution prolongated and
// improved — by a V-cycle on the coarse levels, where one is cheap, and by
// a symmetric smoothing sweep on the finest. t1 and t2 are scratch of the
// finest level's size. With a single level x is left at zero.
func (m *amg) initialGuess(x, b, t1, t2 []float64) {
	last := len(m.levels) - 1
	if last == 0 {
		clear(x)
		return
	}
	m.levels[0].r.mulVec(m.levels[1].b, b)
	for l := 2; l <= last; l++ {
		m.levels[l-1].r.mulVec(m.levels[l].b, m.levels[l-1].b)
	}
	m.solveCoarsest(&m.levels[last], m.levels[last].x, m.levels[last].b)
	for l := last - 1; l >= 1; l-- {
		lv := &m.levels[l]
		n := lv.a.size()
		y, r := t1[:n], t2[:n]
		lv.p.mulVec(y, m.levels[l+1].x)
		lv.a.residual(r, lv.b, y)
		// The V-cycle overwrites the coarser levels' x and b, which are
		// used up by now, and leaves its correction in lv.x.
		m.cycle(l, lv.x, r)
		for i, v := range y {
			lv.x[i] += v
		}
	}
	lv := &m.levels[0]
	lv.p.mulVec(x, m.levels[1].x)
	lv.a.forward(t1, x, b, lv.invL1)
	lv.a.backward(x, t1, b, lv.invL1, nil, nil)
}

func (m *amg) solveCoarsest(lv *level, x, b []float64) {
	if m.chol != nil {
		copy(m.cb.RawVector().Data, b)
		// Once Factorize has succeeded, SolveVecTo returns only
		// mat.Condition, and after solving: an ill-conditioned coarsest
		// level (a coarse mesh's flat tets make stiffness entries of every
		// size; the gearwheel's default --coarse build, 3e18) still gives
		// a preconditioner, and the Krylov solve around the cycle judges
		// the result by its own residual.
		var cond mat.Condition
		if err := m.chol.SolveVecTo(m.cx, m.cb); err != nil && !errors.As(err, &cond) {
			panic(err)
		}
		copy(x, m.cx.RawVector().Data)
		return
	}
	// A level too large for a dense factor: symmetric sweeps.
	lv.a.forwardFromZero(x, lv.scrtch, b, lv.invL1)
	for s := 0; s < 4; s++ {
		copy(lv.scrtch, x)
		lv.a.backward(x, lv.scrtch, b, lv.invL1, lv.az, nil)
		if s < 3 {
			copy(lv.scrtch, x)
			lv.a.forward(x, lv.scrtch, b, lv.invL1)
		}
	}
}

// updateDirections, right after z = B r, sets x += αp (CG's update of
// the solution, put off to this pass, which reads p anyway), then p =
// z + βp and q = A z + βq, and returns p·q, without a product with A: the
// finest level's last backward sweep left A z less its couplings to other
// blocks in az (see backward), so only those couplings are read.
func (m *amg) updateDirections(p, q, z, x []float64, alpha, beta float64, partial []float64) float64 {
	a, az := m.a0, m.levels[0].az
	if len(m.levels) == 1 && m.chol != nil { // a0 was solved exactly, not swept
		par.For(a.n, rowChunk, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				x[i] += alpha * p[i]
				p[i] = z[i] + beta*p[i]
			}
		})
		return a.mulVecDot(q, p, partial)
	}
	return sumChunks(a.n, partial, func(lo, hi int) float64 {
		var pq float64
		for i := lo; i < hi; i++ {
			s := az[i]
			o0, o1 := a.outPtr[i], a.outPtr[i+1]
			oc, ov := a.outCol[o0:o1], a.outVal[o0:o1]
			ov = ov[:len(oc)]
			for k, j := range oc {
				s += ov[k] * z[j]
			}
			x[i] += alpha * p[i]
			pi := z[i] + beta*p[i]
			qi := s + beta*q[i]
			p[i], q[i] = pi, qi
			pq += pi * qi
		}
		return pq
	})
}

// prolong sets y = x + P·xc.
func (p *csr[T]) prolong(y, x, xc []float64) {
	par.For(p.rows, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := p.row(i)
			vals = vals[:len(cols)]
			s := x[i]
			for k, j := range cols {
				s += float64(vals[k]) * xc[j]
			}
			y[i] = s
		}
	})
}

// prolongator returns P = (I − ω D⁻¹ A_F) P₀ with P₀ the aggregates'
// indicator (rows of unaggregated unknowns of P₀ are zero), A_F the
// filtered matrix — A without its weak couplings, which are added to the
// diagonal so that row sums are kept — D its diagonal, and ω = 1.6/ρ with
// ρ the Gershgorin bound on the spectral radius λ of D⁻¹A_F. The usual
// choice is 4/(3λ); the bound overestimates λ (about 2 for a Laplacian's
// rows), and 1.2 times 4/(3ρ) took CG's mean residual reduction at 10⁶
// unknowns from 0.206 to 0.184 (1.1–1.5 times: 0.182–0.187, 1.2 the best
// over 10⁴–10⁶; 1.6 times: 0.204; 0.9 times: 0.241), while ωλ ≤ 1.6 < 2
// keeps the Jacobi step a smoother for any matrix. Filtering keeps
// P as sparse as the aggregates' strong neighbourhoods: row i has a column
// for each aggregate among i and its strong neighbours. g is A_F (its
// strong couplings and filtered diagonal).
func prolongator(g *strongGraph, agg []int32, nc int) csr[float32] {
	n := len(g.diag)
	omega := 1.6 / g.rho
	// Row i: P_ic = [c = agg_i]·(1 − ω) − ω·Σ_{strong j in c} a_ij / d_i,
	// d_i the filtered diagonal (the diagonal's own term, 1 − ω·d_i/d_i, is
	// exactly 1 − ω).
	type scratch struct {
		mark *marker
		sum  []float64
	}
	return buildCSROnePass(n, nc, func() *scratch { return &scratch{mark: newMarker(nc)} }, func(s *scratch, i int, out *rowSink[float32]) {
		cols, vals := g.row(i)
		vals = vals[:len(cols)]
		start := len(out.col)
		if c := agg[i]; c >= 0 {
			s.mark.row[c] = int32(i)
			out.col = append(out.col, c)
		}
		for _, j := range cols {
			if c := agg[j]; c >= 0 && s.mark.row[c] != int32(i) {
				s.mark.row[c] = int32(i)
				out.col = append(out.col, c)
			}
		}
		pc := out.col[start:]
		sortSmall(pc)
		s.sum = slices.Grow(s.sum[:0], len(pc))[:len(pc)]
		clear(s.sum)
		for k, c := range pc {
			s.mark.pos[c] = int32(k)
		}
		for k, j := range cols {
			if c := agg[j]; c >= 0 {
				s.sum[s.mark.pos[c]] += float64(vals[k])
			}
		}
		w := -omega / g.diag[i]
		for k, c := range pc {
			x := w * s.sum[k]
			if c == agg[i] {
				x += 1 - omega
			}
			out.val = append(out.val, float32(x))
		}
	})
}

// galerkinLower returns the lower triangle and diagonal of the Galerkin
// product Pᵀ A P, with r = Pᵀ, by chunks of coarse rows: first the rows
// of A·P that the chunk needs (those of the fine rows in its rows of r),
// then each coarse row I as Σ_i r_Ii·(A·P)_i over them, J ≤ I (rows of A·P
// are left unsorted: sorting them would cost more than it saves; they are
// formed only up to the last coarse row that reads them). Each row of
// A·P is formed about once, and only a chunk's worth is held at a time:
// the whole of A·P would be larger than A. Sums run in fixed orders (the
// couplings of a fine row by column, the fine rows of a coarse row in r's
// order), so the result does not depend on scheduling.
func galerkinLower[T float32 | float64](v *symMatrix[T], p, r *csr[float32]) rowChunks[float64] {
	nc, n := p.cols, v.n
	type scratch struct {
		acc   *accumulator
		loc   []int32 // loc[i] = index of fine row i's row of A·P in the chunk, or −1
		fine  []int32 // the chunk's fine rows
		apPtr []int
		ap    rowSink[float64]
	}
	up := upperIndexOf(v)
	init := func() *scratch {
		s := &scratch{acc: newAccumulator(nc), loc: make([]int32, n)}
		for i := range s.loc {
			s.loc[i] = -1
		}
		return s
	}
	return buildRowChunks(nc, init, func(s *scratch, I int, out *rowSink[float64]) {
		if I%galerkinChunk == 0 { // first row of a chunk: form the rows of A·P it needs
			hi := min(I+galerkinChunk, nc)
			s.apPtr, s.ap.col, s.ap.val = append(s.apPtr[:0], 0), s.ap.col[:0], s.ap.val[:0]
			for _, i := range s.fine { // the previous chunk's
				s.loc[i] = -1
			}
			// The fine rows, in increasing order for locality.
			s.fine = s.fine[:0]
			first, last := int32(n), int32(-1)
			for _, i := range r.col[r.rowPtr[I]:r.rowPtr[hi]] {
				if s.loc[i] < 0 {
					s.loc[i] = 0
					s.fine = append(s.fine, i)
					first, last = min(first, i), max(last, i)
				}
			}
			if int(last-first) < 8*len(s.fine) { // a scan of the range beats a sort
				s.fine = s.fine[:0]
				for i := first; i <= last; i++ {
					if s.loc[i] == 0 {
						s.fine = append(s.fine, i)
					}
				}
			} else {
				slices.Sort(s.fine)
			}
			for l, i := range s.fine {
				s.loc[i] = int32(l)
				// Row i of A·P serves the coarse rows of the chunk in
				// which P_i has entries, and they keep only the columns up
				// to their own: columns above the last of them are not
				// formed (about half of the row).
				pc, _ := p.row(int(i))
				k := len(pc) - 1
				for int(pc[k]) >= hi {
					k--
				}
				accumulateRowP(v, &up, int(i), p, s.acc, pc[k]+1)
				s.acc.flush(&s.ap)
				s.apPtr = append(s.apPtr, len(s.ap.col))
			}
		}
		rc, rv := r.row(I)
		for k, i := range rc {
			w := float64(rv[k])
			l := s.loc[i]
			cols, vals := s.ap.col[s.apPtr[l]:s.apPtr[l+1]], s.ap.val[s.apPtr[l]:s.apPtr[l+1]]
			vals = vals[:len(cols)]
			// All of the row is summed, and the columns above I dropped at
			// the end: cheaper than a branch per entry that the processor
			// cannot predict.
			accumulate(s.acc, cols, vals, w, math.MaxInt32)
		}
		s.acc.flushLower(out, int32(I))
	})
}

// accumulateRowP adds row i of A·P, its columns below limit, to acc:
// Σ_j a_ij·P_j, read from the row's parts in place (its couplings to later
// rows of the block through up) rather than gathered first. The terms are
// added in the order of the row's columns within each part.
func accumulateRowP[T float32 | float64](a *symMatrix[T], up *upperIndex, i int, p *csr[float32], acc *accumulator, limit int32) {
	lo := i / gsBlock * gsBlock
	ptr, pcol, pval := p.rowPtr, p.col, p.val
	add := func(j int, c float64) {
		k0, k1 := ptr[j], ptr[j+1]
		accumulate(acc, pcol[k0:k1], pval[k0:k1], c, limit)
	}
	add(i, float64(a.diag[i]))
	k0, k1 := a.lowPtr[i], a.lowPtr[i+1]
	lc, lv := a.lowCol[k0:k1], a.lowVal[k0:k1]
	lv = lv[:len(lc)]
	for k, j := range lc {
		add(lo+int(j), float64(lv[k]))
	}
	for _, u := range up.at[up.ptr[i]:up.ptr[i+1]] {
		j := lo + int(u.row)
		add(j, float64(a.lowVal[a.lowPtr[j]+int32(u.k)]))
	}
	o0, o1 := a.outPtr[i], a.outPtr[i+1]
	oc, ov := a.outCol[o0:o1], a.outVal[o0:o1]
	ov = ov[:len(oc)]
	for k, j := range oc {
		add(int(j), float64(ov[k]))
	}
}

// accumulator sums entries into a sparse row over a dense scratch row.
type accumulator struct {
	slot []accSlot
	row  int32   // stamp of the row being summed
	cols []int32 // columns touched, in order of first touch (cols[:n]), and room for one more
	n    int
}

type accSlot struct {
	row int32 // stamp of the row that last touched the column
	sum float64
}

func newAccumulator(cols int) *accumulator {
	return &accumulator{slot: make([]accSlot, cols), row: 1, cols: make([]int32, cols+1)}
}

// accumulate adds c·v[k] at column js[k] for the leading entries with
// js[k] < limit. It works on local copies of a's fields, which the
// compiler keeps in registers (through a's fields, each addition would
// wait for the previous one's store), and it has no branch the processor
// could mispredict: a column's sum is zero until touched, and its stamp
// says whether it is already listed.
func accumulate[T float32 | float64](a *accumulator, js []int32, v []T, c float64, limit int32) {
	slot, cols, n, row := a.slot, a.cols, a.n, a.row
	v = v[:len(js)]
	for k, j := range js {
		if j >= limit {
			break
		}
		s := &slot[j]
		s.sum += c * float64(v[k])
		cols[n] = j
		fresh := 0
		if s.row != row {
			fresh = 1
		}
		n += fresh
		s.row = row
	}
	a.n = n
}

// flush appends the row to out in order of first touch and starts the
// next.
func (a *accumulator) flush(out *rowSink[float64]) {
	for _, j := range a.cols[:a.n] {
		out.col = append(out.col, j)
		out.val = append(out.val, a.slot[j].sum)
		a.slot[j].sum = 0
	}
	a.next()
}

// flushLower appends the row's columns ≤ last to out, sorted, and starts
// the next.
func (a *accumulator) flushLower(out *rowSink[float64], last int32) {
	kept := a.cols[:0]
	for _, j := range a.cols[:a.n] {
		if j <= last {
			kept = append(kept, j)
		} else {
			a.slot[j].sum = 0
		}
	}
	sortSmall(kept)
	for _, j := range kept {
		out.col = append(out.col, j)
		out.val = append(out.val, a.slot[j].sum)
		a.slot[j].sum = 0
	}
	a.next()
}

func (a *accumulator) next() {
	a.n = 0
	if a.row++; a.row == 0 { // wrapped: clear the stamps
		for j := range a.slot {
			a.slot[j].row = 0
		}
		a.row = 1
	}
}
