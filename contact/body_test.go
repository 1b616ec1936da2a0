package contact

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Bad input gives an error naming what is wrong, never a panic.
func TestNewCompliantRejects(t *testing.T) {
	pos := []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}
	tet := []int32{0, 1, 2, 3}
	eps := []float64{0, 0, 0, 1}
	ok := Material{Modulus: 1}
	for _, c := range []struct {
		name string
		pos  []float64
		tets []int32
		eps  []float64
		m    Material
		want string
	}{
		{"no vertices", nil, tet, eps, ok, "coordinates"},
		{"ragged positions", pos[:11], tet, eps, ok, "multiple of 3"},
		{"NaN position", []float64{0, 0, 0, 1, 0, 0, 0, math.NaN(), 0, 0, 0, 1}, tet, eps, ok, "vertex 2"},
		{"no tets", pos, nil, eps, ok, "tet indices"},
		{"index out of range", pos, []int32{0, 1, 2, 4}, eps, ok, "out of range"},
		{"negative index", pos, []int32{0, -1, 2, 3}, eps, ok, "out of range"},
		{"inverted tet", pos, []int32{0, 2, 1, 3}, eps, ok, "tet 0: not positively oriented"},
		{"flat tet", []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, tet, eps, ok, "not positively oriented"},
		{"short field", pos, tet, eps[:3], ok, "3 field values for 4 vertices"},
		{"negative ε", pos, tet, []float64{0, -1, 0, 0}, ok, "vertex 1"},
		{"infinite ε", pos, tet, []float64{0, math.Inf(1), 0, 0}, ok, "vertex 1"},
		{"zero modulus", pos, tet, eps, Material{}, "modulus"},
		{"negative dissipation", pos, tet, eps, Material{Modulus: 1, Dissipation: -1}, "dissipation"},
		{"NaN friction", pos, tet, eps, Material{Modulus: 1, Friction: math.NaN()}, "friction"},
	} {
		_, err := NewCompliant(c.pos, c.tets, c.eps, c.m)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "contact: compliant body") {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestNewRigidRejects(t *testing.T) {
	box := shapes.Box(1, 1, 1, 1)
	open := box.Triangles[:len(box.Triangles)-3]
	flipped := append([]int32(nil), box.Triangles...)
	for i := 0; i < len(flipped); i += 3 {
		flipped[i+1], flipped[i+2] = flipped[i+2], flipped[i+1]
	}
	mixed := append([]int32(nil), box.Triangles...)
	mixed[1], mixed[2] = mixed[2], mixed[1]
	for _, c := range []struct {
		name string
		tris []int32
		want string
	}{
		{"open", open, "not closed"},
		{"inside out", flipped, "volume"},
		{"one face flipped", mixed, "not consistently oriented"},
		{"repeated vertex", []int32{0, 0, 1}, "repeated vertex"},
		{"index out of range", []int32{0, 1, 99}, "out of range"},
	} {
		_, err := NewRigid(box.Positions, c.tris, Material{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	if _, err := NewRigid(box.Positions, box.Triangles, Material{}); err != nil {
		t.Fatal(err)
	}
}

func TestEvaluateRejects(t *testing.T) {
	hs := mustHalfSpace(t, Material{})
	ball := sphereBody(t, 1, 1, 1, Material{Modulus: 1})
	e := NewEvaluator(Options{})
	bad := Identity()
	bad.R[0] = 2
	refl := Identity()
	refl.R[8] = -1
	nan := Identity()
	nan.P[1] = math.NaN()
	for _, c := range []struct {
		name string
		a, b *Body
		cfg  Config
		want string
	}{
		{"two rigid", hs, hs, static(Identity(), Identity()), "at least one must be compliant"},
		{"nil", nil, hs, static(Identity(), Identity()), "nil body"},
		{"not a rotation", ball, hs, static(bad, Identity()), "X_WA: rotation is not orthonormal"},
		{"reflection", ball, hs, static(Identity(), refl), "X_WB: rotation is a reflection"},
		{"NaN pose", ball, hs, static(Identity(), nan), "X_WB is not finite"},
		{"NaN velocity", ball, hs, Config{X_WA: Identity(), X_WB: Identity(), V_WA: SpatialVelocity{V: geom.Vec{math.Inf(1)}}}, "V_WA"},
	} {
		_, err := e.Evaluate(c.a, c.b, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	ball.Material.Modulus = -1
	if _, err := e.Evaluate(hs, ball, static(Identity(), Identity())); err == nil || !strings.Contains(err.Error(), "body B: modulus") {
		t.Errorf("negative modulus set after construction: error %v", err)
	}
}

// spherePFM returns .pfm content for the ball mesh with ε = 1 − r/R.
func spherePFM(t *testing.T, mapping format.PressureMapping) *format.PFM {
	m := sphere(1, 2, 3)
	eps := m.field(func(x geom.Vec) float64 { return math.Max(1-geom.Norm(x), 0) })
	nbr, ok := tetmesh.Neighbors(m.tets, len(eps))
	if !ok {
		t.Fatal("sphere mesh not manifold")
	}
	tags := make([]uint8, len(eps))
	for i, e := range eps {
		if e == 0 {
			tags[i] = tetmesh.Boundary
		}
	}
	tags[0] = tetmesh.Core
	f := &format.PFM{
		Header:    format.Header{Modulus: 1e5, Mapping: mapping, Dissipation: 0.2, Friction: 0.3},
		Positions: m.pos, Tets: m.tets, Epsilon: eps, Tags: tags,
		Gradient: format.VertexGradients(m.pos, m.tets, eps),
		Boundary: tetmesh.BoundaryFaces(m.tets, nbr),
		BVH:      format.NewBVH(m.pos, m.tets, 8),
	}
	if mapping == format.Log {
		f.PressureCap = 5e5
	}
	return f
}

// A .pfm body, with its stored BVH and through a file written and read
// back, gives the contact of the same arrays given directly, with p0 from
// the file's mapping at the vertices.
func TestFromPFM(t *testing.T) {
	e := NewEvaluator(Options{})
	hs := mustHalfSpace(t, Material{})
	cfg := static(Identity(), PoseFromRPY(0.05, -0.1, -0.7, 0.2, -0.1, 0))
	for _, mapping := range []format.PressureMapping{format.Linear, format.Log} {
		f := spherePFM(t, mapping)
		g := make([]float64, len(f.Epsilon))
		for i, x := range f.Epsilon {
			g[i] = f.Pressure(x) / f.Modulus
		}
		ref, err := NewCompliant(f.Positions, f.Tets, g, Material{Modulus: f.Modulus})
		if err != nil {
			t.Fatal(err)
		}
		want := *mustEval(t, e, ref, hs, cfg)
		path := filepath.Join(t.TempDir(), "ball.pfm")
		if err := format.WritePFM(path, f, format.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		read, err := format.ReadPFM(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, src := range []*format.PFM{f, read} {
			b, err := FromPFM(src)
			if err != nil {
				t.Fatal(err)
			}
			if b.Material != (Material{Modulus: 1e5, Dissipation: 0.2, Friction: 0.3}) {
				t.Fatalf("material %+v", b.Material)
			}
			if &b.tree.Bounds[0] != &src.BVH.Bounds[0] {
				t.Fatal("stored BVH not used")
			}
			got := mustEval(t, e, b, hs, cfg)
			wrenchClose(t, "pfm body", got.OnA, want.OnA, 1e-12)
		}
	}
}

// Content that fails format's validation is refused with its error.
func TestFromPFMRejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(f *format.PFM)
	}{
		{"ε out of range", func(f *format.PFM) { f.Epsilon[3] = 1.5 }},
		{"BVH child out of range", func(f *format.PFM) { f.BVH.Nodes[0] = 1 << 20 }},
		{"BVH box too small", func(f *format.PFM) { f.BVH.Bounds[3] = f.BVH.Bounds[0] }},
		{"zero modulus", func(f *format.PFM) { f.Modulus = 0 }},
	} {
		f := spherePFM(t, format.Linear)
		c.spoil(f)
		_, err := FromPFM(f)
		if !errors.Is(err, format.ErrPFMInvalid) || !strings.HasPrefix(err.Error(), "contact: pfm body") {
			t.Errorf("%s: error %v, want one wrapping format.ErrPFMInvalid", c.name, err)
		}
	}
}

// The combination rules' limits: a partner much stiffer than A leaves
// A's dissipation, equal moduli average, the order does not matter.
func TestCombine(t *testing.T) {
	a := &Body{kind: Compliant, Material: Material{Modulus: 1, Dissipation: 2, Friction: 0.5}}
	stiff := &Body{kind: Compliant, Material: Material{Modulus: 1e12, Dissipation: 7, Friction: 0.5}}
	same := &Body{kind: Compliant, Material: Material{Modulus: 1, Dissipation: 4, Friction: 0}}
	rigid := &Body{kind: Rigid, Material: Material{Dissipation: 9, Friction: 0.25}}
	if c := combine(a, stiff); math.Abs(c.d-2) > 1e-10 || c.mu != 0.5 {
		t.Errorf("stiff partner: %+v", c)
	}
	if c, r := combine(a, same), combine(same, a); c != r || c.d != 3 || c.mu != 0 {
		t.Errorf("equal moduli: %+v, %+v", c, r)
	}
	if c := combine(a, rigid); c.d != 2 || math.Abs(c.mu-1.0/3) > 1e-15 {
		t.Errorf("rigid partner: %+v", c)
	}
}
