package tetgen

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// workRanges splits [0, n) into contiguous ranges: one per GOMAXPROCS when
// n is large enough for goroutines to pay, else one.
func workRanges(n int) [][2]int {
	w := runtime.GOMAXPROCS(0)
	if n < 1<<15 {
		w = 1
	}
	r := make([][2]int, w)
	for j := range r {
		r[j] = [2]int{j * n / w, (j + 1) * n / w}
	}
	return r
}

// runRanges calls f(i, from, to) for every range i concurrently and waits.
// Each call must write only what belongs to its range: the result is then
// the same whatever GOMAXPROCS is.
func runRanges(r [][2]int, f func(i, from, to int)) {
	if len(r) == 1 {
		f(0, r[0][0], r[0][1])
		return
	}
	var wg sync.WaitGroup
	for i, x := range r {
		wg.Go(func() { f(i, x[0], x[1]) })
	}
	wg.Wait()
}

// Parallel Bowyer–Watson insertion, after Marot, Pellerin & Remacle (2019,
// "One machine, one minute, three billion tetrahedra"). After a serial
// start, each pass cuts space into one slab per worker, along x, y and z
// in turn, at quantiles of the pass's points; every vertex (inserted or
// not) belongs to the worker of its slab. A worker owns the tets whose
// finite vertices are all its own, and inserts its slab's points, in
// Hilbert order, changing only tets it owns and the links of the tets
// across their faces. Ownership needs no locks: the faces of a tet that
// shares a face with an owned tet all have a vertex of the owner, so it
// can neither be owned by another worker nor share a face with a tet
// another owns; such tets are the only ones a worker reads, so no worker
// reads a tet another is changing. A point whose walk or cavity meets a
// tet its worker does not own is deferred to the next pass (whose slabs
// cross this pass's boundaries); passes repeat on the deferred points, on
// one worker once few are left. (Marot et al. partition by the Hilbert
// curve with a moving origin; per-tet owner words taken by
// compare-and-swap, sessions 6-8, cost a cache miss and an atomic
// operation per tet read.) The Delaunay tetrahedralization of the
// perturbed points is unique, so the tets are the same whatever the
// schedule; canonicalize then numbers them by the tets alone.

// parConfig sets the parallel insertion's sizes.
type parConfig struct {
	minPoints int // fewest points for which insertion runs in parallel
	serial    int // points inserted serially first (to the end of their BRIO round)
	minRun    int // fewest points per worker run
	workers   int // workers per pass
	slots     int // tet slots to start the parallel phase with beyond those in use; 0: enough for random points
}

// defaultPar returns the configuration delaunay uses: as many workers as
// GOMAXPROCS (the output does not depend on it), from 2¹⁸ points on: at
// 10⁵ random points the worker and the canonical order cost more than a
// second core gains on this 2-core machine.
func defaultPar() parConfig {
	return parConfig{minPoints: 1 << 18, serial: 4096, minRun: 2048, workers: min(runtime.GOMAXPROCS(0), 16)}
}

// slotBlock is the number of fresh tet slots a worker takes at a time.
const slotBlock = 1024

// parShared is the state the workers share: the slabs and the slot
// counter.
type parShared struct {
	slab  []uint8 // per vertex: the worker whose slab holds it, this pass
	next  atomic.Int32
	limit int32 // slots in the tet arrays
}

// worker is one worker's part of a parallel insertion.
type worker struct {
	sh          *parShared
	id          uint8
	blk, blkEnd int32 // the worker's block of fresh slots
	full        bool  // the tet arrays ran out of slots
	solo        bool  // the only worker of its pass: it owns every tet
}

// owns reports whether the worker owns tet t, which it may read: all of
// t's finite vertices lie in its slab.
func (w *worker) owns(m *tri, t int32) bool {
	if w.solo {
		return true
	}
	q := (*[4]int32)(m.c[t<<3:])
	s := w.sh.slab
	// A ghost is always in slot 3.
	return s[q[0]] == w.id && s[q[1]] == w.id && s[q[2]] == w.id && (q[3] == ghost || s[q[3]] == w.id)
}

// newSlot returns a fresh slot of the worker's block (reserve made sure
// there is one).
func (w *worker) newSlot() int32 {
	t := w.blk
	w.blk++
	return t
}

// reserve makes sure worker m has k slots for new tets, taking a block
// of fresh slots when needed, and reports false when there are none left.
func (m *tri) reserve(k int) bool {
	w := m.own
	for len(m.free)+int(w.blkEnd-w.blk) < k {
		m.dropBlock()
		sh := w.sh
		for {
			b := sh.next.Load()
			if b+slotBlock > sh.limit {
				w.full = true
				return false
			}
			if sh.next.CompareAndSwap(b, b+slotBlock) {
				w.blk, w.blkEnd = b, b+slotBlock
				break
			}
		}
	}
	return true
}

