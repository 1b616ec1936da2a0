package tetgen

import (
	"runtime"
	"slices"
	"sync"
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
// operation per tet read.) Since no worker reads what another writes,
// each worker's work depends only on the mesh at the start of the pass
// and on its own points, and as it takes new tet slots from its free list
// and its own region of fresh slots, the arrays after a pass do not
// depend on how the workers' steps interleave, nor on GOMAXPROCS: only on
// the number of workers, which is fixed. (The tets alone would not
// depend even on that: the Delaunay tetrahedralization of the perturbed
// points is unique.)

// parConfig sets the parallel insertion's sizes.
type parConfig struct {
	minPoints int // fewest points for which insertion runs in parallel
	serial    int // points inserted serially first (to the end of their BRIO round)
	minRun    int // fewest points per worker run
	workers   int // slabs, and workers, per pass: the arrays depend on it
	slots     int // tet slots to start the parallel phase with beyond those in use; 0: enough for random points
	quota     int // fresh slots per point of a parallel worker's run; 0: slotsPerPoint, plus slotBlock
}

// defaultPar returns the configuration delaunay uses, from 2¹⁸ points
// on (at 10⁵ random points a second core gained less than the parallel
// set-up cost on this 2-core machine). The workers are goroutines, as
// many whatever GOMAXPROCS is: the slabs, and so the arrays, depend on
// their number.
func defaultPar() parConfig {
	return parConfig{minPoints: 1 << 18, serial: 4096, minRun: 2048, workers: parWorkers}
}

// parWorkers is the number of slabs of a parallel pass.
const parWorkers = 2

// slotBlock is the number of fresh tet slots a parallel worker's region
// holds beyond slotsPerPoint per point.
const slotBlock = 1024

// parShared is the state the workers share: the slabs and the slots.
type parShared struct {
	slab  []uint8 // per vertex: the worker whose slab holds it, this pass
	next  int32   // slots in use: the workers' regions start here
	limit int32   // slots in the tet arrays
}

// worker is one worker's part of a parallel insertion.
type worker struct {
	sh          *parShared
	id          uint8
	blk, blkEnd int32 // the worker's region of fresh slots
	full        bool  // its free list and region ran out of slots
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

// ownsAcross is owns for the tet u across face n = 4·u+j of a tet the
// worker owns: the three vertices of the shared face are its own (or the
// ghost), so only u's vertex j, off that face, can make the difference.
// The walks and the cavity search take every step this way.
func (w *worker) ownsAcross(m *tri, n int32) bool {
	if w.solo {
		return true
	}
	x := m.c[n>>2<<3|n&3]
	return x == ghost || w.sh.slab[x] == w.id
}

// newSlot returns a fresh slot of the worker's region (reserve made sure
// there is one).
func (w *worker) newSlot() int32 {
	t := w.blk
	w.blk++
	return t
}

// reserve reports whether worker m has k slots for new tets in its free
// list and its region; once it has not, it is full and inserts no more
// points this pass.
func (m *tri) reserve(k int) bool {
	w := m.own
	w.full = len(m.free)+int(w.blkEnd-w.blk) < k
	return !w.full
}

// dropBlock moves the rest of the worker's region to its free list.
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
				next = n
				break
			}
		}
		if next < 0 {
			return t
		}
		if !m.own.ownsAcross(m, next) {
			return -1
		}
		next >>= 2
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
	p.sh.next = nt
	nv := int32(len(m.vt))
	limit := max(7*nv+nv/4, 2*nt) + int32(cfg.workers+1)*slotBlock
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
	}
}

