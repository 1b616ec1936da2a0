package stuffing

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

func TestBuildSphere(t *testing.T) {
	skipUnderRace(t)
	s := shapes.Icosphere(1, 4)
	m, rep := buildChecked(t, s, Options{})
	within(t, "volume", m.Volume(), shapes.Volume(s), 0.003)
	if rep.MinDihedral <= 0 || rep.MaxDihedral >= 180 {
		t.Errorf("dihedral range [%g°, %g°]", rep.MinDihedral, rep.MaxDihedral)
	}
}

// Same input and options give the same mesh whatever GOMAXPROCS is.
func TestDeterministic(t *testing.T) {
	// Overlapping shells (a crossing curve) and a box (creases, corners).
	s := union(shapes.Icosphere(1, 3), translate(shapes.Icosphere(1, 3), geom.Vec{1, 0.1, 0}),
		translate(shapes.Box(1, 1, 1, 2), geom.Vec{3.2, 0.2, 0.1}))
	build := func(procs int) *tetmesh.Mesh {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		m, _, err := Build(s, Options{Tolerance: 2e-2})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	a := build(1)
	for _, procs := range []int{2, 4} {
		if b := build(procs); !slices.Equal(a.Positions, b.Positions) || !slices.Equal(a.Tets, b.Tets) || !slices.Equal(a.Tags, b.Tags) {
			t.Errorf("GOMAXPROCS 1 and %d give different meshes (%d and %d tets)", procs, a.NumTets(), b.NumTets())
		}
	}
}

// A plate much thinner than the coarsest surface cell is kept, at its
// thickness, and reported as the thinnest feature.
func TestThinPlate(t *testing.T) {
	skipUnderRace(t)
	const th = 0.04
	s := shapes.Plate(1, th, 4)
	_, rep := buildChecked(t, s, Options{Tolerance: 4e-3})
	within(t, "volume", rep.Volume, th, 0.01)
	if math.Abs(rep.ThinnestFeature-th) > rep.Tolerance {
		t.Errorf("thinnest feature %.4g, want %.4g ± %.2g", rep.ThinnestFeature, th, rep.Tolerance)
	}
}

// Core tags exactly the non-boundary vertices where the test holds.
func TestCoreTags(t *testing.T) {
	core := func(p geom.Vec) bool { return geom.Norm(p) < 0.5 }
	m, _ := buildChecked(t, shapes.Icosphere(1, 3), Options{Tolerance: 5e-3, Core: core})
	n := 0
	for v, tag := range m.Tags {
		want := tag != tetmesh.Boundary && core(m.Vertex(int32(v)))
		if (tag == tetmesh.Core) != want {
			t.Fatalf("vertex %d at %v tagged %d", v, m.Vertex(int32(v)), tag)
		}
		if tag == tetmesh.Core {
			n++
		}
	}
	if n == 0 {
		t.Error("no vertex tagged Core")
	}
}

func TestBadInput(t *testing.T) {
	box := shapes.Box(1, 1, 1, 1)
	nan := &format.Surface{Positions: slices.Clone(box.Positions), Triangles: box.Triangles}
	nan.Positions[4] = math.NaN()
	flat := &format.Surface{Positions: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0}, Triangles: []int32{0, 1, 2}}
	for _, c := range []struct {
		name string
		s    *format.Surface
		want string
	}{
		{"nil", nil, "nil surface"},
		{"no triangles", &format.Surface{Positions: box.Positions}, "no triangles"},
		{"ragged positions", &format.Surface{Positions: []float64{0, 0}, Triangles: []int32{0, 0, 0}}, "whole number of vertices"},
		{"ragged triangles", &format.Surface{Positions: box.Positions, Triangles: []int32{0, 1}}, "whole number of triangles"},
		{"index out of range", &format.Surface{Positions: box.Positions, Triangles: []int32{0, 1, 99}}, "outside"},
		{"negative index", &format.Surface{Positions: box.Positions, Triangles: []int32{0, -1, 2}}, "outside"},
		{"NaN", nan, "non-finite"},
		{"collapsed", &format.Surface{Positions: box.Positions, Triangles: []int32{0, 0, 1}}, "no triangle with three distinct"},
		{"encloses nothing", flat, "encloses no volume"},
	} {
		_, _, err := Build(c.s, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// FuzzBuild feeds small triangle soups on a coarse grid: Build must not
// panic, and whatever mesh it returns must validate.
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 0, 0, 9, 0, 0, 0, 9, 0, 0, 0, 9, 0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3})
	f.Add([]byte{0, 0, 0, 4, 0, 0, 0, 4, 0, 1, 1, 4, 0, 1, 2, 0, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 12 || len(data) > 64 {
			return
		}
		nv := 4 + int(data[0])%4
		if len(data) < 3*nv+3 {
			return
		}
		s := &format.Surface{}
		for i := 0; i < 3*nv; i++ {
			s.Positions = append(s.Positions, float64(data[1+i]%16))
		}
		for _, b := range data[1+3*nv:] {
			s.Triangles = append(s.Triangles, int32(b)%int32(nv))
		}
		s.Triangles = s.Triangles[:len(s.Triangles)/3*3]
		m, _, err := Build(s, Options{Tolerance: 0.2})
		if err != nil {
			return
		}
		if err := tetmesh.Validate(m); err != nil {
			t.Fatalf("input %v: %v", s, err)
		}
	})
}

