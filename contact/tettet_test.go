package contact

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

func singleTet(tb testing.TB, v [4]geom.Vec, eps [4]float64, E float64) *Body {
	tb.Helper()
	var pos []float64
	for _, p := range v {
		pos = append(pos, p[:]...)
	}
	b, err := NewCompliant(pos, []int32{0, 1, 2, 3}, eps[:], Material{Modulus: E})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Two tets whose plane and polygon are worked out by hand. A is the unit
// corner tet with ε = z, so p_A = E_A·z; B lies below with ε = 1.2 − z.
// With E_A = 2e5, E_B = 1e5 the plane is E_A·z = E_B·(1.2 − z): z = 0.4,
// normal +z (from B into A), pressure 8e4 Pa.
func TestTwoTetsByHand(t *testing.T) {
	A := [4]geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	epsA := [4]float64{0, 0, 0, 1}
	eps := func(v [4]geom.Vec) (e [4]float64) {
		for k := range v {
			e[k] = 1.2 - v[k][2]
		}
		return e
	}
	const p = 8e4
	cases := []struct {
		name string
		B    [4]geom.Vec
		// polygon in the plane z = 0.4: area, centroid x and y
		area, cx, cy float64
		nverts       int
	}{
		// B contains A's whole slice: the triangle (0,0),(0.6,0),(0,0.6).
		{"slice", [4]geom.Vec{{-10, -10, -1}, {20, -10, -1}, {-10, 20, -1}, {0, 0, 1.2}}, 0.18, 0.2, 0.2, 3},
		// B's face x = 0.3 cuts the slice to the quadrilateral
		// (0,0),(0.3,0),(0.3,0.3),(0,0.6): area 0.135, ∫x = 0.018, ∫y = 0.0315.
		{"clipped", [4]geom.Vec{{0.3, -10, -1}, {0.3, 20, -1}, {0.3, -10, 1.2}, {-20, 0, 0}}, 0.135, 0.018 / 0.135, 0.0315 / 0.135, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			B := c.B
			if geom.Orient3D(B[0], B[1], B[2], B[3]) < 0 {
				B[2], B[3] = B[3], B[2]
			}
			a, b := singleTet(t, A, epsA, 2e5), singleTet(t, B, eps(B), 1e5)
			r := mustEval(t, NewEvaluator(Options{}), a, b, static(Identity(), Identity()))
			if r.Polygons != 1 {
				t.Fatalf("%d polygons, want 1", r.Polygons)
			}
			s := r.Surface
			if n := int(s.Start[1]) - 1; n != c.nverts {
				t.Errorf("polygon has %d vertices, want %d", n, c.nverts)
			}
			for i := int32(0); i < s.Start[1]; i++ {
				if z := s.vertex(i)[2]; math.Abs(z-0.4) > 1e-15 {
					t.Errorf("vertex %d at z = %.17g, want 0.4", i, z)
				}
				if relErr(s.Pressure[i], p) > 1e-14 {
					t.Errorf("vertex %d pressure %.17g, want %g", i, s.Pressure[i], p)
				}
			}
			if vecErr(geom.At(s.Normals, 0), geom.Vec{0, 0, 1}) > 1e-15 {
				t.Errorf("normal %v, want +z", s.Normals)
			}
			wantF := geom.Vec{0, 0, p * c.area}
			wantT := geom.Vec{p * c.area * c.cy, -p * c.area * c.cx, 0}
			if relErr(r.Area, c.area) > 1e-14 || vecErr(r.OnA.Force, wantF) > 1e-14*p ||
				vecErr(r.OnA.Torque, wantT) > 1e-14*p || vecErr(r.Centroid, geom.Vec{c.cx, c.cy, 0.4}) > 1e-15 {
				t.Errorf("area %.17g force %v torque %v centroid %v; want %g %v %v (%g %g 0.4)",
					r.Area, r.OnA.Force, r.OnA.Torque, r.Centroid, c.area, wantF, wantT, c.cx, c.cy)
			}
			if vecErr(r.OnB.Force, geom.Scale(-1, wantF)) > 1e-14*p {
				t.Errorf("force on B %v, want %v", r.OnB.Force, geom.Scale(-1, wantF))
			}
			// About the centroid the normal pressure, uniform here, has no moment.
			if geom.Norm(r.OnAAtCentroid.Torque) > 1e-14*p {
				t.Errorf("moment about centroid %v, want 0", r.OnAAtCentroid.Torque)
			}
		})
	}
}