// insert inserts the vertices pts (in BRIO order, without duplicates):
// passes over the points not yet in, in parallel while that pays. Unless
// last, it leaves the few deferred points that would take a pass of one
// worker to the caller, for the next round's parallel passes, and returns
// them.
func (p *parInsert) insert(pts []int32, last bool) ([]int32, error) {
	workers := p.cfg.workers
	for len(pts) > 0 {
		w := max(1, min(workers, len(pts)/p.cfg.minRun))
		if w == 1 && workers > 1 && !last {
			return pts, nil
		}
		deferred, full := p.pass(pts, w)
		switch {
		case full && w == 1:
			p.resize(p.sh.limit + p.sh.limit/2)
		case len(deferred) == len(pts) && w == 1:
			// One worker owns every tet: this is a bug.
			return nil, errorString("tetgen: parallel insertion made no progress")
		case 2*len(deferred) > len(pts):
			workers = 1 // the points are too close together to share out
		}
		pts = deferred
	}
	return nil, nil
}

// hintTries bounds the points of a run, spread over it, whose tets pass
// tries as the worker's first tet: the first points of a slab's Hilbert
// order often lie at its boundary, in tets no worker owns.
const hintTries = 16

// pass inserts pts with w workers, each taking the points of its slab,
// and returns the deferred points and whether the slots ran out.
func (p *parInsert) pass(pts []int32, w int) (deferred []int32, full bool) {
	runs := p.slabs(pts, w)
	p.regions(runs)
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
	if w == 1 {
		// The solo worker's region was the rest of the arrays.
		w := p.ws[0].own
		p.sh.next, w.blk, w.blkEnd = w.blk, 0, 0
	} else {
		for _, m := range p.ws[:w] {
			m.dropBlock()
		}
	}
	return deferred, full
}

// slotsPerPoint bounds the new tets per point a parallel worker's region
// holds: random points make about 6.7. A worker whose region runs out
// defers its remaining points.
const slotsPerPoint = 7

// regions gives each worker of a pass a region of fresh slots, past
// those in use: in a parallel pass enough for its run (beyond its free
// list), so that which slots a worker fills does not depend on how the
// workers' steps interleave; a solo worker gets the rest of the arrays,
// which grow when it fills them.
func (p *parInsert) regions(runs [][]int32) {
	for _, m := range p.ws[:len(runs)] {
		m.own.full = false
	}
	if len(runs) == 1 {
		w := p.ws[0].own
		w.blk, w.blkEnd = p.sh.next, p.sh.limit
		return
	}
	quota := make([]int32, len(runs))
	end := p.sh.next
	for i, run := range runs {
		q := int32(slotsPerPoint*len(run) + slotBlock)
		if p.cfg.quota > 0 {
			q = int32(p.cfg.quota * len(run))
		}
		quota[i] = max(0, q-int32(len(p.ws[i].free)))
		end += quota[i]
	}
	if end > p.sh.limit {
		p.resize(max(end, p.sh.limit+p.sh.limit/2))
	}
	for i := range runs {
		w := p.ws[i].own
		w.blk, w.blkEnd = p.sh.next, p.sh.next+quota[i]
		p.sh.next = w.blkEnd
	}
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
	// A large sample: a cut off the median by δ leaves a layer of about
	// δ·len(pts) points that a worker's Hilbert order visits in pieces,
	// and the walks between pieces run along the cut, through tets the
	// worker does not own, deferring their points (at 10⁶ random points
	// a sample of 1 024 deferred 8k more points in a pass than 8 192).
	var sample []float64
	for i := 0; i < len(pts); i += max(1, len(pts)/8192) {
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
// again, its free slots those of the workers in order.
func (p *parInsert) finish() {
	m := p.m
	m.c, m.mark = m.c[:8*int(p.sh.next)], m.mark[:p.sh.next]
	for _, w := range p.ws {
		m.free = append(m.free, w.free...)
		w.c, w.mark, w.free = nil, nil, nil
	}
	p.sh.slab = nil
	m.vt = lastTets(m.c, len(m.vt))
}

// lastTets returns, for each of nv vertices, the last live tet in c that holds
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
			if c[8*i] == dead {
				continue
			}
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
