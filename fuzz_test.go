package pfmesh_test

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// FuzzBuildSurface runs the whole pipeline (clean, medial core, exact
// mesher, solve, file content) on closed surfaces made from
// the fuzzer's bytes, each valid by construction (shapes.FromBytes), and
// checks each result as the corpus tests do (checkField) and that the
// mesh keeps the enclosed volume: BuildSurface must neither fail, fall
// back to the robust path, nor panic on them.
//
// The first byte picks the family; the second the options: coarse mode,
// input triangles kept as facets, quality at √2, the discretization
// (limited, Galerkin, monotone) and float32 output. (Not a rigid core:
// its surface is meshed with edges of half its depth, so a depth small
// enough for every family makes runs of seconds.)
func FuzzBuildSurface(f *testing.F) {
	f.Add([]byte{0, 0, 2, 2, 3, 1, 4, 1, 5, 9, 2, 6})
	f.Add([]byte{1, 1, 10, 200, 30, 250, 40, 90, 255, 0, 128, 77})
	f.Add([]byte{2, 2, 5, 255, 10, 255, 10, 255, 10, 255, 10})
	f.Add([]byte{0, 0x0c, 5, 7, 1, 8, 3, 3, 3, 3, 3, 3, 3, 3, 0x0f})
	f.Add([]byte{1, 0x14, 77, 88, 99, 11, 22, 33, 44, 55, 66, 0, 128})
	f.Add([]byte{2, 0x49, 0, 0, 0, 0, 40, 90, 140})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		kind, opts, data := data[0], data[1], data[2:]
		s, _, _ := shapes.FromBytes(kind, data)
		opt := pfmesh.Options{
			Modulus:       1e6,
			Mesher:        pfmesh.MesherExact,
			Coarse:        opts&1 != 0,
			KeepTriangles: opts&2 != 0,
			Scheme:        [...]string{pfmesh.SchemeLimited, pfmesh.SchemeGalerkin, pfmesh.SchemeMonotone, pfmesh.SchemeLimited}[opts>>3&3],
			Float32:       opts&64 != 0,
			// A small budget keeps a run near a tenth of a second: the
			// shapes, not the sizes, are what the fuzzer explores.
			TetBudget: 2000,
		}
		if opts&4 != 0 {
			opt.Quality = math.Sqrt2
		}
		p, rep, err := pfmesh.BuildSurface(s, opt)
		if err != nil {
			t.Fatalf("BuildSurface(%+v) of a valid surface: %v", opt, err)
		}
		checkField(t, "fuzz", p, rep)
		if v, want := tetVolume(p), shapes.Volume(s); !opt.Float32 && math.Abs(v-want) > 1e-9*want {
			t.Fatalf("tets' volume %.17g, the surface encloses %.17g", v, want)
		}
	})
}
