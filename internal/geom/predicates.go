package geom

import "math"

// Error-bound coefficients from Shewchuk (1997), with ε = 2⁻⁵³ the unit
// roundoff of float64. Each bounds |computed − exact| by the coefficient
// times the "permanent" (the determinant expansion with every term
// replaced by its absolute value), so a computed value larger in
// magnitude than that bound has the exact sign.
const (
	epsilon        = 1.0 / (1 << 53)
	orient2dBoundA = (3 + 16*epsilon) * epsilon
	orient3dBoundA = (7 + 56*epsilon) * epsilon
	inSphereBoundA = (16 + 224*epsilon) * epsilon
	inCircleBoundA = (10 + 96*epsilon) * epsilon
)

// Orient2D returns +1 if a, b, c turn counterclockwise in the xy-plane
// ((b−a)×(c−a) has positive z), −1 if clockwise and 0 if collinear.
func Orient2D(a, b, c [2]float64) int {
	acx, bcx := a[0]-c[0], b[0]-c[0]
	acy, bcy := a[1]-c[1], b[1]-c[1]
	l, r := acx*bcy, acy*bcx
	det := l - r
	if bound := orient2dBoundA * (math.Abs(l) + math.Abs(r)); det > bound || -det > bound {
		return sign(det)
	}
	// det[a−c; b−c] equals det[b−a; c−a].
	ar := newArena()
	defer ar.release()
	return signExp(ar.det2Exp(ar.diffExp(a[0], c[0]), ar.diffExp(a[1], c[1]),
		ar.diffExp(b[0], c[0]), ar.diffExp(b[1], c[1])))
}

// Orient3D returns +1 if (b−a)×(c−a)·(d−a) > 0 — d lies on the side of
// plane abc that the right-handed normal of a→b→c points to — −1 if it is
// negative, and 0 if the four points are coplanar. A tetrahedron abcd is
// positively oriented when Orient3D(a, b, c, d) > 0.
func Orient3D(a, b, c, d Vec) int {
	// det[b−a; c−a; d−a] = det[a−d; c−d; b−d]; the latter is Shewchuk's
	// orient3d(a, c, b, d), whose filter we reuse.
	return shewOrient3D(a, c, b, d)
}

// shewOrient3D returns the sign of det[a−d; b−d; c−d].
func shewOrient3D(a, b, c, d Vec) int {
	det, bound := orient3dFilter(a[0]-d[0], a[1]-d[1], a[2]-d[2], b[0]-d[0], b[1]-d[1], b[2]-d[2], c[0]-d[0], c[1]-d[1], c[2]-d[2])
	if det > bound || -det > bound {
		return sign(det)
	}
	if bound == 0 {
		return 0
	}
	ad, okA := diff3(a, d)
	bd, okB := diff3(b, d)
	cd, okC := diff3(c, d)
	if okA && okB && okC {
		return orient3dSmall(ad, bd, cd)
	}
	ar := newArena()
	defer ar.release()
	row := func(p Vec) [3][]float64 {
		return [3][]float64{ar.diffExp(p[0], d[0]), ar.diffExp(p[1], d[1]), ar.diffExp(p[2], d[2])}
	}
	return signExp(ar.det3Exp(row(a), row(b), row(c)))
}

// InSphere returns +1 if e lies strictly inside the sphere through a, b,
// c, d when the tetrahedron abcd is positively oriented (Orient3D > 0), −1
// if strictly outside, and 0 if the five points are cospherical. For a
// negatively oriented abcd the sign is reversed.
func InSphere(a, b, c, d, e Vec) int {
	// Shewchuk's insphere(a, b, c, d, e) is positive for e inside when his
	// orient3d(a, b, c, d) > 0; his orient3d(a, b, d, c) equals our
	// Orient3D(a, b, c, d).
	return shewInSphere(a, b, d, c, e)
}

