package contact

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The static contact of a compliant body A with a rigid body B is
// conservative: the wrench on A is the gradient of U = ∫ p0 dV over the
// overlap with respect to B's pose (Elandt et al., appendix X-A). U is
// computed here independently of the contact code: every tet of A is
// clipped by B's half-spaces into tets (exact case split), and the linear
// pressure, found by solving for the tet's barycentric row (the paper's
// X⁻¹), is integrated exactly over each piece.

// plane is a half-space n·x + d ≤ 0.
type plane struct {
	n geom.Vec
	d float64
}

// clipTets returns the parts of the tets inside pl, as tets.
func clipTets(tets [][4]geom.Vec, pl plane) [][4]geom.Vec {
	var out [][4]geom.Vec
	cut := func(a, b geom.Vec, sa, sb float64) geom.Vec {
		return geom.Add(a, geom.Scale(sa/(sa-sb), geom.Sub(b, a)))
	}
	for _, t := range tets {
		var in, outV []int
		var s [4]float64
		for k, v := range t {
			s[k] = geom.Dot(pl.n, v) + pl.d
			if s[k] <= 0 {
				in = append(in, k)
			} else {
				outV = append(outV, k)
			}
		}
		switch len(in) {
		case 4:
			out = append(out, t)
		case 1:
			a := in[0]
			var q [4]geom.Vec
			q[0] = t[a]
			for i, o := range outV {
				q[i+1] = cut(t[a], t[o], s[a], s[o])
			}
			out = append(out, q)
		case 2, 3:
			// A prism with bottom (a₀, a₁, a₂) and top (b₀, b₁, b₂), split
			// into three tets.
			var bot, top [3]geom.Vec
			if len(in) == 3 {
				o := outV[0]
				for i, k := range in {
					bot[i], top[i] = t[k], cut(t[k], t[o], s[k], s[o])
				}
			} else {
				a, b := in[0], in[1]
				c, d := outV[0], outV[1]
				bot = [3]geom.Vec{t[a], cut(t[a], t[c], s[a], s[c]), cut(t[a], t[d], s[a], s[d])}
				top = [3]geom.Vec{t[b], cut(t[b], t[c], s[b], s[c]), cut(t[b], t[d], s[b], s[d])}
			}
			out = append(out,
				[4]geom.Vec{bot[0], bot[1], bot[2], top[0]},
				[4]geom.Vec{bot[1], bot[2], top[0], top[1]},
				[4]geom.Vec{bot[2], top[0], top[1], top[2]})
		}
	}
	return out
}

// overlapEnergy returns U = ∫ p0 dV over the part of A's tets inside every
// plane (in A's frame).
func overlapEnergy(m *tetMesh, eps []float64, E float64, planes []plane) float64 {
	var U float64
	for t := 0; t < len(m.tets); t += 4 {
		var v [4]geom.Vec
		var e [4]float64
		for k := range 4 {
			v[k], e[k] = geom.At(m.pos, m.tets[t+k]), eps[m.tets[t+k]]
		}
		q := pressureRow(v, e, E)
		pieces := [][4]geom.Vec{v}
		for _, pl := range planes {
			pieces = clipTets(pieces, pl)
		}
		for _, w := range pieces {
			vol := math.Abs(geom.TetVolume(w[0], w[1], w[2], w[3]))
			var pm float64
			for _, x := range w {
				pm += q[0]*x[0] + q[1]*x[1] + q[2]*x[2] + q[3]
			}
			U += vol * pm / 4
		}
	}
	return U
}

// boxPlanes returns the half-spaces of box lo + [0, size] placed by X.
func boxPlanes(lo, size geom.Vec, X Pose) []plane {
	var out []plane
	for k := range 3 {
		for _, side := range []float64{-1, 1} {
			var n geom.Vec
			n[k] = side
			p := lo
			if side > 0 {
				p[k] += size[k]
			}
			nw, pw := X.Rotate(n), X.Apply(p)
			out = append(out, plane{nw, -geom.Dot(nw, pw)})
		}
	}
	return out
}

// conservativeCase is a compliant ball A at the identity and a rigid body B
// whose half-spaces at pose X are planes(X).
type conservativeCase struct {
	name   string
	b      *Body
	planes func(X Pose) []plane
	X      Pose
}

