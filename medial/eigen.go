package medial

import "math"

// symEigenvalues returns the eigenvalues of the symmetric 3×3 matrix
// [[a00 a01 a02] [a01 a11 a12] [a02 a12 a22]] in decreasing order, by the
// trigonometric solution of the characteristic cubic (Smith 1961).
func symEigenvalues(a00, a01, a02, a11, a12, a22 float64) [3]float64 {
	p1 := a01*a01 + a02*a02 + a12*a12
	q := (a00 + a11 + a22) / 3
	if p1 == 0 {
		e := [3]float64{a00, a11, a22}
		if e[0] < e[1] {
			e[0], e[1] = e[1], e[0]
		}
		if e[1] < e[2] {
			e[1], e[2] = e[2], e[1]
		}
		if e[0] < e[1] {
			e[0], e[1] = e[1], e[0]
		}
		return e
	}
	b00, b11, b22 := a00-q, a11-q, a22-q
	p := math.Sqrt((b00*b00 + b11*b11 + b22*b22 + 2*p1) / 6)
	// det(B/p)/2, with B = A − qI.
	det := b00*(b11*b22-a12*a12) - a01*(a01*b22-a12*a02) + a02*(a01*a12-b11*a02)
	r := det / (2 * p * p * p)
	r = max(-1, min(1, r))
	phi := math.Acos(r) / 3
	e0 := q + 2*p*math.Cos(phi)
	e2 := q + 2*p*math.Cos(phi+2*math.Pi/3)
	return [3]float64{e0, 3*q - e0 - e2, e2}
}
