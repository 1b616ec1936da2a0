package contact

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// hydrostaticFlat returns the compliant box [0,1]²×[0,0.5] with
// ε = (0.5 − z)/0.5 and a rigid slab whose bottom face is z = 0.3 over the
// whole top: a unit square with uniform static pressure p0 = 0.4·E.
func hydrostaticFlat(t *testing.T, mat, rigid Material) (*Body, *Body, Pose, float64) {
	g := grid(geom.Vec{0, 0, 0}, geom.Vec{1, 1, 0.5}, [3]int{3, 3, 2}, nil)
	box, err := NewCompliant(g.pos, g.tets, g.field(func(x geom.Vec) float64 { return (0.5 - x[2]) / 0.5 }), mat)
	if err != nil {
		t.Fatal(err)
	}
	slab := rigidBox(t, geom.Vec{-1.5, -1.5, 0}, geom.Vec{3, 3, 1}, 2, rigid)
	return box, slab, PoseFromRPY(0.5, 0.5, 0.3, 0, 0, 0), 0.4 * mat.Modulus
}

// Uniform static pressure p0 on a unit square, B moving down at speed s
// (approach) and sliding at vx: every point has p = p0·(1 + d·s) and slip
// speed vx, so F_A = p·(μ·(2/π)·atan(vx/v_s), 0, −1) exactly; a separation
// faster than 1/d leaves no force.
func TestDampingAndSlidingFriction(t *testing.T) {
	const d, muA, muB, vs = 0.8, 0.5, 0.3, 0.01
	mu := 2 * muA * muB / (muA + muB)
	box, slab, X, p0 := hydrostaticFlat(t, Material{Modulus: 1e5, Dissipation: d, Friction: muA}, Material{Friction: muB, Dissipation: 123})
	e := NewEvaluator(Options{StictionSpeed: vs})
	for _, c := range []struct{ s, vx float64 }{{0, 0}, {0.3, 0}, {0.3, 0.002}, {-0.5, 0.05}, {0, 1}, {-1 / d * 1.01, 0.1}} {
		cfg := Config{X_WA: Identity(), X_WB: X, V_WB: SpatialVelocity{V: geom.Vec{c.vx, 0, -c.s}}}
		r := mustEval(t, e, box, slab, cfg)
		p := p0 * math.Max(1+d*c.s, 0)
		want := geom.Vec{p * mu * 2 / math.Pi * math.Atan(c.vx/vs), 0, -p}
		if vecErr(r.OnA.Force, want) > 1e-12*p0 {
			t.Errorf("approach %g, slip %g: force %v, want %v", c.s, c.vx, r.OnA.Force, want)
		}
		if relErr(r.MeanPressure, p) > 1e-12 && p > 0 || (p == 0 && r.MeanPressure != 0) {
			t.Errorf("approach %g: mean pressure %g, want %g", c.s, r.MeanPressure, p)
		}
	}
}

// B spinning at ω about the square's vertical centre line, with v_s ≫ ω·ρ
// so that the friction law is in its linear range (atan x ≈ x, relative
// error x²/3 ≤ 2e-7 here): T_f = μ·p0·(2/π)·ω·(ẑ × r)/v_s on A, whose moment
// about the centre is μ·p0·(2/π)·(ω/v_s)·∫ρ² dA = μ·p0·(2/π)·(ω/v_s)/6, and
// whose net force vanishes by symmetry. The integrand is quadratic, which
// the 3-point rule integrates exactly.
func TestSpinningFrictionMoment(t *testing.T) {
	const mu, vs, w = 0.4, 1000, 1.0
	box, slab, X, p0 := hydrostaticFlat(t, Material{Modulus: 1e5, Friction: mu}, Material{Friction: mu})
	r := mustEval(t, NewEvaluator(Options{StictionSpeed: vs}), box, slab, Config{X_WA: Identity(), X_WB: X, V_WB: SpatialVelocity{W: geom.Vec{0, 0, w}}})
	want := mu * p0 * 2 / math.Pi * w / vs / 6
	if vecErr(r.Centroid, geom.Vec{0.5, 0.5, 0.3}) > 1e-15 {
		t.Fatalf("centroid %v", r.Centroid)
	}
	got := r.OnAAtCentroid.Torque
	if relErr(got[2], want) > 1e-6 || math.Hypot(got[0], got[1]) > 1e-9*want {
		t.Errorf("moment about the centre %v, want (0, 0, %g)", got, want)
	}
	if vecErr(r.OnA.Force, geom.Vec{0, 0, -p0}) > 1e-12*p0 {
		t.Errorf("force %v, want (0, 0, %g)", r.OnA.Force, -p0)
	}
}
