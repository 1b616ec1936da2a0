package laplace

import (
	"fmt"
	"math"
	"time"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/unionfind"
)

// Options control Solve. The zero value asks for the defaults.
type Options struct {
	// Tolerance is the relative residual ‖b − A x‖/‖b‖ to reach; 0 means
	// 1e-10.
	Tolerance float64
	// MaxIterations bounds the CG iterations; 0 means 1000 with AMG and
	// 100000 with Jacobi.
	MaxIterations int
	// Preconditioner is "amg" (the default: smoothed aggregation) or
	// "jacobi" (the diagonal, a baseline).
	Preconditioner string
	// Progress, if not nil, is called with a stage name ("assemble",
	// "setup", "solve", "gradient") and the fraction of it done.
	Progress func(stage string, done float64)
}

// Field is the penetration-extent field ε on a tet mesh and a report of
// how it was solved.
type Field struct {
	// Epsilon holds ε per vertex: exactly 0 on Boundary vertices, exactly
	// 1 on Core vertices, the discrete harmonic solution elsewhere.
	Epsilon []float64
	// Gradient holds ∇ε per vertex (x, y, z): the volume-weighted average
	// of the exact gradients of the tets around the vertex.
	Gradient []float64

	Iterations int     // CG iterations
	Residual   float64 // final relative residual ‖b − A x‖/‖b‖

	Unknowns           int     // free (Interior) vertices
	NNZ                int     // nonzeros of the reduced stiffness matrix
	Levels             int     // AMG levels (1 with Jacobi)
	OperatorComplexity float64 // AMG: Σ nnz over levels / nnz of the matrix

	AssembleTime time.Duration // vertex ordering and stiffness assembly
	SetupTime    time.Duration // preconditioner setup
	SolveTime    time.Duration // CG iterations
	GradientTime time.Duration // vertex gradients
}

// Solve computes ε on the mesh: the P1 finite-element solution of Laplace's
// equation with ε = 0 on Boundary vertices and ε = 1 on Core vertices,
// solved for the Interior vertices by preconditioned conjugate gradients.
// It returns an error if the mesh is malformed (bad indices, non-finite
// coordinates, tets that are not positively oriented), has no Core or no
// Boundary vertex, has free vertices not connected to any Dirichlet vertex,
// or if CG does not reach the tolerance.
//
// The result does not depend on GOMAXPROCS: all parallel work is split
// into fixed index ranges and reduced in index order.
func Solve(m *tetmesh.Mesh, opt Options) (*Field, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	progress := opt.progress
	t0 := time.Now()
	progress("assemble", 0)
	sys, err := reducedSystem(m)
	if err != nil {
		return nil, err
	}
	order := sys.order
	f := &Field{AssembleTime: time.Since(t0)}
	progress("assemble", 1)

	x, err := solveSystem(&sys.a, sys.b, opt, f, progress)
	sys = system{} // the matrix is not needed for the gradients
	if err != nil {
		return nil, err
	}

	f.setEpsilon(m, order, x, progress)
	return f, nil
}

// setEpsilon sets f.Epsilon on every vertex of m — 0 on Boundary, 1 on
// Core, x[r] on the unknown order[r] — and the vertex gradients from it.
func (f *Field) setEpsilon(m *tetmesh.Mesh, order []int32, x []float64, progress func(string, float64)) {
	f.Epsilon = make([]float64, m.NumVertices())
	for v, t := range m.Tags {
		if t == tetmesh.Core {
			f.Epsilon[v] = 1
		}
	}
	for r, v := range order {
		f.Epsilon[v] = x[r]
	}
	t0 := time.Now()
	progress("gradient", 0)
	f.Gradient = tetmesh.VertexGradients(m.Positions, m.Tets, f.Epsilon)
	f.GradientTime = time.Since(t0)
	progress("gradient", 1)
}

// progress reports stage progress to o.Progress, if set.
func (o Options) progress(stage string, done float64) {
	if o.Progress != nil {
		o.Progress(stage, done)
	}
}

