package tetgen

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Sliver insertion after optimization: a tet whose smallest dihedral
// angle flips and smoothing left below the target gets a vertex at its
// circumcentre (as TetGen and HXT do), which removes it and every tet
// whose circumsphere holds that point; the next optimization pass then
// smooths the new vertex and its neighbours. Where that fails, an
// interior Steiner vertex of the tet is relocated: a point at the
// centroid of its neighbours replaces its star by forced insertion, the
// cavity grown until the new point sees all of it — smoothing cannot do
// this when the vertex is trapped in a flat region against a subface. A circumcentre that lies
// outside the body, encroaches a subface (it would sit too close to the
// surface and make new flat tets there) or falls near a vertex of its
// cavity is skipped. The new vertex is inside the body, so every new edge
// and face has a free vertex: no zero-pressure simplex appears.

// sliverRounds bounds the rounds of sliver insertion, each followed by
// an optimization pass.
const sliverRounds = 4

// removeSlivers alternates sliver insertion and optimization until a
// round inserts nothing.
func (ms *mesher) removeSlivers() error {
	if ms.opt.Coarse {
		return nil
	}
	defer ms.m.stopLog()
	for range sliverRounds {
		if ms.splitSlivers() == 0 {
			return nil
		}
		if err := ms.optimize(); err != nil {
			return err
		}
	}
	return nil
}

// maxSliverSplits bounds the points one pass inserts, per tet of the
// mesh: the pass mends slivers, it is not a second refinement.
const maxSliverSplits = 0.02

// splitSlivers inserts the circumcentres of the tets below optTarget,
// worst first, or relocates one of their interior vertices; it returns
// how many points it inserted.
func (ms *mesher) splitSlivers() int {
	m := ms.m
	target := math.Sin(optTarget)
	type badTet struct {
		sine float64
		t    int32
		key  [4]int32
	}
	var bad []badTet
	for _, b := range m.scanBad(target) {
		bad = append(bad, badTet{b.sine, b.t, sortedTet(m.tet(b.t))})
	}
	slices.SortFunc(bad, func(a, b badTet) int {
		if c := cmp.Compare(a.sine, b.sine); c != 0 {
			return c
		}
		return slices.Compare(a.key[:], b.key[:])
	})
	limit := int(maxSliverSplits*float64(m.numTets())) + 1
	inserted := 0
	for _, b := range bad {
		if inserted >= limit {
			break
		}
		// An earlier insertion may have removed the tet.
		if !m.alive(b.t) || sortedTet(m.tet(b.t)) != b.key {
			continue
		}
		if ms.insertCircumcentre(b.t) {
			inserted++
			continue
		}
		for _, v := range b.key {
			if ms.kind[v] == vVolume && ms.relocate(v, 1.1*b.sine) {
				inserted++
				break
			}
		}
	}
	return inserted
}

// insertCircumcentre inserts the circumcentre of tet t when it lies
// inside the body, encroaches no subface and keeps centreGap from the
// cavity's vertices; it reports whether it did.
func (ms *mesher) insertCircumcentre(t int32) bool {
	m := ms.m
	cc, r2 := m.tetCircumcentre(t)
	v := ms.addVertex(cc, vVolume, -1, onNone)
	t0, blocked := m.locate(v, t)
	if blocked >= 0 || m.hasVertexAt(t0, cc) >= 0 {
		ms.popVertex()
		return false
	}
	m.findCavity(v, t0)
	ok := true
	for _, n := range m.outer {
		ok = ok && !(n < noTet && ms.encroaches(cc, refSubface(n)))
	}
	if !ok || !m.starShape(v, t0) || m.cavityVertexNear(cc, centreGap*centreGap*r2) {
		m.clearMarks()
		ms.popVertex()
		return false
	}
	m.fillCavity(v)
	ms.tagSteiner(v)
	ms.rep.SteinerVolume++
	return true
}

// relocate replaces interior Steiner vertex v by a point at the centroid
// of its neighbours (insertForced over v's star, grown to be star-shaped)
// when every new tet's smallest dihedral sine exceeds floor; it reports
// whether it did.
func (ms *mesher) relocate(v int32, floor float64) bool {
	m := ms.m
	star := slices.Clone(m.star(v, ms.buf))
	var c geom.Vec
	nbrs := ms.neighbours(v, star)
	for _, u := range nbrs {
		c = geom.Add(c, m.pos(u))
	}
	nv := ms.addVertex(geom.Scale(1/float64(len(nbrs)), c), vVolume, -1, onNone)
	if ms.insertForced(nv, star[0], star, false, floor) != inserted {
		ms.popVertex()
		return false
	}
	ms.tagSteiner(nv)
	return true
}
