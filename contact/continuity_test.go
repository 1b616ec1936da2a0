package contact

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The paper's central claim: the wrench is a continuous function of the
// poses although polygons appear and vanish. Each case moves B along a
// path s ↦ X_WB(s) (translation along a generic direction plus rotation
// about a generic axis, 1 m and 1 rad per unit s), finds by a coarse scan
// and bisection values of s where polygons appear or vanish (the polygon
// count changes), and sweeps 2000 steps of 1e-7 of the body size across
// each. The bound: the ball–half-space stiffness is
// dF/dd = 2πE·d·(1 − d/R) ≤ (π/2)·E·R, and a point at distance ≤ ρ from the
// rotation centre moves at most (1 + ρ) per unit s, so
// |ΔF| ≤ L·|Δs| with L = 10·E·R·(1 + ρ) holds with a margin of about 6 for
// every case here (both bodies of size R). A face appearing with non-zero
// area would show as a jump of about E·R²·10⁻³ in one step, L·Δs·10⁴.
func TestContinuitySweeps(t *testing.T) {
	const R, E = 1.0, 1e5
	level, shells, sweeps := 2, 3, 4
	if testing.Short() {
		level, sweeps = 1, 3
	}
	ball := sphereBody(t, R, level, shells, Material{Modulus: E})
	ballB := sphereBody(t, 0.9*R, level, shells, Material{Modulus: 2 * E})
	box := rigidBox(t, geom.Vec{-0.7, -0.6, -0.5}, geom.Vec{1.4, 1.2, 1}, 2, Material{})
	hs := mustHalfSpace(t, Material{})
	dir := geom.Scale(1/math.Sqrt(14), geom.Vec{1, 2, -3})
	axis := geom.Vec{0.3, -0.5, 0.8}
	cases := []struct {
		name string
		b    *Body
		p0   geom.Vec // B's position at s = 0
		rho  float64
	}{
		{"compliant-halfspace", hs, geom.Vec{0.1, -0.2, -0.75}, 1.5 * R},
		{"compliant-compliant", ballB, geom.Vec{0.5, 0.4, -1.55}, 2.5 * R},
		{"compliant-rigid", box, geom.Vec{0.3, 0.5, -1.1}, 2.5 * R},
	}
	e := NewEvaluator(Options{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pose := func(s float64) Pose {
				return PoseFromAxisAngle(axis, 0.2+s, geom.Add(c.p0, geom.Scale(s, dir)))
			}
			eval := func(s float64) (*Result, int) {
				r := mustEval(t, e, ball, c.b, static(Identity(), pose(s)))
				return r, r.Polygons
			}
			// Coarse scan for changes of combinatorics.
			var events []float64
			const coarse = 1e-3
			_, prev := eval(0)
			for i := 1; i <= 200 && len(events) < sweeps; i++ {
				lo, hi := float64(i-1)*coarse, float64(i)*coarse
				_, cur := eval(hi)
				if cur != prev {
					for hi-lo > 1e-10 {
						mid := 0.5 * (lo + hi)
						if _, m := eval(mid); m == prev {
							lo = mid
						} else {
							hi = mid
						}
					}
					events = append(events, 0.5*(lo+hi))
				}
				prev = cur
			}
			if len(events) < sweeps {
				t.Fatalf("only %d events found", len(events))
			}
			L := 10 * E * R * (1 + c.rho)
			const h = 1e-7 * R
			changes, maxRatio := 0, 0.0
			for _, ev := range events {
				s0 := ev - 1000*h
				r, sg := eval(s0)
				F, T := r.OnA.Force, r.OnA.Torque
				for i := 1; i <= 2000; i++ {
					r, sg2 := eval(s0 + float64(i)*h)
					if sg2 != sg {
						changes++
					}
					sg = sg2
					dF := vecErr(r.OnA.Force, F)
					dT := vecErr(r.OnA.Torque, T)
					slack := 1e-12 * geom.Norm(F)
					if dF > L*h+slack || dT > L*c.rho*h+slack {
						t.Fatalf("s = %.10g: |ΔF| = %g, |Δτ| = %g in a step of %g (bound %g, %g)", s0+float64(i)*h, dF, dT, h, L*h, L*c.rho*h)
					}
					maxRatio = max(maxRatio, dF/(L*h))
					F, T = r.OnA.Force, r.OnA.Torque
				}
			}
			if changes < len(events) {
				t.Fatalf("%d polygon count changes in %d sweeps: the sweeps missed the events", changes, len(events))
			}
			t.Logf("%d sweeps of 2000 steps, %d polygon count changes, max |ΔF|/(L·Δs) = %.3f", len(events), changes, maxRatio)
		})
	}
}

// A polygon entering through a tet vertex starts at zero area: sliding the
// half-space plane through a vertex, the tets there gain polygons whose
// area grows from 0 continuously (quadratically for a slice near a
// vertex).
func TestFaceAppearsWithZeroArea(t *testing.T) {
	g := grid(geom.Vec{0, 0, 0}, geom.Vec{1, 1, 1}, [3]int{2, 2, 2}, nil)
	box, err := NewCompliant(g.pos, g.tets, g.field(func(x geom.Vec) float64 { return 1 + x[0] }), Material{Modulus: 1})
	if err != nil {
		t.Fatal(err)
	}
	hs := mustHalfSpace(t, Material{})
	// The plane n·x = c with n generic passes the corner (0,0,0) at c = 0:
	// the half-space (below the plane, outward n) is flipped to face up.
	n := geom.Scale(1/math.Sqrt(3.5), geom.Vec{1, 1.5, 0.5})
	e := NewEvaluator(Options{})
	for _, c := range []float64{1e-3, 1e-5, 1e-7, 1e-9} {
		// X_WB: +z of B along n, origin at c·n.
		rot := PoseFromAxisAngle(geom.Cross(geom.Vec{0, 0, 1}, n), math.Acos(n[2]), geom.Scale(c, n))
		r := mustEval(t, e, box, hs, static(Identity(), rot))
		// The overlap is the corner simplex below the plane; its cut face is
		// the triangle with intercepts c/nᵢ, area c²/(2·n₀n₁n₂) for unit n.
		a := c * c / (2 * n[0] * n[1] * n[2])
		if relErr(r.Area, a) > 1e-9 {
			t.Errorf("c = %g: area %g, want %g", c, r.Area, a)
		}
	}
}
