package stuffing

import (
	"testing"
	"time"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
)

// BenchmarkBuild meshes the aneurysm of the corpus (organic, closed, half
// of it wound the wrong way). Each case is named by the number of tets it
// makes: the tolerance sets the size near the surface, EdgeLength inside
// (lattice cells come in powers of two: 0.61 gives 750k tets at the
// default tolerance, 0.386 gives 4.0M; 7e-4 of the diagonal with 0.61
// gives 1.16M in one round). s/Mtet is the wall time per million tets,
// the unit of the 5 s target.
func BenchmarkBuild(b *testing.B) {
	dir := corpus.Dir(b)
	s, err := format.ReadSurface(dir+"/plb_aneurysm.stl", format.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	diag := bboxDiagonal(s.Positions)
	for _, c := range []struct {
		name      string
		tol, edge float64 // tolerance relative to the diagonal
	}{{"tets=2.9e5", 4e-3, 0}, {"tets=7.5e5", 1e-3, 0.61}, {"tets=1.2e6", 7e-4, 0.61}} {
		b.Run(c.name, func(b *testing.B) {
			var rep *Report
			start := time.Now()
			for b.Loop() {
				var err error
				if _, rep, err = Build(s, Options{Tolerance: c.tol * diag, EdgeLength: c.edge}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N)/float64(rep.Tets)*1e6, "s/Mtet")
			b.ReportMetric(float64(rep.Tets), "tets")
			b.ReportMetric(rep.MinDihedral, "min°")
			b.ReportMetric(float64(rep.Rounds), "rounds")
		})
	}
}
