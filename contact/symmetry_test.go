package contact

import (
	"math"
	"runtime"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// symmetryCase is a pair of bodies in contact, with motion so the damping
// and friction paths are covered too.
type symmetryCase struct {
	name string
	a, b *Body
	c    Config
}

func symmetryCases(t *testing.T) []symmetryCase {
	mat := Material{Modulus: 2e5, Dissipation: 0.3, Friction: 0.4}
	ballA := sphereBody(t, 1, 2, 4, mat)
	ballB := sphereBody(t, 0.8, 2, 3, Material{Modulus: 5e5, Dissipation: 0.1, Friction: 0.6})
	box := rigidBox(t, geom.Vec{-0.5, -0.6, -0.7}, geom.Vec{1, 1.2, 1.4}, 2, Material{Friction: 0.5})
	hs := mustHalfSpace(t, Material{Friction: 0.3})
	moving := func(XWA, XWB Pose) Config {
		return Config{X_WA: XWA, X_WB: XWB,
			V_WA: SpatialVelocity{W: geom.Vec{0.1, -0.2, 0.3}, V: geom.Vec{0.01, 0.02, -0.3}},
			V_WB: SpatialVelocity{W: geom.Vec{-0.3, 0.1, 0.2}, V: geom.Vec{0.05, -0.01, 0.2}}}
	}
	return []symmetryCase{
		{"compliant-compliant", ballA, ballB, moving(PoseFromRPY(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), PoseFromRPY(0.3, 0.5, -1.2, -0.3, 0.2, 0.1))},
		{"compliant-rigid", ballA, box, moving(PoseFromRPY(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), PoseFromRPY(0.5, 0.1, -0.5, 0.2, -0.4, 0.7))},
		{"compliant-halfspace", ballA, hs, moving(PoseFromRPY(0.1, 0.2, 0.3, 0.4, 0.5, 0.6), PoseFromRPY(0, 0, -0.5, 0.3, 0.1, 0))},
	}
}

func wrenchClose(t *testing.T, what string, got, want Wrench, tol float64) {
	t.Helper()
	if vecErr(got.Force, want.Force) > tol*geom.Norm(want.Force) || vecErr(got.Torque, want.Torque) > tol*(geom.Norm(want.Torque)+geom.Norm(want.Force)) {
		t.Errorf("%s: got %+v, want %+v", what, got, want)
	}
}

// configs returns c without motion (the static wrench, integrated exactly
// by the 3-point rule, so equal to round-off: tolerance 1e-12) and with it.
// The two evaluation orders, or two placements, compute the same polygons
// but not always with the same vertices: where both bodies' surfaces
// cross, the plane meets a face of each along one line and round-off
// decides whether a collinear vertex is kept. The fan then differs, which
// moves the quadrature of the damping moment (cubic) and of the friction
// law (not polynomial) by their discretization error: tolerance 1e-6.
func configs(c Config) []struct {
	c   Config
	tol float64
} {
	return []struct {
		c   Config
		tol float64
	}{{static(c.X_WA, c.X_WB), 1e-12}, {c, 1e-6}}
}

// Swapping A and B gives the wrench on B of the original order: the
// negative of the wrench on A.
func TestSwapNegates(t *testing.T) {
	e := NewEvaluator(Options{})
	for _, sc := range symmetryCases(t) {
		for _, cc := range configs(sc.c) {
			c := cc.c
			r := *mustEval(t, e, sc.a, sc.b, c)
			if geom.Norm(r.OnA.Force) == 0 {
				t.Fatalf("%s: no contact", sc.name)
			}
			sw := Config{X_WA: c.X_WB, X_WB: c.X_WA, V_WA: c.V_WB, V_WB: c.V_WA}
			s := mustEval(t, e, sc.b, sc.a, sw)
			neg := Wrench{geom.Scale(-1, r.OnA.Force), geom.Scale(-1, r.OnA.Torque)}
			wrenchClose(t, sc.name+": swapped OnA", s.OnA, neg, cc.tol)
			wrenchClose(t, sc.name+": swapped OnB", s.OnB, r.OnA, cc.tol)
			if relErr(s.Area, r.Area) > 1e-12 || vecErr(s.MeanNormal, geom.Scale(-1, r.MeanNormal)) > 1e-12 {
				t.Errorf("%s: swapped area %g normal %v, want %g %v", sc.name, s.Area, s.MeanNormal, r.Area, geom.Scale(-1, r.MeanNormal))
			}
		}
	}
}

// Moving both bodies (and their velocities) by one rigid transform T moves
// the wrench: F' = R·F, and about the world origin τ' = R·τ + p × F'.
func TestRigidMotionTransformsWrench(t *testing.T) {
	e := NewEvaluator(Options{})
	T := PoseFromRPY(3, -2, 5, 1.1, -0.7, 2.3)
	for _, sc := range symmetryCases(t) {
		for _, cc := range configs(sc.c) {
			c := cc.c
			r := *mustEval(t, e, sc.a, sc.b, c)
			m := Config{X_WA: T.Mul(c.X_WA), X_WB: T.Mul(c.X_WB),
				V_WA: SpatialVelocity{W: T.Rotate(c.V_WA.W), V: T.Rotate(c.V_WA.V)},
				V_WB: SpatialVelocity{W: T.Rotate(c.V_WB.W), V: T.Rotate(c.V_WB.V)}}
			s := mustEval(t, e, sc.a, sc.b, m)
			F := T.Rotate(r.OnA.Force)
			want := Wrench{F, geom.Add(T.Rotate(r.OnA.Torque), geom.Cross(T.P, F))}
			wrenchClose(t, sc.name, s.OnA, want, cc.tol)
			wrenchClose(t, sc.name+" at centroid", s.OnAAtCentroid, Wrench{F, T.Rotate(r.OnAAtCentroid.Torque)}, cc.tol)
		}
	}
}

// Scaling every modulus by s scales the static wrench by s: the
// equal-pressure plane of two compliant bodies stays put, and a rigid
// partner's surface does not depend on E.
func TestScalingModulusScalesForce(t *testing.T) {
	e := NewEvaluator(Options{})
	for _, c := range symmetryCases(t) {
		st := static(c.c.X_WA, c.c.X_WB)
		r := *mustEval(t, e, c.a, c.b, st)
		ma, mb := c.a.Material, c.b.Material
		const s = 7.5
		c.a.Material.Modulus *= s
		c.b.Material.Modulus *= s
		got := *mustEval(t, e, c.a, c.b, st)
		c.a.Material, c.b.Material = ma, mb
		wrenchClose(t, c.name, got.OnA, Wrench{geom.Scale(s, r.OnA.Force), geom.Scale(s, r.OnA.Torque)}, 1e-12)
		if relErr(got.Area, r.Area) > 1e-12 || relErr(got.MaxPressure, s*r.MaxPressure) > 1e-12 {
			t.Errorf("%s: area %g max pressure %g, want %g %g", c.name, got.Area, got.MaxPressure, r.Area, s*r.MaxPressure)
		}
	}
}

// With E_A ≠ E_B the surface moves toward the softer body: for two equal
// balls of radius R with centres 2R − δ apart on z, on the axis the surface
// sits where E_A·(1 − r_A/R) = E_B·(1 − r_B/R) with r_A + r_B = 2R − δ, so
// r_A = (E_A/E_B + 1 − δ/R)/(E_A/E_B + 1)·R. The mean normal stays on the
// axis by symmetry.
func TestModulusRatioMovesPlane(t *testing.T) {
	const R, delta = 1.0, 0.3
	for _, ratio := range []float64{1, 2, 5} {
		a := sphereBody(t, R, 3, 8, Material{Modulus: ratio * 1e5})
		b := sphereBody(t, R, 3, 8, Material{Modulus: 1e5})
		r := mustEval(t, NewEvaluator(Options{}), a, b, static(Identity(), PoseFromRPY(0, 0, -(2*R-delta), 0, 0, 0)))
		rA := (ratio + 1 - delta/R) / (ratio + 1) * R
		// The surface height on the axis: the plane of the polygon whose
		// centroid is nearest the axis, evaluated at x = y = 0.
		s := r.Surface
		best, bestD := -1, math.Inf(1)
		for i := range s.NumPolygons() {
			c := s.vertex(s.Start[i+1] - 1)
			if d := math.Hypot(c[0], c[1]); d < bestD {
				best, bestD = i, d
			}
		}
		c, n := s.vertex(s.Start[best+1]-1), geom.At(s.Normals, int32(best))
		z := c[2] + (n[0]*c[0]+n[1]*c[1])/n[2]
		if math.Abs(z+rA) > 0.01*R {
			t.Errorf("ratio %g: surface on the axis at z = %g, want about %g", ratio, z, -rA)
		}
		if math.Abs(r.MeanNormal[2]-1) > 1e-9 || math.Hypot(r.OnA.Force[0], r.OnA.Force[1]) > 1e-9*r.OnA.Force[2] {
			t.Errorf("ratio %g: mean normal %v force %v, want along +z", ratio, r.MeanNormal, r.OnA.Force)
		}
	}
}

// Bodies built and evaluated under different GOMAXPROCS give bit-identical
// results (BuildMorton's concurrency included).
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	var first *Result
	for _, procs := range []int{1, 2, 5} {
		old := runtime.GOMAXPROCS(procs)
		a := sphereBody(t, 3, 4, 6, Material{Modulus: 1e6, Friction: 0.3})
		b := sphereBody(t, 3, 3, 6, Material{Modulus: 2e6, Friction: 0.5})
		cfg := Config{X_WA: Identity(), X_WB: PoseFromRPY(5, 0.1, 0, 0.1, 0.2, 0.3), V_WB: SpatialVelocity{V: geom.Vec{0.1, 0, 0}}}
		r := *mustEval(t, NewEvaluator(Options{}), a, b, cfg)
		runtime.GOMAXPROCS(old)
		if first == nil {
			r.Surface = nil
			first = &r
			continue
		}
		r.Surface = nil
		if r != *first {
			t.Fatalf("GOMAXPROCS=%d: %+v differs from %+v", procs, r, *first)
		}
	}
}