// solve4 solves the 4×4 system m·x = b by Gaussian elimination with partial
// pivoting.
func solve4(m [4][4]float64, b [4]float64) [4]float64 {
	for c := range 4 {
		p := c
		for r := c + 1; r < 4; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p], b[c], b[p] = m[p], m[c], b[p], b[c]
		for r := c + 1; r < 4; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k < 4; k++ {
				m[r][k] -= f * m[c][k]
			}
			b[r] -= f * b[c]
		}
	}
	var x [4]float64
	for r := 3; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < 4; k++ {
			s -= m[r][k] * x[k]
		}
		x[r] = s / m[r][r]
	}
	return x
}

// pressureRow returns the 1×4 row q with p(x) = q·[x; 1] for the linear
// pressure E·ε on tet v: the paper's E·ε·X⁻¹ (appendix X-B), found by
// solving Xᵀ·q = E·ε.
func pressureRow(v [4]geom.Vec, eps [4]float64, E float64) [4]float64 {
	var m [4][4]float64
	var b [4]float64
	for k := range 4 {
		m[k] = [4]float64{v[k][0], v[k][1], v[k][2], 1}
		b[k] = E * eps[k]
	}
	return solve4(m, b)
}

// halfSpaces returns the four planes (h, with h·[x; 1] ≤ 0 inside) of a
// positively oriented tet, from its vertices alone.
func halfSpaces(v [4]geom.Vec) [][4]float64 {
	var out [][4]float64
	for k := range 4 {
		var f []geom.Vec
		for j := range 4 {
			if j != k {
				f = append(f, v[j])
			}
		}
		n := geom.Cross(geom.Sub(f[1], f[0]), geom.Sub(f[2], f[0]))
		if geom.Dot(n, geom.Sub(v[k], f[0])) > 0 {
			n = geom.Scale(-1, n)
		}
		out = append(out, [4]float64{n[0], n[1], n[2], -geom.Dot(n, f[0])})
	}
	return out
}

// refPolygon finds the polygon plane ∩ (half-spaces) by vertex enumeration:
// every point where the plane meets two of the planes and that satisfies
// all of them, ordered by angle about their mean, counterclockwise about
// the plane's normal.
func refPolygon(plane [4]float64, hs [][4]float64) []geom.Vec {
	n := geom.Vec{plane[0], plane[1], plane[2]}
	var pts []geom.Vec
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			m := [4][4]float64{plane, hs[i], hs[j], {0, 0, 0, 1}}
			// The fourth row pins the homogeneous coordinate.
			x := solve4(m, [4]float64{0, 0, 0, 1})
			p := geom.Vec{x[0], x[1], x[2]}
			if !finite(p[:]) {
				continue
			}
			ok := true
			for _, h := range hs {
				if h[0]*p[0]+h[1]*p[1]+h[2]*p[2]+h[3] > 1e-9*(geom.Norm(geom.Vec{h[0], h[1], h[2]})*(1+geom.Norm(p))) {
					ok = false
				}
			}
			if ok {
				pts = append(pts, p)
			}
		}
	}
	if len(pts) < 3 {
		return nil
	}
	var mid geom.Vec
	for _, p := range pts {
		mid = geom.Add(mid, p)
	}
	mid = geom.Scale(1/float64(len(pts)), mid)
	u := geom.Sub(pts[0], mid)
	if geom.Norm(u) == 0 {
		u = geom.Sub(pts[1], mid)
	}
	w := geom.Cross(n, u)
	ang := func(p geom.Vec) float64 { d := geom.Sub(p, mid); return math.Atan2(geom.Dot(d, w), geom.Dot(d, u)) }
	sort.Slice(pts, func(i, j int) bool { return ang(pts[i]) < ang(pts[j]) })
	return pts
}

// refIntegrals returns area, ∫p dA and ∫p·x dA of the linear pressure
// q·[x; 1] over a convex polygon, by exact per-triangle formulas on a fan
// from its first vertex.
func refIntegrals(poly []geom.Vec, q [4]float64, n geom.Vec) (area, ip float64, ipx geom.Vec) {
	p := func(x geom.Vec) float64 { return q[0]*x[0] + q[1]*x[1] + q[2]*x[2] + q[3] }
	nhat := geom.Scale(1/geom.Norm(n), n)
	for k := 1; k+1 < len(poly); k++ {
		x := [3]geom.Vec{poly[0], poly[k], poly[k+1]}
		a := 0.5 * geom.Dot(nhat, geom.Cross(geom.Sub(x[1], x[0]), geom.Sub(x[2], x[0])))
		ps := [3]float64{p(x[0]), p(x[1]), p(x[2])}
		area += a
		ip += a * (ps[0] + ps[1] + ps[2]) / 3
		// ∫ p·x over a triangle = A/12·(Σ pᵢxᵢ + (Σ pᵢ)(Σ xᵢ)).
		sp := ps[0] + ps[1] + ps[2]
		sx := geom.Add(geom.Add(x[0], x[1]), x[2])
		for i := range 3 {
			ipx = geom.Add(ipx, geom.Scale(a/12, geom.Scale(ps[i], x[i])))
		}
		ipx = geom.Add(ipx, geom.Scale(a/12*sp, sx))
	}
	return area, ip, ipx
}

