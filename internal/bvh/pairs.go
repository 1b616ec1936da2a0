package bvh

// Frame places a second tree's frame U in a first tree's frame T:
// x_T = R·x_U + P, with R a rotation stored row-major. Build it with
// NewFrame, which also caches |R| for the box tests.
type Frame struct {
	R    [9]float64
	P    [3]float64
	absR [9]float64
}

// NewFrame returns the frame x_T = R·x_U + P. R must be a rotation.
func NewFrame(R [9]float64, P [3]float64) Frame {
	f := Frame{R: R, P: P}
	for i, v := range R {
		// Widen |R| by a few ulps so that round-off in the rotated
		// extents can only make the test more conservative.
		f.absR[i] = abs(v) * (1 + 0x1p-50)
	}
	return f
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// BoxesOverlap reports whether box a (min xyz, max xyz, in frame T) and box
// b (in frame U) may overlap. It is the separating-axis test on the six
// face normals of the two boxes, conservative: it never misses an overlap
// (round-off is covered by a margin of a few ulps of the coordinates), and
// may report a near miss across an edge–edge axis as an overlap.
func (f *Frame) BoxesOverlap(a, b []float64) bool {
	var ca, ha, cb, hb [3]float64
	for k := range 3 {
		ca[k], ha[k] = 0.5*(a[k]+a[3+k]), 0.5*(a[3+k]-a[k])
		cb[k], hb[k] = 0.5*(b[k]+b[3+k]), 0.5*(b[3+k]-b[k])
	}
	R, A := &f.R, &f.absR
	// Round-off in the centre offsets is a few ulps of the coordinates.
	margin := (abs(ca[0]) + abs(ca[1]) + abs(ca[2]) + abs(cb[0]) + abs(cb[1]) + abs(cb[2]) +
		abs(f.P[0]) + abs(f.P[1]) + abs(f.P[2])) * 0x1p-48
	// d = centre of b in T minus centre of a, in T.
	var d [3]float64
	for i := range 3 {
		d[i] = R[3*i]*cb[0] + R[3*i+1]*cb[1] + R[3*i+2]*cb[2] + f.P[i] - ca[i]
		e := A[3*i]*hb[0] + A[3*i+1]*hb[1] + A[3*i+2]*hb[2]
		if abs(d[i]) > ha[i]+e+margin {
			return false
		}
	}
	// The axes of U: project d and a's half-extents with Rᵀ.
	for j := range 3 {
		dj := R[j]*d[0] + R[3+j]*d[1] + R[6+j]*d[2]
		e := A[j]*ha[0] + A[3+j]*ha[1] + A[6+j]*ha[2]
		if abs(dj) > hb[j]+e+margin {
			return false
		}
	}
	return true
}

// PairScratch holds a traversal stack between calls to Pairs, so steady
// state use does not allocate. The zero value is ready to use.
type PairScratch struct {
	stack []int32
}

// Pairs calls visit(a, b) for every item a of t and item b of u in leaves
// i of t and j of u for which overlap(i, j) holds, until visit returns
// false; see LeafPairs.
func (t *Tree) Pairs(u *Tree, s *PairScratch, overlap func(i, j int32) bool, visit func(a, b int32) bool) {
	t.LeafPairs(u, s, overlap, func(i, j int32) bool {
		fi, ci := t.Nodes[2*i], t.Nodes[2*i+1]
		fj, cj := u.Nodes[2*j], u.Nodes[2*j+1]
		for _, a := range t.Items[fi : fi+ci] {
			for _, b := range u.Items[fj : fj+cj] {
				if !visit(a, b) {
					return false
				}
			}
		}
		return true
	})
}

// LeafPairs calls visit(i, j) for every leaf i of t and leaf j of u for
// which overlap(i, j) holds, until visit returns false. overlap is asked
// about node pairs from the roots down and must hold for a node pair
// whenever it holds for any pair of their descendants (a box test with
// boxes that contain their children's, such as Frame.BoxesOverlap, does).
// The traversal is simultaneous and depth first (the node with the larger
// box is split first), so the visiting order is fixed by the trees and
// overlap alone. Neither tree is modified or rebuilt.
func (t *Tree) LeafPairs(u *Tree, s *PairScratch, overlap func(i, j int32) bool, visit func(i, j int32) bool) {
	if len(t.Nodes) == 0 || len(u.Nodes) == 0 {
		return
	}
	st := append(s.stack[:0], 0, 0)
	defer func() { s.stack = st[:0] }()
	for len(st) > 0 {
		i, j := st[len(st)-2], st[len(st)-1]
		st = st[:len(st)-2]
		if !overlap(i, j) {
			continue
		}
		fi, ci := t.Nodes[2*i], t.Nodes[2*i+1]
		fj, cj := u.Nodes[2*j], u.Nodes[2*j+1]
		switch {
		case ci > 0 && cj > 0:
			if !visit(i, j) {
				return
			}
		case cj > 0 || (ci == 0 && t.extent(i) >= u.extent(j)):
			// Push right then left so the left child is visited first.
			st = append(st, fi, j, i+1, j)
		default:
			st = append(st, i, fj, i, j+1)
		}
	}
}

// extent returns the sum of node i's box side lengths, the size measure
// deciding which node of a pair to split.
func (t *Tree) extent(i int32) float64 {
	b := t.Bounds[6*i : 6*i+6]
	return b[3] - b[0] + b[4] - b[1] + b[5] - b[2]
}

// PlaneItems calls visit for every item whose leaf box meets the plane
// n·x + d = 0 (closed: a box touching the plane counts), until visit
// returns false. s holds the traversal stack between calls.
func (t *Tree) PlaneItems(n [3]float64, d float64, s *PairScratch, visit func(item int32) bool) {
	if len(t.Nodes) == 0 {
		return
	}
	st := append(s.stack[:0], 0)
	defer func() { s.stack = st[:0] }()
	for len(st) > 0 {
		i := st[len(st)-1]
		st = st[:len(st)-1]
		b := t.Bounds[6*i : 6*i+6]
		var c, r float64
		for k := range 3 {
			c += n[k] * 0.5 * (b[k] + b[3+k])
			r += abs(n[k]) * 0.5 * (b[3+k] - b[k])
		}
		// Widen by a relative ulp-scale margin: a box just touching the
		// plane must not be lost to round-off in c.
		if abs(c+d) > r*(1+0x1p-50)+0x1p-50*(abs(c)+abs(d)) {
			continue
		}
		first, count := t.Nodes[2*i], t.Nodes[2*i+1]
		if count > 0 {
			for _, it := range t.Items[first : first+count] {
				if !visit(it) {
					return
				}
			}
			continue
		}
		st = append(st, first, i+1)
	}
}