// dropBlock moves the rest of the worker's block to its free list.
func (m *tri) dropBlock() {
	w := m.own
	for ; w.blk < w.blkEnd; w.blk++ {
		m.c[w.blk<<3] = dead
		m.free = append(m.free, w.blk)
	}
}

// insertClaimed inserts vertex v as a worker, searching from hint, and
// reports false, with the mesh unchanged, when it needs a tet it does not
// own or the slots ran out.
func (m *tri) insertClaimed(v, hint int32) bool {
	t, _ := m.locate(v, hint)
	if t < 0 {
		return false
	}
	if !m.findCavity(v, t) || !m.reserve(len(m.bnd)-len(m.cav)) {
		m.clearMarks()
		return false
	}
	m.fillCavity(v)
	return true
}

// approachSteps bounds the steps of approach.
const approachSteps = 64

// approach walks a parallel worker from finite tet t towards vertex v,
// each step decided by the sign of the orientation determinant in plain
// floating point, and returns the finite tet where it stops, or −1 when
// it meets a tet the worker does not own. locate goes on from there with
// exact tests, so rounding can only make the approach stop early or
// late, never make the answer wrong; it saves the filters on the steps
// where the answer is clear. Only workers take it: their tets are
// renumbered canonically at the end, so which tet the walk ends in when
// v lies on a face does not show in the output, while the serial kernel
// keeps its walks (and the mesher's meshes) as they were.
func (m *tri) approach(v, t int32) int32 {
	j := 3 * int(v)
	pv := m.xyz[j : j+3 : j+3]
	vx, vy, vz := pv[0], pv[1], pv[2]
	prev := int32(-1)
	for range approachSteps {
		q := (*[8]int32)(m.c[t<<3:])
		var p [4][3]float64
		for i := range p {
			j := 3 * int(q[i])
			w := m.xyz[j : j+3 : j+3]
			p[i] = [3]float64{w[0] - vx, w[1] - vy, w[2] - vz}
		}
		next := int32(-1)
		for k := range 4 {
			n := q[4+k]
			if n>>2 == prev {
				continue
			}
			// orientFace(t, k, v) is the sign of det[f0−v; f2−v; f1−v].
			f := &faces[k]
			a, b, c := &p[f[0]], &p[f[2]], &p[f[1]]
			if a[0]*(b[1]*c[2]-b[2]*c[1])+a[1]*(b[2]*c[0]-b[0]*c[2])+a[2]*(b[0]*c[1]-b[1]*c[0]) > 0 {
				next = n >> 2
				break
			}
		}
		if next < 0 {
			return t
		}
		if !m.own.owns(m, next) {
			return -1
		}
		if m.isGhost(next) {
			return t
		}
		prev, t = t, next
	}
	return t
}

// insertRun inserts the vertices pts in order from tet hint, which the
// worker owns (or −1: it defers them all), and returns those it had to
// defer and a tet near the last one inserted.
func (m *tri) insertRun(pts []int32, hint int32) (deferred []int32, last int32) {
	for _, v := range pts {
		if hint < 0 || m.own.full || !m.insertClaimed(v, hint) {
			deferred = append(deferred, v)
			continue
		}
		hint = m.newTets[0]
	}
	return deferred, hint
}

// parInsert inserts points into a tetrahedralization with several
// workers.
type parInsert struct {
	m      *tri // the tetrahedralization; its own scratch serves pass set-up
	cfg    parConfig
	sh     parShared
	ws     []*tri
	hints  []int32
	passes int // parallel passes so far: the next one's slab axis
}

// newParInsert turns m, built serially so far, into the shared state of
// cfg.workers workers; hint is a live tet.
func newParInsert(m *tri, cfg parConfig, hint int32) *parInsert {
	p := &parInsert{m: m, cfg: cfg}
	nt := int32(m.numTets())
	p.sh.next.Store(nt)
	limit := max(7*int32(len(m.vt)), 2*nt) + int32(cfg.workers+1)*slotBlock
	if cfg.slots > 0 {
		limit = nt + int32(cfg.slots)
	}
	p.resize(limit)
	p.sh.slab = make([]uint8, len(m.vt))
	for i := range cfg.workers {
		p.ws = append(p.ws, &tri{xyz: m.xyz, c: m.c, vt: m.vt, mark: m.mark,
			rng: splitmix(uint64(i + 1)), own: &worker{sh: &p.sh, id: uint8(i)}})
		p.hints = append(p.hints, hint)
	}
	p.ws[0].free, m.free = m.free, nil
	return p
}

// resize gives the tet arrays limit slots (never fewer than in use).
func (p *parInsert) resize(limit int32) {
	m := p.m
	c := make([]int32, 8*int(limit))
	copy(c, m.c)
	mark := make([]uint8, limit)
	copy(mark, m.mark)
	m.c, m.mark, p.sh.limit = c, mark, limit
	for _, w := range p.ws {
		w.c, w.mark = c, mark
		w.own.full = false
	}
}