func shewInSphere(a, b, c, d, e Vec) int {
	det, bound := inSphereFilter(a[0]-e[0], a[1]-e[1], a[2]-e[2], b[0]-e[0], b[1]-e[1], b[2]-e[2],
		c[0]-e[0], c[1]-e[1], c[2]-e[2], d[0]-e[0], d[1]-e[1], d[2]-e[2])
	if det > bound || -det > bound {
		return sign(det)
	}
	if bound == 0 {
		return 0
	}
	if s, ok := inSphereFlat(a, b, c, d, e); ok {
		return s
	}
	return inSphereExact(a, b, c, d, e)
}

// inSphereFlat returns the sign of Shewchuk's insphere(a, b, c, d, e) —
// D, the determinant of the rows (p−e, |p−e|²) for p = a, b, c, d — when
// e and three of a, b, c, d, say p, q, r in their order, are exactly
// coplanar and p, q, r are not collinear; otherwise ok is false. Points
// on a flat face are coplanar and often cocircular: the float filter
// cannot decide those, and this shape was 16.6 k of the 18.4 k tests that
// reached the exact stage in a build of netgen_hinge.stl with
// MergeCoplanar at -q 1.414 (cura_pbr3d_g1_buildplate.stl: 55.6 k of
// 55.9 k; stlmodels_gearwheel.bin.stl: 121 k of 123 k). The exact
// coplanarity test and this 3×3 determinant take about 0.7 µs where the
// 4×4 took 1.1 µs (BenchmarkInSphereFlat).
//
// The identity: let s be the fourth point, in row m (0-based) of D, and
// (i, j, k) a cyclic order of the axes with
// T = Orient2D(p, q, r projected on axes i, j) ≠ 0. Moving row s last
// takes 3−m swaps; putting the columns in the order i, j, k, lift is a
// cyclic (even) permutation: D = (−1)^(3−m)·D′. The normal
// n = (q−p)×(r−p) of the plane through p, q, r — which holds e — has
// n_k = T ≠ 0. Replacing column k by Σ n_l·(column l) multiplies D′ by
// n_k and leaves the column (0, 0, 0, h) with h = n·(s−e); expanding
// along it, n_k·D′ = −h·M, where M is the 3×3 determinant of the rows
// (p_i−e_i, p_j−e_j, |p−e|²) for p, q, r. The same steps on the
// determinant of the rows (p, 1), (q, 1), (r, 1), (s, 1), which is
// −Orient3D(p, q, r, s), give −n_k·Orient3D(p, q, r, s) = −h·T. So
// D′·Orient3D(p, q, r, s)·n_k² = −h²·M·T, and since h = 0 exactly when
// Orient3D(p, q, r, s) = 0 (then D′ = 0 too), in every case
// sign D = (−1)^(3−m)·(−Orient3D(p, q, r, s))·sign M·sign T.
// Only the signs enter, each exact, so InSphereSoS, which reads nothing
// else of InSphere, breaks the same ties the same way.
func inSphereFlat(a, b, c, d, e Vec) (sign int, ok bool) {
	pts := [4]Vec{a, b, c, d}
	for m := 3; m >= 0; m-- {
		var t [3]Vec
		for i, n := 0, 0; i < 4; i++ {
			if i != m {
				t[n] = pts[i]
				n++
			}
		}
		if !coplanarWith(t[0], t[1], t[2], e) {
			continue
		}
		// The axis along which the plane's normal is largest first: its
		// projection is the least likely to be degenerate.
		nrm := Cross(Sub(t[1], t[0]), Sub(t[2], t[0]))
		for _, k := range axesByMagnitude(nrm) {
			i, j := (k+1)%3, (k+2)%3
			tk := Orient2D([2]float64{t[0][i], t[0][j]}, [2]float64{t[1][i], t[1][j]}, [2]float64{t[2][i], t[2][j]})
			if tk == 0 {
				continue
			}
			o := Orient3D(t[0], t[1], t[2], pts[m])
			if o == 0 {
				return 0, true
			}
			// (−1)^(3−m)·(−o) is o for even m, −o for odd m.
			if m%2 == 1 {
				o = -o
			}
			return o * tk * liftedDet3(t, e, i, j), true
		}
	}
	return 0, false
}

