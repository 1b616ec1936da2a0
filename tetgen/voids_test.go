package tetgen

import "testing"

// TestSurfaceEdges checks the set of subface edges against a map of the
// edges read off the subfaces, on every edge of every tet of a refined
// mesh and every subface edge, both ways round, and that it holds each
// edge once.
func TestSurfaceEdges(t *testing.T) {
	ms, stages := newMesher(gearPrism(), Options{Quality: 2, MaxVolume: 1}, true)
	for _, st := range stages {
		if st.name == "voids" {
			break
		}
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	want := map[[2]int32]bool{}
	for f := int32(0); f < ms.s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			a, b := ms.s.edge(f, e)
			want[[2]int32{min(a, b), max(a, b)}] = true
		}
	}
	got := ms.surfaceEdges()
	if len(got.hi) != len(want) {
		t.Errorf("the set holds %d edges, the subfaces have %d", len(got.hi), len(want))
	}
	check := func(a, b int32) {
		w := want[[2]int32{min(a, b), max(a, b)}]
		if got.has(a, b) != w || got.has(b, a) != w {
			t.Fatalf("edge %d–%d: has %v, %v; want %v", a, b, got.has(a, b), got.has(b, a), w)
		}
	}
	for e := range want {
		check(e[0], e[1])
	}
	m, inner := ms.m, 0
	for tt := int32(0); tt < int32(m.numTets()); tt++ {
		if !m.alive(tt) || m.isGhost(tt) {
			continue
		}
		q := m.tet(tt)
		for _, e := range tetEdges {
			check(q[e[0]], q[e[1]])
			if !want[[2]int32{min(q[e[0]], q[e[1]]), max(q[e[0]], q[e[1]])}] {
				inner++
			}
		}
	}
	if inner == 0 {
		t.Fatal("no tet edge off the surface: the test covers only members")
	}
}
