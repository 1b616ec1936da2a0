package tetgen

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// refineOnly runs the mesher on s up to and including refinement.
func refineOnly(t *testing.T, s *format.Surface, opt Options) *mesher {
	t.Helper()
	if err := checkOptions(&opt); err != nil {
		t.Fatal(err)
	}
	ms, stages := newMesher(s, opt, false)
	for _, st := range stages {
		if err := st.run(); err != nil {
			t.Fatal(err)
		}
		if st.name == "refine" {
			break
		}
	}
	return ms
}

// overBound returns the live tets whose radius-edge ratio, measured by
// tetmesh.RadiusEdge, exceeds b, and the number of live tets.
func overBound(ms *mesher, b float64) (over []int32, all int) {
	m := ms.m
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) || m.isGhost(t) {
			continue
		}
		all++
		q := m.tet(t)
		if tetmesh.RadiusEdge(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) > b {
			over = append(over, t)
		}
	}
	return over, all
}

// smallAngleApexes returns, from the input surface alone, the vertices
// where two edges of its triangles meet at an angle whose sine is below
// 1/(2b), with the length of the shortest edge there.
func smallAngleApexes(s *format.Surface, b float64) map[int32]float64 {
	type edge struct{ a, b int32 }
	nb := map[int32][]int32{}
	seen := map[edge]bool{}
	for i := 0; i < len(s.Triangles); i += 3 {
		for k := 0; k < 3; k++ {
			u, v := s.Triangles[i+k], s.Triangles[i+(k+1)%3]
			if seen[edge{min(u, v), max(u, v)}] {
				continue
			}
			seen[edge{min(u, v), max(u, v)}] = true
			nb[u], nb[v] = append(nb[u], v), append(nb[v], u)
		}
	}
	out := map[int32]float64{}
	for v, ws := range nb {
		p := geom.At(s.Positions, v)
		acute, short := false, math.Inf(1)
		for i, w := range ws {
			e := geom.Sub(geom.At(s.Positions, w), p)
			short = min(short, geom.Norm(e))
			for _, x := range ws[i+1:] {
				f := geom.Sub(geom.At(s.Positions, x), p)
				cos := geom.Dot(e, f) / (geom.Norm(e) * geom.Norm(f))
				acute = acute || cos > 0 && math.Sqrt(1-cos*cos) < 1/(2*b)
			}
		}
		if acute {
			out[v] = short
		}
	}
	return out
}

// TestRefineEndsAtSmallAngles meshes a cylinder whose caps are fans of
// 10° triangles around their centres and whose sides are triangles 4
// long and 0.17 wide (2.5° at one corner): before the local rules,
// refinement for the radius-edge bound chased the apexes to edges of
// 1e−8 and stopped only at the global vertex cap. Now it ends on its
// own; the tets still over the bound are few and each has a vertex
// within a few input edge lengths of a small-angle apex.
func TestRefineEndsAtSmallAngles(t *testing.T) {
	s := shapes.Cylinder(1, 4, 36, 1)
	ms := refineOnly(t, s, Options{})
	over, all := overBound(ms, 2)
	if len(ms.kind) >= ms.qualityCap {
		t.Errorf("refinement reached the vertex cap (%d tets)", all)
	}
	apex := smallAngleApexes(s, 2)
	worst := 0.0 // distance to the nearest apex over its shortest edge
	for _, tt := range over {
		best := math.Inf(1)
		for _, w := range ms.m.tet(tt) {
			for v, short := range apex {
				best = min(best, math.Sqrt(geom.Dist2(ms.m.pos(w), ms.m.pos(v)))/short)
			}
		}
		worst = max(worst, best)
	}
	if worst > 4 || len(over) > all/10 {
		t.Errorf("%d of %d tets over the bound, up to %.3g shortest edges from a small-angle apex", len(over), all, worst)
	}
	t.Logf("%d tets after refinement, %d over the bound, up to %.3g shortest edges from a small-angle apex",
		all, len(over), worst)
}

// TestRefineRuleSilentWithoutSmallAngles meshes an icosphere, whose
// triangles have no angle below 50°: the local rules have no apex to
// protect and no tet to stop, and every tet meets the radius-edge bound,
// as Delaunay refinement guarantees without small input angles.
func TestRefineRuleSilentWithoutSmallAngles(t *testing.T) {
	for _, b := range []float64{2, 1.4} {
		s := shapes.Icosphere(1, 3)
		if n := len(smallAngleApexes(s, b)); n != 0 {
			t.Fatalf("the icosphere has %d small-angle apexes", n)
		}
		ms := refineOnly(t, s, Options{Quality: b})
		if n := len(ms.ref8.balls.r2); n != 0 {
			t.Errorf("Quality %g: %d protecting balls", b, n)
		}
		if over, all := overBound(ms, b); len(over) > 0 || all < 1000 {
			t.Errorf("Quality %g: %d of %d tets over the bound", b, len(over), all)
		}
	}
}

// TestRefineVerdicts checks the verdicts refinement keeps per tet slot
// against badness computed afresh on the refined mesh: every live tet
// must carry its own, so no insertion may make tets it does not judge.
// The cylinder's small angles leave tets refinement gives up on, bad by
// their shape; the icosphere's volume bound makes tets bad by size.
func TestRefineVerdicts(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *format.Surface
		opt  Options
	}{
		{"cylinder", shapes.Cylinder(1, 4, 36, 1), Options{}},
		{"icosphere", shapes.Icosphere(1, 2), Options{Quality: 1.414, MaxVolume: 1e-3}},
	} {
		ms := refineOnly(t, c.s, c.opt)
		m, r := ms.m, ms.ref8
		bad, live := 0, 0
		for tt := int32(0); tt < int32(m.numTets()); tt++ {
			if !m.alive(tt) {
				continue
			}
			live++
			why := ms.badness(tt)
			if why != tetFine {
				bad++
			}
			if int(r.why[tt]) != why {
				t.Fatalf("%s: tet %d has verdict %d, badness says %d", c.name, tt, r.why[tt], why)
			}
		}
		if live < 1000 {
			t.Errorf("%s: only %d tets", c.name, live)
		}
		t.Logf("%s: %d tets, %d still bad", c.name, live, bad)
	}
}
