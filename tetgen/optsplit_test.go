package tetgen

import (
	"cmp"
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/shapes"
)

// edgeFan finds, around every edge of every tet, the tets a brute-force
// search finds: those holding both ends that can be reached from the
// tet across faces holding both ends, through no subface.
func TestEdgeFan(t *testing.T) {
	m := torusBeforeSlivers(t, "optimize").m
	closed, open := 0, 0
	for u := int32(0); u < int32(m.numTets()) && closed+open < 20000; u++ {
		if !m.alive(u) || m.isGhost(u) {
			continue
		}
		q := m.tet(u)
		for _, e := range tetEdges {
			x, y := q[e[0]], q[e[1]]
			fan := m.edgeFan(x, y, u, nil)
			if fan[0] != u {
				t.Fatalf("edge %d–%d of tet %d: fan starts at %d", x, y, u, fan[0])
			}
			// Every tet holding the edge, then those reachable from u.
			var all []int32
			for w := int32(0); w < int32(m.numTets()); w++ {
				if m.alive(w) && !m.isGhost(w) && slices.Contains(m.tet(w), x) && slices.Contains(m.tet(w), y) {
					all = append(all, w)
				}
			}
			want, ring := []int32{u}, true
			for i := 0; i < len(want); i++ {
				w := want[i]
				for k := int32(0); k < 4; k++ {
					if v := m.tet(w)[k]; v == x || v == y {
						continue
					}
					o := m.across(4*w + k)
					if o < 0 {
						ring = false
						continue
					}
					if slices.Contains(all, o>>2) && !slices.Contains(want, o>>2) {
						want = append(want, o>>2)
					}
				}
			}
			got := slices.Clone(fan)
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Fatalf("edge %d–%d of tet %d: fan %v, brute force %v", x, y, u, fan, want)
			}
			if ring {
				closed++
			} else {
				open++
			}
		}
	}
	t.Logf("%d closed rings, %d open fans", closed, open)
	if closed == 0 || open == 0 {
		t.Fatalf("%d closed rings, %d open fans: the test needs both", closed, open)
	}
}

// A split round gives the same mesh whichever half runs first and when
// they run at once: neither half reads what the other changes (run with
// -race to see the concurrent case checked too). It is a valid
// tetrahedralization, every free slot dead and listed once, most of the
// round's turns were the halves', and starOn's answers still hold after
// the halves ran.
func TestSplitRound(t *testing.T) {
	type result struct {
		c        []int32
		xyz      []float64
		improved int
	}
	var lastMesher *mesher
	round := func(runBoth func(run func(int))) result {
		ms := meshedBefore(t, shapes.Torus(2, 0.5, 24, 12), Options{MaxVolume: 5e-4}, "optimize")
		lastMesher = ms
		m := ms.m
		m.logFrom()
		p := &optPass{
			target:   math.Sin(optTarget),
			tried:    make([]int32, len(ms.kind)),
			budget:   math.MaxInt,
			hopeless: map[[4]int32]struct{}{},
		}
		bad := m.scanBad(p.target)
		slices.SortFunc(bad, func(a, b sineTet) int { return cmp.Compare(a.sine, b.sine) })
		if len(bad) < splitMin {
			t.Fatalf("%d bad tets: too few to split", len(bad))
		}
		improved, _ := ms.splitRound(bad, p, nil, runBoth)
		checkTri(t, m)
		for i, f := range m.free {
			if m.alive(f) || slices.Contains(m.free[i+1:], f) {
				t.Fatalf("free slot %d alive or listed twice", f)
			}
		}
		// Every dead slot is free, as liveTets assumes.
		live := 0
		for u := int32(0); u < int32(m.numTets()); u++ {
			if m.alive(u) {
				live++
			}
		}
		if live != m.liveTets() {
			t.Fatalf("%d live tets, liveTets says %d", live, m.liveTets())
		}
		h := ms.halves
		for s := range h {
			if took := len(h[s].turns) - len(h[s].left); 3*took < len(bad) {
				t.Errorf("half %d took %d of the round's %d turns", s, took, len(bad))
			}
		}
		t.Logf("%d bad tets, %d mended; halves %d and %d turns, %d and %d left",
			len(bad), improved, len(h[0].turns), len(h[1].turns), len(h[0].left), len(h[1].left))
		return result{m.c, m.xyz, improved}
	}
	// starOn's answers, kept from when each was first asked, still hold
	// once both halves have run: the halves cannot change them.
	checked := 0
	want := round(func(run func(int)) {
		run(0)
		run(1)
		ms := lastMesher
		for v, at := range ms.starOnAt {
			if at>>1 != ms.splitStamp {
				continue
			}
			checked++
			on := true
			for _, u := range ms.m.star(int32(v), nil) {
				on = on && ms.tetSide(ms.m.tet(u)) == ms.side[v]
			}
			if on != (at&1 == 1) {
				t.Errorf("vertex %d: starOn said %v when asked, %v after the halves", v, at&1 == 1, on)
			}
		}
	})
	if checked < 1000 {
		t.Errorf("%d answers of starOn checked", checked)
	}
	for name, runBoth := range map[string]func(run func(int)){
		"second half first": func(run func(int)) { run(1); run(0) },
		"both at once": func(run func(int)) {
			done := make(chan struct{})
			go func() { run(1); close(done) }()
			run(0)
			<-done
		},
	} {
		got := round(runBoth)
		if !slices.Equal(got.c, want.c) || !slices.Equal(got.xyz, want.xyz) || got.improved != want.improved {
			t.Errorf("%s: another mesh", name)
		}
	}
}

