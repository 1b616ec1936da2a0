package medial

import (
	"path/filepath"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
)

// BenchmarkBuild builds the default core (Medial, pfmesh's default tet
// budget) of corpus models: curved ones, a CAD part and a thin one.
func BenchmarkBuild(b *testing.B) {
	dir := corpus.Dir(b)
	for _, name := range []string{"matgeom_mushroom.off", "netgen_hinge.stl", "lib3mf_helix.stl", "plb_aneurysm.stl"} {
		s, err := format.ReadSurface(filepath.Join(dir, name), format.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		s, _ = format.Clean(s, format.CleanOptions{})
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Build(s, Options{Mode: Medial, TetBudget: 200_000}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
