// Package bvh is a bounding volume hierarchy of axis-aligned boxes in flat
// arrays, shared by the surface checks, the medial-axis and meshing
// queries, and the contact broad phase. The layout is plain enough to be
// stored in a .pfm file and used in place. Its space-filling-curve keys
// (Morton for its own build, Hilbert3) also order other packages' data.
package bvh

import (
	"math"
	"runtime"
	"sync"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Tree is a BVH laid out depth-first: an inner node's left child
// immediately follows it.
type Tree struct {
	// Bounds holds six values per node: min x, y, z then max x, y, z.
	Bounds []float64
	// Nodes holds two values per node, (first, count). A leaf has
	// count > 0 and holds Items[first : first+count]; an inner node has
	// count == 0, its left child at index i+1 and its right child at first.
	Nodes []int32
	// Items lists the item indices, permuted so each leaf's are contiguous.
	Items []int32
}

// MaxDepth bounds the depth of trees Build makes (median splits halve the
// item count at each level), so traversals use a fixed-size stack.
const MaxDepth = 64

// NumNodes returns the number of nodes.
func (t *Tree) NumNodes() int { return len(t.Nodes) / 2 }

// Build returns a tree over n = len(boxes)/6 items, item i having bounds
// boxes[6i:6i+6] (min xyz, max xyz), with at most leafSize items per
// leaf. Each node splits its items at the median of their box centres
// along the longest axis of those centres' bounds, ties broken by item
// index, so the tree is the same on every run.
func Build(boxes []float64, leafSize int) *Tree {
	n := len(boxes) / 6
	leafSize = max(leafSize, 1)
	t := &Tree{Items: make([]int32, n)}
	if n == 0 {
		return t
	}
	prims := make([]prim, n)
	for i := range prims {
		p := &prims[i]
		p.it = int32(i)
		for k := range 3 {
			p.c[k] = 0.5 * (boxes[6*i+k] + boxes[6*i+3+k])
		}
	}
	b := builder{t: t, boxes: boxes, prims: prims, leaf: leafSize}
	nn := b.count(n)
	t.Bounds = make([]float64, 6*nn)
	t.Nodes = make([]int32, 2*nn)
	b.build(0, 0, n, max(runtime.GOMAXPROCS(0), 1))
	for i, p := range prims {
		t.Items[i] = p.it
	}
	return t
}

// prim is an item with its box centre; Build permutes these in place so
// each node's items are contiguous and scanned sequentially.
type prim struct {
	c  [3]float64
	it int32
}

type builder struct {
	t     *Tree
	boxes []float64
	prims []prim
	leaf  int
}

// count returns the number of nodes of a subtree over n items: a node's
// split depends only on its item count. Halving n again and again leaves
// the 2ᵈ nodes at depth d with ⌊n/2ᵈ⌋ items or one more (n mod 2ᵈ of
// them), so the leaves are found level by level, not node by node.
func (b *builder) count(n int) int {
	if n <= b.leaf {
		return 1
	}
	// d: the deepest level at which some node still splits (one of
	// ⌈n/2ᵈ⌉ items exceeds the leaf size); every node above it splits.
	d := 0
	for (n+1<<(d+1)-1)>>(d+1) > b.leaf {
		d++
	}
	big := n & (1<<d - 1) // nodes at depth d with one more item
	leaves := 2 * big     // they split
	if n>>d > b.leaf {
		leaves += 2 * (1<<d - big) // so do the others
	} else {
		leaves += 1<<d - big
	}
	return 2*leaves - 1
}

// build fills node and its subtree over prims[lo:hi] in depth-first
// order; a node's box is filled in after its children's. Subtrees of at
// least parallelMin items are built concurrently while fewer than par
// goroutines work on this path; each owns its range of prims and of
// nodes, so the tree is the sequential one.
func (b *builder) build(node int32, lo, hi, par int) {
	t := b.t
	box := t.Bounds[6*node : 6*node+6]
	if hi-lo <= b.leaf {
		t.Nodes[2*node], t.Nodes[2*node+1] = int32(lo), int32(hi-lo)
		for k := range 3 {
			box[k], box[3+k] = math.Inf(1), math.Inf(-1)
		}
		for _, p := range b.prims[lo:hi] {
			it := int(p.it)
			for k := range 3 {
				box[k] = min(box[k], b.boxes[6*it+k])
				box[3+k] = max(box[3+k], b.boxes[6*it+3+k])
			}
		}
		return
	}
	cmin, cmax := b.prims[lo].c, b.prims[lo].c
	for _, p := range b.prims[lo+1 : hi] {
		for k := range 3 {
			cmin[k], cmax[k] = min(cmin[k], p.c[k]), max(cmax[k], p.c[k])
		}
	}
	axis := 0
	for k := 1; k < 3; k++ {
		if cmax[k]-cmin[k] > cmax[axis]-cmin[axis] {
			axis = k
		}
	}
	mid := (lo + hi) / 2
	selectMedian(b.prims[lo:hi], mid-lo, axis)
	left, right := node+1, node+1+int32(b.count(mid-lo))
	if par > 1 && hi-lo >= parallelMin {
		var wg sync.WaitGroup
		wg.Go(func() { b.build(left, lo, mid, par/2) })
		b.build(right, mid, hi, par-par/2)
		wg.Wait()
	} else {
		b.build(left, lo, mid, 1)
		b.build(right, mid, hi, 1)
	}
	t.Nodes[2*node] = right
	lb, rb := t.Bounds[6*left:6*left+6], t.Bounds[6*right:6*right+6]
	for k := range 3 {
		box[k], box[3+k] = min(lb[k], rb[k]), max(lb[3+k], rb[3+k])
	}
}

// selectMedian partially orders s so s[k] is the k-th smallest by centre
// coordinate along axis (ties by item index), with smaller ones before it
// and larger after: quickselect with median-of-three pivots.
func selectMedian(s []prim, k, axis int) {
	less := func(a, b *prim) bool {
		return a.c[axis] < b.c[axis] || (a.c[axis] == b.c[axis] && a.it < b.it)
	}
	lo, hi := 0, len(s)-1
	for hi-lo >= 16 {
		m := lo + (hi-lo)/2
		if less(&s[m], &s[lo]) {
			s[m], s[lo] = s[lo], s[m]
		}
		if less(&s[hi], &s[lo]) {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if less(&s[hi], &s[m]) {
			s[hi], s[m] = s[m], s[hi]
		}
		pivot := s[m]
		i, j := lo, hi
		for i <= j {
			for less(&s[i], &pivot) {
				i++
			}
			for less(&pivot, &s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		if k <= j {
			hi = j
		} else if k >= i {
			lo = i
		} else {
			return
		}
	}
	// Insertion sort finishes the short range.
	for i := lo + 1; i <= hi; i++ {
		for j := i; j > lo && less(&s[j], &s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// overlaps reports whether node i's box meets box q (closed boxes).
func (t *Tree) overlaps(i int32, q *[6]float64) bool {
	b := t.Bounds[6*i : 6*i+6]
	return b[0] <= q[3] && q[0] <= b[3] && b[1] <= q[4] && q[1] <= b[4] && b[2] <= q[5] && q[2] <= b[5]
}

// Query calls visit for every item whose leaf box meets box (min xyz, max
// xyz) — a superset of the items whose own boxes meet it when leaves hold
// several items — until visit returns false. It does not allocate.
func (t *Tree) Query(box [6]float64, visit func(item int32) bool) {
	if len(t.Nodes) == 0 {
		return
	}
	var stack [MaxDepth]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		i := stack[sp]
		if !t.overlaps(i, &box) {
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
		stack[sp], stack[sp+1] = first, i+1
		sp += 2
	}
}

// BoxDist2 returns the squared distance from p to node i's box. It is
// the nearest searches' inner loop: the axes are written out, each
// distance the gap beyond the box on that axis (0 inside its slab).
func (t *Tree) BoxDist2(i int32, p geom.Vec) float64 {
	b := (*[6]float64)(t.Bounds[6*i : 6*i+6])
	x := max(b[0]-p[0], p[0]-b[3], 0)
	y := max(b[1]-p[1], p[1]-b[4], 0)
	z := max(b[2]-p[2], p[2]-b[5], 0)
	return x*x + y*y + z*z
}

// Nearest returns the item minimising dist2(item), the squared distance
// from p to that item, visiting nodes nearest-first and skipping any whose
// box is farther than the best found. dist2 must never be less than the
// squared distance from p to the item's box. It returns (−1, +Inf) for an
// empty tree.
func (t *Tree) Nearest(p geom.Vec, dist2 func(item int32) float64) (best int32, bestD2 float64) {
	return t.NearestWithin(p, math.Inf(1), dist2)
}

// NearestWithin is Nearest restricted to items with dist2 below bound2: it
// returns (−1, bound2) when there is none, and never visits a node whose
// box is that far.
func (t *Tree) NearestWithin(p geom.Vec, bound2 float64, dist2 func(item int32) float64) (best int32, bestD2 float64) {
	return t.NearestWhere(p, bound2, nil, dist2)
}

// NearestWhere is NearestWithin that also skips every node (and its
// subtree) for which skip, when not nil, returns true: for searches that
// know a whole subtree holds no item they would accept.
func (t *Tree) NearestWhere(p geom.Vec, bound2 float64, skip func(node int32) bool, dist2 func(item int32) float64) (best int32, bestD2 float64) {
	best, bestD2 = -1, bound2
	if len(t.Nodes) == 0 {
		return
	}
	// Nodes wait on the stack with their box's distance, found when their
	// parent chose which child to visit first.
	type entry struct {
		node int32
		d2   float64
	}
	var stack [MaxDepth]entry
	stack[0] = entry{0, t.BoxDist2(0, p)}
	sp := 1
	for sp > 0 {
		sp--
		i := stack[sp].node
		if stack[sp].d2 >= bestD2 || skip != nil && skip(i) {
			continue
		}
		first, count := t.Nodes[2*i], t.Nodes[2*i+1]
		if count > 0 {
			for _, it := range t.Items[first : first+count] {
				if d := dist2(it); d < bestD2 || (d == bestD2 && it < best) {
					best, bestD2 = it, d
				}
			}
			continue
		}
		l, r := entry{i + 1, t.BoxDist2(i+1, p)}, entry{first, t.BoxDist2(first, p)}
		// Push the farther child first so the nearer is visited first.
		if l.d2 < r.d2 {
			l, r = r, l
		}
		stack[sp], stack[sp+1] = l, r
		sp += 2
	}
	return best, bestD2
}

// SelfPairs calls visit once for every unordered pair of distinct items
// (a < b) whose leaf boxes overlap — the candidates for self-intersection
// tests — until visit returns false.
func (t *Tree) SelfPairs(visit func(a, b int32) bool) {
	if len(t.Nodes) == 0 {
		return
	}
	t.selfPairs([]nodePair{{0, 0}}, itemPairs(visit))
}

// itemPairs turns a visitor of item pairs into one of leaf pairs, as
// selfPairs hands them over: every pair of items once, smaller first.
func itemPairs(visit func(a, b int32) bool) func(a, b []int32) bool {
	return func(a, b []int32) bool {
		same := &a[0] == &b[0]
		for x, u := range a {
			start := 0
			if same {
				start = x + 1
			}
			for _, v := range b[start:] {
				if !visit(min(u, v), max(u, v)) {
					return false
				}
			}
		}
		return true
	}
}

// nodePair is a pair of nodes (possibly one node with itself) whose
// items' pairs a self-pair traversal has still to visit.
type nodePair struct{ i, j int32 }

// selfPairs runs the self-pair traversal from the pairs on stack, calling
// visit with the items of each pair of overlapping leaves (the same slice
// twice for a leaf with itself), and reports false if visit stopped it.
func (t *Tree) selfPairs(stack []nodePair, visit func(a, b []int32) bool) bool {
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if !t.pairOverlaps(p) {
			continue
		}
		fi, ci := t.Nodes[2*p.i], t.Nodes[2*p.i+1]
		fj, cj := t.Nodes[2*p.j], t.Nodes[2*p.j+1]
		if ci == 0 || cj == 0 {
			stack = t.split(p, stack)
			continue
		}
		if !visit(t.Items[fi:fi+ci], t.Items[fj:fj+cj]) {
			return false
		}
	}
	return true
}

func (t *Tree) pairOverlaps(p nodePair) bool {
	return p.i == p.j || t.overlaps(p.i, (*[6]float64)(t.Bounds[6*p.j:6*p.j+6]))
}

// split appends to stack the pairs that p, not a pair of leaves, divides
// into: a node with itself into its children's self-pairs and their
// cross pair; two nodes by splitting the larger (by box volume) inner one.
func (t *Tree) split(p nodePair, stack []nodePair) []nodePair {
	fi, ci := t.Nodes[2*p.i], t.Nodes[2*p.i+1]
	fj, cj := t.Nodes[2*p.j], t.Nodes[2*p.j+1]
	switch {
	case p.i == p.j:
		l, r := p.i+1, fi
		return append(stack, nodePair{l, l}, nodePair{r, r}, nodePair{l, r})
	case ci > 0 || (cj == 0 && t.volume(p.j) > t.volume(p.i)):
		return append(stack, nodePair{p.i, p.j + 1}, nodePair{p.i, fj})
	default:
		return append(stack, nodePair{p.i + 1, p.j}, nodePair{fi, p.j})
	}
}

func (t *Tree) volume(i int32) float64 {
	b := t.Bounds[6*i : 6*i+6]
	return (b[3] - b[0]) * (b[4] - b[1]) * (b[5] - b[2])
}
