package contact

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Pose is a rigid transform X_FB: the pose of a frame B in a frame F. A
// point with coordinates p_B in B has coordinates p_F = R·p_B + P in F.
type Pose struct {
	R [9]float64 // rotation R_FB, row-major
	P geom.Vec   // position of B's origin in F, m
}

// Identity returns the identity pose.
func Identity() Pose { return Pose{R: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}} }

// PoseFromRPY returns the pose with translation (x, y, z) and rotation
// R = Rz(yaw)·Ry(pitch)·Rx(roll) (extrinsic roll about x, then pitch about
// y, then yaw about z; angles in radians), Drake's RollPitchYaw convention.
func PoseFromRPY(x, y, z, roll, pitch, yaw float64) Pose {
	sr, cr := math.Sincos(roll)
	sp, cp := math.Sincos(pitch)
	sy, cy := math.Sincos(yaw)
	return Pose{
		R: [9]float64{
			cy * cp, cy*sp*sr - sy*cr, cy*sp*cr + sy*sr,
			sy * cp, sy*sp*sr + cy*cr, sy*sp*cr - cy*sr,
			-sp, cp * sr, cp * cr,
		},
		P: geom.Vec{x, y, z},
	}
}

// PoseFromAxisAngle returns the pose with translation p and rotation by
// angle (radians) about axis (any nonzero length), right-handed.
func PoseFromAxisAngle(axis geom.Vec, angle float64, p geom.Vec) Pose {
	n := geom.Norm(axis)
	x, y, z := axis[0]/n, axis[1]/n, axis[2]/n
	s, c := math.Sincos(angle)
	t := 1 - c
	return Pose{R: [9]float64{
		t*x*x + c, t*x*y - s*z, t*x*z + s*y,
		t*x*y + s*z, t*y*y + c, t*y*z - s*x,
		t*x*z - s*y, t*y*z + s*x, t*z*z + c,
	}, P: p}
}

// Rotate returns R·v.
func (X *Pose) Rotate(v geom.Vec) geom.Vec {
	return geom.Vec{
		X.R[0]*v[0] + X.R[1]*v[1] + X.R[2]*v[2],
		X.R[3]*v[0] + X.R[4]*v[1] + X.R[5]*v[2],
		X.R[6]*v[0] + X.R[7]*v[1] + X.R[8]*v[2],
	}
}

// Apply returns R·p + P: point p of frame B in frame F.
func (X *Pose) Apply(p geom.Vec) geom.Vec {
	return geom.Vec{
		X.R[0]*p[0] + X.R[1]*p[1] + X.R[2]*p[2] + X.P[0],
		X.R[3]*p[0] + X.R[4]*p[1] + X.R[5]*p[2] + X.P[1],
		X.R[6]*p[0] + X.R[7]*p[1] + X.R[8]*p[2] + X.P[2],
	}
}

// Inverse returns X_BF given X_FB.
func (X *Pose) Inverse() Pose {
	r := &X.R
	inv := Pose{R: [9]float64{r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]}}
	q := inv.Rotate(X.P)
	inv.P = geom.Vec{-q[0], -q[1], -q[2]}
	return inv
}

// Mul returns the composition X_FC = X_FB·X_BC, where X is X_FB.
func (X *Pose) Mul(Y Pose) Pose {
	var out Pose
	for i := range 3 {
		for j := range 3 {
			out.R[3*i+j] = X.R[3*i]*Y.R[j] + X.R[3*i+1]*Y.R[3+j] + X.R[3*i+2]*Y.R[6+j]
		}
	}
	out.P = X.Apply(Y.P)
	return out
}

// SpatialVelocity is a body frame B's velocity in world W, both vectors
// expressed in W: W is B's angular velocity (rad/s) and V the velocity of
// B's origin (m/s). The velocity of a point Q fixed in B at p_WQ is
// V + W × (p_WQ − p_WBo).
type SpatialVelocity struct {
	W geom.Vec // angular velocity ω_WB, rad/s
	V geom.Vec // translational velocity of B's origin, m/s
}

// ParsePose parses "x y z roll pitch yaw" (metres, radians; see
// PoseFromRPY) or "x y z" (no rotation). Numbers are separated by spaces
// and/or commas.
func ParsePose(s string) (Pose, error) {
	v, err := parseNumbers(s, "pose", "x y z [roll pitch yaw]")
	if err != nil {
		return Pose{}, err
	}
	if len(v) == 3 {
		v = append(v, 0, 0, 0)
	}
	return PoseFromRPY(v[0], v[1], v[2], v[3], v[4], v[5]), nil
}

// ParseVelocity parses "vx vy vz wx wy wz" (m/s, rad/s, in world) or
// "vx vy vz" (no rotation) as a SpatialVelocity; the translational part
// comes first, as in ParsePose.
func ParseVelocity(s string) (SpatialVelocity, error) {
	v, err := parseNumbers(s, "velocity", "vx vy vz [wx wy wz]")
	if err != nil {
		return SpatialVelocity{}, err
	}
	if len(v) == 3 {
		v = append(v, 0, 0, 0)
	}
	return SpatialVelocity{V: geom.Vec{v[0], v[1], v[2]}, W: geom.Vec{v[3], v[4], v[5]}}, nil
}

// parseNumbers reads 3 or 6 finite numbers.
func parseNumbers(s, what, form string) ([]float64, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(fields) != 3 && len(fields) != 6 {
		return nil, fmt.Errorf("contact: %s %q: want 3 or 6 numbers %q, got %d fields", what, s, form, len(fields))
	}
	v := make([]float64, len(fields), 6)
	for i, f := range fields {
		x, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return nil, fmt.Errorf("contact: %s %q: field %d: %w", what, s, i+1, err)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("contact: %s %q: field %d is not finite", what, s, i+1)
		}
		v[i] = x
	}
	return v, nil
}
