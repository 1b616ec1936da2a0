package geom

import "math"

// FaceOrient is Orient3D(a, b, c, ·) for one triangle abc and many fourth
// points, as in a search that moves one vertex of several tets: the
// triangle's part of the float filter — its normal (b−a)×(c−a), the
// cofactors of the determinant expanded along the moving point's row —
// is computed once.
type FaceOrient struct {
	a, b, c Vec
	n       Vec // (b−a)×(c−a), as Cross computes it
	perm    Vec // the absolute products in each cofactor, summed
}

// NewFaceOrient prepares Orient3D(a, b, c, ·).
func NewFaceOrient(a, b, c Vec) FaceOrient {
	u, v := Sub(b, a), Sub(c, a)
	return FaceOrient{a: a, b: b, c: c, n: Cross(u, v), perm: Vec{
		math.Abs(u[1]*v[2]) + math.Abs(u[2]*v[1]),
		math.Abs(u[2]*v[0]) + math.Abs(u[0]*v[2]),
		math.Abs(u[0]*v[1]) + math.Abs(u[1]*v[0]),
	}}
}

// Normal returns (b−a)×(c−a), bit for bit as Cross(Sub(b, a), Sub(c, a)).
func (f *FaceOrient) Normal() Vec { return f.n }

// Orient3D returns Orient3D(a, b, c, d), exactly. det[b−a; c−a; d−a]
// expanded along the row d−a is Shewchuk's orient3d float expression for
// the transposed, cyclically permuted matrix (same entries, same
// operations), so his error bound holds for it; only when it cannot
// decide does the exact predicate run.
func (f *FaceOrient) Orient3D(d Vec) int {
	p := Sub(d, f.a)
	det := p[0]*f.n[0] + p[1]*f.n[1] + p[2]*f.n[2]
	bound := orient3dBoundA * (math.Abs(p[0])*f.perm[0] + math.Abs(p[1])*f.perm[1] + math.Abs(p[2])*f.perm[2])
	if det > bound || -det > bound {
		return sign(det)
	}
	return Orient3D(f.a, f.b, f.c, d)
}
