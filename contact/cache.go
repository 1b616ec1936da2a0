package contact

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// slotCache keeps per-evaluation values for the few items (elements or
// tree nodes) of a body that an evaluation touches: each item gets a slot
// of w values in a dense buffer on first use. Memory is a stamp and a slot
// index per item plus the slots used, and reset is O(1) except when the
// stamp wraps.
type slotCache struct {
	stamp  uint32
	stamps []uint32
	slots  []int32
	data   []float64
	w      int
}

// reset starts an evaluation over n items with w values each.
func (c *slotCache) reset(n, w int) {
	if len(c.stamps) < n {
		c.stamps, c.slots = make([]uint32, n), make([]int32, n)
		c.stamp = 0
	}
	c.w = w
	c.data = c.data[:0]
	c.stamp++
	if c.stamp == 0 { // wrapped: clear so no stale stamp matches
		clear(c.stamps)
		c.stamp = 1
	}
}

// get returns item i's slot and whether it is new (to be filled in).
func (c *slotCache) get(i int32) ([]float64, bool) {
	if c.stamps[i] == c.stamp {
		s := int(c.slots[i]) * c.w
		return c.data[s : s+c.w], false
	}
	return c.add(i), true
}

// add gives item i a new slot.
func (c *slotCache) add(i int32) []float64 {
	c.stamps[i] = c.stamp
	c.slots[i] = int32(len(c.data) / c.w)
	s := len(c.data)
	c.data = append(c.data, make([]float64, c.w)...)
	return c.data[s : s+c.w]
}

// Layout of a cached element of Q, in P's frame: its 3 or 4 vertices, their
// box, and for tets the pressure (E_Q·∇g, E_Q·c) and the four face planes
// (outward normal n and offset d, inside where n·x + d ≤ 0).
const (
	qVerts    = 0
	qBox      = 12
	qField    = 18
	qFaces    = 22
	qElemSize = 38
)

// qElem returns the cached values of element t of Q, computing them on
// first use.
func (e *Evaluator) qElem(t int32) []float64 {
	f, fresh := e.qElems.get(t)
	if fresh {
		e.fillQElem(t, f)
	}
	return f
}

// fillQElem computes the cached values f of element t of Q.
func (e *Evaluator) fillQElem(t int32, f []float64) {
	Q := e.q
	per := 3
	if Q.kind == Compliant {
		per = 4
	}
	box := f[qBox : qBox+6]
	for k, v := range Q.elems[per*int(t) : per*int(t)+per] {
		x := e.X_PQ.Apply(geom.At(Q.pos, v))
		copy(f[qVerts+3*k:], x[:])
		for i := range 3 {
			if k == 0 || x[i] < box[i] {
				box[i] = x[i]
			}
			if k == 0 || x[i] > box[3+i] {
				box[3+i] = x[i]
			}
		}
	}
	if Q.kind == Compliant {
		fq, X := Q.field[4*t:4*t+4], &e.X_PQ
		g := X.Rotate(geom.Vec{e.eQ * fq[0], e.eQ * fq[1], e.eQ * fq[2]})
		f[qField], f[qField+1], f[qField+2], f[qField+3] = g[0], g[1], g[2], e.eQ*fq[3]-geom.Dot(g, X.P)
		f[qFaces] = math.NaN() // face planes not computed yet
	}
}

// qFacePlanes returns the face planes of tet element f of Q (as qElem
// returned it), computing them on first use: most tets the broad phase
// passes are never clipped against.
func qFacePlanes(f []float64) []float64 {
	planes := f[qFaces : qFaces+16]
	if math.IsNaN(planes[0]) {
		var v [4]geom.Vec
		for k := range 4 {
			v[k] = geom.At(f[qVerts:], int32(k))
		}
		facePlanes(&v, planes)
	}
	return planes
}

// pFaces returns the face planes of tet t of P (see qElem's layout),
// computing them on first use.
func (e *Evaluator) pFaces(t int32) []float64 {
	f, fresh := e.pTets.get(t)
	if fresh {
		var v [4]geom.Vec
		e.tetP(t, &v)
		facePlanes(&v, f)
	}
	return f
}

// facePlanes writes the four face planes of a positively oriented tet.
func facePlanes(v *[4]geom.Vec, out []float64) {
	for k := range 4 {
		f := &tetFaces[k]
		a := v[f[0]]
		n := geom.Cross(geom.Sub(v[f[1]], a), geom.Sub(v[f[2]], a))
		out[4*k], out[4*k+1], out[4*k+2], out[4*k+3] = n[0], n[1], n[2], -geom.Dot(n, a)
	}
}

// qNode returns a box in P containing node j of Q's tree: the box around
// its rotated box, widened by a few ulps for round-off.
func (e *Evaluator) qNode(j int32) []float64 {
	out, fresh := e.qNodes.get(j)
	if fresh {
		e.fillQNode(j, out)
	}
	return out
}

// fillQNode computes the cached box out of node j of Q.
func (e *Evaluator) fillQNode(j int32, out []float64) {
	b := e.q.tree.Bounds[6*j : 6*j+6]
	R := &e.X_PQ.R
	for i := range 3 {
		var cen, ext, mag float64
		for k := range 3 {
			cm, h := 0.5*(b[k]+b[3+k]), 0.5*(b[3+k]-b[k])
			cen += R[3*i+k] * cm
			ext += math.Abs(R[3*i+k]) * h
			mag += math.Abs(R[3*i+k] * cm)
		}
		cen += e.X_PQ.P[i]
		ext += (mag + math.Abs(e.X_PQ.P[i]) + ext) * 0x1p-50
		out[i], out[3+i] = cen-ext, cen+ext
	}
}
