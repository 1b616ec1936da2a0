package tetgen

import (
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// torusBeforeSlivers returns the torus's mesher run up to (not through)
// stage last; the torus keeps a tet below optTarget after optimization.
func torusBeforeSlivers(t *testing.T, last string) *mesher {
	ms, stages := newMesher(shapes.Torus(2, 0.5, 24, 12), Options{Quality: 2}, false)
	for _, st := range stages {
		if st.name == last {
			break
		}
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	ms.m.stopLog()
	return ms
}

// smallestAngle returns the smallest dihedral angle (radians) of the
// given tets, or of every live tet when ts is nil.
func smallestAngle(m *tri, ts []int32) float64 {
	if ts == nil {
		for t := int32(0); t < int32(m.numTets()); t++ {
			if m.alive(t) {
				ts = append(ts, t)
			}
		}
	}
	w := math.Pi
	for _, t := range ts {
		q := m.tet(t)
		d := tetmesh.Dihedral(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
		w = min(w, slices.Min(d[:]))
	}
	return w
}

// A point inserted in front of a face of a bad tet removes that tet,
// makes only tets whose smallest dihedral sine is above the floor, does
// not lower the mesh's smallest angle, and leaves a valid mesh of the
// same volume without zero-pressure simplices. The bad tets are those
// refinement leaves, before optimization: the torus keeps none below
// optTarget after it.
func TestInsertInFront(t *testing.T) {
	s := shapes.Torus(2, 0.5, 24, 12)
	ms := torusBeforeSlivers(t, "optimize")
	m := ms.m
	bad := m.scanBad(math.Sin(optTarget))
	before := smallestAngle(m, nil)
	mended := 0
	for _, b := range bad {
		key := sortedTet(m.tet(b.t))
		if !m.alive(b.t) || sortedTet(m.tet(b.t)) != key {
			continue
		}
		floor := max(1.1*b.sine, math.Sin(before))
		nv := int32(len(ms.kind))
		if !ms.insertInFront(b.t, floor) {
			continue
		}
		mended++
		if m.alive(b.t) && sortedTet(m.tet(b.t)) == key {
			t.Errorf("tet %v survived the insertion", key)
		}
		star := m.star(nv, nil)
		for _, st := range star {
			q := m.tet(st)
			d := tetmesh.Dihedral(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
			for _, a := range d {
				if math.Sin(a) <= floor {
					t.Errorf("new tet %v has a dihedral angle of %.3g°, sine %.3g not above the floor %.3g",
						q, a*180/math.Pi, math.Sin(a), floor)
				}
			}
		}
	}
	if mended == 0 {
		t.Fatalf("none of %d bad tets mended: the test no longer covers its case", len(bad))
	}
	if after := smallestAngle(m, nil); after < before {
		t.Errorf("smallest angle %.4g° after, %.4g° before", after*180/math.Pi, before*180/math.Pi)
	}
	checkMesh(t, s, ms.output())
}

// Smoothing raises the smallest dihedral sine of a star but never takes
// the star's smallest angle below where it was (or below optTarget).
func TestSmoothKeepsSmallestAngle(t *testing.T) {
	ms := torusBeforeSlivers(t, "optimize")
	m := ms.m
	moved := 0
	for v := int32(0); v < int32(len(ms.kind)); v++ {
		// A Steiner point that void splitting dropped has no star.
		if !ms.movable(v) || m.vt[v] == noTet {
			continue
		}
		star := slices.Clone(m.star(v, nil))
		a0 := smallestAngle(m, star)
		if !ms.smooth(v) {
			continue
		}
		moved++
		if a1 := smallestAngle(m, star); a1 < min(a0, optTarget) {
			t.Errorf("vertex %d: smallest angle of its star %.4g° → %.4g°", v, a0*180/math.Pi, a1*180/math.Pi)
		}
	}
	if moved == 0 {
		t.Fatal("no vertex moved: the test no longer covers its case")
	}
	checkMesh(t, shapes.Torus(2, 0.5, 24, 12), ms.output())
}
