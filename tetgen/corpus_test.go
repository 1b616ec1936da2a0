package tetgen

import (
	"os"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
)

// Every corpus model that format.Clean makes exact-path clean meshes and
// passes checkMesh; every other one is refused with an error.
func TestCorpusCoarse(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus meshing is slow")
	}
	dir := corpus.Dir(t)
	for _, e := range corpus.Manifest(t, dir) {
		t.Run(e["file"], func(t *testing.T) {
			t.Parallel() // the models are independent: use every core
			s := loadCorpus(t, e["file"])
			exact := format.Diagnose(s).Verdict.Path == format.PathExact
			m, rep, err := Build(s, Options{Coarse: true})
			if !exact {
				if err == nil {
					t.Fatalf("meshed a surface the diagnosis sends to the robust path")
				}
				t.Logf("refused: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkMesh(t, s, m)
			t.Logf("%d input vertices → %d vertices, %d tets; Steiner %d segment, %d facet, %d void; %v",
				s.NumVertices(), m.NumVertices(), m.NumTets(), rep.SteinerSegment, rep.SteinerFacet, rep.VoidSplits, rep.Timings)
		})
	}
}

// Quality mode on occt_propeller.stl once failed with "cannot split a
// zero-pressure tet": refinement had put circumcentres within rounding of
// existing vertices (centreGap). 5e5 tets and about 30 s, so it runs only
// with PFMESH_LONG=1 (see bench/README.md).
func TestCorpusPropellerQuality(t *testing.T) {
	if os.Getenv("PFMESH_LONG") == "" {
		t.Skip("long: set PFMESH_LONG=1")
	}
	s := loadCorpus(t, "occt_propeller.stl")
	m, rep, err := Build(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, s, m)
	t.Logf("%d tets, min dihedral %.3g°, quality capped %v", m.NumTets(), rep.Quality.MinDihedral, rep.QualityCapped)
}
