package tetgen

import (
	"errors"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
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

// TestNearVerticesOnce checks that nearVertices visits each vertex of the
// tets it searches once, never a or b, and every vertex of a's star: on
// a refined box, for every subsegment, against the star's vertices taken
// from the tets directly.
func TestNearVerticesOnce(t *testing.T) {
	ms := refineOnly(t, shapes.Box(1, 1, 1, 2), Options{Quality: 2, MaxVolume: 0.002})
	s, m := &ms.s, ms.m
	checked := 0
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			if !s.isSeg(f, e) {
				continue
			}
			a, b := s.edge(f, e)
			pa, pb := m.pos(a), m.pos(b)
			seen := map[int32]int{}
			ms.nearVertices(a, b, geom.Scale(0.5, geom.Add(pa, pb)), geom.Dist2(pa, pb), 1<<20, func(w int32) bool {
				seen[w]++
				return false
			})
			for w, n := range seen {
				if n != 1 || w == a || w == b {
					t.Fatalf("subsegment %d–%d: vertex %d visited %d times", a, b, w, n)
				}
			}
			for _, tt := range m.star(a, nil) {
				for _, w := range m.tet(tt) {
					if w >= 0 && w != a && w != b && seen[w] == 0 {
						t.Fatalf("subsegment %d–%d: vertex %d of a's star not visited", a, b, w)
					}
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d subsegments", checked)
	}
}