func randomTet(r *rand.Rand, lo, size float64) [4]geom.Vec {
	for {
		var v [4]geom.Vec
		for k := range 4 {
			for i := range 3 {
				v[k][i] = lo + size*r.Float64()
			}
		}
		o := geom.Orient3D(v[0], v[1], v[2], v[3])
		if o < 0 {
			v[2], v[3] = v[3], v[2]
		}
		if o != 0 && math.Abs(geom.TetVolume(v[0], v[1], v[2], v[3])) > 1e-3*size*size*size {
			return v
		}
	}
}

// Random tet pairs in random poses against the paper's formulation and
// vertex enumeration: same polygon area, force and moment (exact
// integrals), and the drop rule applied as documented.
func TestTetPairsMatchVertexEnumeration(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	e := NewEvaluator(Options{})
	cosMax := math.Cos(DefaultMaxNormalAngle)
	nonEmpty, dropped := 0, 0
	for trial := 0; trial < 4000; trial++ {
		va, vb := randomTet(r, -0.5, 1), randomTet(r, -0.5, 1)
		var ea, eb [4]float64
		for k := range 4 {
			ea[k], eb[k] = r.Float64(), r.Float64()
		}
		EA, EB := 1+9*r.Float64(), 1+9*r.Float64()
		a, b := singleTet(t, va, ea, EA), singleTet(t, vb, eb, EB)
		XWA := PoseFromRPY(r.Float64(), r.Float64(), r.Float64(), r.Float64(), r.Float64(), r.Float64())
		XWB := PoseFromRPY(XWA.P[0]+0.3*r.Float64(), XWA.P[1], XWA.P[2], 3*r.Float64(), 3*r.Float64(), 3*r.Float64())
		res := mustEval(t, e, a, b, static(XWA, XWB))
		// Reference, in world.
		var wa, wb [4]geom.Vec
		for k := range 4 {
			wa[k], wb[k] = XWA.Apply(va[k]), XWB.Apply(vb[k])
		}
		qa, qb := pressureRow(wa, ea, EA), pressureRow(wb, eb, EB)
		var plane [4]float64
		for k := range 4 {
			plane[k] = qa[k] - qb[k]
		}
		n := geom.Vec{plane[0], plane[1], plane[2]}
		ga, gb := geom.Vec{qa[0], qa[1], qa[2]}, geom.Vec{qb[0], qb[1], qb[2]}
		nn := geom.Norm(n)
		drop := geom.Dot(n, ga) < cosMax*nn*geom.Norm(ga) || -geom.Dot(n, gb) < cosMax*nn*geom.Norm(gb)
		poly := refPolygon(plane, append(halfSpaces(wa), halfSpaces(wb)...))
		area, ip, ipx := 0.0, 0.0, geom.Vec{}
		if poly != nil {
			area, ip, ipx = refIntegrals(poly, qa, n)
		}
		if drop {
			if area > 1e-12 {
				dropped++
			}
			if res.Polygons != 0 {
				t.Fatalf("trial %d: pair should be dropped (normal against a gradient), got %d polygons", trial, res.Polygons)
			}
			continue
		}
		if area < 1e-9 {
			if res.Area > 1e-9 {
				t.Fatalf("trial %d: reference area %g, got %g", trial, area, res.Area)
			}
			continue
		}
		nonEmpty++
		nhat := geom.Scale(1/nn, n)
		wantF := geom.Scale(ip, nhat)
		wantT := geom.Cross(ipx, nhat)
		scale := ip * (1 + geom.Norm(XWA.P) + geom.Norm(XWB.P))
		if relErr(res.Area, area) > 1e-9 || vecErr(res.OnA.Force, wantF) > 1e-9*ip || vecErr(res.OnA.Torque, wantT) > 1e-9*scale {
			t.Fatalf("trial %d: area %g force %v torque %v; want %g %v %v", trial, res.Area, res.OnA.Force, res.OnA.Torque, area, wantF, wantT)
		}
	}
	t.Logf("%d non-empty polygons, %d dropped by the normal rule", nonEmpty, dropped)
	if nonEmpty < 200 || dropped < 5 {
		t.Fatalf("too few informative trials: %d non-empty, %d dropped", nonEmpty, dropped)
	}
}
