package tetgen

import (
	"testing"

	"github.com/pfmesh/pfmesh/internal/shapes"
)

// BenchmarkBuildSizeBound builds the icosphere benchmark of
// bench/tetgen/run.sh (the icosphere of level 4, radius-edge bound
// 1.414, volume bound 8e−6): about 1 M tets, most made by refinement for
// the volume bound, whose tets outgrow the caches. It reports nanoseconds
// per output tet. Smaller volume bounds measure surface refinement
// instead: their stages are led by segment splits and optimization.
func BenchmarkBuildSizeBound(b *testing.B) {
	s := shapes.Icosphere(1, 4)
	tets := 0
	for b.Loop() {
		m, _, err := Build(s, Options{Quality: 1.414, MaxVolume: 8e-6})
		if err != nil {
			b.Fatal(err)
		}
		tets += m.NumTets()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(tets), "ns/tet")
}
