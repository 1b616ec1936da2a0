package laplace

import (
	"fmt"
	"math"
	"time"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Algebraic flux correction with a linearity-preserving limiter (Barrenechea,
// John & Knobloch, SIAM J. Numer. Anal. 2016 and M3AS 2017). Write the
// stiffness matrix as K = L − D, where D is the artificial diffusion that
// removes K's positive couplings w_ij = max(K_ij, 0) (d_ij = −w_ij off the
// diagonal, zero row sums) and L, SolveMonotone's matrix, is an M-matrix.
// Then K u = 0 ⇔ L u = Σ_j f_ij with the fluxes f_ij = w_ij (u_i − u_j),
// and the limited scheme solves
//
//	L u = Σ_j α_ij(u) f_ij,  i.e.  K u + Σ_j (1 − α_ij(u)) f_ij = 0,
//
// with symmetric α_ij ∈ [0, 1] chosen per vertex from
//
//	P_i± = Σ_j max/min(f_ij, 0),  Q_i± = q_i (u_i^max/min − u_i),
//	R_i± = min(1, Q_i±/P_i±) (1 if P_i± = 0),
//	α_ij = min(R_i+, R_j−) if f_ij > 0, min(R_i−, R_j+) if f_ij < 0,
//
// where u_i^max and u_i^min range over i and all its mesh neighbours and
// q_i = γ_i Σ_j w_ij. At an Interior vertex where u is a local maximum
// Q_i+ = 0, so no flux raises it and L's row, a non-negative combination
// of u_i − u_j, forces its neighbours to the same value: no Interior
// vertex can hold a maximum above the Dirichlet values (nor a minimum
// below them), whatever γ_i is. For u linear on i's patch, with gradient
// g, u_i^max − u_i ≥ |g| δ_i where δ_i is the radius of a ball around x_i
// inside the patch, while P_i+ ≤ Σ_j w_ij |g| max_j |x_j − x_i|: so
// γ_i = max_j |x_j − x_i| / δ_i gives R_i± = 1 and linear fields stay
// exact. δ_i here is the smallest height of x_i over the opposite faces
// of its tets (a lower bound of the distance to the patch's boundary),
// which makes γ_i larger than needed and the limiter no stricter than it
// must be.
//
// The nonlinear equation is solved by defect correction with the fixed
// matrix L, whose AMG hierarchy is set up once:
// u ← u + L⁻¹ r(u), r(u) = −K u − Σ_j (1 − α_ij(u)) f_ij. Only the few
// edges with positive couplings carry fluxes, and where α stays 1 the
// error contracts by the spectral radius of L⁻¹D < 1.

// maxCorrections bounds SolveLimited's nonlinear iterations.
const maxCorrections = 200

// correctionTolerance is the relative residual each correction's CG solve
// reaches: the defect correction contracts the nonlinear residual by about
// ρ(L⁻¹D) per step, so solving L δ = r more accurately than a fraction of
// that is wasted work.
const correctionTolerance = 0.05

// andersonDepth is the number of past steps Anderson acceleration mixes.
var andersonDepth = 5

// LimitedField is ε from SolveLimited. Its Field's Iterations counts CG
// iterations over all corrections and Residual is the final relative
// residual of the nonlinear equation, ‖r(u)‖/‖b‖ with b Solve's right-hand
// side (so with α ≡ 1 it is Solve's residual).
type LimitedField struct {
	Field
	Corrections  int // nonlinear iterations (solves with L)
	FluxEdges    int // edges with a positive coupling, which carry a flux
	LimitedEdges int // flux edges whose flux the limiter cuts (α < 1) in the result
}

// SolveLimited computes ε like Solve, with the discrete maximum principle
// 0 ≤ ε ≤ 1 on any mesh and linear fields still exact: the P1 scheme with
// algebraic flux correction and a linearity-preserving limiter. On a mesh
// without positive couplings (no obtuse dihedral angles) it is Solve; on
// others only the fluxes along edges with positive couplings that would
// create a new extremum are cut, which costs a few solves with the fixed
// M-matrix L of SolveMonotone. Options mean what they mean for Solve, the
// tolerance bounding the nonlinear residual. It returns Solve's errors,
// and one if the nonlinear iteration does not reach the tolerance.
//
// The maximum principle holds for the exact solution of the limited
// equations; the result differs from it by the solver's tolerance, so on
// a vertex whose exact value is 0 or 1 it may leave [0, 1] by that much.
func SolveLimited(m *tetmesh.Mesh, opt Options) (*LimitedField, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if opt.Preconditioner == "" {
		opt.Preconditioner = "amg"
	}
	tol := opt.Tolerance
	if tol == 0 {
		tol = 1e-10
	}
	progress := func(stage string, done float64) {
		if opt.Progress != nil {
			opt.Progress(stage, done)
		}
	}
	t0 := time.Now()
	progress("assemble", 0)
	sys, err := reducedSystem(m)
	if err != nil {
		return nil, err
	}
	k, err := Stiffness(m.Positions, m.Tets)
	if err != nil {
		return nil, err
	}
	lsparse, _ := monotoneSystem(k, m.Tags, sys.order)
	fl := newFluxes(m, k, sys.order)
	k = nil
	f := &LimitedField{FluxEdges: len(fl.w)}
	f.AssembleTime = time.Since(t0)
	progress("assemble", 1)

	t0 = time.Now()
	progress("setup", 0)
	l, err := fromSparse(lsparse)
	if err != nil {
		return nil, err
	}
	lsparse = nil
	n := l.n
	f.Unknowns, f.NNZ, f.Levels = n, sys.a.nnz(), 1
	var prec preconditioner
	maxIter := opt.MaxIterations
	if opt.Preconditioner == "jacobi" {
		inv := l.diagonal()
		for i, d := range inv {
			inv[i] = 1 / d
		}
		prec = jacobi{inv}
		if maxIter == 0 {
			maxIter = 100000
		}
	} else if n > 0 {
		h, err := newAMG(&l)
		if err != nil {
			return nil, err
		}
		s := h.stats()
		f.Levels, f.OperatorComplexity = len(s.Rows), s.OperatorComplexity
		prec = h
		if maxIter == 0 {
			maxIter = 1000
		}
	}
	f.SetupTime = time.Since(t0)
	progress("setup", 1)

	t0 = time.Now()
	progress("solve", 0)
	u := make([]float64, m.NumVertices())
	for v, t := range m.Tags {
		if t == tetmesh.Core {
			u[v] = 1
		}
	}
	w := newCGWork(n)
	partial := make([]float64, numChunks(n))
	x, r, d := make([]float64, n), make([]float64, n), make([]float64, n)
	acc := newAnderson(n, andersonDepth)
	bnorm := math.Sqrt(dot(sys.b, sys.b, partial))
	done := 0.0
	for {
		fl.residual(&sys.a, sys.b, x, u, r)
		res := 0.0
		if bnorm > 0 {
			res = math.Sqrt(dot(r, r, partial)) / bnorm
		}
		f.Residual = res
		if res <= tol {
			break
		}
		if f.Corrections == maxCorrections {
			return nil, fmt.Errorf("laplace: limited scheme stopped after %d corrections at relative residual %.3g, above the tolerance %.3g", f.Corrections, res, tol)
		}
		done = max(done, min(1, math.Log(res)/math.Log(tol)))
		progress("solve", done)
		// Below the target only the remaining factor is worth solving for.
		inner := max(correctionTolerance, 0.5*tol/res)
		clear(d)
		cg := pcg(&l, r, d, prec, w, min(inner, 0.5), maxIter, nil)
		f.Iterations += cg.iterations
		if !cg.converged {
			return nil, fmt.Errorf("laplace: CG stopped after %d iterations at relative residual %.3g in correction %d of the limited scheme", cg.iterations, cg.residual, f.Corrections+1)
		}
		acc.step(x, d)
		f.Corrections++
	}
	f.SolveTime = time.Since(t0)
	f.LimitedEdges = fl.limited()
	progress("solve", 1)

	f.Epsilon = u
	t0 = time.Now()
	progress("gradient", 0)
	f.Gradient = tetmesh.VertexGradients(m.Positions, m.Tets, f.Epsilon)
	f.GradientTime = time.Since(t0)
	progress("gradient", 1)
	return f, nil
}

// fluxes holds the edges with positive couplings and the limiter's data
// at their Interior endpoints ("nodes").
type fluxes struct {
	order []int32 // mesh vertex of each unknown

	// Per edge: the mesh vertices of its ends, their node numbers (−1 for
	// a Dirichlet end), the coupling w > 0, and the current α.
	end   [][2]int32
	node  [][2]int32
	w     []float64
	alpha []float64

	// Per node: its unknown, its mesh neighbours nbr[nbrPtr[a]:nbrPtr[a+1]]
	// (itself included), q = γ Σ w, and the limiter's sums and ratios.
	unknown        []int32
	nbrPtr         []int
	nbr            []int32
	q              []float64
	pPlus, pMinus  []float64
	rPlus, rMinus  []float64
	uMax, uMinimum []float64
}

// newFluxes finds the positive couplings of the full stiffness matrix k
// that touch an unknown and the limiter constants of their Interior ends.
func newFluxes(m *tetmesh.Mesh, k *sparse.CSR, order []int32) *fluxes {
	raw := k.RawMatrix()
	nv := m.NumVertices()
	unknown := make([]int32, nv)
	for v := range unknown {
		unknown[v] = -1
	}
	for r, v := range order {
		unknown[v] = int32(r)
	}
	fl := &fluxes{order: order}
	node := make([]int32, nv) // mesh vertex → node, −1 if none
	for v := range node {
		node[v] = -1
	}
	addNode := func(v int32) int32 {
		if unknown[v] < 0 {
			return -1
		}
		if node[v] < 0 {
			node[v] = int32(len(fl.unknown))
			fl.unknown = append(fl.unknown, unknown[v])
		}
		return node[v]
	}
	for v := 0; v < nv; v++ {
		for p := raw.Indptr[v]; p < raw.Indptr[v+1]; p++ {
			j, kv := raw.Ind[p], raw.Data[p]
			if j <= v || !(kv > 0) || (unknown[v] < 0 && unknown[j] < 0) {
				continue
			}
			fl.end = append(fl.end, [2]int32{int32(v), int32(j)})
			fl.node = append(fl.node, [2]int32{addNode(int32(v)), addNode(int32(j))})
			fl.w = append(fl.w, kv)
		}
	}
	na := len(fl.unknown)
	fl.alpha = make([]float64, len(fl.w))
	fl.q = make([]float64, na)
	fl.pPlus, fl.pMinus = make([]float64, na), make([]float64, na)
	fl.rPlus, fl.rMinus = make([]float64, na), make([]float64, na)
	fl.uMax, fl.uMinimum = make([]float64, na), make([]float64, na)
	fl.nbrPtr = make([]int, 1, na+1)
	for a := range na {
		v := order[fl.unknown[a]]
		for p := raw.Indptr[v]; p < raw.Indptr[v+1]; p++ {
			fl.nbr = append(fl.nbr, int32(raw.Ind[p]))
		}
		fl.nbrPtr = append(fl.nbrPtr, len(fl.nbr))
	}

	// δ: the smallest height of each node over its tets' opposite faces.
	height := make([]float64, na)
	for a := range height {
		height[a] = math.Inf(1)
	}
	if na > 0 {
		for t := 0; t < len(m.Tets)/4; t++ {
			q := m.Tets[4*t : 4*t+4]
			if node[q[0]] < 0 && node[q[1]] < 0 && node[q[2]] < 0 && node[q[3]] < 0 {
				continue
			}
			c, det := tetGeometry(m.Positions, q)
			for s, v := range q {
				if a := node[v]; a >= 0 {
					height[a] = min(height[a], det/math.Sqrt(dot3(c[s], c[s])))
				}
			}
		}
	}
	sumW := make([]float64, na)
	for e, nd := range fl.node {
		for _, a := range nd {
			if a >= 0 {
				sumW[a] += fl.w[e]
			}
		}
	}
	pos := m.Positions
	for a := range na {
		v := int(order[fl.unknown[a]])
		reach := 0.0
		for _, j := range fl.nbr[fl.nbrPtr[a]:fl.nbrPtr[a+1]] {
			dx, dy, dz := pos[3*j]-pos[3*v], pos[3*j+1]-pos[3*v+1], pos[3*j+2]-pos[3*v+2]
			reach = max(reach, math.Sqrt(dx*dx+dy*dy+dz*dz))
		}
		fl.q[a] = reach / height[a] * sumW[a]
	}
	return fl
}

// limit sets α for the field u (all vertices).
func (fl *fluxes) limit(u []float64) {
	for a := range fl.unknown {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, j := range fl.nbr[fl.nbrPtr[a]:fl.nbrPtr[a+1]] {
			lo, hi = min(lo, u[j]), max(hi, u[j])
		}
		fl.uMinimum[a], fl.uMax[a] = lo, hi
		fl.pPlus[a], fl.pMinus[a] = 0, 0
	}
	for e, nd := range fl.node {
		f := fl.w[e] * (u[fl.end[e][0]] - u[fl.end[e][1]])
		if a := nd[0]; a >= 0 {
			fl.pPlus[a] += max(f, 0)
			fl.pMinus[a] += min(f, 0)
		}
		if b := nd[1]; b >= 0 {
			fl.pPlus[b] += max(-f, 0)
			fl.pMinus[b] += min(-f, 0)
		}
	}
	for a, ui := range fl.unknown {
		v := fl.order[ui]
		fl.rPlus[a] = ratio(fl.q[a]*(fl.uMax[a]-u[v]), fl.pPlus[a])
		fl.rMinus[a] = ratio(fl.q[a]*(fl.uMinimum[a]-u[v]), fl.pMinus[a])
	}
	for e, nd := range fl.node {
		f := fl.w[e] * (u[fl.end[e][0]] - u[fl.end[e][1]])
		alpha := 1.0
		switch {
		case f > 0:
			alpha = min(fl.r(fl.rPlus, nd[0]), fl.r(fl.rMinus, nd[1]))
		case f < 0:
			alpha = min(fl.r(fl.rMinus, nd[0]), fl.r(fl.rPlus, nd[1]))
		}
		fl.alpha[e] = alpha
	}
}

// ratio is min(1, q/p) for q/p ≥ 0, and 1 when there is no flux (p = 0).
func ratio(q, p float64) float64 {
	if p == 0 {
		return 1
	}
	return min(1, q/p)
}

// r returns node a's ratio from rs, or 1 for a Dirichlet end (a < 0),
// which has no equation to protect.
func (fl *fluxes) r(rs []float64, a int32) float64 {
	if a < 0 {
		return 1
	}
	return rs[a]
}

// residual sets u to the field with unknowns x and r to the residual of
// the limited equations, b − K x − Σ (1 − α) f, with α from u.
func (fl *fluxes) residual(k *symMatrix[float64], b, x, u, r []float64) {
	for i, v := range fl.order {
		u[v] = x[i]
	}
	fl.limit(u)
	k.residual(r, b, x)
	for e, nd := range fl.node {
		g := (1 - fl.alpha[e]) * fl.w[e] * (u[fl.end[e][0]] - u[fl.end[e][1]])
		if a := nd[0]; a >= 0 {
			r[fl.unknown[a]] -= g
		}
		if b := nd[1]; b >= 0 {
			r[fl.unknown[b]] += g
		}
	}
}

// limited counts the edges whose flux the last limit call cut.
func (fl *fluxes) limited() int {
	c := 0
	for _, a := range fl.alpha {
		if a < 1 {
			c++
		}
	}
	return c
}
