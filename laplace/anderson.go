package laplace

import (
	"github.com/pfmesh/pfmesh/internal/par"
	"gonum.org/v1/gonum/mat"
)

// anderson accelerates a fixed-point iteration x ← x + d(x) (Anderson
// mixing, "type II", as analysed by Walker & Ni 2011): the step combines
// the last few steps so as to minimise the linearised size of the next
// one, min_γ ‖d − ΔD γ‖ over the differences ΔD of successive d and ΔX of
// successive x, then x ← x + d − (ΔX + ΔD) γ. Its history is a ring of at
// most depth column pairs with their Gram matrix kept up to date, so a
// step costs depth + 1 dot products and one pass over the columns.
type anderson struct {
	depth          int
	dx, dd         [][]float64 // columns, oldest first
	gram           [][]float64 // gram[i][j] = dd[i]·dd[j]
	xPrev, dPrev   []float64
	started        bool
	partial, gamma []float64
}

func newAnderson(n, depth int) *anderson {
	return &anderson{depth: depth, xPrev: make([]float64, n), dPrev: make([]float64, n), partial: make([]float64, numChunks(n))}
}

// reset forgets the history.
func (a *anderson) reset() {
	a.dx, a.dd, a.gram, a.started = a.dx[:0], a.dd[:0], a.gram[:0], false
}

// step replaces x by the accelerated x + d.
func (a *anderson) step(x, d []float64) {
	if a.started {
		a.push(x, d)
	}
	copy(a.xPrev, x)
	copy(a.dPrev, d)
	a.started = true
	k := len(a.dd)
	a.gamma = a.gamma[:0]
	if k > 0 {
		g := mat.NewSymDense(k, nil)
		rhs := mat.NewVecDense(k, nil)
		for i := range k {
			for j := i; j < k; j++ {
				g.SetSym(i, j, a.gram[i][j])
			}
			// A relative shift keeps nearly dependent columns solvable.
			g.SetSym(i, i, a.gram[i][i]*(1+1e-12))
			rhs.SetVec(i, dot(a.dd[i], d, a.partial))
		}
		var ch mat.Cholesky
		var gamma mat.VecDense
		if ch.Factorize(g) && ch.SolveVecTo(&gamma, rhs) == nil {
			for i := range k {
				a.gamma = append(a.gamma, gamma.AtVec(i))
			}
		} else {
			a.reset()
			a.started = true
		}
	}
	par.For(len(x), rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := x[i] + d[i]
			for c, gc := range a.gamma {
				s -= gc * (a.dx[c][i] + a.dd[c][i])
			}
			x[i] = s
		}
	})
}

// push appends the column pair (x − xPrev, d − dPrev), dropping the oldest
// when the ring is full.
func (a *anderson) push(x, d []float64) {
	var cx, cd []float64
	if len(a.dd) == a.depth {
		cx, cd = a.dx[0], a.dd[0]
		copy(a.dx, a.dx[1:])
		copy(a.dd, a.dd[1:])
		a.dx, a.dd = a.dx[:a.depth-1], a.dd[:a.depth-1]
		copy(a.gram, a.gram[1:])
		a.gram = a.gram[:a.depth-1]
		for i := range a.gram {
			a.gram[i] = append(a.gram[i][:0], a.gram[i][1:]...)
		}
	} else {
		cx, cd = make([]float64, len(x)), make([]float64, len(x))
	}
	par.For(len(x), rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cx[i] = x[i] - a.xPrev[i]
			cd[i] = d[i] - a.dPrev[i]
		}
	})
	a.dx, a.dd = append(a.dx, cx), append(a.dd, cd)
	k := len(a.dd)
	row := make([]float64, k)
	for i := range k {
		row[i] = dot(a.dd[i], cd, a.partial)
		if i < k-1 {
			a.gram[i] = append(a.gram[i], row[i])
		}
	}
	a.gram = append(a.gram, row)
}
