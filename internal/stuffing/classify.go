package stuffing

import (
	"runtime"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// classify returns the winding number w of the input at every lattice
// vertex and its side, +1 inside the solid (w > 1/2) and −1 outside.
// Vertices outside the input's bounding box are outside: there the solid
// could only be a far-field artefact of stacked open sheets.
//
// W (see closure) is carried breadth-first over the lattice edges from a
// vertex outside the bounding box; each breadth-first layer is computed in
// parallel, its parents fixed before it starts.
func classify(L *lattice, in *input) (w []float64, side []int8) {
	n := len(L.keys)
	start, adj := latticeEdges(L)
	W := make([]int32, n)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = -1
	}
	seed := int32(-1)
	for v := 0; v < n && seed < 0; v++ {
		if start[v+1] > start[v] && !in.inBox(L.vertex(int32(v))) {
			seed = int32(v)
		}
	}
	frontier := []int32{seed}
	parent[seed] = seed
	W[seed] = int32(in.integerW(L.vertex(seed)))
	for len(frontier) > 0 {
		var next []int32
		for _, u := range frontier {
			for _, v := range adj[start[u]:start[u+1]] {
				if parent[v] < 0 {
					parent[v] = u
					next = append(next, v)
				}
			}
		}
		par.For(len(next), chunk, func(lo, hi int) {
			for _, v := range next[lo:hi] {
				u := parent[v]
				if j, ok := in.cl.jump(L.vertex(u), L.vertex(v)); ok {
					W[v] = W[u] + int32(j)
				} else {
					W[v] = int32(in.integerW(L.vertex(v)))
				}
			}
		})
		frontier = next
	}
	w = make([]float64, n)
	side = make([]int8, n)
	par.For(n, chunk, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			p := L.vertex(int32(v))
			w[v] = float64(W[v]) - in.cl.coneW(p)
			side[v] = -1
			if w[v] > 0.5 && in.inBox(p) && parent[v] >= 0 {
				side[v] = 1
			}
		}
	})
	return w, side
}

// latticeEdges returns the lattice's edges as adjacency lists, each
// sorted: the neighbours of v are adj[start[v]:start[v+1]].
func latticeEdges(L *lattice) (start, adj []int32) {
	n, nt := len(L.keys), len(L.tets)/4
	// Blocks of tets count and fill at once, each block's entries of a
	// list after the earlier blocks'.
	blocks := max(1, min(runtime.GOMAXPROCS(0), nt>>14))
	span := func(b int) (int, int) { return b * nt / blocks, (b + 1) * nt / blocks }
	at := make([][]int32, blocks) // per block and vertex: count, then where its entries go
	par.For(blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			c := make([]int32, n)
			x, y := span(b)
			for _, v := range L.tets[4*x : 4*y] {
				c[v] += 3 // each vertex of a tet has three of its edges
			}
			at[b] = c
		}
	})
	start = make([]int32, n+1)
	for v := range n {
		s := start[v]
		for _, c := range at {
			c[v], s = s, s+c[v]
		}
		start[v+1] = s
	}
	raw := make([]int32, start[n])
	par.For(blocks, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			fill := at[b]
			x, y := span(b)
			for t := 4 * x; t < 4*y; t += 4 {
				for _, e := range tetmesh.TetEdges {
					u, w := L.tets[t+e[0]], L.tets[t+e[1]]
					raw[fill[u]], raw[fill[w]] = w, u
					fill[u]++
					fill[w]++
				}
			}
		}
	})
	// Sort each list (at once: they are disjoint), then deduplicate in
	// place, compacting as we go.
	par.For(n, chunk, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			slices.Sort(raw[start[v]:start[v+1]])
		}
	})
	out := int32(0)
	for v := 0; v < n; v++ {
		l := slices.Compact(raw[start[v]:start[v+1]])
		start[v] = out
		out += int32(copy(raw[out:], l))
	}
	start[n] = out
	return start, raw[:out]
}

func (in *input) inBox(p geom.Vec) bool {
	for k := range 3 {
		if p[k] < in.lo[k] || p[k] > in.hi[k] {
			return false
		}
	}
	return true
}

// findCuts computes the cut point of every lattice edge whose ends are on
// opposite sides, in parallel, in the order edges first appear in the
// lattice's tets.
func findCuts(L *lattice, in *input, w []float64, side []int8) *cutSet {
	c := &cutSet{index: newKeyMap(len(L.keys))}
	for t := 0; t < len(L.tets); t += 4 {
		for _, e := range tetmesh.TetEdges {
			a, b := L.tets[t+e[0]], L.tets[t+e[1]]
			if side[a] == side[b] {
				continue
			}
			if _, fresh := c.index.put(edgeKey(a, b), int32(len(c.a))); fresh {
				c.a = append(c.a, min(a, b))
				c.b = append(c.b, max(a, b))
			}
		}
	}
	c.t = make([]float64, len(c.a))
	c.tri = make([]int32, len(c.a))
	par.For(len(c.a), chunk, func(lo, hi int) {
		var buf []crossing
		for i := lo; i < hi; i++ {
			a, b := c.a[i], c.b[i]
			var t float64
			t, c.tri[i], buf = in.cutEdge(L.vertex(a), L.vertex(b), w[a], w[b], buf)
			// A cut exactly at an end would make pieces of zero volume;
			// such a cut warps that end anyway unless warping is refused.
			c.t[i] = min(max(t, 1e-9), 1-1e-9)
		}
	})
	return c
}