// checkOptions validates the options Solve and SolveSystem share.
func checkOptions(opt Options) error {
	if tol := opt.Tolerance; tol != 0 && !(tol > 0 && tol < 1) {
		return fmt.Errorf("laplace: tolerance %g is not in (0, 1)", opt.Tolerance)
	}
	if opt.MaxIterations < 0 {
		return fmt.Errorf("laplace: negative iteration limit %d", opt.MaxIterations)
	}
	switch opt.Preconditioner {
	case "", "amg", "jacobi":
	default:
		return fmt.Errorf("laplace: unknown preconditioner %q (want \"amg\" or \"jacobi\")", opt.Preconditioner)
	}
	return nil
}

// solveSystem solves A x = b by PCG with the preconditioner the options
// ask for, recording sizes, timings, iterations and residual in f.
func solveSystem(a *symMatrix[float64], b []float64, opt Options, f *Field, progress func(string, float64)) ([]float64, error) {
	tol := opt.Tolerance
	if tol == 0 {
		tol = 1e-10
	}
	f.Unknowns, f.NNZ, f.Levels = a.n, a.nnz(), 1
	t0 := time.Now()
	progress("setup", 0)
	var prec preconditioner
	var amgPrec *amg
	maxIter := opt.MaxIterations
	switch {
	case a.n == 0:
		prec = jacobi{}
	case opt.Preconditioner == "jacobi":
		inv := a.diagonal()
		for i, d := range inv {
			inv[i] = 1 / d
		}
		prec = jacobi{inv}
		if maxIter == 0 {
			maxIter = 100000
		}
	default:
		h, err := newAMG(a)
		if err != nil {
			return nil, err
		}
		s := h.stats()
		f.Levels, f.OperatorComplexity = len(s.Rows), s.OperatorComplexity
		prec, amgPrec = h, h
		if maxIter == 0 {
			maxIter = 1000
		}
	}
	f.SetupTime = time.Since(t0)
	progress("setup", 1)

	t0 = time.Now()
	// Allocated after the setup, whose scratch is garbage by then.
	w := newCGWork(a.n)
	x := make([]float64, a.n)
	progress("solve", 0)
	if amgPrec != nil {
		amgPrec.initialGuess(x, b, w.z, w.p)
	}
	done := 0.0 // the residual is not monotone; progress is
	report := func(r float64) {
		done = max(done, min(1, math.Log(r)/math.Log(tol)))
		progress("solve", done)
	}
	res := pcg(a, b, x, prec, w, tol, maxIter, report)
	if !res.converged {
		h, err := exactAMG(prec)
		if err != nil {
			return nil, err
		}
		if h != nil {
			h.initialGuess(x, b, w.z, w.p)
			more := pcg(a, b, x, h, w, tol, maxIter, report)
			more.iterations += res.iterations
			res = more
		}
	}
	f.Iterations, f.Residual, f.SolveTime = res.iterations, res.residual, time.Since(t0)
	if !res.converged {
		return nil, fmt.Errorf("laplace: CG stopped after %d iterations at relative residual %.3g, above the tolerance %.3g", res.iterations, res.residual, tol)
	}
	progress("solve", 1)

	return x, nil
}

// SolveSystem solves A x = b for a symmetric positive definite A, given
// as ReducedSystem returns it, by the same preconditioned CG as Solve. The
// Field it returns holds x in Epsilon (Gradient is nil) with the sizes,
// timings, iteration count and residual. It returns an error if A is not
// square with rows of strictly increasing, in-range columns, finite values
// and a positive diagonal, if b does not match, or if CG does not reach the
// tolerance (as happens for a matrix that is not SPD).
func SolveSystem(a *sparse.CSR, b []float64, opt Options) (*Field, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	c, err := fromSparse(a)
	if err != nil {
		return nil, err
	}
	if len(b) != c.n {
		return nil, fmt.Errorf("laplace: right-hand side has %d values for %d rows", len(b), c.n)
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("laplace: right-hand side %d is %g", i, v)
		}
	}
	progress := opt.progress
	f := &Field{}
	if f.Epsilon, err = solveSystem(&c, b, opt, f, progress); err != nil {
		return nil, err
	}
	return f, nil
}