// coplanarWith reports whether p, q, r and e are exactly coplanar.
func coplanarWith(p, q, r, e Vec) bool {
	det, bound := orient3dFilter(p[0]-e[0], p[1]-e[1], p[2]-e[2], q[0]-e[0], q[1]-e[1], q[2]-e[2], r[0]-e[0], r[1]-e[1], r[2]-e[2])
	if det > bound || -det > bound {
		return false
	}
	return bound == 0 || shewOrient3D(p, q, r, e) == 0
}

// axesByMagnitude returns the axes in decreasing order of |n|'s
// components.
func axesByMagnitude(n Vec) [3]int {
	ax := [3]int{0, 1, 2}
	for x := 0; x < 2; x++ {
		for y := x + 1; y < 3; y++ {
			if math.Abs(n[ax[y]]) > math.Abs(n[ax[x]]) {
				ax[x], ax[y] = ax[y], ax[x]
			}
		}
	}
	return ax
}

// liftedDet3 returns the sign of the determinant of the rows
// (p_i−e_i, p_j−e_j, |p−e|²) for p in t, exactly.
func liftedDet3(t [3]Vec, e Vec, i, j int) int {
	ar := newArena()
	defer ar.release()
	// The determinant changes sign with each swap of two rows: ask the
	// memo, and compute, in one order of t.
	sign := 1
	for _, sw := range [3][2]int{{0, 1}, {1, 2}, {0, 1}} {
		if vecLess(t[sw[1]], t[sw[0]]) {
			t[sw[0]], t[sw[1]] = t[sw[1]], t[sw[0]]
			sign = -sign
		}
	}
	if s, ok := ar.lifted.find(t, e, 3*i+j); ok {
		return sign * s
	}
	var x, y, z [3]float64
	exact := true
	for n, p := range t {
		d, ok := diff3(p, e)
		exact = exact && ok
		x[n], y[n], z[n] = d[i], d[j], d[3-i-j]
	}
	var s int
	if exact {
		s = liftedSmall(x, y, z)
	} else {
		var rows [3][3][]float64
		for n, p := range t {
			x, y, z := ar.diffExp(p[0], e[0]), ar.diffExp(p[1], e[1]), ar.diffExp(p[2], e[2])
			xyz := [3][]float64{x, y, z}
			rows[n] = [3][]float64{xyz[i], xyz[j], ar.sumExp(ar.sumExp(ar.mulExp(x, x), ar.mulExp(y, y)), ar.mulExp(z, z))}
		}
		s = signExp(ar.det3Exp(rows[0], rows[1], rows[2]))
	}
	ar.lifted.add(t, e, 3*i+j, s)
	return sign * s
}

// vecLess orders points lexicographically.
func vecLess(a, b Vec) bool {
	if a[0] != b[0] {
		return a[0] < b[0]
	}
	if a[1] != b[1] {
		return a[1] < b[1]
	}
	return a[2] < b[2]
}

// liftedMemo holds an arena's last answers of liftedDet3, each the sign
// for t in lexicographic order and the axes i, j (as 3i+j). The two tets on either side of a flat face ask it the same
// question of a point in the face's plane: 8.6 k of the 17.4 k flat
// tests in a build of netgen_hinge.stl with MergeCoplanar at -q 1.414
// were such repeats, 7.6 k of them among the 8 before. An answer depends
// only on the points, so which evaluation (or goroutine) held the arena
// before does not matter.
type liftedMemo struct {
	t    [8][3]Vec
	e    [8]Vec
	ij   [8]int
	sign [8]int
	n    int // entries filled, at most 8
	next int // the entry the next answer replaces
}