func conservativeCases(t *testing.T) (*tetMesh, []float64, *Body, []conservativeCase) {
	const R, E = 1.0, 1e5
	m := sphere(R, 2, 3)
	eps := m.field(func(x geom.Vec) float64 { return math.Max(1-geom.Norm(x)/R, 0) })
	ball, err := NewCompliant(m.pos, m.tets, eps, Material{Modulus: E})
	if err != nil {
		t.Fatal(err)
	}
	lo, size := geom.Vec{-0.6, -0.5, -0.7}, geom.Vec{1.2, 1, 1.4}
	box := rigidBox(t, lo, size, 2, Material{})
	hs := mustHalfSpace(t, Material{})
	return m, eps, ball, []conservativeCase{
		{"rigid box", box, func(X Pose) []plane { return boxPlanes(lo, size, X) }, PoseFromRPY(0.3, 0.4, -1.1, 0.3, -0.2, 0.5)},
		{"half-space", hs, func(X Pose) []plane {
			n := X.Rotate(geom.Vec{0, 0, 1})
			return []plane{{n, -geom.Dot(n, X.P)}}
		}, PoseFromRPY(0.1, -0.2, -0.7, 0.4, 0.3, 0)},
	}
}

// Force on A = ∂U/∂t and moment on A about the world origin = ∂U/∂θ, for B
// translated by t and rotated by θ about world axes through the origin
// (B's own wrench is the negative: −∇U).
func TestForceIsGradientOfEnergy(t *testing.T) {
	m, eps, ball, cases := conservativeCases(t)
	const E, h = 1e5, 1e-6
	e := NewEvaluator(Options{})
	for _, c := range cases {
		r := *mustEval(t, e, ball, c.b, static(Identity(), c.X))
		U := func(X Pose) float64 { return overlapEnergy(m, eps, E, c.planes(X)) }
		var gradT, gradR geom.Vec
		for k := range 3 {
			var d geom.Vec
			d[k] = h
			shift := func(s float64) Pose { X := c.X; X.P = geom.Add(X.P, geom.Scale(s, d)); return X }
			gradT[k] = (U(shift(1)) - U(shift(-1))) / (2 * h)
			var axis geom.Vec
			axis[k] = 1
			rot := func(s float64) Pose { r := PoseFromAxisAngle(axis, s*h, geom.Vec{}); return r.Mul(c.X) }
			gradR[k] = (U(rot(1)) - U(rot(-1))) / (2 * h)
		}
		t.Logf("%s: U = %.6g J, F = %v, ∂U/∂t = %v", c.name, U(c.X), r.OnA.Force, gradT)
		if vecErr(r.OnA.Force, gradT) > 1e-5*geom.Norm(gradT) {
			t.Errorf("%s: force on A %v, ∂U/∂t %v", c.name, r.OnA.Force, gradT)
		}
		if vecErr(r.OnA.Torque, gradR) > 1e-5*(geom.Norm(gradR)+geom.Norm(gradT)) {
			t.Errorf("%s: moment on A %v, ∂U/∂θ %v", c.name, r.OnA.Torque, gradR)
		}
	}
}

// Around a closed path of B's poses, the elastic wrench does no net work.
// The power on B is F·ṗ + (τ_O − p × F)·ω (moment about B's origin times
// B's angular velocity); the trapezoid rule over a period integrates it.
// (With the centroid rule, whose moment is not exact, the ratio is 1.6e-4.)
func TestClosedPathWorkIsZero(t *testing.T) {
	_, _, ball, cases := conservativeCases(t)
	e := NewEvaluator(Options{})
	const n = 1000
	axis := geom.Scale(1/math.Sqrt(3), geom.Vec{1, -1, 1})
	for _, c := range cases {
		pose := func(s float64) (Pose, geom.Vec, geom.Vec) {
			w := 2 * math.Pi * s
			p := geom.Add(c.X.P, geom.Vec{0.1 * (math.Cos(w) - 1), 0.1 * math.Sin(w), 0.05 * math.Sin(2*w)})
			pd := geom.Vec{-0.1 * 2 * math.Pi * math.Sin(w), 0.1 * 2 * math.Pi * math.Cos(w), 0.05 * 4 * math.Pi * math.Cos(2*w)}
			th := 0.2 * math.Sin(w)
			rot := PoseFromAxisAngle(axis, th, geom.Vec{})
			X := rot.Mul(Pose{R: c.X.R})
			X.P = p
			return X, pd, geom.Scale(0.2*2*math.Pi*math.Cos(w), axis)
		}
		var work, abs float64
		for i := range n {
			X, pd, om := pose(float64(i) / n)
			r := mustEval(t, e, ball, c.b, static(Identity(), X))
			F, tq := r.OnB.Force, r.OnB.Torque
			pw := geom.Dot(F, pd) + geom.Dot(geom.Sub(tq, geom.Cross(X.P, F)), om)
			work += pw / n
			abs += math.Abs(pw) / n
		}
		t.Logf("%s: net work %.3g J, ∫|power| %.3g J, ratio %.2g", c.name, work, abs, work/abs)
		if math.Abs(work) > 1e-6*abs || abs == 0 {
			t.Errorf("%s: net work %g J around a closed path, ∫|power| = %g J", c.name, work, abs)
		}
	}
}
