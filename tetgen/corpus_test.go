package tetgen

import (
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
