package stuffing

import (
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
)

// BenchmarkBuild meshes the aneurysm of the corpus (organic, closed, half
// of it wound the wrong way) with cells small enough for about a million
// tets (lattice sizes come in powers of two: 0.61 gives 758k tets, 0.386
// gives 4.0M), at the default tolerance.
func BenchmarkBuild(b *testing.B) {
	dir := corpus.Dir(b)
	s, err := format.ReadSurface(dir+"/plb_aneurysm.stl", format.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edge float64
	}{{"tets=1e5", 0.83}, {"tets=7.6e5", 0.61}} {
		b.Run(c.name, func(b *testing.B) {
			var rep *Report
			for b.Loop() {
				var err error
				if _, rep, err = Build(s, Options{EdgeLength: c.edge}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rep.Tets), "tets")
			b.ReportMetric(rep.MinDihedral, "min°")
			b.ReportMetric(float64(rep.Rounds), "rounds")
		})
	}
}
