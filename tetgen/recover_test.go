package tetgen

import (
	"errors"
	"testing"
)

// TestRecoveryLocalSplits checks that coarse meshes of CAD parts whose
// forced insertions fail keep recovery by flips, with local splits, and
// few Steiner points: conforming recovery put 1 182 (lever), 9 601
// (hinge) and 1 208 (aneurysm) on their surfaces. checkMesh compares the
// volume with the one the input surface encloses and validates the mesh.
// In quality mode the same surfaces still go to conforming recovery.
func TestRecoveryLocalSplits(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus meshing is slow")
	}
	for _, c := range []struct {
		file     string
		steiners int
	}{
		{"gmsh_lever.stl", 200},
		{"netgen_hinge.stl", 400},
		{"plb_aneurysm.stl", 200},
	} {
		t.Run(c.file, func(t *testing.T) {
			s := loadCorpus(t, c.file)
			m, rep, err := Build(s, Options{Coarse: true})
			if err != nil {
				t.Fatal(err)
			}
			checkMesh(t, s, m)
			n := rep.SteinerSegment + rep.SteinerFacet
			if rep.ConformingRecovery || n > c.steiners {
				t.Errorf("conforming recovery %v, %d surface Steiner points; want flips and at most %d",
					rep.ConformingRecovery, n, c.steiners)
			}

			opt := Options{}
			if err := checkOptions(&opt); err != nil {
				t.Fatal(err)
			}
			ms, _ := newMesher(s, opt, false)
			if err := ms.initialize(s); err != nil {
				t.Fatal(err)
			}
			var recErr *recoveryError
			if err := ms.recoverSurface(); !errors.As(err, &recErr) {
				t.Errorf("quality mode: recovery by flips returned %v, want a recoveryError", err)
			}
		})
	}
}
