package tetgen

import (
	"math/rand"
	"slices"
	"testing"
)

// TestSlabPass checks that a pass of two workers shares the work: each
// inserts most of its slab's points (a point is deferred only when its
// walk or cavity reaches the other slab), and once the deferred points
// are in, the tets are the serial kernel's.
func TestSlabPass(t *testing.T) {
	const n, start = 20000, 10000
	xyz := uniformPoints(rand.New(rand.NewSource(3)), n)
	all := indices(n)
	// Points in Hilbert order, as a BRIO round's: walks stay short.
	order := brioOrder(xyz, all[start:])
	serial := func(upto int) (*tri, int32) {
		m := newTri(xyz, n)
		if _, err := m.start(all); err != nil {
			t.Fatal(err)
		}
		hint := int32(0)
		for _, v := range append(all[:start:start], order[:upto]...) {
			if m.insert(v, hint) == -1 {
				hint = m.newTets[0]
			}
		}
		return m, hint
	}
	want, _ := serial(len(order))
	want.canonicalize()
	m, hint := serial(0)
	pts := order
	p := newParInsert(m, parConfig{minRun: 16, workers: 2}, hint)
	deferred, full := p.pass(pts, 2)
	if full {
		t.Fatal("regions full")
	}
	var in, out [2]int
	for _, v := range pts {
		in[p.sh.slab[v]]++
	}
	for _, v := range deferred {
		out[p.sh.slab[v]]++
	}
	for i := range in {
		t.Logf("worker %d: %d points, %d deferred", i, in[i], out[i])
		if in[i] < len(pts)/3 || 4*out[i] > in[i] {
			t.Errorf("worker %d: %d of %d points, %d deferred", i, in[i], len(pts), out[i])
		}
	}
	if _, err := p.insert(deferred, true); err != nil {
		t.Fatal(err)
	}
	p.finish()
	checkTri(t, m)
	m.canonicalize()
	if !slices.Equal(m.c, want.c) {
		t.Errorf("%d tets, serial kernel %d, or the same number in another order", m.numTets(), want.numTets())
	}
}

