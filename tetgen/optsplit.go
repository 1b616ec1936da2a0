package tetgen

import (
	"math"
	"slices"
	"sync"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Optimization rounds on two cores: a plane splits a round's bad tets
// into two halves, which are optimized at once, and the few tets near
// the plane are taken after.
//
// A round gives each bad tet, worst first, its turn (takeTurn): a flip
// around it or a move of one of its vertices. A turn reads and changes
// only its region, the stars of its tet's movable vertices and the tets
// around its edges between two fixed ones (the rings and fans its flips
// replace), and of the tets next to the region only their vertices and
// their links back into it. A plane through the median of the bad tets'
// centroids, across their widest extent, puts each vertex on one side.
// Each half takes, in order, the turns of the tets with every vertex on
// its side, when the turn's region (as it is when the turn comes) has
// every vertex on that side too; it leaves the others. A tet with three
// vertices on one side cannot have three on the other, so neither half
// reads what the other changes. Each has its own scratch, share of the
// free tet slots and block of fresh ones (a half short of slots for a
// turn's flip leaves its remaining turns), log of changed tets and count
// of quality evaluations, merged after in a fixed order. Then the turns
// of the tets across the plane and of those the halves left are taken,
// in order. The mesh does not depend on GOMAXPROCS: on one core the
// halves run one after the other.
//
// The work budget is tested before each turn as by the serial round,
// each half counting its own evaluations after those before the round.

// splitMin is the fewest bad tets a round splits: a smaller one is not
// worth the split.
const splitMin = 256

// maxFlipSlots is the most fresh tet slots one turn takes: its one flip
// replaces two tets by three, a ring of n ≤ maxRemovalRing tets by
// 2n − 4, or a surface fan of n tets (n + 1 link vertices, at most
// maxRemovalRing) by 2n − 2.
const maxFlipSlots = maxRemovalRing - 3

// roundHalf is one half of a split round: a view of the mesher and its
// tri that shares their arrays, with its own scratch, star marks, free
// slots, changed-tet log and count of quality evaluations.
type roundHalf struct {
	ms   mesher
	m    tri
	p    optPass
	asc  ascent
	own  worker
	scr  turnScratch
	repl replaceScratch
	mark []uint8
	log  []int32 // the view's changed-tet log, kept for its buffer
	free []int32 // the view's free slots, kept for their buffer

	turns    []int32 // indices in the round's list of its tets
	left     []int32 // those whose region crossed the plane, or after it ran short of slots
	improved int
}

// mendRound gives each tet of bad (worst first) its turn, splitting the
// round (see above) when it is large, on two goroutines when workers >
// 1. It returns how many turns mended their tet and whether the budget
// was spent.
func (ms *mesher) mendRound(bad []sineTet, p *optPass, asc *ascent, workers int) (improved int, spent bool) {
	if len(bad) < splitMin {
		return ms.takeTurns(bad, p, asc)
	}
	return ms.splitRound(bad, p, asc, func(run func(half int)) {
		if workers <= 1 {
			run(0)
			run(1)
			return
		}
		var wg sync.WaitGroup
		wg.Go(func() { run(1) })
		run(0)
		wg.Wait()
	})
}

// splitRound is mendRound's split round, which runs the halves by
// calling runBoth with the function that runs one.
func (ms *mesher) splitRound(bad []sineTet, p *optPass, asc *ascent, runBoth func(run func(half int))) (improved int, spent bool) {
	ms.splitSides(bad)
	return ms.sidedRound(bad, p, asc, runBoth)
}

// nextSplit starts a split round's record of starOn's answers.
func (ms *mesher) nextSplit() {
	if n := len(ms.m.vt); len(ms.starOnAt) < n {
		ms.starOnAt = append(ms.starOnAt, make([]uint32, n-len(ms.starOnAt))...)
	}
	ms.splitStamp++
	if ms.splitStamp == 1<<31 {
		clear(ms.starOnAt)
		ms.splitStamp = 1
	}
}

// sidedRound is splitRound with the vertices' sides set (ms.side).
func (ms *mesher) sidedRound(bad []sineTet, p *optPass, asc *ascent, runBoth func(run func(half int))) (improved int, spent bool) {
	m := ms.m
	ms.nextSplit()
	var across []int32
	if ms.halves == nil {
		ms.halves = new([2]roundHalf)
	}
	h := ms.halves
	h[0].turns, h[1].turns = h[0].turns[:0], h[1].turns[:0]
	for i, b := range bad {
		// A dead slot (none is, as a round begins) is left to the rest:
		// a flip may give it a tet again before its turn.
		if s := uint8(2); m.alive(b.t) {
			s = ms.tetSide(m.tet(b.t))
			if s < 2 {
				h[s].turns = append(h[s].turns, int32(i))
				continue
			}
		}
		across = append(across, int32(i))
	}
	// Each half gets half of the free slots and, when they are fewer
	// than a quarter of its turns (a tenth of turns flip, taking a slot
	// or two), a block of fresh ones, dead until taken; a half that runs
	// short leaves its remaining turns to the rest. Both blocks are added
	// before either half takes its view of the tet arrays, which adding
	// slots may move.
	nf := len(m.free) / 2
	share := [2][]int32{m.free[:nf], m.free[nf:]}
	var from [3]int
	for s := range h {
		from[s] = m.numTets()
		for range max(0, len(h[s].turns)/4+64-len(share[s])) {
			m.c[m.appendSlot()<<3] = dead
		}
	}
	from[2] = m.numTets()
	for s := range h {
		h[s].load(ms, p, share[s], from[s], from[s+1])
	}
	runBoth(func(s int) { h[s].run(bad, uint8(s), asc != nil) })
	// Merge, half 0 first.
	m.free = m.free[:0]
	for s := range h {
		hs := &h[s]
		hs.m.dropBlock()
		m.free = append(m.free, hs.m.free...)
		m.changed = append(m.changed, hs.m.changed...)
		m.sines += hs.m.sines
		m.flipped = m.flipped || hs.m.flipped
		m.version += hs.m.version
		p.lost = append(p.lost, hs.p.lost...)
		improved += hs.improved
		hs.save()
	}
	p.keepLost()
	if m.sines > p.budget {
		return improved, true
	}
	// The rest in round order.
	order := slices.Concat(across, h[0].left, h[1].left)
	slices.Sort(order)
	rest := make([]sineTet, len(order))
	for k, i := range order {
		rest[k] = bad[i]
	}
	n, spent := ms.takeTurns(rest, p, asc)
	return improved + n, spent
}

// takeTurns takes the turns of the tets of bad in order until the
// budget is spent, as mendRound does. It returns how many turns mended
// their tet and whether the budget was spent.
func (ms *mesher) takeTurns(bad []sineTet, p *optPass, asc *ascent) (improved int, spent bool) {
	for _, b := range bad {
		if ms.m.sines > p.budget {
			return improved, true
		}
		if ms.takeTurn(b.t, p, asc) {
			improved++
		}
		p.keepLost()
	}
	return improved, false
}

// splitSides puts each vertex on side 0 or 1 of the plane through the
// median of bad's centroids across their widest extent (ms.side).
func (ms *mesher) splitSides(bad []sineTet) {
	m := ms.m
	cs := make([]geom.Vec, 0, len(bad))
	lo, hi := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}, geom.Vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, b := range bad {
		if !m.alive(b.t) {
			continue
		}
		var c geom.Vec
		for _, v := range m.tet(b.t) {
			c = geom.Add(c, m.pos(v))
		}
		c = geom.Scale(0.25, c)
		cs = append(cs, c)
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], c[k]), max(hi[k], c[k])
		}
	}
	axis := 0
	for k := 1; k < 3; k++ {
		if hi[k]-lo[k] > hi[axis]-lo[axis] {
			axis = k
		}
	}
	x := make([]float64, len(cs))
	for i, c := range cs {
		x[i] = c[axis]
	}
	slices.Sort(x)
	split := x[len(x)/2]
	n := len(m.vt)
	if cap(ms.side) < n {
		ms.side = make([]uint8, n)
	}
	ms.side = ms.side[:n]
	for v := range n {
		ms.side[v] = 0
		if m.xyz[3*v+axis] >= split {
			ms.side[v] = 1
		}
	}
}

