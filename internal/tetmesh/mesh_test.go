package tetmesh

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// cubeCentre is the paper's 12-tet cube: every boundary triangle joined to
// a centre vertex. It is the smallest valid mesh of a cube.
func cubeCentre() *Mesh {
	pos := []float64{}
	for i := 0; i < 8; i++ {
		pos = append(pos, float64(i&1), float64(i>>1&1), float64(i>>2&1))
	}
	pos = append(pos, 0.5, 0.5, 0.5)
	// Outward boundary triangles of the unit cube (corner i = x + 2y + 4z).
	tris := []int32{
		0, 2, 3, 0, 3, 1, // z = 0
		4, 5, 7, 4, 7, 6, // z = 1
		0, 1, 5, 0, 5, 4, // y = 0
		2, 6, 7, 2, 7, 3, // y = 1
		0, 4, 6, 0, 6, 2, // x = 0
		1, 3, 7, 1, 7, 5, // x = 1
	}
	m := &Mesh{Positions: pos}
	for i := 0; i < len(tris); i += 3 {
		// Outward face (a, b, c) and an interior apex: (a, c, b, apex) is
		// positive.
		m.Tets = append(m.Tets, tris[i], tris[i+2], tris[i+1], 8)
	}
	m.Tags = make([]Tag, 9)
	for i := 0; i < 8; i++ {
		m.Tags[i] = Boundary
	}
	m.Tags[8] = Core
	return m
}

func TestCubeCentreValid(t *testing.T) {
	m := cubeCentre()
	if err := Validate(m); err != nil {
		t.Fatal(err)
	}
	if v := m.Volume(); math.Abs(v-1) > 1e-15 {
		t.Fatalf("volume %g, want 1", v)
	}
	nbr, ok := Neighbors(m.Tets, m.NumVertices())
	if !ok {
		t.Fatal("non-manifold")
	}
	if got := len(BoundaryFaces(m.Tets, nbr)) / 3; got != 12 {
		t.Fatalf("%d boundary faces, want 12", got)
	}
}

func problemKinds(err error) string {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	var k []string
	for _, p := range ve.Problems {
		k = append(k, p.Kind)
	}
	return strings.Join(k, "|")
}

func TestValidateFindsDefects(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(m *Mesh)
		want   string
	}{
		{"inverted tet", func(m *Mesh) { m.Tets[0], m.Tets[1] = m.Tets[1], m.Tets[0] }, "tet not positively oriented"},
		{"index out of range", func(m *Mesh) { m.Tets[3] = 99 }, "index out of range"},
		{"tag missing", func(m *Mesh) { m.Tags = m.Tags[:8] }, "array lengths"},
		{"boundary vertex tagged interior", func(m *Mesh) { m.Tags[0] = Interior }, "boundary vertex not tagged Boundary"},
		{"centre tagged boundary", func(m *Mesh) { m.Tags[8] = Boundary }, "zero-pressure"},
		{"nan", func(m *Mesh) { m.Positions[0] = math.NaN() }, "non-finite coordinate"},
		{"unused vertex", func(m *Mesh) { m.Positions = append(m.Positions, 5, 5, 5); m.Tags = append(m.Tags, Interior) }, "unused vertex"},
		{"notch exposes the centre", func(m *Mesh) { m.Tets = m.Tets[4:] }, "boundary vertex not tagged Boundary"},
		{"bow-tie vertex", func(m *Mesh) {
			// Two tets that touch only at vertex 0.
			m.Positions = []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1}
			m.Tets = []int32{0, 1, 2, 3, 0, 4, 6, 5}
			m.Tags = []Tag{1, 1, 1, 1, 1, 1, 1}
		}, "non-manifold boundary vertex"},
		{"crack: duplicated centre", func(m *Mesh) {
			m.Positions = append(m.Positions, 0.5, 0.5, 0.5)
			m.Tags = append(m.Tags, Core)
			m.Tets[3] = 9
		}, "duplicate vertex (crack)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := cubeCentre()
			tc.break_(m)
			err := Validate(m)
			if err == nil || !strings.Contains(problemKinds(err), tc.want) {
				t.Fatalf("got %v, want a %q problem", err, tc.want)
			}
		})
	}
}

// The Kuhn split of the cube into six tets has only boundary vertices: every
// tet is a zero-pressure void.
func TestValidateFindsVoids(t *testing.T) {
	m := cubeCentre()
	m.Positions = m.Positions[:24]
	m.Tags = m.Tags[:8]
	m.Tets = []int32{0, 1, 3, 7, 0, 1, 7, 5, 0, 5, 7, 4, 0, 3, 2, 7, 0, 2, 6, 7, 0, 6, 4, 7}
	for t := 0; t < 6; t++ { // orient by the float volume; the cube is exact
		if v := (&Mesh{Positions: m.Positions, Tets: m.Tets[4*t : 4*t+4]}).Volume(); v < 0 {
			m.Tets[4*t], m.Tets[4*t+1] = m.Tets[4*t+1], m.Tets[4*t]
		}
	}
	k := problemKinds(Validate(m))
	for _, want := range []string{"zero-pressure tet", "zero-pressure interior face", "zero-pressure interior edge"} {
		if !strings.Contains(k, want) {
			t.Errorf("missing %q in %q", want, k)
		}
	}
}

func TestQualityRegularTet(t *testing.T) {
	a, b, c, d := [3]float64{1, 1, 1}, [3]float64{1, -1, -1}, [3]float64{-1, 1, -1}, [3]float64{-1, -1, 1}
	want := math.Acos(1.0 / 3)
	for _, x := range Dihedral(a, b, c, d) {
		if math.Abs(x-want) > 1e-12 {
			t.Fatalf("dihedral %g, want %g", x, want)
		}
	}
	if re := RadiusEdge(a, b, c, d); math.Abs(re-math.Sqrt(3.0/8)) > 1e-12 {
		t.Fatalf("radius-edge %g", re)
	}
	// Right-corner tet: three right dihedral angles at the corner edges.
	o, x, y, z := [3]float64{}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1}
	ang := Dihedral(o, x, y, z)
	for i := 0; i < 3; i++ {
		if math.Abs(ang[i]-math.Pi/2) > 1e-12 {
			t.Fatalf("corner dihedral %d = %g", i, ang[i])
		}
	}
}
