package medial_test

import (
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
	"github.com/pfmesh/pfmesh/medial"
)

// gridField solves for ε on a structured tet mesh of the box [0, size]
// with n cells along each axis, the core vertices tagged by core.Inside:
// the way the robust mesher passes the 1-set on, on a mesh whose boundary
// is exactly the box.
func gridField(t testing.TB, core *medial.Core, n [3]int, size geom.Vec) (*tetmesh.Mesh, *laplace.Field) {
	t.Helper()
	m := tetgrid.Box(n, geom.Vec{}, size)
	for i, tag := range m.Tags {
		if tag != tetmesh.Boundary && core.Inside(m.Vertex(int32(i))) {
			m.Tags[i] = tetmesh.Core
		}
	}
	f, err := laplace.Solve(m, laplace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m, f
}

// probe returns ε at p by linear interpolation in the tet containing it.
func probe(m *tetmesh.Mesh, eps []float64, p geom.Vec) float64 {
	for t := range m.NumTets() {
		v := m.Tets[4*t : 4*t+4]
		a, b, c, d := m.Vertex(v[0]), m.Vertex(v[1]), m.Vertex(v[2]), m.Vertex(v[3])
		vol := geom.TetVolume(a, b, c, d)
		w := [4]float64{geom.TetVolume(p, b, c, d) / vol, geom.TetVolume(a, p, c, d) / vol, geom.TetVolume(a, b, p, d) / vol, geom.TetVolume(a, b, c, p) / vol}
		if min(w[0], w[1], w[2], w[3]) >= -1e-12 {
			return w[0]*eps[v[0]] + w[1]*eps[v[1]] + w[2]*eps[v[2]] + w[3]*eps[v[3]]
		}
	}
	return math.NaN()
}

// layerDepths returns h = 1/|∇ε| at the boundary vertices of m that keep
// returns true for.
func layerDepths(m *tetmesh.Mesh, f *laplace.Field, keep func(p geom.Vec) bool) []float64 {
	var hs []float64
	for i, tag := range m.Tags {
		if p := m.Vertex(int32(i)); tag == tetmesh.Boundary && keep(p) {
			hs = append(hs, 1/geom.Norm(geom.At(f.Gradient, int32(i))))
		}
	}
	slices.Sort(hs)
	return hs
}

func checkMaximumPrinciple(t *testing.T, name string, m *tetmesh.Mesh, f *laplace.Field) {
	t.Helper()
	for i, e := range f.Epsilon {
		switch {
		case m.Tags[i] == tetmesh.Boundary && e != 0, m.Tags[i] == tetmesh.Core && e != 1, e < 0 || e > 1:
			t.Fatalf("%s: vertex %d tagged %d has ε = %v", name, i, m.Tags[i], e)
		}
	}
}

// TestFieldPlateDepth: a wide plate with a rigid core at depth H. Away
// from the rim ε = d/H exactly (P1 reproduces linear functions; the rim's
// disturbance decays like exp(−πx/H), below 1e-16 at 12 H), and the
// layer depth at the faces is H.
func TestFieldPlateDepth(t *testing.T) {
	const w, th, h = 8.0, 1.0, 0.25
	core, err := medial.Build(shapes.Plate(w, th, 8), medial.Options{Mode: medial.Depth, Depth: h})
	if err != nil {
		t.Fatal(err)
	}
	m, f := gridField(t, core, [3]int{32, 32, 8}, geom.Vec{w, w, th})
	checkMaximumPrinciple(t, "plate", m, f)
	far := func(p geom.Vec) bool { return min(p[0], p[1], w-p[0], w-p[1]) >= 3 }
	n := 0
	for i, e := range f.Epsilon {
		p := m.Vertex(int32(i))
		if !far(p) {
			continue
		}
		n++
		if want := min(1, min(p[2], th-p[2])/h); math.Abs(e-want) > 1e-9 {
			t.Fatalf("ε(%v) = %v, want d/H = %v", p, e, want)
		}
	}
	for _, hb := range layerDepths(m, f, far) {
		if math.Abs(hb-h) > 1e-9 {
			t.Fatalf("layer depth %v at the faces, want H = %v", hb, h)
		}
	}
	if n == 0 {
		t.Fatal("no vertex checked")
	}
}

// TestFieldPlateMedial: with the default core, a plate's layer depth at
// the face centres is its half thickness within 10%.
func TestFieldPlateMedial(t *testing.T) {
	const w, th = 6.0, 1.0
	s := shapes.Plate(w, th, 6)
	core, err := medial.Build(s, medial.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{6, 12} {
		m, f := gridField(t, core, [3]int{6 * n, 6 * n, n}, geom.Vec{w, w, th})
		checkMaximumPrinciple(t, "plate", m, f)
		hs := layerDepths(m, f, func(p geom.Vec) bool { return math.Abs(p[0]-w/2) <= 0.5 && math.Abs(p[1]-w/2) <= 0.5 })
		for _, h := range hs {
			if math.Abs(h-th/2) > 0.1*th/2 {
				t.Errorf("%d cells across: layer depth %v at a face centre, want %v within 10%%", n, h, th/2)
				break
			}
		}
	}
}

// TestFieldBoxStability: a 1×1×1.01 box and a unit cube give nearly the
// same field (compared vertex by vertex on the same grid, scaled), and the
// layer depth stays a fair fraction of the local half thickness everywhere
// on the boundary, edges and corners included (no stiff edges).
func TestFieldBoxStability(t *testing.T) {
	var eps [2][]float64
	for b, sz := range []float64{1, 1.01} {
		s := shapes.Box(1, 1, sz, 3)
		core, err := medial.Build(s, medial.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m, f := gridField(t, core, [3]int{24, 24, 24}, geom.Vec{1, 1, sz})
		checkMaximumPrinciple(t, "box", m, f)
		eps[b] = f.Epsilon
		th, err := medial.LocalHalfThickness(s, m.Positions)
		if err != nil {
			t.Fatal(err)
		}
		for i, tag := range m.Tags {
			if tag != tetmesh.Boundary {
				continue
			}
			if r := 1 / geom.Norm(geom.At(f.Gradient, int32(i))) / th[i]; r < 0.5 {
				t.Errorf("box %g: h/(half thickness) = %.3f at %v", sz, r, m.Vertex(int32(i)))
				break
			}
		}
	}
	var sum2 float64
	for i := range eps[0] {
		sum2 += (eps[0][i] - eps[1][i]) * (eps[0][i] - eps[1][i])
	}
	if rms := math.Sqrt(sum2 / float64(len(eps[0]))); rms > 0.02 {
		t.Errorf("cube and 1×1×1.01 box fields differ by %.4f RMS", rms)
	}
}
