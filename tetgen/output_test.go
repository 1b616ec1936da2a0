package tetgen

import (
	"runtime"
	"testing"

	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// measureQuality must equal the serial tetmesh.MeasureQuality for any
// number of goroutines.
func TestMeasureQuality(t *testing.T) {
	m, _, err := Build(shapes.Icosphere(1, 2), Options{MaxVolume: 2e-4})
	if err != nil {
		t.Fatal(err)
	}
	if m.NumTets() < 1<<15 {
		t.Fatalf("%d tets: too few to split", m.NumTets())
	}
	want := tetmesh.MeasureQuality(m)
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		got := measureQuality(m)
		runtime.GOMAXPROCS(old)
		if got != want {
			t.Errorf("GOMAXPROCS %d: %+v, serial %+v", procs, got, want)
		}
	}
}
