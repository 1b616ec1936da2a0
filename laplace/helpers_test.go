package laplace

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// slab returns a plate [0,w]×[0,w]×[0,T] of n×n×nz Kuhn cells in which the
// vertices at depth ≥ H below both faces are Core and those on the two
// faces Boundary; the rim's vertices are left Interior, so the rim carries
// the natural (zero-flux) condition. The exact field is then ε = d/H in
// the layers (d the depth) and 1 in between, which P1 elements reproduce.
// Vertices strictly inside a layer are jittered to make the mesh irregular.
// H/T·nz must be an integer so that depth H falls on a grid plane.
func slab(n, nz int, w, T, H float64, seed uint64) (*tetmesh.Mesh, func(p geom.Vec) float64) {
	m := tetgrid.Box([3]int{n, n, nz}, geom.Vec{0, 0, 0}, geom.Vec{w, w, T})
	rng := rand.New(rand.NewPCG(seed, 1))
	hz, hx := T/float64(nz), w/float64(n)
	depth := func(z float64) float64 { return min(z, T-z) }
	for v := range m.Tags {
		p := m.Vertex(int32(v))
		d := depth(p[2])
		switch {
		case d == 0:
			m.Tags[v] = tetmesh.Boundary
		case d >= H-1e-12*T:
			m.Tags[v] = tetmesh.Core
		default:
			m.Tags[v] = tetmesh.Interior
			if p[0] > 0 && p[0] < w && p[1] > 0 && p[1] < w {
				m.Positions[3*v] += 0.2 * hx * (rng.Float64() - 0.5)
				m.Positions[3*v+1] += 0.2 * hx * (rng.Float64() - 0.5)
				m.Positions[3*v+2] += 0.2 * hz * (rng.Float64() - 0.5)
			}
		}
	}
	return m, func(p geom.Vec) float64 { return min(depth(p[2])/H, 1) }
}

// shellExact is the harmonic field on a < r < b with ε(a) = 1, ε(b) = 0.
func shellExact(a, b float64) func(p geom.Vec) float64 {
	return func(p geom.Vec) float64 {
		r := geom.Norm(p)
		return (1/r - 1/b) / (1/a - 1/b)
	}
}

// l2Error returns ‖ε_h − ε‖ over the mesh by the degree-2 four-point rule.
func l2Error(m *tetmesh.Mesh, eps []float64, exact func(geom.Vec) float64) float64 {
	const qa, qb = 0.5854101966249685, 0.1381966011250105
	var sum float64
	for t := 0; t < m.NumTets(); t++ {
		q := m.Tets[4*t : 4*t+4]
		var p [4]geom.Vec
		for k := range 4 {
			p[k] = m.Vertex(q[k])
		}
		vol := geom.TetVolume(p[0], p[1], p[2], p[3])
		for k := range 4 {
			var x geom.Vec
			var uh float64
			for l := range 4 {
				w := qb
				if l == k {
					w = qa
				}
				x = geom.Add(x, geom.Scale(w, p[l]))
				uh += w * eps[q[l]]
			}
			d := uh - exact(x)
			sum += vol / 4 * d * d
		}
	}
	return math.Sqrt(sum)
}

// jitteredCube returns the unit cube of n³ Kuhn cells with every interior
// vertex moved randomly by up to ±jitter/2 cell widths per axis, which
// gives the irregular stencils of an unstructured mesh (about 14
// neighbours per vertex, some positive off-diagonal entries). Vertices in
// the central cube [3/8, 5/8]³ are Core.
func jitteredCube(n int, jitter float64, seed uint64) *tetmesh.Mesh {
	m := tetgrid.Box([3]int{n, n, n}, geom.Vec{0, 0, 0}, geom.Vec{1, 1, 1})
	for v := range m.Tags {
		p := m.Vertex(int32(v))
		if p[0] >= 0.375 && p[0] <= 0.625 && p[1] >= 0.375 && p[1] <= 0.625 && p[2] >= 0.375 && p[2] <= 0.625 {
			m.Tags[v] = tetmesh.Core
		}
	}
	tetgrid.Jitter(m, jitter/float64(n), seed)
	return m
}

// meshSystem assembles the system of m's free vertices in the solver's
// order.
func meshSystem(tb testing.TB, m *tetmesh.Mesh) system {
	tb.Helper()
	order, unknown := freeOrder(m)
	sys, err := assemble(m.Positions, m.Tets, m.Tags, order, unknown)
	if err != nil {
		tb.Fatal(err)
	}
	return sys
}

// sliverize flattens tets of m into slivers: it moves about one in every
// of the vertices that movable allows towards the plane of the face
// opposite it in a tet of its star whose face does not hold the
// vertex's projection (by more than 0.15 of a barycentric coordinate:
// a sliver, four nearly coplanar points, not a cap), to keep the
// fraction keep of its height, unless that would turn a tet of its star
// over. It returns the number of vertices moved.
func sliverize(m *tetmesh.Mesh, every int, keep float64, seed uint64, movable func(p geom.Vec) bool) int {
	stars := make([][]int32, m.NumVertices())
	for t := range m.NumTets() {
		for _, v := range m.Tets[4*t : 4*t+4] {
			stars[v] = append(stars[v], int32(t))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 11))
	moved := 0
	for v, tag := range m.Tags {
		p := m.Vertex(int32(v))
		if tag != tetmesh.Interior || !movable(p) || rng.IntN(every) != 0 {
			continue
		}
		for _, t := range stars[v] {
			var f []geom.Vec
			for _, u := range m.Tets[4*t : 4*t+4] {
				if int(u) != v {
					f = append(f, m.Vertex(u))
				}
			}
			n := geom.Cross(geom.Sub(f[1], f[0]), geom.Sub(f[2], f[0]))
			area := geom.Norm(n)
			n = geom.Scale(1/area, n)
			h := geom.Dot(geom.Sub(p, f[0]), n)
			foot := geom.Sub(p, geom.Scale(h, n))
			low := 1.0
			for k := range 3 {
				a, b := f[(k+1)%3], f[(k+2)%3]
				low = min(low, geom.Dot(geom.Cross(geom.Sub(b, a), geom.Sub(foot, a)), n)/area)
			}
			if low >= -0.15 {
				continue
			}
			to := geom.Sub(p, geom.Scale((1-keep)*h, n))
			copy(m.Positions[3*v:3*v+3], to[:])
			if slices.ContainsFunc(stars[v], func(s int32) bool {
				q := m.Tets[4*s : 4*s+4]
				return !(geom.TetVolume(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) > 0)
			}) {
				copy(m.Positions[3*v:3*v+3], p[:])
				continue
			}
			moved++
			break
		}
	}
	return moved
}