// Rounds whose turns are all one half's are the serial rounds: the same
// tets and positions (slots may be numbered otherwise), whichever half
// it is, with either smoothing. Two rounds, so that the second's bad
// tets come from the first's log of changed tets; each round's are
// ordered by quality and then vertices, which slot numbers do not sway.
func TestSidedRoundSerial(t *testing.T) {
	type state struct {
		tets [][4]int32
		xyz  []float64
	}
	rounds := func(side uint8, ascend bool, split bool) state {
		ms := meshedBefore(t, shapes.Torus(2, 0.5, 24, 12), Options{MaxVolume: 5e-4}, "optimize")
		m := ms.m
		m.logFrom()
		p := &optPass{
			target:   math.Sin(optTarget),
			surface:  ascend,
			tried:    make([]int32, len(ms.kind)),
			budget:   math.MaxInt,
			hopeless: map[[4]int32]struct{}{},
		}
		var asc *ascent
		if ascend {
			asc = &ascent{}
		}
		for ; p.round < 2; p.round++ {
			bad := m.scanBad(p.target)
			slices.SortFunc(bad, func(a, b sineTet) int {
				if c := cmp.Compare(a.sine, b.sine); c != 0 {
					return c
				}
				ka, kb := sortedTet(m.tet(a.t)), sortedTet(m.tet(b.t))
				return slices.Compare(ka[:], kb[:])
			})
			if len(bad) < splitMin {
				t.Fatalf("round %d: %d bad tets, too few to split", p.round, len(bad))
			}
			if !split {
				ms.takeTurns(bad, p, asc)
				continue
			}
			ms.side = slices.Repeat([]uint8{side}, len(m.vt))
			ms.sidedRound(bad, p, asc, func(run func(int)) { run(0); run(1) })
			if h := ms.halves[side]; len(h.left) > 0 || len(h.turns) != len(bad) {
				t.Fatalf("half %d: %d of %d turns, %d left", side, len(h.turns), len(bad), len(h.left))
			}
		}
		checkTri(t, m)
		var tets [][4]int32
		for u := int32(0); u < int32(m.numTets()); u++ {
			if m.alive(u) {
				tets = append(tets, sortedTet(m.tet(u)))
			}
		}
		slices.SortFunc(tets, func(a, b [4]int32) int { return slices.Compare(a[:], b[:]) })
		return state{tets, m.xyz}
	}
	for _, ascend := range []bool{false, true} {
		want := rounds(0, ascend, false)
		for side := range uint8(2) {
			got := rounds(side, ascend, true)
			if !slices.Equal(got.xyz, want.xyz) || !slices.EqualFunc(got.tets, want.tets, func(a, b [4]int32) bool { return a == b }) {
				t.Errorf("all turns in half %d, ascent %v: not the serial rounds' mesh", side, ascend)
			}
		}
	}
}
