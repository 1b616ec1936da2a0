package contact

import (
	"fmt"
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The hydrostatic case: a compliant box [0,1]²×[0,H] with ε = (H − z)/H,
// linear in depth below its top, and a rigid flat face z = a + b·x + c·y
// pressed into it from above. The pressure p = E·(H − z)/H is linear on
// the face, so the force is E·∫ε dA along the face's outward normal and
// the moment is (∫ p·r dA) × n̂ — both integrals of polynomials over the
// unit square, exact. The grid interpolates ε exactly and the 3-point rule
// integrates exactly, so only round-off remains.
func TestHydrostaticBox(t *testing.T) {
	const H, E = 0.5, 3e5
	g := grid(geom.Vec{0, 0, 0}, geom.Vec{1, 1, H}, [3]int{4, 4, 4}, nil)
	box, err := NewCompliant(g.pos, g.tets, g.field(func(x geom.Vec) float64 { return (H - x[2]) / H }), Material{Modulus: E})
	if err != nil {
		t.Fatal(err)
	}
	// The rigid body's bottom face is z = 0 of its frame, spanning far
	// beyond the compliant box; its other faces stay outside it.
	face := rigidBox(t, geom.Vec{-1, -1, 0}, geom.Vec{3, 3, 1}, 3, Material{})
	hs := mustHalfSpace(t, Material{})
	flip := PoseFromRPY(0, 0, 0, math.Pi, 0, 0)
	e, ec := NewEvaluator(Options{}), NewEvaluator(Options{Quadrature: Centroid})
	for _, c := range []struct {
		roll, pitch, z0 float64
	}{
		{0.05, -0.03, H - 0.2},
		{-0.02, 0.07, H - 0.1},
		{0, 0, H - 0.25},  // exactly on a grid plane: faces shared by tets count once
		{0, 0, H - 0.125}, // ditto
		{0.2, 0.15, H - 0.25},
	} {
		XWB := PoseFromRPY(0.5, 0.5, c.z0, c.roll, c.pitch, 0)
		// Face plane: n_up·(x − P) = 0 with n_up = R·ẑ, i.e. z = a + b·x + c·y.
		up := XWB.Rotate(geom.Vec{0, 0, 1})
		bx, cy := -up[0]/up[2], -up[1]/up[2]
		a := XWB.P[2] - bx*XWB.P[0] - cy*XWB.P[1]
		// ∫∫ p, ∫∫ p·x, ∫∫ p·y over the unit square (dx dy).
		k := E / H
		ip := k * (H - a - bx/2 - cy/2)
		ipx := k * ((H-a)/2 - bx/3 - cy/4)
		ipy := k * ((H-a)/2 - bx/4 - cy/3)
		ipr := geom.Scale(1/up[2], geom.Vec{ipx, ipy, a*ip + bx*ipx + cy*ipy})
		nhat := geom.Scale(-1, up) // from B (above) into A
		wantF := geom.Scale(ip/up[2], nhat)
		wantT := geom.Cross(ipr, nhat)
		for _, rigid := range []struct {
			name string
			b    *Body
			X    Pose
		}{{"rigid box", face, XWB}, {"half-space", hs, XWB.Mul(flip)}} {
			t.Run(fmt.Sprintf("%s/tilt=%g,%g/z=%g", rigid.name, c.roll, c.pitch, c.z0), func(t *testing.T) {
				r := mustEval(t, e, box, rigid.b, static(Identity(), rigid.X))
				if relErr(geom.Norm(r.OnA.Force), geom.Norm(wantF)) > 1e-12 || vecErr(r.OnA.Force, wantF) > 1e-12*geom.Norm(wantF) {
					t.Errorf("force %v, want %v", r.OnA.Force, wantF)
				}
				if vecErr(r.OnA.Torque, wantT) > 1e-12*geom.Norm(wantT) {
					t.Errorf("torque %v, want %v", r.OnA.Torque, wantT)
				}
				// Centre of pressure: the moment is that of the force at
				// ∫p·r/∫p, which lies on the face.
				cop := geom.Scale(up[2]/ip, ipr)
				if vecErr(geom.Cross(cop, r.OnA.Force), r.OnA.Torque) > 1e-12*geom.Norm(wantT) {
					t.Errorf("moment %v is not that of the force at the centre of pressure %v", r.OnA.Torque, cop)
				}
				if relErr(r.Area, 1/up[2]) > 1e-12 {
					t.Errorf("area %.15g, want %.15g", r.Area, 1/up[2])
				}
				// The centroid rule is exact for the force of a linear
				// pressure too, not for its moment.
				rc := mustEval(t, ec, box, rigid.b, static(Identity(), rigid.X))
				if vecErr(rc.OnA.Force, wantF) > 1e-12*geom.Norm(wantF) {
					t.Errorf("centroid rule: force %v, want %v", rc.OnA.Force, wantF)
				}
				if d := vecErr(rc.OnA.Torque, wantT); d > 1e-2*geom.Norm(wantT) || (c.roll != 0 && d < 1e-12*geom.Norm(wantT)) {
					t.Errorf("centroid rule: torque %v, want about %v (and not exactly)", rc.OnA.Torque, wantT)
				}
			})
		}
	}
}
