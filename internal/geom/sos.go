package geom

// InSphereSoS is InSphere with exact ties broken by symbolic perturbation
// (Simulation of Simplicity, Edelsbrunner & Mücke 1990), so that it never
// returns 0 when a, b, c, d are not coplanar.
//
// Each point carries a distinct integer key (a vertex index). The
// perturbation raises the lifted coordinate |p|² of every point by
// δ^(rank) for an infinitesimal δ, the point with the largest key getting
// the largest rise. Because only the lifting is perturbed — never the
// positions — orientations are unchanged, the perturbed points are in
// general position for the Delaunay (regular) triangulation, and every
// call with the same five keyed points agrees: the Delaunay triangulation
// of points with cospherical subsets is the one of the perturbed set.
//
// Properties (tested): it equals InSphere whenever InSphere is non-zero;
// it negates under a swap of two of a, b, c, d; it agrees with an explicit
// rational evaluation of the perturbed determinant. When a, b, c, d are
// coplanar and the tie persists through every perturbation term it
// returns 0 (callers never ask about flat tetrahedra).
func InSphereSoS(a, b, c, d, e Vec, ka, kb, kc, kd, ke int32) int {
	if s := InSphere(a, b, c, d, e); s != 0 {
		return s
	}
	// Raising the lift of the fifth point moves it outside the sphere of
	// a positive tet: its term is −Orient3D(a, b, c, d). Swapping the
	// fifth point with another negates InSphere, which gives the terms of
	// the others: e.g. for a, InSphere(a,b,c,d,e) = −InSphere(e,b,c,d,a)
	// contributes +Orient3D(e, b, c, d).
	p := [5]Vec{a, b, c, d, e}
	k := [5]int32{ka, kb, kc, kd, ke}
	var done [5]bool
	for range 5 {
		hi := -1
		for i := range 5 {
			if !done[i] && (hi < 0 || k[i] > k[hi]) {
				hi = i
			}
		}
		done[hi] = true
		var s int
		if hi == 4 {
			s = -Orient3D(a, b, c, d)
		} else {
			q := [4]Vec{p[0], p[1], p[2], p[3]}
			q[hi] = e
			s = Orient3D(q[0], q[1], q[2], q[3])
		}
		if s != 0 {
			return s
		}
	}
	return 0
}
