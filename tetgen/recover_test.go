package tetgen

import (
	"errors"
	"math"
	"slices"
	"sort"
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

// TestRecoveryLocalChain checks that local splits that do not recover
// what they split end recovery by flips before they leave Steiner points
// all but coincident: on FuzzBuild's seed close-segment-points, chains of
// about 45 local splits, each halving the subsegment the last one left,
// put two points of one input edge 7e−14 apart (a flat tet no point
// splits). Recovery must either fail, for conforming recovery to take
// over, or leave its vertices apart.
func TestRecoveryLocalChain(t *testing.T) {
	s, _, _ := shapes.HeightField([]byte("c0&%&%%7"))
	ms, _ := newMesher(s, Options{Coarse: true}, false)
	if err := ms.initialize(s); err != nil {
		t.Fatal(err)
	}
	err := ms.recoverSurface()
	var recErr *recoveryError
	if errors.As(err, &recErr) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	m := ms.m
	for u := int32(ms.nInput); u < int32(len(ms.kind)); u++ {
		for v := range u {
			if d := math.Sqrt(geom.Dist2(m.pos(u), m.pos(v))); d < 1e-9 {
				t.Fatalf("vertices %d and %d are %g apart", v, u, d)
			}
		}
	}
}

// TestNearVerticesOnce checks that nearVertices visits each vertex of the
// tets it searches once, never a or b, and every vertex of a's star: on
// a refined box, for every subsegment, against the star's vertices taken
// from the tets directly.
func TestNearVerticesOnce(t *testing.T) {
	ms := refineOnly(t, shapes.Box(1, 1, 1, 2), Options{Quality: 2, MaxVolume: 0.002})
	m := ms.m
	checked := 0
	eachSubsegment(ms, func(a, b int32, c geom.Vec, r2 float64) {
		seen := map[int32]int{}
		ms.nearVertices(a, b, c, 4*r2, 1<<20, func(w int32) bool {
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
	})
	if checked < 100 {
		t.Fatalf("only %d subsegments", checked)
	}
}

// TestBoxMeetsBall checks boxMeetsBall against the distance from the
// ball's centre to the tet's box, clamped axis by axis from the sorted
// coordinates: on the merged hinge after recovery, for the diametral ball
// of every subsegment (encroacher's question) and each tet its search
// queues or reaches across a face, at the ball's radius and at radii
// exactly that distance and the next float below it.
func TestBoxMeetsBall(t *testing.T) {
	ms := mergedBeforeRefine(t, loadCorpus(t, "netgen_hinge.stl"))
	m := ms.m
	dist2 := func(u int32, c geom.Vec) float64 {
		d2 := 0.0
		for k := range 3 {
			var x [4]float64
			for i, v := range m.tet(u) {
				x[i] = m.xyz[3*int(v)+k]
			}
			sort.Float64s(x[:])
			p := c[k]
			if p < x[0] {
				p = x[0]
			} else if p > x[3] {
				p = x[3]
			}
			d2 += (c[k] - p) * (c[k] - p)
		}
		return d2
	}
	var met, missed int
	eachSubsegment(ms, func(a, b int32, c geom.Vec, r2 float64) {
		for _, q := range slices.Clone(ms.nearVertices(a, b, c, r2, refineSearch, func(int32) bool { return false })) {
			for k := int32(0); k < 4; k++ {
				n := m.c[q<<3|4|k]
				for _, u := range []int32{q, n >> 2} {
					if n < 0 || m.isGhost(u) {
						continue
					}
					d2 := dist2(u, c)
					for _, r := range []float64{r2, d2, math.Nextafter(d2, -1)} {
						got := ms.boxMeetsBall(u, c, r)
						if want := d2 <= r; got != want {
							t.Fatalf("tet %d, ball (%v, %g) of %d–%d: boxMeetsBall %v, distance² to the box %g", u, c, r, a, b, got, d2)
						}
						if got {
							met++
						} else {
							missed++
						}
					}
				}
			}
		}
	})
	if met < 1000 || missed < 1000 {
		t.Fatalf("only %d balls met and %d missed", met, missed)
	}
	t.Logf("%d balls met, %d missed", met, missed)
}

// eachSubsegment calls do with the ends, the middle and the diametral
// ball's squared radius of each subsegment of each subface.
func eachSubsegment(ms *mesher, do func(a, b int32, mid geom.Vec, r2 float64)) {
	s := &ms.s
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			if s.isSeg(f, e) {
				a, b := s.edge(f, e)
				pa, pb := ms.m.pos(a), ms.m.pos(b)
				do(a, b, geom.Scale(0.5, geom.Add(pa, pb)), geom.Dist2(pa, pb)/4)
			}
		}
	}
}
