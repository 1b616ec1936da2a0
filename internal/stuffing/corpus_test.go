package stuffing

import (
	"flag"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/winding"
)

var acceptance = flag.Bool("stuffing.acceptance", false,
	"mesh the corpus at the default tolerance (1e-3 of the diagonal) with a finer Monte Carlo volume; minutes, not seconds")

// windingVolume estimates the volume of {w > 1/2} of s by stratified Monte
// Carlo, independently of Build's lattice and crossing counts: s is
// oriented as Build orients it (format.Clean, then keepUnions), and w is
// evaluated by winding.Tree at one jittered point in each of n³ cells of
// the bounding box. It returns the estimate and its standard error, from
// the differences between neighbouring cells.
func windingVolume(s *format.Surface, n int) (vol, stderr float64) {
	clean, _ := format.Clean(s, format.CleanOptions{})
	keepUnions(clean.Positions, clean.Triangles)
	pos := clean.Positions
	lo := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Scale(-1, lo)
	for i := 0; i < len(pos); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], pos[i+k]), max(hi[k], pos[i+k])
		}
	}
	tree := winding.New(pos, clean.Triangles)
	ext := geom.Sub(hi, lo)
	inside := make([]bool, n*n*n)
	parallelFor(n, func(a, b int) {
		for i := a; i < b; i++ {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					p := geom.Vec{lo[0] + (float64(i)+r.Float64())*ext[0]/float64(n),
						lo[1] + (float64(j)+r.Float64())*ext[1]/float64(n),
						lo[2] + (float64(k)+r.Float64())*ext[2]/float64(n)}
					inside[(i*n+j)*n+k] = tree.Inside(p)
				}
			}
		}
	})
	count, diff := 0, 0
	for c, in := range inside {
		if in {
			count++
		}
		if c%2 == 1 && in != inside[c-1] {
			diff++
		}
	}
	cell := ext[0] * ext[1] * ext[2] / float64(n*n*n)
	return float64(count) * cell, math.Sqrt(float64(diff)) * cell
}

// Every corpus file, dirty ones included, builds, validates, keeps within
// its Hausdorff tolerance and has the volume of the input's winding-number
// solid within 1%.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus meshing is not short")
	}
	dir := corpus.Dir(t)
	rel, mc := 4e-3, 40
	if *acceptance {
		rel, mc = 1e-3, 96
	}
	for _, e := range corpus.Manifest(t, dir) {
		t.Run(e["file"], func(t *testing.T) {
			s, err := format.ReadSurface(e.Path(dir), format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tol := rel * bboxDiagonal(s.Positions)
			m, rep, err := Build(s, Options{Tolerance: tol})
			if err != nil {
				t.Fatal(err)
			}
			if err := tetmesh.Validate(m); err != nil {
				t.Error(err)
			}
			if rep.HausdorffIn > tol || rep.HausdorffOut > tol {
				t.Errorf("Hausdorff in %.3g out %.3g, tolerance %.3g", rep.HausdorffIn, rep.HausdorffOut, tol)
			}
			want, se := windingVolume(s, mc)
			if d := math.Abs(rep.Volume - want); d > 0.01*want {
				t.Errorf("volume %.6g, winding-number volume %.6g ± %.2g: off by %.2f%%", rep.Volume, want, se, 100*d/want)
			}
			t.Logf("tets %d, rounds %d, Hausdorff %.2f/%.2f of tol, volume %+.3f%% (MC ±%.3f%%), thinnest %.3g, min dihedral %.1f°, snapped %d+%d, crossings %d, notes %v",
				rep.Tets, rep.Rounds, rep.HausdorffIn/tol, rep.HausdorffOut/tol, 100*(rep.Volume-want)/want, 100*se/want,
				rep.ThinnestFeature, rep.MinDihedral, rep.SnappedToEdges, rep.SnappedToCorners, rep.Crossings, rep.Notes)
		})
	}
}