func (m *liftedMemo) find(t [3]Vec, e Vec, ij int) (int, bool) {
	for k := range m.n {
		if m.e[k] == e && m.t[k] == t && m.ij[k] == ij {
			return m.sign[k], true
		}
	}
	return 0, false
}

func (m *liftedMemo) add(t [3]Vec, e Vec, ij, sign int) {
	k := m.next
	m.t[k], m.e[k], m.ij[k], m.sign[k] = t, e, ij, sign
	m.next = (k + 1) % len(m.t)
	m.n = max(m.n, k+1)
}

// inSphereExact evaluates the 4×4 lifted determinant of Shewchuk's
// insphere exactly, expanding along the lift column.
func inSphereExact(a, b, c, d, e Vec) int {
	var r [4]Vec
	exact := true
	for n, p := range [4]Vec{a, b, c, d} {
		var ok bool
		r[n], ok = diff3(p, e)
		exact = exact && ok
	}
	if exact {
		return inSphereSmall(r)
	}
	type row struct {
		x    [3][]float64
		lift []float64
	}
	ar := newArena()
	defer ar.release()
	mk := func(p Vec) row {
		var r row
		for k := 0; k < 3; k++ {
			r.x[k] = ar.diffExp(p[k], e[k])
		}
		r.lift = ar.sumExp(ar.sumExp(ar.mulExp(r.x[0], r.x[0]), ar.mulExp(r.x[1], r.x[1])), ar.mulExp(r.x[2], r.x[2]))
		return r
	}
	ra, rb, rc, rd := mk(a), mk(b), mk(c), mk(d)
	// det[[x y z lift]] over rows a,b,c,d, cofactor signs along column 4:
	// −, +, −, +.
	t := ar.sumExp(
		ar.sumExp(ar.negExp(ar.mulExp(ra.lift, ar.det3Exp(rb.x, rc.x, rd.x))), ar.mulExp(rb.lift, ar.det3Exp(ra.x, rc.x, rd.x))),
		ar.sumExp(ar.negExp(ar.mulExp(rc.lift, ar.det3Exp(ra.x, rb.x, rd.x))), ar.mulExp(rd.lift, ar.det3Exp(ra.x, rb.x, rc.x))))
	// Shewchuk's insphere is this determinant.
	return signExp(t)
}

// InCircle returns +1 if d lies strictly inside the circle through a, b, c
// when a, b, c turn counterclockwise, −1 if outside and 0 if cocircular.
func InCircle(a, b, c, d [2]float64) int {
	adx, bdx, cdx := a[0]-d[0], b[0]-d[0], c[0]-d[0]
	ady, bdy, cdy := a[1]-d[1], b[1]-d[1], c[1]-d[1]
	bdxcdy, cdxbdy := bdx*cdy, cdx*bdy
	cdxady, adxcdy := cdx*ady, adx*cdy
	adxbdy, bdxady := adx*bdy, bdx*ady
	alift, blift, clift := adx*adx+ady*ady, bdx*bdx+bdy*bdy, cdx*cdx+cdy*cdy
	det := alift*(bdxcdy-cdxbdy) + blift*(cdxady-adxcdy) + clift*(adxbdy-bdxady)
	perm := (math.Abs(bdxcdy)+math.Abs(cdxbdy))*alift +
		(math.Abs(cdxady)+math.Abs(adxcdy))*blift +
		(math.Abs(adxbdy)+math.Abs(bdxady))*clift
	if bound := inCircleBoundA * perm; det > bound || -det > bound {
		return sign(det)
	}
	if perm == 0 {
		return 0
	}
	ar := newArena()
	defer ar.release()
	mk := func(p [2]float64) [3][]float64 {
		x, y := ar.diffExp(p[0], d[0]), ar.diffExp(p[1], d[1])
		return [3][]float64{x, y, ar.sumExp(ar.mulExp(x, x), ar.mulExp(y, y))}
	}
	return signExp(ar.det3Exp(mk(a), mk(b), mk(c)))
}

func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