// tetSide returns the side of q's vertices, or 2 when they are on both.
func (ms *mesher) tetSide(q []int32) uint8 {
	s := ms.side[q[0]]
	for _, v := range q[1:] {
		if ms.side[v] != s {
			return 2
		}
	}
	return s
}

// load makes h a view of ms for one round of pass p, with the free
// slots free (copied) and the fresh ones from:to.
func (h *roundHalf) load(ms *mesher, p *optPass, free []int32, from, to int) {
	h.ms, h.m = *ms, *ms.m
	h.ms.m = &h.m
	h.ms.turnScratch = h.scr
	h.m.repl = h.repl
	h.p = *p
	h.p.lost = h.p.lost[:0:0]
	h.p.budget -= ms.m.sines
	h.m.sines = 0
	h.m.flipped, h.m.version = false, 0
	h.m.changed = h.log[:0]
	h.m.free = append(h.free[:0], free...)
	h.own = worker{blk: int32(from), blkEnd: int32(to)}
	h.m.own = &h.own
	if n := len(ms.m.mark); len(h.mark) < n {
		h.mark = append(h.mark, make([]uint8, n-len(h.mark))...)
	}
	h.m.mark = h.mark
	h.left = h.left[:0]
	h.improved = 0
}

// save keeps the view's buffers for the next round.
func (h *roundHalf) save() {
	h.scr, h.repl, h.log, h.free = h.ms.turnScratch, h.m.repl, h.m.changed, h.m.free
}