// ReducedSystem returns the linear system Solve solves: the stiffness
// matrix restricted to the Interior vertices, numbered along a Hilbert
// curve, and the right-hand side b = −Σ_{Core j} K_ij from the Dirichlet
// values. vertex[r] is the mesh vertex of unknown r. It is symmetric
// positive definite, and it is what bench/laplace hands to SciPy.
func ReducedSystem(m *tetmesh.Mesh) (a *sparse.CSR, b []float64, vertex []int32, err error) {
	sys, err := reducedSystem(m)
	if err != nil {
		return nil, nil, nil, err
	}
	return sys.a.toSparse(), sys.b, sys.order, nil
}

// reducedSystem checks the mesh and its tags and assembles the system.
func reducedSystem(m *tetmesh.Mesh) (system, error) {
	if err := checkMesh(m.Positions, m.Tets, "mesh"); err != nil {
		return system{}, err
	}
	nv := m.NumVertices()
	if len(m.Tags) != nv {
		return system{}, fmt.Errorf("laplace: mesh has %d tags for %d vertices", len(m.Tags), nv)
	}
	var nCore, nBoundary int
	for v, t := range m.Tags {
		switch t {
		case tetmesh.Core:
			nCore++
		case tetmesh.Boundary:
			nBoundary++
		case tetmesh.Interior:
		default:
			return system{}, fmt.Errorf("laplace: vertex %d has unknown tag %d", v, t)
		}
	}
	if nCore == 0 {
		return system{}, fmt.Errorf("laplace: mesh has no Core vertex, so ε = 1 is imposed nowhere and ε ≡ 0 would be meaningless")
	}
	if nBoundary == 0 {
		return system{}, fmt.Errorf("laplace: mesh has no Boundary vertex, so ε = 0 is imposed nowhere")
	}

	order, unknown := freeOrder(m)
	sys, err := assemble(m.Positions, m.Tets, m.Tags, order, unknown)
	if err != nil {
		return system{}, err
	}
	if v, ok := isolated(&sys); !ok {
		p := m.Vertex(v)
		return system{}, fmt.Errorf("laplace: vertex %d at (%g, %g, %g) lies in a part of the mesh with no Boundary or Core vertex, where ε is undetermined", v, p[0], p[1], p[2])
	}
	return sys, nil
}

// freeOrder numbers the Interior vertices along a Hilbert curve: order[r]
// is the vertex of unknown r, unknown[v] the unknown of vertex v or −1.
func freeOrder(m *tetmesh.Mesh) (order, unknown []int32) {
	all := hilbertOrder(m.Positions)
	unknown = make([]int32, len(all))
	order = all[:0]
	for _, v := range all {
		if m.Tags[v] == tetmesh.Interior {
			order = append(order, v)
		}
	}
	for v := range unknown {
		unknown[v] = -1
	}
	for r, v := range order {
		unknown[v] = int32(r)
	}
	return order, unknown
}

// isolated checks that every unknown is linked through shared tets to a
// Dirichlet vertex; without that the reduced matrix is singular. It
// returns the mesh vertex of an unknown that is not. The components of
// the matrix's graph are found by union–find over its stored couplings.
func isolated(sys *system) (int32, bool) {
	a := &sys.a
	sets := unionfind.New(a.n)
	for i := 0; i < a.n; i++ {
		lo, _ := blockOf(i, a.n)
		for _, j := range a.lowCol[a.lowPtr[i]:a.lowPtr[i+1]] {
			sets.Union(int32(i), int32(lo+int(j)))
		}
		for _, j := range a.outCol[a.outPtr[i]:a.outPtr[i+1]] {
			sets.Union(int32(i), j)
		}
	}
	anchored := make([]bool, a.n) // indexed by root
	for r, t := range sys.touches {
		if t {
			anchored[sets.Find(int32(r))] = true
		}
	}
	for r := range sets {
		if !anchored[sets.Find(int32(r))] {
			return sys.order[r], false
		}
	}
	return 0, true
}