// canonicalize renumbers the live tets of m, and rotates each one's
// vertices, by the tets alone, so that the same tetrahedralization gives
// the same arrays whatever order it was built in: tests compare the
// parallel insertion's tets, whose order depends on its slabs, with the
// serial kernel's this way. Tets are grouped by
// their largest vertex, in vertex order (which keeps neighbours close in
// memory, as vertices are in BRIO order), then ordered by their other
// vertices, largest first; each tet is rotated by an even permutation to
// put its smallest finite vertex first and the smaller of the next two
// second (a ghost stays in slot 3). Dead slots are dropped.
func (m *tri) canonicalize() {
	nt := m.numTets()
	// Per slot: the sorting key (the largest vertex, −1 for a dead slot,
	// then the next two and the smallest) and the rotation (new slot j
	// holds old slot rot>>2j&3).
	top := make([]int32, nt)
	mid := make([]uint64, nt)
	low := make([]int32, nt)
	rot := make([]uint8, nt)
	runRanges(workRanges(nt), func(_, from, to int) {
		for t := from; t < to; t++ {
			q := m.c[8*t : 8*t+4 : 8*t+4]
			if q[0] == dead {
				top[t] = -1
				continue
			}
			a, b, c, d := q[0], q[1], q[2], q[3]
			// Sort descending with a network of five exchanges.
			if a < b {
				a, b = b, a
			}
			if c < d {
				c, d = d, c
			}
			if a < c {
				a, c = c, a
			}
			if b < d {
				b, d = d, b
			}
			if b < c {
				b, c = c, b
			}
			top[t], mid[t], low[t] = a, uint64(uint32(b))<<32|uint64(uint32(c)), d
			rot[t] = canonicalRotation(q)
		}
	})
	// Bucket the slots by largest vertex, each range counting and then
	// placing its own (no atomics); a bucket entry carries its sort key,
	// so that sorting a bucket reads no other memory.
	nv := len(m.vt)
	ranges := workRanges(nt)
	count := make([][]int32, len(ranges))
	runRanges(ranges, func(j, from, to int) {
		cnt := make([]int32, nv)
		for _, v := range top[from:to] {
			if v >= 0 {
				cnt[v]++
			}
		}
		count[j] = cnt
	})
	start := make([]int32, nv+1)
	for v := range nv {
		s := start[v]
		for _, cnt := range count {
			s, cnt[v] = s+cnt[v], s
		}
		start[v+1] = s
	}
	live := int(start[nv])
	type entry struct {
		mid    uint64
		low, t int32
	}
	ent := make([]entry, live)
	runRanges(ranges, func(j, from, to int) {
		next := count[j]
		for t := from; t < to; t++ {
			if v := top[t]; v >= 0 {
				ent[next[v]] = entry{mid[t], low[t], int32(t)}
				next[v]++
			}
		}
	})
	// Per slot, the new id and the rotation: one load per neighbour. The
	// keys are in the buckets now: mid's memory takes it.
	idRot := mid
	count, top, mid, low = nil, nil, nil, nil
	runRanges(workRanges(nv), func(_, from, to int) {
		for v := from; v < to; v++ {
			b := ent[start[v]:start[v+1]]
			// Insertion sort: a bucket holds a few tets. Two tets tie
			// on mid only when they share a face.
			for i := 1; i < len(b); i++ {
				for j := i; j > 0; j-- {
					x, y := b[j], b[j-1]
					if x.mid > y.mid || x.mid == y.mid && x.low > y.low {
						break
					}
					b[j], b[j-1] = y, x
				}
			}
			for i, e := range b {
				idRot[e.t] = uint64(start[v]+int32(i))<<8 | uint64(rot[e.t])
			}
		}
	})
	ent, rot = nil, nil
	// Move the tets to their new slots, reading the old arrays in order:
	// the neighbours' new ids and rotations come from idRot.
	c := make([]int32, 8*live)
	runRanges(ranges, func(_, from, to int) {
		for t := from; t < to; t++ {
			old := m.c[8*t : 8*t+8 : 8*t+8]
			if old[0] == dead {
				continue
			}
			id, r := int32(idRot[t]>>8), uint8(idRot[t])
			rec := c[8*id : 8*id+8 : 8*id+8]
			for j := range 4 {
				k := int(r >> (2 * j) & 3)
				rec[j] = old[k]
				if n := old[4+k]; n >= 0 {
					u := idRot[n>>2]
					rec[4+j] = 4*int32(u>>8) + int32(rotatedSlot[uint8(u)][n&3])
				} else {
					rec[4+j] = n
				}
			}
		}
	})
	m.c = c
	m.mark = make([]uint8, live)
	m.free = nil
	m.vt = lastTets(c, len(m.vt))
}

// evenFirst[i] is an even permutation of slots that puts slot i first.
var evenFirst = [4][4]uint8{{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}}

// rotatedSlot[r][k] is the slot that old slot k moves to under rotation r.
var rotatedSlot = func() (s [256][4]uint8) {
	for r := range 256 {
		for j := range uint8(4) {
			s[r][r>>(2*j)&3] = j
		}
	}
	return s
}()

// canonicalRotation returns the canonical rotation of tet q as canonicalize
// stores it.
func canonicalRotation(q []int32) uint8 {
	var p [4]uint8
	if q[3] == ghost {
		// Rotate the hull face: an even permutation keeping the ghost.
		p = [4]uint8{0, 1, 2, 3}
		if q[1] < q[0] && q[1] < q[2] {
			p = [4]uint8{1, 2, 0, 3}
		} else if q[2] < q[0] && q[2] < q[1] {
			p = [4]uint8{2, 0, 1, 3}
		}
	} else {
		first := 0
		for k := 1; k < 4; k++ {
			if q[k] < q[first] {
				first = k
			}
		}
		e := evenFirst[first]
		// Rotate the other three cyclically to put the smallest second.
		a, b, c := e[1], e[2], e[3]
		switch {
		case q[b] < q[a] && q[b] < q[c]:
			a, b, c = b, c, a
		case q[c] < q[a] && q[c] < q[b]:
			a, b, c = c, a, b
		}
		p = [4]uint8{e[0], a, b, c}
	}
	return p[0] | p[1]<<2 | p[2]<<4 | p[3]<<6
}
