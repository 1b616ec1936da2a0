package medial

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/trisearch"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// ball is the medial ball found from one surface sample.
type ball struct {
	c geom.Vec // centre
	r float64  // radius
	// sep is the separation angle at c between the sample and the farthest
	// (in angle) surface point within contactTol·r of the sphere: π for the
	// two faces of a plate, π/2 for the sheet into a right-angled convex
	// edge, small on branches into tessellation edges and noise.
	sep float64
	// codim is the number of independent directions in which the ball
	// touches the surface (see contacts): 1 in a plate, 2 on a cylinder's
	// axis, 3 at a sphere's centre.
	codim float64
}

// contactTol is the relative tolerance that decides which surface points
// count as touching a medial ball. It makes the separation angle see
// through tessellation: the ball in the middle of a faceted sphere touches
// the far side only within the facets' sag.
const contactTol = 0.05

// shrinkBall finds the medial ball touching the surface at sample x with
// inward unit normal m, by the shrinking-ball iteration of Ma, Bae, Choi,
// Cohen & Whitaker (2012) with exact closest points: the ball tangent at x
// with radius r is replaced by the one through x and the surface point
// nearest its centre, until no surface point is nearer the centre than r.
// Every point strictly inside a ball tangent at x lies on the inward side
// of the tangent plane, so each step shrinks r. The search starts from
// radius r0 (a neighbour's radius, say), doubling it while the ball is
// empty, up to rmax (larger than any ball inside the solid).
//
// Distances are measured to the surface inflated by its sag tolerance
// (see nearestSagging). A ball that ends centred outside the solid has
// grown through a part thinner than its facets' sag (the propeller's
// blades): it is shrunk again with no sag from beyond a facet's plane.
// Only such balls change, so a convex part's axis is what it was.
func (o *solid) shrinkBall(x, m geom.Vec, r0, rmax float64) ball {
	b := o.shrinkWith(x, m, r0, rmax, false)
	if d, _ := o.signedDistance(b.c); d < 0 {
		b = o.shrinkWith(x, m, r0, rmax, true)
	}
	b.sep, b.codim = o.contacts(x, b.c, b.r)
	return b
}

// shrinkWith runs shrinkFrom from radius r0, doubled while the ball is
// empty, up to rmax; strict as for nearestSagging.
func (o *solid) shrinkWith(x, m geom.Vec, r0, rmax float64, strict bool) ball {
	r := min(r0, rmax)
	for {
		b, ok := o.shrinkFrom(x, m, r, strict)
		if ok || r >= rmax {
			return b
		}
		r = min(2*r, rmax)
	}
}

// shrinkFrom runs the iteration from radius r (strict as for
// nearestSagging); ok is false if that ball was already empty.
func (o *solid) shrinkFrom(x, m geom.Vec, r float64, strict bool) (b ball, ok bool) {
	for range 200 {
		c := geom.Add(x, geom.Scale(r, m))
		q, d := o.nearestSagging(c, strict)
		if d >= r*(1-1e-12) {
			break
		}
		den := 2 * geom.Dot(m, geom.Sub(q, x))
		if den <= 0 {
			break // q is x itself up to rounding: the ball is empty
		}
		rn := geom.Dist2(x, q) / den
		if !(rn < r*(1-1e-13)) {
			break
		}
		r, ok = rn, true
	}
	return ball{c: geom.Add(x, geom.Scale(r, m)), r: r}, ok
}

// contacts returns the separation angle and the contact codimension of
// the ball (c, r) grown from x. The contacts are the closest points q to c
// of the triangles within (1+contactTol)·r (less their sag). The
// separation is the largest angle at c between x − c and q − c.
//
// The codimension is the dimension of the affine hull of the contacts,
// which is that of the medial axis's normal space at c: two contacts (at
// any angle) lie on a medial sheet, a circle of contacts on a medial curve
// (a cylinder's axis), contacts all round at a medial point (a sphere's
// centre, the six faces of a cube). It is measured, continuously, as the
// participation ratio (tr C)²/tr(C²) of the covariance C of the contact
// directions (q − c)/|q − c|, weighted by each triangle's solid angle seen
// from c and tapered to 0 at the edge of the tolerance, so that it varies
// continuously with the shape.
func (o *solid) contacts(x, c geom.Vec, r float64) (sep, codim float64) {
	u := geom.Sub(x, c)
	reach := (1 + contactTol) * r
	var total float64
	var mean geom.Vec
	var m [3][3]float64
	o.ix.Tree.Query([6]float64{c[0] - reach, c[1] - reach, c[2] - reach, c[0] + reach, c[1] + reach, c[2] + reach}, func(t int32) bool {
		v := geom.Sub(o.ix.ClosestOn(c, t), c)
		l := geom.Norm(v) - o.sag[t]
		if l > reach || l <= 0 {
			return true
		}
		a, b, e := o.ix.Triangle(t)
		sep = max(sep, math.Atan2(geom.Norm(geom.Cross(u, v)), geom.Dot(u, v)))
		w := math.Abs(winding.Triangle(c, a, b, e)) * min(1, (reach-l)/(reach-r))
		d := geom.Scale(1/geom.Norm(v), v)
		total += w
		mean = geom.Add(mean, geom.Scale(w, d))
		for i := range 3 {
			for j := range 3 {
				m[i][j] += w * d[i] * d[j]
			}
		}
		return true
	})
	if total == 0 {
		return sep, 1
	}
	mean = geom.Scale(1/total, mean)
	var tr, tr2 float64
	for i := range 3 {
		for j := range 3 {
			cij := m[i][j]/total - mean[i]*mean[j]
			tr2 += cij * cij
			if i == j {
				tr += cij
			}
		}
	}
	if tr2 == 0 {
		return sep, 1
	}
	return sep, max(1, min(3, tr*tr/tr2))
}

// nearestSagging returns the point of the surface nearest p when every
// triangle t is pushed away from p by its sag tolerance o.sag[t], and that
// distance. On a faceted curved surface a ball tangent to the smooth
// surface the facets approximate cuts into them by up to their sag; the
// tolerance lets such a ball stand (the unit ball of a faceted unit
// sphere) instead of shrinking into a ball wedged between facets. Flat
// parts have no sag; when strict is set, neither has a triangle whose
// plane p lies beyond (sagFrom).
func (o *solid) nearestSagging(p geom.Vec, strict bool) (geom.Vec, float64) {
	t, d2 := o.ix.NearestLifted(p, func(t int32, a geom.Vec) float64 { return o.sagFrom(t, p, a, strict) })
	if t < 0 {
		return p, math.Inf(1)
	}
	a, b, c := o.ix.Triangle(t)
	q := trisearch.ClosestOnTriangle(p, a, b, c)
	if s := o.sagFrom(t, p, a, strict); s > 0 {
		if l := math.Sqrt(geom.Dist2(p, q)); l > 0 {
			q = geom.Add(q, geom.Scale(s/l, geom.Sub(q, p)))
		}
	}
	return q, math.Sqrt(d2)
}

// sagFrom returns triangle t's sag tolerance seen from p; when strict,
// none if p is on the outer side of t's plane (a its vertex), where a ball
// centred at p has crossed the facet rather than grazed it.
func (o *solid) sagFrom(t int32, p, a geom.Vec, strict bool) float64 {
	if s := o.sag[t]; s > 0 && (!strict || geom.Dot(geom.At(o.faceN, t), geom.Sub(p, a)) < 0) {
		return s
	}
	return 0
}