// run takes the turns of the half on the given side in order (see
// mendRound), smoothing by ascent when ascend is set.
func (h *roundHalf) run(bad []sineTet, side uint8, ascend bool) {
	ms, m := &h.ms, &h.m
	var asc *ascent
	if ascend {
		asc = &h.asc
	}
	for k, i := range h.turns {
		if m.sines > h.p.budget {
			return
		}
		if len(m.free)+int(h.own.blkEnd-h.own.blk) < maxFlipSlots {
			h.left = append(h.left, h.turns[k:]...)
			return
		}
		t := bad[i].t
		if !m.alive(t) {
			continue
		}
		if !ms.regionOn(t, side) {
			h.left = append(h.left, i)
			continue
		}
		if ms.takeTurn(t, &h.p, asc) {
			h.improved++
		}
	}
}

// regionOn reports whether every vertex of tet t's turn's region is on
// the given side of the round's plane.
func (ms *mesher) regionOn(t int32, side uint8) bool {
	m := ms.m
	q := *(*[4]int32)(m.tet(t))
	for _, v := range q {
		if ms.side[v] != side {
			return false
		}
	}
	for _, v := range q {
		if ms.movable(v) && !ms.starOn(v) {
			return false
		}
	}
	for _, e := range tetEdges {
		if x, y := q[e[0]], q[e[1]]; !ms.movable(x) && !ms.movable(y) {
			ms.buf2 = m.edgeFan(x, y, t, ms.buf2[:0])
			for _, u := range ms.buf2 {
				if ms.tetSide(m.tet(u)) != side {
					return false
				}
			}
		}
	}
	return true
}

// starOn reports whether every tet of vertex v's star has all its
// vertices on v's side of the round's plane, walking the star once a
// round: while the halves run the answer cannot change, as they replace
// only tets with every vertex on one side and make only such tets. A
// half asks it only of its own side's vertices.
func (ms *mesher) starOn(v int32) bool {
	if at := ms.starOnAt[v]; at>>1 == ms.splitStamp {
		return at&1 == 1
	}
	m := ms.m
	ms.buf2 = m.star(v, ms.buf2)
	on := uint32(1)
	for _, u := range ms.buf2 {
		if ms.tetSide(m.tet(u)) != ms.side[v] {
			on = 0
			break
		}
	}
	ms.starOnAt[v] = ms.splitStamp<<1 | on
	return on == 1
}

// edgeFan appends to buf the tets around edge x–y of tet t that can be
// reached from t across faces holding the edge, crossing no subface:
// the ring, or the fan between two subfaces, that flips of the edge
// replace. t comes first.
func (m *tri) edgeFan(x, y, t int32, buf []int32) []int32 {
	start := len(buf)
	buf = append(buf, t)
	closed := false
	// Two directions, one per face of t holding x–y.
	for dir := 0; dir < 2 && !closed; dir++ {
		prev, cur := int32(-1), t
		for len(buf)-start <= 64 {
			q := m.tet(cur)
			next := int32(-1)
			n := 0
			for k := int32(0); k < 4; k++ {
				if v := q[k]; v == x || v == y {
					continue
				}
				// The face opposite q[k] holds x and y.
				if n++; cur == t && n != dir+1 {
					continue
				}
				o := m.across(4*cur + k)
				if o < 0 || o>>2 == prev || m.isGhost(o>>2) {
					continue
				}
				next = o >> 2
				break
			}
			// A closed ring: the other way round is the same.
			if closed = next == t; next < 0 || closed {
				break
			}
			buf = append(buf, next)
			prev, cur = cur, next
		}
	}
	return buf
}
