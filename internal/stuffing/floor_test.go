package stuffing

import (
	"flag"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

var robust = flag.Bool("stuffing.robust", false,
	"TestFloorUnderReordering meshes the benchmark's 1.2M-tet aneurysm under four incidence orders (≈ 45 s CPU)")

// orders are valid incidence orders other than the one tetsAround makes:
// each vertex's tets reversed, rotated, and shuffled.
var orders = []struct {
	name    string
	reorder func(*incidence)
}{
	{"reversed", func(inc *incidence) {
		for _, ts := range inc.tets {
			slices.Reverse(ts)
		}
	}},
	{"rotated", func(inc *incidence) {
		for v, ts := range inc.tets {
			if len(ts) > 1 {
				k := v % len(ts)
				inc.tets[v] = append(slices.Clone(ts[k:]), ts[:k]...)
			}
		}
	}},
	{"shuffled", func(inc *incidence) {
		r := rand.New(rand.NewPCG(8, 1))
		for _, ts := range inc.tets {
			r.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
		}
	}},
}

// buildReordered meshes s with the incidence lists put in each order,
// and fails unless every mesh equals the one made in the natural order
// and has no dihedral angle under floor (degrees, measured here from the
// mesh, not from the report). names picks the orders.
func buildReordered(t *testing.T, s *format.Surface, opt Options, floor float64, names ...string) {
	build := func() *tetmesh.Mesh {
		m, rep, err := Build(s, opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := tetmesh.Validate(m); err != nil {
			t.Fatal(err)
		}
		if got := smallestAngle(m); got < floor {
			t.Errorf("smallest dihedral angle %.3f°, want ≥ %g° (%d tets, %d flips)", got, floor, rep.Tets, rep.Flips)
		}
		return m
	}
	want := build()
	defer func() { reorderIncidence = nil }()
	for _, o := range orders {
		if !slices.Contains(names, o.name) {
			continue
		}
		reorderIncidence = o.reorder
		if m := build(); !slices.Equal(m.Positions, want.Positions) || !slices.Equal(m.Tets, want.Tets) || !slices.Equal(m.Tags, want.Tags) {
			t.Errorf("%s incidence lists: the mesh differs (%d tets, %d in the natural order)", o.name, m.NumTets(), want.NumTets())
		}
	}
}

// The quality passes end wherever their steps lead; the steps must not
// depend on the order of the incidence lists (an accident of the edits
// made before), or neither does the floor. On the aneurysm at 1e-2 of its
// diagonal session 7's code gave another mesh.
func TestQualityIgnoresIncidenceOrder(t *testing.T) {
	skipUnderRace(t)
	s, err := format.ReadSurface(corpus.Dir(t)+"/plb_aneurysm.stl", format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	buildReordered(t, s, Options{Tolerance: 1e-2 * bboxDiagonal(s.Positions)}, 10, "shuffled")
}

// The benchmark's mesh (BenchmarkBuild/tets=1.2e6) keeps the 10° floor in
// every incidence order; session 7's code gave 8.75° in one of them.
func TestFloorUnderReordering(t *testing.T) {
	if !*robust {
		t.Skip("-stuffing.robust runs it")
	}
	s, err := format.ReadSurface(corpus.Dir(t)+"/plb_aneurysm.stl", format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	buildReordered(t, s, Options{Tolerance: 7e-4 * bboxDiagonal(s.Positions), EdgeLength: 0.61}, 10, "reversed", "rotated", "shuffled")
}