func ExampleBuild() {
	// An inside-out unit cube: Build orients it, snaps its edges and
	// corners, and says how close the result stays to it.
	s := shapes.Box(1, 1, 1, 1)
	for i := 0; i < len(s.Triangles); i += 3 {
		s.Triangles[i+1], s.Triangles[i+2] = s.Triangles[i+2], s.Triangles[i+1]
	}
	m, rep, err := Build(s, Options{Tolerance: 0.01})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("valid: %v\n", tetmesh.Validate(m) == nil)
	fmt.Printf("volume: %.4f\n", m.Volume())
	fmt.Printf("within tolerance: %v\n", max(rep.HausdorffIn, rep.HausdorffOut) <= rep.Tolerance)
	fmt.Printf("corners snapped: %d\n", rep.SnappedToCorners)
	// Output:
	// valid: true
	// volume: 1.0000
	// within tolerance: true
	// corners snapped: 8
}

// skipUnderRace skips an accuracy test on a large mesh in -race -short
// runs (see raceEnabled); the plain run keeps it.
func skipUnderRace(t *testing.T) {
	if raceEnabled && testing.Short() {
		t.Skip("accuracy on a large mesh: run without -race")
	}
}

// The boundary must keep every crease exactly, whatever snapping, quality
// moves and mending do: points along each edge of an L-shaped bracket
// (convex and reflex creases) lie on the output boundary to rounding.
func TestCreasesKept(t *testing.T) {
	const depth = 1.3
	s := shapes.LBracket(2, 0.7, depth)
	m, rep := buildChecked(t, s, Options{Tolerance: 4e-3 * bboxDiagonal(s.Positions)})
	tris, _ := boundaryOf(m.Tets, m.NumVertices())
	ix := trisearch.New(m.Positions, tris)
	outline := [][2]float64{{0, 0}, {2, 0}, {2, 0.7}, {0.7, 0.7}, {0.7, 2}, {0, 2}}
	worst := 0.0
	check := func(a, b geom.Vec) {
		for i := 0; i <= 100; i++ {
			p := geom.Add(a, geom.Scale(float64(i)/100, geom.Sub(b, a)))
			_, _, d2 := ix.Closest(p)
			worst = max(worst, math.Sqrt(d2))
		}
	}
	for i, p := range outline {
		q := outline[(i+1)%len(outline)]
		for _, z := range []float64{0, depth} {
			check(geom.Vec{p[0], p[1], z}, geom.Vec{q[0], q[1], z}) // rims
		}
		check(geom.Vec{p[0], p[1], 0}, geom.Vec{p[0], p[1], depth}) // vertical creases
	}
	if worst > 1e-9 {
		t.Errorf("a crease point lies %.3g from the boundary", worst)
	}
	t.Logf("min dihedral %.1f°, %d tets", rep.MinDihedral, rep.Tets)
}
