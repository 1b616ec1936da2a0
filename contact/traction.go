package contact

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// kinematics gives the velocity of P relative to Q at any world point:
// v(x) = v0 + ω × x, with v0 = V_P − ω_P × p_WP − V_Q + ω_Q × p_WQ and
// ω = ω_P − ω_Q.
type kinematics struct {
	v0, w  geom.Vec
	moving bool
}

func newKinematics(c *Config) kinematics {
	vp := geom.Sub(c.V_WA.V, geom.Cross(c.V_WA.W, c.X_WA.P))
	vq := geom.Sub(c.V_WB.V, geom.Cross(c.V_WB.W, c.X_WB.P))
	k := kinematics{v0: geom.Sub(vp, vq), w: geom.Sub(c.V_WA.W, c.V_WB.W)}
	k.moving = k.v0 != geom.Vec{} || k.w != geom.Vec{}
	return k
}

func (k *kinematics) at(x geom.Vec) geom.Vec {
	return geom.Add(k.v0, geom.Cross(k.w, x))
}

// traction returns the traction on P at x where the static pressure is p0
// and the normal (Q into P) is n, and the normal pressure p.
func (e *Evaluator) traction(k *kinematics, m combined, x, n geom.Vec, p0 float64) (t geom.Vec, p float64) {
	v := k.at(x)
	vn := geom.Dot(v, n)
	p = p0 * math.Max(1-m.d*vn, 0)
	t = geom.Scale(p, n)
	if m.mu == 0 || p == 0 {
		return t, p
	}
	vt := geom.Sub(v, geom.Scale(vn, n))
	s := geom.Norm(vt)
	if s == 0 {
		return t, p
	}
	f := -m.mu * p * (2 / math.Pi) * math.Atan(s/e.opts.StictionSpeed) / s
	return geom.Add(t, geom.Scale(f, vt)), p
}

// quadrature point weights: barycentric (2/3, 1/6, 1/6) and permutations.
const (
	qMajor = 2.0 / 3
	qMinor = 1.0 / 6
)

// integrate sums the tractions over the surface into e.res, with c's
// velocities and the combined material m. It works in P/Q terms: the
// wrench computed is on P (the body passed as A after any swap).
func (e *Evaluator) integrate(c *Config, m combined) {
	s := &e.surf
	k := newKinematics(c)
	var force, torque, xArea, nArea geom.Vec
	var area, pArea, pMax float64
	np := s.NumPolygons()
	s.Pressure = append(s.Pressure[:0], e.p0...)
	for i := range np {
		first, cen := s.Start[i], s.Start[i+1]-1
		n := geom.At(s.Normals, int32(i))
		if k.moving {
			for j := first; j <= cen; j++ {
				_, s.Pressure[j] = e.traction(&k, m, s.vertex(j), n, e.p0[j])
			}
		}
		for j := first; j < cen; j++ {
			pMax = max(pMax, s.Pressure[j])
		}
		a := s.Areas[i]
		area += a
		nArea = geom.Add(nArea, geom.Scale(a, n))
		xc, pc := s.vertex(cen), e.p0[cen]
		var f, tq geom.Vec
		var pa float64
		xArea = geom.Add(xArea, geom.Scale(a, xc))
		if !k.moving && e.opts.Quadrature == ThreePoint {
			// Static: the traction is p0·n̂ with p0 linear, which the rule
			// integrates exactly; emit has the exact integrals already.
			st := e.static[4*i : 4*i+4]
			pa = st[0]
			f, tq = geom.Scale(pa, n), geom.Cross(geom.Vec{st[1], st[2], st[3]}, n)
		} else {
			for j := first; j < cen; j++ {
				next := j + 1
				if next == cen {
					next = first
				}
				x := [3]geom.Vec{xc, s.vertex(j), s.vertex(next)}
				ta := 0.5 * geom.Dot(n, geom.Cross(geom.Sub(x[1], x[0]), geom.Sub(x[2], x[0])))
				p := [3]float64{pc, e.p0[j], e.p0[next]}
				e.integrateTriangle(&k, m, &x, &p, n, ta, &f, &tq, &pa)
			}
		}
		force, torque = geom.Add(force, f), geom.Add(torque, tq)
		pArea += pa
	}
	r := &e.res
	*r = Result{Surface: s, Polygons: np, Candidates: e.cands, Dropped: e.dropped, Area: area, MaxPressure: pMax}
	r.OnA = Wrench{Force: force, Torque: torque}
	r.OnB = Wrench{Force: geom.Scale(-1, force), Torque: geom.Scale(-1, torque)}
	if area > 0 {
		r.Centroid = geom.Scale(1/area, xArea)
		r.MeanPressure = pArea / area
		if l := geom.Norm(nArea); l > 0 {
			r.MeanNormal = geom.Scale(1/l, nArea)
		}
	}
	tc := geom.Sub(torque, geom.Cross(r.Centroid, force))
	r.OnAAtCentroid = Wrench{Force: force, Torque: tc}
	r.OnBAtCentroid = Wrench{Force: r.OnB.Force, Torque: geom.Scale(-1, tc)}
}

// integrateTriangle adds to f, tq and pa the force, moment about the world
// origin and ∫p dA of fan triangle x of area ta with static pressures p0
// at its vertices, by the selected rule. The static pressure is linear, so
// its value at a quadrature point is the same combination of vertex values.
func (e *Evaluator) integrateTriangle(k *kinematics, m combined, x *[3]geom.Vec, p0 *[3]float64, n geom.Vec, ta float64, f, tq *geom.Vec, pa *float64) {
	if e.opts.Quadrature == Centroid {
		e.quadraturePoint(k, m, x, p0, n, [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}, ta, f, tq, pa)
		return
	}
	w := ta / 3
	e.quadraturePoint(k, m, x, p0, n, [3]float64{qMajor, qMinor, qMinor}, w, f, tq, pa)
	e.quadraturePoint(k, m, x, p0, n, [3]float64{qMinor, qMajor, qMinor}, w, f, tq, pa)
	e.quadraturePoint(k, m, x, p0, n, [3]float64{qMinor, qMinor, qMajor}, w, f, tq, pa)
}

// quadraturePoint adds the contribution of the point with barycentric
// coordinates b in triangle x, with the given weight.
func (e *Evaluator) quadraturePoint(k *kinematics, m combined, x *[3]geom.Vec, p0 *[3]float64, n geom.Vec, b [3]float64, weight float64, f, tq *geom.Vec, pa *float64) {
	xq := geom.Add(geom.Add(geom.Scale(b[0], x[0]), geom.Scale(b[1], x[1])), geom.Scale(b[2], x[2]))
	t, p := e.traction(k, m, xq, n, b[0]*p0[0]+b[1]*p0[1]+b[2]*p0[2])
	*f = geom.Add(*f, geom.Scale(weight, t))
	*tq = geom.Add(*tq, geom.Scale(weight, geom.Cross(xq, t)))
	*pa += weight * p
}
