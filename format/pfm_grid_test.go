package format

import (
	"math"
	"strconv"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// gridPFM returns a box of n³ cubes of side h, each cut into the six
// Kuhn tets around its main diagonal (a conforming mesh of 6n³ tets), with
// ε = 1 − (L∞ distance from the centre)/(half width), so ε = 0 on the
// surface and 1 at the centre, its exact gradient as ∇ε where it is
// defined, tags, boundary faces and a BVH.
func gridPFM(n int, h float64) *PFM {
	m := n + 1
	id := func(i, j, k int) int32 { return int32((k*m+j)*m + i) }
	p := &PFM{Header: Header{Modulus: 1e5, Mapping: Linear, Dissipation: 0.5, Friction: 0.3, LengthUnit: 1e-3}}
	half := float64(n) / 2
	for k := range m {
		for j := range m {
			for i := range m {
				p.Positions = append(p.Positions, float64(i)*h, float64(j)*h, float64(k)*h)
				d := [3]float64{float64(i) - half, float64(j) - half, float64(k) - half}
				a := 0
				for c := range 3 {
					if math.Abs(d[c]) > math.Abs(d[a]) {
						a = c
					}
				}
				eps := 1 - math.Abs(d[a])/half
				g, ties := [3]float64{}, 0
				for c := range 3 {
					if math.Abs(d[c]) == math.Abs(d[a]) {
						ties++
					}
				}
				if ties == 1 { // ∇ε is defined
					g[a] = -math.Copysign(1/(half*h), d[a])
				}
				tag := tetmesh.Interior
				switch {
				case eps == 0:
					tag = tetmesh.Boundary
				case eps == 1:
					tag = tetmesh.Core
				}
				p.Epsilon = append(p.Epsilon, eps)
				p.Gradient = append(p.Gradient, g[0], g[1], g[2])
				p.Tags = append(p.Tags, tag)
			}
		}
	}
	axes := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for k := range n {
		for j := range n {
			for i := range n {
				for _, ax := range axes {
					c := [3]int{i, j, k}
					tet := [4]int32{id(c[0], c[1], c[2])}
					for s := range 3 {
						c[ax[s]]++
						tet[s+1] = id(c[0], c[1], c[2])
					}
					if geom.Orient3D(geom.At(p.Positions, tet[0]), geom.At(p.Positions, tet[1]),
						geom.At(p.Positions, tet[2]), geom.At(p.Positions, tet[3])) < 0 {
						tet[1], tet[2] = tet[2], tet[1]
					}
					p.Tets = append(p.Tets, tet[:]...)
				}
			}
		}
	}
	// A face is on the surface iff its three vertices share a coordinate
	// plane of the box.
	onPlane := func(f [3]int32) bool {
		for a := range 3 {
			x := p.Positions[3*f[0]+int32(a)]
			if (x == 0 || x == float64(n)*h) && p.Positions[3*f[1]+int32(a)] == x && p.Positions[3*f[2]+int32(a)] == x {
				return true
			}
		}
		return false
	}
	for t := 0; t < len(p.Tets); t += 4 {
		for _, f := range tetmesh.TetFaces {
			tri := [3]int32{p.Tets[t+f[0]], p.Tets[t+f[1]], p.Tets[t+f[2]]}
			if onPlane(tri) {
				p.Boundary = append(p.Boundary, tri[:]...)
			}
		}
	}
	p.BVH = NewBVH(p.Positions, p.Tets, 8)
	p.BuildParams = []byte(`{"grid":` + strconv.Itoa(n) + `}`)
	p.BuildReport = []byte(`{"tets":` + strconv.Itoa(6*n*n*n) + `}`)
	for i := range p.SourceSHA256 {
		p.SourceSHA256[i] = byte(i * 7)
	}
	return p
}

// TestGridPFM checks the test mesh itself against what it claims: valid,
// volume n³h³, and 12n² boundary triangles.
func TestGridPFM(t *testing.T) {
	const n, h = 4, 0.25
	p := gridPFM(n, h)
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	m := tetmesh.Mesh{Positions: p.Positions, Tets: p.Tets, Tags: p.Tags}
	if v, want := m.Volume(), math.Pow(n*h, 3); math.Abs(v-want) > 1e-12 {
		t.Errorf("volume %v, want %v", v, want)
	}
	if got, want := p.NumBoundary(), 12*n*n; got != want {
		t.Errorf("%d boundary triangles, want %d", got, want)
	}
}
