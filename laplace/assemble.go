package laplace

import (
	"fmt"
	"math"
	"slices"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// tetGeometry returns, for the tet with vertices p0..p3 (flat xyz starting
// at the given offsets), c1 = e2×e3, c2 = e3×e1, c3 = e1×e2 with ek = pk−p0,
// c0 = −(c1+c2+c3), and det = e1·c1 = 6·volume. The gradient of the
// barycentric coordinate λk is ck/det, so the P1 stiffness entry is
// Kkj = volume·∇λk·∇λj = ck·cj/(6·det) — the cotangent formula
// −(1/6)·|edge opposite kj|·cot(dihedral angle at that edge) written with
// face normals.
func tetGeometry(pos []float64, tet []int32) (c [4][3]float64, det float64) {
	i0, i1, i2, i3 := 3*int(tet[0]), 3*int(tet[1]), 3*int(tet[2]), 3*int(tet[3])
	var e1, e2, e3 [3]float64
	for a := range 3 {
		p0 := pos[i0+a]
		e1[a] = pos[i1+a] - p0
		e2[a] = pos[i2+a] - p0
		e3[a] = pos[i3+a] - p0
	}
	c[1] = cross(e2, e3)
	c[2] = cross(e3, e1)
	c[3] = cross(e1, e2)
	for a := range 3 {
		c[0][a] = -(c[1][a] + c[2][a] + c[3][a])
	}
	det = e1[0]*c[1][0] + e1[1]*c[1][1] + e1[2]*c[1][2]
	return c, det
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// checkMesh verifies what assembly relies on: consistent array lengths,
// finite coordinates, tet indices in range and every tet of positive
// volume. what names the input in errors.
func checkMesh(positions []float64, tets []int32, what string) error {
	if len(positions)%3 != 0 {
		return fmt.Errorf("laplace: %s: %d coordinates is not a multiple of 3", what, len(positions))
	}
	if len(tets)%4 != 0 {
		return fmt.Errorf("laplace: %s: %d tet indices is not a multiple of 4", what, len(tets))
	}
	if len(tets) == 0 {
		return fmt.Errorf("laplace: %s has no tets", what)
	}
	nv := len(positions) / 3
	if nv > math.MaxInt32 {
		return fmt.Errorf("laplace: %s: %d vertices exceed the 32-bit index range", what, nv)
	}
	for i, x := range positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("laplace: %s: vertex %d has a non-finite coordinate %g", what, i/3, x)
		}
	}
	nt := len(tets) / 4
	bad := make([]int, numChunks(nt))
	par.For(nt, rowChunk, func(lo, hi int) {
		bad[lo/rowChunk] = -1
		for t := lo; t < hi; t++ {
			q := tets[4*t : 4*t+4]
			if uint32(q[0]) >= uint32(nv) || uint32(q[1]) >= uint32(nv) || uint32(q[2]) >= uint32(nv) || uint32(q[3]) >= uint32(nv) {
				bad[lo/rowChunk] = t
				return
			}
			if _, det := tetGeometry(positions, q); !(det > 0) {
				bad[lo/rowChunk] = t
				return
			}
		}
	})
	for _, t := range bad {
		if t < 0 {
			continue
		}
		q := tets[4*t : 4*t+4]
		for _, v := range q {
			if v < 0 || int(v) >= nv {
				return fmt.Errorf("laplace: %s: tet %d refers to vertex %d, outside [0, %d)", what, t, v, nv)
			}
		}
		_, det := tetGeometry(positions, q)
		return fmt.Errorf("laplace: %s: tet %d %v has volume %g; tets must be positively oriented and non-degenerate", what, t, q, det/6)
	}
	return nil
}

// Stiffness returns the P1 stiffness matrix of the Laplacian on a tet mesh
// over all its vertices, in input vertex order: K_ij = ∫ ∇φi·∇φj. It is
// symmetric positive semi-definite with zero row sums (constants are in
// its kernel). Solve eliminates Dirichlet vertices from the same entries.
func Stiffness(positions []float64, tets []int32) (*sparse.CSR, error) {
	if err := checkMesh(positions, tets, "mesh"); err != nil {
		return nil, err
	}
	nv := len(positions) / 3
	order := make([]int32, nv)
	for i := range order {
		order[i] = int32(i)
	}
	sys, err := assemble(positions, tets, nil, order, order)
	if err != nil {
		return nil, err
	}
	return sys.a.toSparse(), nil
}

// system is the Dirichlet-reduced linear system A x = b over the free
// (Interior) vertices, numbered in solver order.
type system struct {
	a       symMatrix[float64]
	b       []float64
	order   []int32 // mesh vertex of each unknown
	touches []bool  // unknown shares a tet with a Dirichlet vertex
}

// assemble builds the stiffness rows of the unknowns. order[r] is the mesh
// vertex of unknown r and unknown[v] the unknown of vertex v, or −1 for a
// Dirichlet vertex, whose value is 1 if tags[v] is Core and 0 otherwise.
// Each row sums its tets in increasing tet order, so the matrix is exactly
// symmetric and the result does not depend on scheduling.
func assemble(positions []float64, tets []int32, tags []tetmesh.Tag, order, unknown []int32) (system, error) {
	nv := len(positions) / 3
	start, incident := tetmesh.VertexTets(tets, nv)
	n := len(order)
	sys := system{b: make([]float64, n), order: order, touches: make([]bool, n)}
	type scratch struct {
		*marker
		col []int32
		val []float64
	}
	init := func() *scratch { return &scratch{marker: newMarker(n)} }
	// neighbours sets s.col to the sorted unknowns sharing a tet with
	// unknown r (r included).
	neighbours := func(s *scratch, r int) {
		s.col = s.col[:0]
		v := order[r]
		for _, t := range incident[start[v]:start[v+1]] {
			for _, w := range tets[4*t : 4*t+4] {
				if u := unknown[w]; u >= 0 && s.row[u] != int32(r) {
					s.row[u] = int32(r)
					s.col = append(s.col, u)
				}
			}
		}
		sortSmall(s.col)
	}
	var err error
	sys.a, err = buildSym[*scratch, float64](n, init, func(s *scratch, r int) (int, int) {
		neighbours(s, r)
		return splitCounts(s.col, r, n)
	}, func(s *scratch, r int) ([]int32, []float64) {
		neighbours(s, r)
		for k, u := range s.col {
			s.pos[u] = int32(k)
		}
		s.val = slices.Grow(s.val[:0], len(s.col))[:len(s.col)]
		clear(s.val)
		v := order[r]
		var rhs float64
		for _, t := range incident[start[v]:start[v+1]] {
			q := tets[4*t : 4*t+4]
			c, det := tetGeometry(positions, q)
			k := 0
			for q[k] != v {
				k++
			}
			scale := 1 / (6 * det)
			for m, w := range q {
				kv := dot3(c[k], c[m]) * scale
				if u := unknown[w]; u >= 0 {
					s.val[s.pos[u]] += kv
				} else {
					sys.touches[r] = true
					if tags != nil && tags[w] == tetmesh.Core {
						rhs -= kv
					}
				}
			}
		}
		sys.b[r] = rhs
		return s.col, s.val
	})
	return sys, err
}
