package stuffing

import (
	"cmp"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The solid is {p : w(p) > 1/2}, w the generalized winding number of the
// input. Across an input triangle w jumps by ±1; elsewhere it is harmonic,
// so the solid's boundary is made of pieces of input triangles (where the
// jump carries w across 1/2) and of smooth level surfaces w = 1/2 that span
// holes. cut finds where a lattice edge leaves the solid: at an input
// triangle when a jump crosses 1/2, else on the level surface.

// crossing is a point where a segment passes through an input triangle.
type crossing struct {
	t    float64 // parameter along the segment
	tri  int32
	jump float64 // +1 entering through the back of the triangle, −1 leaving
}

// crossings lists, sorted by parameter, the input triangles segment ab
// passes through. Whether it passes is decided by exact orientation
// predicates; a segment through a shared edge or vertex reports each
// triangle there, which cutEdge tolerates: it only looks for the first
// change of side.
func (in *input) crossings(a, b geom.Vec, buf []crossing) []crossing {
	buf = buf[:0]
	box := [6]float64{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2]), max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])}
	in.search.Tree.Query(box, func(t int32) bool {
		p, q, r := in.corners(t)
		jump, _ := segmentCrossing(a, b, p, q, r)
		if jump == 0 {
			return true
		}
		n := geom.Cross(geom.Sub(q, p), geom.Sub(r, p))
		da, db := geom.Dot(n, geom.Sub(a, p)), geom.Dot(n, geom.Sub(b, p))
		buf = append(buf, crossing{t: min(1, max(0, da/(da-db))), tri: t, jump: float64(jump)})
		return true
	})
	slices.SortFunc(buf, func(x, y crossing) int { return cmp.Or(cmp.Compare(x.t, y.t), cmp.Compare(x.tri, y.tri)) })
	return buf
}

// cutEdge returns where segment ab, with winding numbers wa and wb on
// opposite sides of 1/2, first crosses the solid's boundary: the
// parameter t and the input triangle there, or −1 on a level surface.
//
// Between crossings w is modelled as linear, the jumps taken from the
// crossings and the drift fitted to wb; the first change of side is a
// jump (a cut on the input) or a root of the drift, which a few secant
// steps on the true w refine.
func (in *input) cutEdge(a, b geom.Vec, wa, wb float64, buf []crossing) (float64, int32, []crossing) {
	buf = in.crossings(a, b, buf)
	inside := wa > 0.5
	total := 0.0
	for _, c := range buf {
		total += c.jump
	}
	drift := wb - wa - total
	base, prev := wa, 0.0
	for k := 0; k <= len(buf); k++ {
		next := 1.0
		if k < len(buf) {
			next = buf[k].t
		}
		if (base+drift*next > 0.5) != inside {
			return in.levelRoot(a, b, prev, next, inside), -1, buf
		}
		if k == len(buf) {
			break
		}
		base += buf[k].jump
		if (base+drift*next > 0.5) != inside {
			return buf[k].t, buf[k].tri, buf
		}
		prev = next
	}
	// The model never changes side (wa and wb disagree with the jumps by
	// more than the drift allows): fall back to the level root.
	return in.levelRoot(a, b, 0, 1, inside), -1, buf
}

// levelRoot locates w = 1/2 on segment ab within [lo, hi] by bisection on
// the true winding number, w being continuous there. inside is the side
// of a.
func (in *input) levelRoot(a, b geom.Vec, lo, hi float64, inside bool) float64 {
	for range 12 {
		mid := (lo + hi) / 2
		if (in.wind.At(geom.Add(a, geom.Scale(mid, geom.Sub(b, a)))) > 0.5) == inside {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
