// Package tetgrid builds structured tetrahedral meshes whose geometry is
// known exactly — Kuhn-split boxes and graded spherical shells — so that
// tests and benchmarks of the field solver and its consumers do not depend
// on the mesher.
//
// Every cell of the underlying integer grid is split into the six Kuhn
// tetrahedra that share one of its main diagonals; neighbouring cells use
// compatible diagonals, so their tets meet face to face. On a grid of
// cubes every dihedral angle is 45°, 60° or 90°: the P1 stiffness matrix
// is then an M-matrix (the Laplacian's discrete maximum principle holds).
//
// These meshes are for testing the solver, not samples of what the mesher
// writes: the shell's inner sphere bounds a hole tagged Core, and the tets
// at a box's rim may join two Boundary vertices by an interior edge, which
// tetmesh.Validate reports as a zero-pressure void.
package tetgrid

import (
	"math"
	"math/rand/v2"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// kuhn lists the six axis orders; a tet walks from the cell's low corner
// to its high corner one axis at a time in that order. Even permutations
// give positively oriented tets, odd ones are flipped by swapping the last
// two vertices.
var kuhn = [6]struct {
	axes [3]int
	odd  bool
}{
	{[3]int{0, 1, 2}, false}, {[3]int{1, 2, 0}, false}, {[3]int{2, 0, 1}, false},
	{[3]int{0, 2, 1}, true}, {[3]int{1, 0, 2}, true}, {[3]int{2, 1, 0}, true},
}

// appendCell appends the six Kuhn tets of the cell whose low corner is c,
// with index giving the vertex number of a grid point. Along each axis a
// with dir[a] = −1 the cell is mirrored: the tets walk from the high side
// to the low side. Faces shared by two cells are split the same way from
// both sides as long as the two cells agree on the directions of the
// face's own axes, which holds when directions only change across grid
// planes.
func appendCell(tets []int32, c [3]int, dir [3]int, index func(p [3]int) int32) []int32 {
	start := c
	flips := 0
	for a := range 3 {
		if dir[a] < 0 {
			start[a]++
			flips++
		}
	}
	for _, k := range kuhn {
		p := start
		var v [4]int32
		v[0] = index(p)
		for s, axis := range k.axes {
			p[axis] += dir[axis]
			v[s+1] = index(p)
		}
		if k.odd != (flips%2 == 1) {
			v[2], v[3] = v[3], v[2]
		}
		tets = append(tets, v[:]...)
	}
	return tets
}

// Box returns the box [lo, hi] split into n[0]×n[1]×n[2] equal cells of six
// Kuhn tets each. Grid point (i, j, k) is vertex i + (n[0]+1)·(j + (n[1]+1)·k).
// Vertices on the box's faces are tagged Boundary, the others Interior;
// callers set Core tags as their problem needs. It panics if a cell count
// is below 1, which is a programming error in a test.
func Box(n [3]int, lo, hi geom.Vec) *tetmesh.Mesh {
	if n[0] < 1 || n[1] < 1 || n[2] < 1 {
		panic("tetgrid.Box: cell counts must be at least 1")
	}
	nx, ny, nz := n[0]+1, n[1]+1, n[2]+1
	m := &tetmesh.Mesh{
		Positions: make([]float64, 0, 3*nx*ny*nz),
		Tags:      make([]tetmesh.Tag, 0, nx*ny*nz),
		Tets:      make([]int32, 0, 24*n[0]*n[1]*n[2]),
	}
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				p := [3]int{i, j, k}
				tag := tetmesh.Interior
				for a := range 3 {
					if p[a] == 0 || p[a] == n[a] {
						tag = tetmesh.Boundary
					}
				}
				m.Positions = append(m.Positions,
					lerp(lo[0], hi[0], i, n[0]), lerp(lo[1], hi[1], j, n[1]), lerp(lo[2], hi[2], k, n[2]))
				m.Tags = append(m.Tags, tag)
			}
		}
	}
	index := func(p [3]int) int32 { return int32(p[0] + nx*(p[1]+ny*p[2])) }
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				m.Tets = appendCell(m.Tets, [3]int{i, j, k}, [3]int{1, 1, 1}, index)
			}
		}
	}
	return m
}