// insert inserts the vertices pts (in BRIO order, without duplicates):
// passes over the points not yet in, in parallel while that pays.
func (p *parInsert) insert(pts []int32) error {
	workers := p.cfg.workers
	for len(pts) > 0 {
		w := max(1, min(workers, len(pts)/p.cfg.minRun))
		deferred, full := p.pass(pts, w)
		switch {
		case full:
			p.resize(p.sh.limit + p.sh.limit/2)
		case len(deferred) == len(pts) && w == 1:
			// One worker owns every tet: this is a bug.
			return errorString("tetgen: parallel insertion made no progress")
		case 2*len(deferred) > len(pts):
			workers = 1 // the points are too close together to share out
		}
		pts = deferred
	}
	return nil
}

// hintTries bounds the points of a run, spread over it, whose tets pass
// tries as the worker's first tet: the first points of a slab's Hilbert
// order often lie at its boundary, in tets no worker owns.
const hintTries = 16

// pass inserts pts with w workers, each taking the points of its slab,
// and returns the deferred points and whether the slots ran out.
func (p *parInsert) pass(pts []int32, w int) (deferred []int32, full bool) {
	runs := p.slabs(pts, w)
	start := make([]int32, w)
	for i, run := range runs {
		p.ws[i].own.solo = w == 1
		// Walk to a point of the run in a tet the worker owns before
		// the workers start, so that each starts in its own slab.
		h := p.hints[i]
		if !p.m.alive(h) {
			h = p.anyTet()
		}
		start[i] = -1
		for j := range min(len(run), hintTries) {
			h, _ = p.m.locate(run[j*len(run)/min(len(run), hintTries)], h)
			if p.ws[i].own.owns(p.m, h) {
				start[i], p.hints[i] = h, h
				break
			}
		}
	}
	out := make([][]int32, w)
	runRanges(make([][2]int, w), func(i, _, _ int) {
		var last int32
		if out[i], last = p.ws[i].insertRun(runs[i], start[i]); last >= 0 {
			p.hints[i] = last
		}
	})
	for i, d := range out {
		deferred = append(deferred, d...)
		full = full || p.ws[i].own.full
	}
	return deferred, full
}

// slabs cuts space into w slabs along axis x, y or z in turn, at
// quantiles of a sample of pts, notes for every vertex up to the largest
// of pts its slab in p.sh.slab and returns the points of each slab, in
// the order of pts.
func (p *parInsert) slabs(pts []int32, w int) [][]int32 {
	runs := make([][]int32, w)
	if w == 1 {
		runs[0] = pts
		return runs
	}
	axis := p.passes % 3
	p.passes++
	xyz := p.m.xyz
	var sample []float64
	for i := 0; i < len(pts); i += max(1, len(pts)/1024) {
		sample = append(sample, xyz[3*int(pts[i])+axis])
	}
	slices.Sort(sample)
	cut := make([]float64, w-1)
	for i := range cut {
		cut[i] = sample[(i+1)*len(sample)/w]
	}
	slab := p.sh.slab
	runRanges(workRanges(int(slices.Max(pts))+1), func(_, from, to int) {
		for v := from; v < to; v++ {
			x, s := xyz[3*v+axis], uint8(0)
			for _, c := range cut {
				if x >= c {
					s++
				}
			}
			slab[v] = s
		}
	})
	for _, v := range pts {
		runs[slab[v]] = append(runs[slab[v]], v)
	}
	return runs
}

// anyTet returns a live tet.
func (p *parInsert) anyTet() int32 {
	t := int32(0)
	for !p.m.alive(t) {
		t++
	}
	return t
}

// finish ends the parallel insertion: m is a serial tetrahedralization
// again, its tets in canonical order.
func (p *parInsert) finish() {
	m := p.m
	for _, w := range p.ws {
		w.dropBlock()
	}
	m.c = m.c[:8*int(p.sh.next.Load())]
	m.mark, p.sh.slab = nil, nil
	for _, w := range p.ws {
		w.c, w.mark = nil, nil
	}
	m.canonicalize()
}

// canonicalize renumbers the live tets of m, and rotates each one's
// vertices, by the tets alone, so that the same tetrahedralization gives
// the same arrays whatever order it was built in. Tets are grouped by
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

// lastTets returns, for each of nv vertices, the last tet in c that holds
// it (noTet for none): each range of tets notes its own, and the last
// range that has one wins, whatever the ranges are.
func lastTets(c []int32, nv int) []int32 {
	r := workRanges(len(c) / 8)
	part := make([][]int32, len(r))
	runRanges(r, func(j, from, to int) {
		vt := make([]int32, nv)
		for v := range vt {
			vt[v] = noTet
		}
		for i := from; i < to; i++ {
			for _, v := range c[8*i : 8*i+4] {
				if v >= 0 {
					vt[v] = int32(i)
				}
			}
		}
		part[j] = vt
	})
	vt := part[len(part)-1]
	for j := len(part) - 2; j >= 0; j-- {
		for v, t := range part[j] {
			if vt[v] == noTet {
				vt[v] = t
			}
		}
	}
	return vt
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
