package stuffing

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// Compass search steps along the axes only, so it stalls on a ridge where
// two dihedral angles around the vertex are equally small and every axis
// step lowers one of them. ascend climbs such ridges (optimisation-based
// smoothing, Freitag and Ollivier-Gooch 1997): it takes the dihedral
// angles within ascentWindow of the smallest as active, finds the
// direction that raises all of them fastest — the negated point of least
// norm in the convex hull of their cosines' gradients — and halves a step
// along it until the smallest angle rises. At a point where no direction
// raises every active angle that point is zero and the search ends.

// ascentWindow (cosine) is how close to the worst a dihedral cosine must
// be to count as active: about 0.6° at 10°.
const ascentWindow = 2e-3

// maxActive bounds the active angles an ascent step considers (the
// direction search tries every triple of them).
const maxActive = 12

// ascentSteps bounds the steps of one ascent.
const ascentSteps = 30

// ascend improves p0 (where the star's worst cosine is best0) by ascent
// steps and returns the point reached and its worst cosine. along and
// free are as for compass.
func (st *star) ascend(p0 geom.Vec, best0 float64, along func(geom.Vec) (geom.Vec, bool), free func(geom.Vec) bool) (geom.Vec, float64) {
	p, best := p0, best0
	scale := st.shortest(p)
	if !(scale > 0) || best > 1 {
		return p, best
	}
	h := 1e-7 * scale
	var grads []geom.Vec
	for range ascentSteps {
		grads = grads[:0]
		for i := range st.corners {
			cs := st.cosines(i, p)
			for k, c := range cs {
				if c < best-ascentWindow {
					continue
				}
				var g geom.Vec
				for a := range 3 {
					q := p
					q[a] += h
					g[a] = (st.cosines(i, q)[k] - c) / h
				}
				grads = append(grads, g)
			}
		}
		x := minNormInHull(grads[:min(len(grads), maxActive)])
		n := geom.Norm(x)
		if !(n > 0) {
			break
		}
		d := geom.Scale(-1/n, x)
		moved := false
		for step := 0.25 * scale; step > 1e-6*scale; step /= 2 {
			q := geom.Add(p, geom.Scale(step, d))
			if along != nil {
				var ok bool
				if q, ok = along(q); !ok {
					continue
				}
			}
			if c := st.worst(q, best); c < best && free(q) {
				p, best, moved = q, c, true
				break
			}
		}
		if !moved {
			break
		}
	}
	return p, best
}

// shortest returns the shortest distance from p to a corner of the star
// other than the centre.
func (st *star) shortest(p geom.Vec) float64 {
	d2 := math.Inf(1)
	for i, q := range st.corners {
		for k, u := range q {
			if k != int(st.slot[i]) {
				d2 = min(d2, geom.Dist2(u, p))
			}
		}
	}
	return math.Sqrt(d2)
}

// cosines returns the six dihedral cosines of tet i of the star with the
// centre at p (all 2 when it is not positive or a face is degenerate).
func (st *star) cosines(i int, p geom.Vec) [6]float64 {
	n, l, ok := st.normals(i, p)
	if !ok || l[0] == 0 || l[1] == 0 || l[2] == 0 || l[3] == 0 {
		return [6]float64{2, 2, 2, 2, 2, 2}
	}
	return pairCosines(&n, &l)
}

// minNormInHull returns the point of least norm in the convex hull of gs.
// In three dimensions it is the origin's projection onto a vertex, edge or
// triangle of the hull, the one at which every g satisfies x·(g − x) ≥ 0;
// if none does, the hull holds the origin. gs are few (the active angles
// of one star), so every candidate is tried.
func minNormInHull(gs []geom.Vec) geom.Vec {
	best, bestN := geom.Vec{}, math.Inf(1)
	scale := 0.0
	for _, g := range gs {
		scale = max(scale, geom.Dot(g, g))
	}
	consider := func(x geom.Vec) {
		n := geom.Dot(x, x)
		if n >= bestN {
			return
		}
		for _, g := range gs {
			if geom.Dot(x, geom.Sub(g, x)) < -1e-12*scale {
				return
			}
		}
		best, bestN = x, n
	}
	var o geom.Vec
	for i, a := range gs {
		consider(a)
		for j := i + 1; j < len(gs); j++ {
			consider(trisearch.ClosestOnSegment(o, a, gs[j]))
			for k := j + 1; k < len(gs); k++ {
				consider(trisearch.ClosestOnTriangle(o, a, gs[j], gs[k]))
			}
		}
	}
	if math.IsInf(bestN, 1) {
		return geom.Vec{} // the origin is inside
	}
	return best
}
