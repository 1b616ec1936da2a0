package format_test

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/fixtures"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

func read(t *testing.T, name string) *format.Surface {
	t.Helper()
	s, err := format.ReadSurface(fixtures.Path(name), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Clean's counts for each fixture follow from its construction, and the
// result is a closed, consistently oriented surface of positive volume.
func TestCleanFixtures(t *testing.T) {
	cases := []struct {
		name string
		want format.CleanReport // the In/Out counts are checked separately
	}{
		{"cube.stl", format.CleanReport{}},
		{"flipped.stl", format.CleanReport{FlippedTriangles: 1}},
		{"inside_out.off", format.CleanReport{ReversedPatches: 1}},
		{"duplicate_vertices.obj", format.CleanReport{MergedExact: 28}},
		{"torus.off", format.CleanReport{}},
	}
	for _, c := range cases {
		s := read(t, c.name)
		before := slices.Clone(s.Triangles)
		out, rep := format.Clean(s, format.CleanOptions{})
		if !slices.Equal(s.Triangles, before) {
			t.Errorf("%s: Clean modified its input", c.name)
		}
		got := *rep
		got.VerticesIn, got.VerticesOut, got.TrianglesIn, got.TrianglesOut = 0, 0, 0, 0
		if got != c.want {
			t.Errorf("%s: report %+v, want %+v", c.name, got, c.want)
		}
		if rep.TrianglesIn != s.NumTriangles() || rep.TrianglesOut != out.NumTriangles() || rep.VerticesOut != out.NumVertices() {
			t.Errorf("%s: report sizes %+v", c.name, rep)
		}
		r := format.Diagnose(out)
		if !r.Closed || !r.ConsistentlyOriented || r.Volume <= 0 || r.DuplicateVertices != 0 {
			t.Errorf("%s: cleaned surface: closed %v, oriented %v, volume %g, duplicate vertices %d",
				c.name, r.Closed, r.ConsistentlyOriented, r.Volume, r.DuplicateVertices)
		}
		if c.name != "torus.off" && r.Volume != 1 {
			t.Errorf("%s: volume %g after Clean, want 1", c.name, r.Volume)
		}
	}
}

// Degenerate and duplicate triangles and unused vertices are dropped and
// counted, each for its first reason.
func TestCleanDrops(t *testing.T) {
	s := shapes.Box(1, 1, 1, 1)
	t0 := slices.Clone(s.Triangles[:3])
	s.Positions = append(s.Positions, 9, 9, 9, 0.5, 0, 0) // vertex 8 unused; 9 on the edge from (0,0,0) to (1,0,0)
	var x0, x1 int32 = -1, -1
	for v := range int32(8) {
		if p := s.Positions[3*v : 3*v+3]; p[1] == 0 && p[2] == 0 {
			if p[0] == 0 {
				x0 = v
			} else {
				x1 = v
			}
		}
	}
	s.Triangles = append(s.Triangles,
		t0[0], t0[0], t0[1], // collapsed
		x0, 9, x1, // zero area
		t0[0], t0[1], t0[2], // duplicate
		t0[2], t0[1], t0[0], // duplicate, reversed
	)
	out, rep := format.Clean(s, format.CleanOptions{})
	want := format.CleanReport{VerticesIn: 10, TrianglesIn: 16, VerticesOut: 8, TrianglesOut: 12,
		UnusedVertices: 2, DroppedCollapsed: 1, DroppedZeroArea: 1, DroppedDuplicate: 2}
	if *rep != want {
		t.Errorf("report %+v\nwant   %+v", *rep, want)
	}
	if r := format.Diagnose(out); !r.Closed || r.Volume != 1 {
		t.Errorf("cleaned: closed %v volume %g", r.Closed, r.Volume)
	}
}

// A tolerance weld merges vertices that differ by noise far below it, and
// an exact weld does not.
func TestCleanTolerance(t *testing.T) {
	s := fixtures.Unwelded()
	r := rand.New(rand.NewSource(3))
	for i := range s.Positions {
		s.Positions[i] += 1e-9 * (r.Float64() - 0.5)
	}
	_, exact := format.Clean(s, format.CleanOptions{})
	if exact.MergedExact != 0 || exact.VerticesOut != 36 {
		t.Errorf("exact weld: %+v", exact)
	}
	out, tol := format.Clean(s, format.CleanOptions{Tolerance: 1e-6})
	if tol.MergedTolerance != 28 || tol.VerticesOut != 8 {
		t.Errorf("tolerance weld: %+v", tol)
	}
	if r := format.Diagnose(out); !r.Closed || math.Abs(r.Volume-1) > 1e-8 {
		t.Errorf("closed %v volume %g", r.Closed, r.Volume)
	}
	// Vertices two tolerances apart stay apart.
	_, far := format.Clean(s, format.CleanOptions{Tolerance: 1e-12})
	if far.MergedTolerance != 0 {
		t.Errorf("tolerance below the noise merged %d", far.MergedTolerance)
	}
}

// Nested closed shells alternate: the outermost encloses positive volume,
// the wall of a cavity negative, a solid inside the cavity positive —
// whatever orientation each shell had.
func TestCleanNestedShells(t *testing.T) {
	box := func(lo, size float64, inward bool) *format.Surface {
		s := shapes.Box(size, size, size, 1)
		for i := range s.Positions {
			s.Positions[i] += lo
		}
		if inward {
			for t := range s.NumTriangles() {
				s.Triangles[3*t+1], s.Triangles[3*t+2] = s.Triangles[3*t+2], s.Triangles[3*t+1]
			}
		}
		return s
	}
	for mask := range 8 {
		s := concat(box(0, 5, mask&1 != 0), concat(box(1, 3, mask&2 != 0), box(2, 1, mask&4 != 0)))
		out, rep := format.Clean(s, format.CleanOptions{})
		r := format.Diagnose(out)
		if want := 125.0 - 27 + 1; math.Abs(r.Volume-want) > 1e-12*want {
			t.Errorf("orientations %03b: volume %g, want %g (%+v)", mask, r.Volume, want, rep)
		}
		wantReversed := 0
		for i, outward := range []bool{true, false, true} { // what each shell must become
			if (mask>>i&1 == 0) != outward {
				wantReversed++
			}
		}
		if rep.ReversedPatches != wantReversed {
			t.Errorf("orientations %03b: reversed %d patches, want %d", mask, rep.ReversedPatches, wantReversed)
		}
	}
}

// Clean is idempotent: a cleaned surface has nothing left to clean.
func TestCleanIdempotent(t *testing.T) {
	for _, name := range []string{"flipped.stl", "duplicate_vertices.obj", "nonmanifold.obj", "hole.obj", "selfx.stl"} {
		once, _ := format.Clean(read(t, name), format.CleanOptions{})
		twice, rep := format.Clean(once, format.CleanOptions{})
		if rep.Changed() || !slices.Equal(once.Triangles, twice.Triangles) || !slices.Equal(once.Positions, twice.Positions) {
			t.Errorf("%s: second Clean changed %+v", name, rep)
		}
	}
}

// Every corpus file cleans into a consistently oriented surface where the
// manifest says it is orientable, and the closed ones enclose positive
// volume: the inside-out drum's |volume|, as the manifest measures it.
func TestCleanCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	for _, e := range corpus.Manifest(t, dir) {
		s, err := format.ReadSurface(e.Path(dir), format.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out, rep := format.Clean(s, format.CleanOptions{})
		r := format.Diagnose(out)
		if rep.NonOrientablePatches == 0 && r.InconsistentEdges != 0 {
			t.Errorf("%s: %d inconsistent edges after Clean", e["file"], r.InconsistentEdges)
		}
		if r.Closed && r.ConsistentlyOriented && r.Volume <= 0 {
			t.Errorf("%s: closed, volume %g after Clean", e["file"], r.Volume)
		}
		if e["file"] == "yade_baraban.stl" && math.Abs(r.Volume-679.449) > 1e-3 {
			t.Errorf("%s: volume %g, want 679.449", e["file"], r.Volume)
		}
	}
}
