package laplace

import (
	"slices"
	"time"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// SolveMonotone computes ε like Solve but with a stiffness matrix that
// obeys the discrete maximum principle on any mesh, so that 0 ≤ ε ≤ 1 at
// every vertex.
//
// The P1 stiffness matrix couples two vertices positively when the
// cotangents of the dihedral angles around their edge sum to less than
// zero (obtuse tets); then ε at an Interior vertex is not a convex
// combination of its neighbours' values and may leave [0, 1] by a small
// amount. SolveMonotone adds the least artificial diffusion that removes
// those couplings (algebraic flux correction's discrete upwinding: each
// positive off-diagonal entry is moved onto the diagonal), which leaves an
// M-matrix with zero row sums. Where the mesh has no positive coupling the
// matrix, and so ε, equals Solve's; elsewhere the change is of the order
// of the discretization error. Solve keeps linear fields exact on any
// mesh and is the default; SolveMonotone is what to use when Solve's
// result leaves [0, 1].
func SolveMonotone(m *tetmesh.Mesh, opt Options) (*Field, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	t0 := time.Now()
	// The reduced system checks the mesh and its tags and fixes the
	// unknowns' order; the full matrix gives the Dirichlet couplings.
	sys, err := reducedSystem(m)
	if err != nil {
		return nil, err
	}
	order := sys.order
	k, err := Stiffness(m.Positions, m.Tets)
	if err != nil {
		return nil, err
	}
	a, b := monotoneSystem(k, m.Tags, order)
	assembleTime := time.Since(t0)

	f, err := SolveSystem(a, b, opt)
	if err != nil {
		return nil, err
	}
	f.AssembleTime = assembleTime
	// The exact solution of the M-matrix system lies in [0, 1]; what CG
	// leaves outside is its own error, far below the tolerance.
	x := f.Epsilon
	for r, v := range x {
		x[r] = min(max(v, 0), 1)
	}
	f.setEpsilon(m, order, x, opt.progress)
	return f, nil
}

// monotoneSystem returns the Dirichlet-reduced system over the unknowns
// order[r] of the full stiffness matrix k with every positive off-diagonal
// entry moved onto the diagonal.
func monotoneSystem(k *sparse.CSR, tags []tetmesh.Tag, order []int32) (*sparse.CSR, []float64) {
	raw := k.RawMatrix()
	unknown := make([]int32, len(tags))
	for v := range unknown {
		unknown[v] = -1
	}
	for r, v := range order {
		unknown[v] = int32(r)
	}
	n := len(order)
	indptr := make([]int, 1, n+1)
	var ind []int
	var data []float64
	b := make([]float64, n)
	type entry struct {
		col int
		val float64
	}
	var row []entry
	for r, v := range order {
		row = row[:0]
		diag := 0.0
		for p := raw.Indptr[v]; p < raw.Indptr[v+1]; p++ {
			j, val := raw.Ind[p], raw.Data[p]
			if j == int(v) || val >= 0 {
				continue // the diagonal is rebuilt from the kept couplings
			}
			diag -= val
			switch tags[j] {
			case tetmesh.Interior:
				row = append(row, entry{int(unknown[j]), val})
			case tetmesh.Core:
				b[r] -= val
			}
		}
		row = append(row, entry{r, diag})
		slices.SortFunc(row, func(x, y entry) int { return x.col - y.col })
		for _, e := range row {
			ind = append(ind, e.col)
			data = append(data, e.val)
		}
		indptr = append(indptr, len(ind))
	}
	return sparse.NewCSR(n, n, indptr, ind, data), b
}
