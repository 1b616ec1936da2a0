package tetgen

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// inSphereBound bounds the rounding error of inSphereAt's determinant
// relative to 6·mx·my·mz·Σlift: every monomial passes through at most 16
// roundings (translation, the cross and dot products, the lift and the
// final sums), so the error is below 16ε·(1+O(ε)) times the permanent,
// which is at most that product; 17ε covers the second-order terms and
// the bound's own roundings with room to spare.
const inSphereBound = 17 * 0x1p-53

// inSphereQuick is inSphereBound with mx·my·mz replaced by (Σlift)^(3/2),
// which is larger: each translated coordinate is at most the square root
// of its point's lift (computed with at most 3 roundings) and so of
// Σlift. 18ε covers 17ε, those roundings and the roundings of the
// squared comparison, det² > (6·18ε)²·L⁵: rounding is monotonic, so
// those of the two final products cannot turn the comparison, even
// below the normal floats, and the four before them (the constant's and
// L⁵'s) leave it deciding only where |det| > 6·18ε·L^(5/2)·(1 − 3ε).
// Where L⁵ underflows, 6·17ε·L^(5/2) is below 2⁻⁵⁵⁷ while a nonzero
// det² needs |det| ≥ 2⁻⁵³⁸; where it overflows, the test fails.
const inSphereQuick = 18 * 0x1p-53

// inSphereAt is geom.InSphereSoSAt(xyz, a, b, c, d, e) with cheaper
// floating-point filters for the cavity search, where it is the dominant
// cost. The determinant is expanded along the lift column with two cross
// products. Its error bound comes in two steps: first from the sum of
// the lifts alone, L = Σlift, as 6·L^(5/2)·18ε (compared squared: the
// square root's latency was on the path of every test; this step decides
// all but a fraction of a percent of the tests on random points),
// then, for what that leaves, with the largest absolute translated
// coordinate per axis (mx, my, mz) instead of L^(3/2); both are looser
// than Shewchuk's permanent of absolute products, and cheaper. The rare
// undecided case goes to the exact, perturbed predicate.
func inSphereAt(xyz []float64, a, b, c, d, e int32) int {
	ie := 3 * int(e)
	pe := xyz[ie : ie+3 : ie+3]
	return inSphereAtPoint(xyz, a, b, c, d, e, pe[0], pe[1], pe[2])
}

// inSphereAtPoint is inSphereAt with e's coordinates given: the cavity
// search loads them once for all its tests.
func inSphereAtPoint(xyz []float64, a, b, c, d, e int32, ex, ey, ez float64) int {
	ia, ib, ic, id := 3*int(a), 3*int(b), 3*int(c), 3*int(d)
	pa := xyz[ia : ia+3 : ia+3]
	pb := xyz[ib : ib+3 : ib+3]
	pc := xyz[ic : ic+3 : ic+3]
	pd := xyz[id : id+3 : id+3]
	ax, ay, az := pa[0]-ex, pa[1]-ey, pa[2]-ez
	bx, by, bz := pb[0]-ex, pb[1]-ey, pb[2]-ez
	cx, cy, cz := pc[0]-ex, pc[1]-ey, pc[2]-ez
	dx, dy, dz := pd[0]-ex, pd[1]-ey, pd[2]-ez

	// det [a la; b lb; c lc; d ld] with l the squared lengths, by the
	// lift column: la·[b c d] − lb·[a c d] + lc·[a b d] − ld·[a b c].
	cdx, cdy, cdz := cy*dz-cz*dy, cz*dx-cx*dz, cx*dy-cy*dx
	abx, aby, abz := ay*bz-az*by, az*bx-ax*bz, ax*by-ay*bx
	la := ax*ax + ay*ay + az*az
	lb := bx*bx + by*by + bz*bz
	lc := cx*cx + cy*cy + cz*cz
	ld := dx*dx + dy*dy + dz*dz
	det := (la*(bx*cdx+by*cdy+bz*cdz) - lb*(ax*cdx+ay*cdy+az*cdz)) +
		(lc*(abx*dx+aby*dy+abz*dz) - ld*(abx*cx+aby*cy+abz*cz))

	l := (la + lb) + (lc + ld)
	if det*det > (6*inSphereQuick)*(6*inSphereQuick)*((l*l)*(l*l)*l) {
		if det > 0 {
			return 1
		}
		return -1
	}
	mx := max(math.Abs(ax), math.Abs(bx), math.Abs(cx), math.Abs(dx))
	my := max(math.Abs(ay), math.Abs(by), math.Abs(cy), math.Abs(dy))
	mz := max(math.Abs(az), math.Abs(bz), math.Abs(cz), math.Abs(dz))
	bound := inSphereBound * 6 * (mx * my * mz) * l
	switch {
	case det > bound:
		return 1
	case -det > bound:
		return -1
	}
	return geom.InSphereSoSAt(xyz, a, b, c, d, e)
}
