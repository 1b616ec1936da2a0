package bvh

import (
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync"

	"github.com/pfmesh/pfmesh/internal/radix"
)

// BuildMorton returns a tree in Build's layout over the items ordered along
// a Z-order (Morton) curve of their box centres, quantized to 21 bits per
// axis over the centres' bounds. Each node splits its run of the curve
// where the highest bit in which its codes differ changes — a spatial
// median of an octree cell — unless that leaves fewer than a third of the
// items on one side, when it splits the run in half; so the depth stays
// below log₁.₅(n/leafSize) + 1. One radix sort and a binary search per node
// replace Build's selection over every level, which makes it several
// times faster, and the spatial splits suit contact queries at least as
// well (BuildTriangles does the same for triangles, with unbalanced octree
// splits). Items with equal codes keep index order, and the result does not
// depend on GOMAXPROCS. The boxes must be finite.
func BuildMorton(boxes []float64, leafSize int) *Tree {
	n := len(boxes) / 6
	leafSize = max(leafSize, 1)
	t := &Tree{Items: make([]int32, n)}
	if n == 0 {
		return t
	}
	// Quantize the centres to 21 bits per axis over their bounds.
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := range n {
		for k := range 3 {
			c := 0.5 * (boxes[6*i+k] + boxes[6*i+3+k])
			lo[k], hi[k] = min(lo[k], c), max(hi[k], c)
		}
	}
	var scale [3]float64
	for k := range 3 {
		if hi[k] > lo[k] {
			scale[k] = (1<<21 - 1) / (hi[k] - lo[k])
		}
	}
	codes := make([]uint64, n)
	parallelRanges(n, func(a, b int) {
		for i := a; i < b; i++ {
			var code uint64
			for k := range 3 {
				c := 0.5 * (boxes[6*i+k] + boxes[6*i+3+k])
				code |= spread(uint64((c-lo[k])*scale[k])) << (2 - k)
			}
			codes[i] = code
		}
	})
	for i := range t.Items {
		t.Items[i] = int32(i)
	}
	radix.Sort(codes, t.Items)
	m := mortonBuilder{t: t, boxes: boxes, codes: codes, leaf: leafSize}
	nn := m.count(0, n)
	t.Nodes = make([]int32, 2*nn)
	t.Bounds = make([]float64, 6*nn)
	m.emit(0, 0, n, max(runtime.GOMAXPROCS(0), 1))
	return t
}

type mortonBuilder struct {
	t     *Tree
	boxes []float64
	codes []uint64 // sorted, parallel to t.Items
	leaf  int
}

// split returns where run [lo, hi) of the curve splits.
func (m *mortonBuilder) split(lo, hi int) int {
	n := hi - lo
	a, b := m.codes[lo], m.codes[hi-1]
	if a != b {
		// The codes share the bits above the highest differing one, so
		// those with it set form a suffix of the run.
		bit := uint64(1) << (63 - bits.LeadingZeros64(a^b))
		mid := lo + sort.Search(n, func(i int) bool { return m.codes[lo+i]&bit != 0 })
		if 3*(mid-lo) >= n && 3*(hi-mid) >= n {
			return mid
		}
	}
	return (lo + hi) / 2
}

// count returns the number of nodes of the subtree over run [lo, hi).
func (m *mortonBuilder) count(lo, hi int) int {
	if hi-lo <= m.leaf {
		return 1
	}
	mid := m.split(lo, hi)
	return 1 + m.count(lo, mid) + m.count(mid, hi)
}

// parallelMin is the least item count worth a goroutine.
const parallelMin = 1 << 15

// emit fills node and its subtree over run [lo, hi) in depth-first order,
// with the nodes' boxes, and returns the subtree's node count. Subtrees
// of at least parallelMin items are built concurrently while fewer than
// par goroutines work on this path; their node ranges are counted first,
// so the layout is the sequential one.
func (m *mortonBuilder) emit(node int32, lo, hi, par int) int32 {
	t := m.t
	box := t.Bounds[6*node : 6*node+6]
	if hi-lo <= m.leaf {
		t.Nodes[2*node], t.Nodes[2*node+1] = int32(lo), int32(hi-lo)
		for k := range 3 {
			box[k], box[3+k] = math.Inf(1), math.Inf(-1)
		}
		for _, it := range t.Items[lo:hi] {
			b := m.boxes[6*it : 6*it+6]
			for k := range 3 {
				box[k], box[3+k] = min(box[k], b[k]), max(box[3+k], b[3+k])
			}
		}
		return 1
	}
	mid := m.split(lo, hi)
	var nl, nr int32
	if par > 1 && hi-lo >= parallelMin {
		nl = int32(m.count(lo, mid))
		var wg sync.WaitGroup
		wg.Go(func() { m.emit(node+1, lo, mid, par/2) })
		nr = m.emit(node+1+nl, mid, hi, par-par/2)
		wg.Wait()
	} else {
		nl = m.emit(node+1, lo, mid, 1)
		nr = m.emit(node+1+nl, mid, hi, 1)
	}
	right := node + 1 + nl
	t.Nodes[2*node] = right
	lb, rb := t.Bounds[6*(node+1):6*(node+1)+6], t.Bounds[6*right:6*right+6]
	for k := range 3 {
		box[k], box[3+k] = min(lb[k], rb[k]), max(lb[3+k], rb[3+k])
	}
	return 1 + nl + nr
}

// parallelRanges calls f on consecutive ranges covering [0, n), fixed by n
// alone, concurrently.
func parallelRanges(n int, f func(lo, hi int)) {
	const chunk = 1 << 16
	var wg sync.WaitGroup
	for lo := 0; lo < n; lo += chunk {
		wg.Go(func() { f(lo, min(lo+chunk, n)) })
	}
	wg.Wait()
}