// lerp returns the i-th of n equal steps from lo to hi, exact at both ends.
func lerp(lo, hi float64, i, n int) float64 {
	if i == n {
		return hi
	}
	return lo + (hi-lo)*float64(i)/float64(n)
}

// Shell returns a mesh of the spherical shell a ≤ |x| ≤ b (0 < a < b). It
// is the Kuhn-split grid of the cube shell n ≤ |p|∞ ≤ N (p integer) mapped
// radially onto the sphere shell: grid point p goes to direction p/|p|₂ at
// radius r = a·(|p|∞/n)^γ. N = round(n·(b/a)^(4/π)) and γ = ln(b/a)/ln(N/n)
// ≈ π/4 make cells about as long radially as tangentially (the cube face
// |p|∞ = t spans a quarter circle over 2t cells), so the mesh is graded —
// spacing grows in proportion to r — without anisotropy. Vertices on the
// inner sphere are tagged Core, those on the outer sphere Boundary.
// Refining n refines the mesh uniformly.
func Shell(a, b float64, n int) *tetmesh.Mesh {
	if n < 1 || !(a > 0) || !(b > a) {
		panic("tetgrid.Shell: need n ≥ 1 and 0 < a < b")
	}
	N := max(n+1, int(math.Round(float64(n)*math.Pow(b/a, 4/math.Pi))))
	gamma := math.Log(b/a) / math.Log(float64(N)/float64(n))
	side := 2*N + 1
	index := make([]int32, side*side*side) // grid point → vertex, −1 inside the inner cube
	m := &tetmesh.Mesh{}
	at := func(p [3]int) int { return (p[0] + N) + side*((p[1]+N)+side*(p[2]+N)) }
	for z := -N; z <= N; z++ {
		for y := -N; y <= N; y++ {
			for x := -N; x <= N; x++ {
				p := [3]int{x, y, z}
				t := max(abs(x), abs(y), abs(z))
				if t < n {
					index[at(p)] = -1
					continue
				}
				index[at(p)] = int32(len(m.Tags))
				r := a * math.Pow(float64(t)/float64(n), gamma)
				switch t {
				case n:
					r = a
					m.Tags = append(m.Tags, tetmesh.Core)
				case N:
					r = b
					m.Tags = append(m.Tags, tetmesh.Boundary)
				default:
					m.Tags = append(m.Tags, tetmesh.Interior)
				}
				d := geom.Vec{float64(x), float64(y), float64(z)}
				d = geom.Scale(r/geom.Norm(d), d)
				m.Positions = append(m.Positions, d[0], d[1], d[2])
			}
		}
	}
	vertex := func(p [3]int) int32 { return index[at(p)] }
	for z := -N; z < N; z++ {
		for y := -N; y < N; y++ {
			for x := -N; x < N; x++ {
				// A cell is in the shell unless it lies inside the inner cube.
				if x >= -n && x < n && y >= -n && y < n && z >= -n && z < n {
					continue
				}
				// Split every cell along the diagonal that points away
				// from the centre (mirrored per octant): the diagonal is
				// then radial, which keeps the tets near the cube's corners,
				// where the map squashes cells most, from becoming slivers.
				dir := [3]int{1, 1, 1}
				for a, c := range [3]int{x, y, z} {
					if c < 0 {
						dir[a] = -1
					}
				}
				m.Tets = appendCell(m.Tets, [3]int{x, y, z}, dir, vertex)
			}
		}
	}
	return m
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Jitter moves every vertex not tagged Boundary by a uniform random offset
// of up to ±amount/2 along each axis (deterministically, from seed), which
// turns a Kuhn grid into a mesh with the irregular stencils of an
// unstructured one. Keep amount below about a third of the cell size so
// that every tet stays positively oriented.
func Jitter(m *tetmesh.Mesh, amount float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x6a09e667))
	for v, tag := range m.Tags {
		if tag == tetmesh.Boundary {
			continue
		}
		for a := range 3 {
			m.Positions[3*v+a] += amount * (rng.Float64() - 0.5)
		}
	}
}
