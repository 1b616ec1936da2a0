package bvh

import "math"

// PairScratch holds a traversal stack between calls to LeafPairs or
// PlaneItems, so steady state use does not allocate. The zero value is
// ready to use.
type PairScratch struct {
	stack []int32
}

// LeafPairs calls visit(i, j) for every leaf i of t and leaf j of u for
// which overlap(i, j) holds, until visit returns false. overlap is asked
// about node pairs from the roots down and must hold for a node pair
// whenever it holds for any pair of their descendants (a test of boxes
// that contain their children's does, in whatever frames the caller maps
// them to).
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
		var c, r, m float64
		for k := range 3 {
			ck := n[k] * 0.5 * (b[k] + b[3+k])
			c += ck
			m += math.Abs(ck)
			r += math.Abs(n[k]) * 0.5 * (b[3+k] - b[k])
		}
		// Widen by a margin of a few ulps of the terms: a box just touching
		// the plane must not be lost to round-off in c.
		if math.Abs(c+d) > r*(1+0x1p-50)+0x1p-50*(m+math.Abs(d)) {
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
