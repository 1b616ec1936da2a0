package contact

import (
	"math"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// PoseFromRPY is Rz(yaw)·Ry(pitch)·Rx(roll): each elementary rotation
// checked on the axes, and the composition against products of
// axis-angle rotations.
func TestPoseFromRPY(t *testing.T) {
	x, y, z := geom.Vec{1, 0, 0}, geom.Vec{0, 1, 0}, geom.Vec{0, 0, 1}
	for _, c := range []struct {
		X        Pose
		in, want geom.Vec
	}{
		{PoseFromRPY(0, 0, 0, math.Pi/2, 0, 0), y, z},
		{PoseFromRPY(0, 0, 0, 0, math.Pi/2, 0), z, x},
		{PoseFromRPY(0, 0, 0, 0, 0, math.Pi/2), x, y},
		{PoseFromRPY(1, 2, 3, 0, 0, 0), x, geom.Vec{2, 2, 3}},
	} {
		if got := c.X.Apply(c.in); vecErr(got, c.want) > 1e-15 {
			t.Errorf("%v applied to %v = %v, want %v", c.X, c.in, got, c.want)
		}
	}
	r, p, yw := 0.3, -0.4, 1.1
	rz, ry := PoseFromAxisAngle(z, yw, geom.Vec{}), PoseFromAxisAngle(y, p, geom.Vec{})
	rzy := rz.Mul(ry)
	want := rzy.Mul(PoseFromAxisAngle(x, r, geom.Vec{}))
	got := PoseFromRPY(0, 0, 0, r, p, yw)
	for i := range 9 {
		if math.Abs(got.R[i]-want.R[i]) > 1e-15 {
			t.Fatalf("RPY %v, want %v", got.R, want.R)
		}
	}
}

// X·X⁻¹ is the identity and composition applies right to left.
func TestPoseInverseAndMul(t *testing.T) {
	X := PoseFromRPY(1, -2, 3, 0.4, 0.5, -0.6)
	Y := PoseFromRPY(-0.5, 0.7, 0.1, -1.2, 0.3, 2.2)
	I := X.Mul(X.Inverse())
	p := geom.Vec{0.3, -0.7, 1.9}
	if vecErr(I.Apply(p), p) > 1e-14 {
		t.Errorf("X·X⁻¹ moves %v to %v", p, I.Apply(p))
	}
	XY := X.Mul(Y)
	if vecErr(XY.Apply(p), X.Apply(Y.Apply(p))) > 1e-14 {
		t.Errorf("(X·Y)(p) ≠ X(Y(p))")
	}
}

func TestParsePose(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Pose
		err  string
	}{
		{"1 2 3 0.1 0.2 0.3", PoseFromRPY(1, 2, 3, 0.1, 0.2, 0.3), ""},
		{" 1, 2 ,3 ", PoseFromRPY(1, 2, 3, 0, 0, 0), ""},
		{"1e-3\t2\n3 0 0 3.14159", PoseFromRPY(1e-3, 2, 3, 0, 0, 3.14159), ""},
		{"", Pose{}, "got 0 fields"},
		{"1 2", Pose{}, "got 2 fields"},
		{"1 2 3 4", Pose{}, "got 4 fields"},
		{"1 2 x", Pose{}, "field 3"},
		{"1 2 3 NaN 0 0", Pose{}, "field 4 is not finite"},
		{"1 2 Inf", Pose{}, "field 3 is not finite"},
	} {
		got, err := ParsePose(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "pose") {
				t.Errorf("ParsePose(%q): error %v, want one containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParsePose(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	v, err := ParseVelocity("1 2 3 4 5 6")
	if err != nil || v != (SpatialVelocity{V: geom.Vec{1, 2, 3}, W: geom.Vec{4, 5, 6}}) {
		t.Errorf("ParseVelocity = %v, %v", v, err)
	}
	if _, err := ParseVelocity("1 2"); err == nil || !strings.Contains(err.Error(), "velocity") {
		t.Errorf("ParseVelocity(\"1 2\"): error %v", err)
	}
}

// Any string parses to a finite rigid transform or fails with an error;
// never a panic.
func FuzzParsePose(f *testing.F) {
	for _, s := range []string{"1 2 3 0.1 0.2 0.3", "1,2,3", "", "1e308 1e308 1e308 1e308 0 0", "0x1p-3 2 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		X, err := ParsePose(s)
		if err != nil {
			return
		}
		if err := checkPose("X", X); err != nil {
			t.Fatalf("ParsePose(%q) gave a bad pose: %v", s, err)
		}
		if _, err := ParseVelocity(s); err != nil {
			t.Fatalf("ParseVelocity(%q) failed where ParsePose did not: %v", s, err)
		}
	})
}
