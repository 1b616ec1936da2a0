package tetgrid

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// validate runs tetmesh.Validate and ignores the kinds of problem listed in
// allowed (substrings of Problem.Kind).
func validate(m *tetmesh.Mesh, allowed ...string) error {
	err := tetmesh.Validate(m)
	var ve *tetmesh.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	kept := &tetmesh.ValidationError{}
next:
	for _, p := range ve.Problems {
		for _, a := range allowed {
			if strings.Contains(p.Kind, a) {
				continue next
			}
		}
		kept.Problems = append(kept.Problems, p)
	}
	if len(kept.Problems) == 0 {
		return nil
	}
	return kept
}

func TestBoxValid(t *testing.T) {
	for _, n := range [][3]int{{1, 1, 1}, {2, 3, 4}, {5, 1, 2}} {
		m := Box(n, geom.Vec{-1, 0, 2}, geom.Vec{2, 1, 3.5})
		if err := validate(m, "zero-pressure"); err != nil {
			t.Fatalf("Box(%v): %v", n, err)
		}
		if got, want := m.Volume(), 3*1*1.5; math.Abs(got-want) > 1e-12 {
			t.Errorf("Box(%v) volume %g, want %g", n, got, want)
		}
		if got, want := m.NumTets(), 6*n[0]*n[1]*n[2]; got != want {
			t.Errorf("Box(%v) has %d tets, want %d", n, got, want)
		}
	}
}

// The Kuhn tets of a cube have dihedral angles of 45°, 60° and 90° only.
func TestBoxNonObtuse(t *testing.T) {
	m := Box([3]int{2, 2, 2}, geom.Vec{}, geom.Vec{1, 1, 1})
	for i := 0; i < len(m.Tets); i += 4 {
		q := m.Tets[i : i+4]
		for _, a := range tetmesh.Dihedral(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])) {
			if a > math.Pi/2+1e-12 {
				t.Fatalf("tet %d has dihedral angle %g°", i/4, a*180/math.Pi)
			}
		}
	}
}

func TestShellValid(t *testing.T) {
	// N/n = (b/a)^(4/π) = 2.5 exactly for even n: uniform refinement.
	a, b := 1.0, math.Pow(2.5, math.Pi/4)
	for _, n := range []int{1, 2, 4} {
		m := Shell(a, b, n)
		// The inner sphere bounds a hole whose vertices are Core.
		if err := validate(m, "zero-pressure", "boundary vertex not tagged Boundary"); err != nil {
			t.Fatalf("Shell(n=%d): %v", n, err)
		}
		N := int(math.Round(float64(n) * math.Pow(b/a, 4/math.Pi)))
		if got, want := m.NumTets(), 6*(8*N*N*N-8*n*n*n); got != want {
			t.Errorf("Shell(n=%d) has %d tets, want %d", n, got, want)
		}
		for v, tag := range m.Tags {
			r := geom.Norm(m.Vertex(int32(v)))
			switch {
			case tag == tetmesh.Core && math.Abs(r-a) > 1e-15*a, tag == tetmesh.Boundary && math.Abs(r-b) > 1e-15*b:
				t.Fatalf("vertex %d tagged %d at r = %g", v, tag, r)
			case tag == tetmesh.Interior && !(r > a && r < b):
				t.Fatalf("interior vertex %d at r = %g", v, r)
			}
		}
	}
	// Inscribed polyhedra: the volume approaches 4π/3·(b³−a³) from the
	// inside of the outer sphere, at second order.
	exact := 4 * math.Pi / 3 * (b*b*b - a*a*a)
	e4 := math.Abs(Shell(a, b, 4).Volume() - exact)
	e8 := math.Abs(Shell(a, b, 8).Volume() - exact)
	if r := e4 / e8; r < 3.5 {
		t.Errorf("volume error ratio %g under refinement, want ≈ 4", r)
	}
}

// A jittered grid keeps its orientation, its boundary and its volume.
func TestJitter(t *testing.T) {
	m := Box([3]int{6, 5, 4}, geom.Vec{0, 0, 0}, geom.Vec{1.2, 1, 0.8})
	Jitter(m, 0.3*0.2, 1)
	if err := validate(m, "zero-pressure"); err != nil {
		t.Fatal(err)
	}
	if got, want := m.Volume(), 1.2*1*0.8; math.Abs(got-want) > 1e-12 {
		t.Errorf("volume %g, want %g", got, want)
	}
}
