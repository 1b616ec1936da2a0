package format

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// ballPFM cuts a ball of radius n·h/2 out of gridPFM(n, h): the tets whose
// centroid lies inside, renumbered, with their boundary faces, boundary
// tags and ε = 1 − r/R elsewhere (no BVH). Its surface is the jagged
// staircase of a voxel ball, so it has more boundary per tet than a smooth
// mesher's ball would.
func ballPFM(n int, h float64) *PFM {
	g := gridPFM(n, h)
	r := float64(n) * h / 2
	c := [3]float64{r, r, r}
	dist := func(x [3]float64) float64 { return math.Hypot(math.Hypot(x[0]-c[0], x[1]-c[1]), x[2]-c[2]) }
	newID := make([]int32, g.NumVertices())
	for i := range newID {
		newID[i] = -1
	}
	p := &PFM{Header: g.Header}
	for t := 0; t < len(g.Tets); t += 4 {
		var cen [3]float64
		for _, v := range g.Tets[t : t+4] {
			for a := range 3 {
				cen[a] += g.Positions[3*v+int32(a)] / 4
			}
		}
		if dist(cen) >= r {
			continue
		}
		for _, v := range g.Tets[t : t+4] {
			if newID[v] < 0 {
				newID[v] = int32(p.NumVertices())
				x := [3]float64{g.Positions[3*v], g.Positions[3*v+1], g.Positions[3*v+2]}
				p.Positions = append(p.Positions, x[:]...)
				p.Epsilon = append(p.Epsilon, max(0, 1-dist(x)/r))
				p.Tags = append(p.Tags, tetmesh.Interior)
			}
			p.Tets = append(p.Tets, newID[v])
		}
	}
	nbr, _ := tetmesh.Neighbors(p.Tets, p.NumVertices())
	p.Boundary = tetmesh.BoundaryFaces(p.Tets, nbr)
	for _, v := range p.Boundary {
		p.Tags[v], p.Epsilon[v] = tetmesh.Boundary, 0
	}
	p.Gradient = VertexGradients(p.Positions, p.Tets, p.Epsilon)
	return p
}

// TestPFMSize measures bytes per tet, everything but the BVH counted, on
// meshes of over 100k tets, against the format's targets: at most 28 at
// full precision and 20 with Float32.
func TestPFMSize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two 100k-tet meshes")
	}
	for _, c := range []struct {
		name string
		p    *PFM
	}{
		{"box", gridPFM(26, 0.004)},
		{"ball", ballPFM(32, 0.004)},
	} {
		p := c.p
		if p.NumTets() < 100000 {
			t.Fatalf("%s: %d tets, want ≥ 100k", c.name, p.NumTets())
		}
		for _, w := range []struct {
			opt   WriteOptions
			limit float64
		}{{WriteOptions{}, 28}, {WriteOptions{Float32: true}, 20}} {
			info, err := InspectPFM(writeTemp(t, p, w.opt))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %+v: %d tets, %.2f tets/vertex, %.3f boundary triangles/tet: %.2f bytes/tet",
				c.name, w.opt, p.NumTets(), float64(p.NumTets())/float64(p.NumVertices()),
				float64(p.NumBoundary())/float64(p.NumTets()), info.BytesPerTet)
			if info.BytesPerTet > w.limit {
				t.Errorf("%s %+v: %.2f bytes/tet, want ≤ %g", c.name, w.opt, info.BytesPerTet, w.limit)
			}
		}
	}
}
