package contact

import (
	"math"
	"testing"
)

// A compliant ball (ε = 1 − r/R) pressed a depth d into a rigid half-space
// feels F = ∫ E(1 − |x|/R) dA over the disc = (π/3)·E·d²·(3 − 2d/R), along
// the half-space normal, through the ball's centre. The error falls about
// fourfold per refinement and is 0.5% at icosphere level 4 with 16 shells
// (235 520 tets).
func TestSphereIntoHalfSpace(t *testing.T) {
	const R, E, d = 1.0, 1e6, 0.25
	want := math.Pi / 3 * E * d * d * (3 - 2*d/R)
	hs := mustHalfSpace(t, Material{})
	e := NewEvaluator(Options{})
	prev := math.Inf(1)
	for _, res := range []struct{ level, shells int }{{1, 2}, {2, 4}, {3, 8}, {4, 16}} {
		if testing.Short() && res.level > 3 {
			continue
		}
		ball := sphereBody(t, R, res.level, res.shells, Material{Modulus: E})
		r := mustEval(t, e, ball, hs, static(Identity(), PoseFromRPY(0, 0, -(R-d), 0, 0, 0)))
		err := relErr(r.OnA.Force[2], want)
		t.Logf("level %d, %d shells, %d tets: Fz %.6g, want %.6g, rel err %.2e, %d polygons",
			res.level, res.shells, ball.NumElements(), r.OnA.Force[2], want, err, r.Polygons)
		if err >= prev {
			t.Errorf("error %g did not fall with refinement (was %g)", err, prev)
		}
		if res.level == 4 && err >= 0.01 {
			t.Errorf("error %g at level 4, 16 shells: want below 1%%", err)
		}
		prev = err
	}
}
