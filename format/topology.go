package format

import (
	"runtime"

	"github.com/pfmesh/pfmesh/internal/unionfind"
)

// Edge adjacency of an indexed triangle surface, the common ground of
// Diagnose, Clean and Repair. Vertices are identified by index only, so
// callers weld first. A collapsed triangle (two equal corner indices)
// has no proper edges and takes no part in the adjacency.

// Neighbour codes stored in topology.nbr besides triangle indices.
const (
	edgeBoundary    = -1 // no other triangle has this edge
	edgeNonManifold = -2 // three or more triangles share this edge
	edgeNone        = -3 // edge of a collapsed triangle
)

type topology struct {
	tris []int32
	nv   int
	// star lists the proper triangles around each vertex: those of
	// vertex v are starTri[starOff[v]:starOff[v+1]], in increasing order.
	starOff, starTri []int32
	// nbr[3t+e] is the triangle across edge e of triangle t — the edge
	// from corner e to corner e+1 (mod 3) — when exactly two triangles
	// share it, else one of the edge… codes.
	nbr []int32

	edges, boundaryEdges, nonManifoldEdges, inconsistentEdges int
}

func collapsed(tris []int32, t int) bool {
	a, b, c := tris[3*t], tris[3*t+1], tris[3*t+2]
	return a == b || b == c || c == a
}

// newTopology builds the adjacency of tris over nv vertices.
func newTopology(tris []int32, nv int) *topology {
	tp := &topology{tris: tris, nv: nv}
	nt := len(tris) / 3
	tp.starOff = make([]int32, nv+1)
	for t := range nt {
		if !collapsed(tris, t) {
			for _, v := range tris[3*t : 3*t+3] {
				tp.starOff[v+1]++
			}
		}
	}
	for v := range nv {
		tp.starOff[v+1] += tp.starOff[v]
	}
	tp.starTri = make([]int32, tp.starOff[nv])
	fill := append([]int32(nil), tp.starOff[:nv]...)
	for t := range nt {
		if !collapsed(tris, t) {
			for _, v := range tris[3*t : 3*t+3] {
				tp.starTri[fill[v]] = int32(t)
				fill[v]++
			}
		}
	}
	tp.nbr = make([]int32, 3*nt)
	// Triangles link their own edges only: ranges run concurrently, and
	// the counts, kept per range, add up the same whatever the schedule.
	counts := make([]edgeCounts, runtime.GOMAXPROCS(0))
	forRanges(nt, func(c, lo, hi int) {
		for t := lo; t < hi; t++ {
			if collapsed(tris, t) {
				tp.nbr[3*t], tp.nbr[3*t+1], tp.nbr[3*t+2] = edgeNone, edgeNone, edgeNone
				continue
			}
			for e := range 3 {
				tp.linkEdge(t, e, &counts[c])
			}
		}
	})
	for _, c := range counts {
		tp.edges += c.edges
		tp.boundaryEdges += c.boundary
		tp.nonManifoldEdges += c.nonManifold
		tp.inconsistentEdges += c.inconsistent
	}
	return tp
}

// edgeCounts tallies edges by kind.
type edgeCounts struct{ edges, boundary, nonManifold, inconsistent int }

// corner returns the local index (0..2) of vertex v in triangle t, or −1.
func (tp *topology) corner(t int32, v int32) int {
	for i, u := range tp.tris[3*t : 3*t+3] {
		if u == v {
			return i
		}
	}
	return -1
}

// linkEdge sets nbr for edge e of triangle t, and tallies the edge in count
// when t is the lowest-numbered triangle holding it.
func (tp *topology) linkEdge(t, e int, count *edgeCounts) {
	a, b := tp.tris[3*t+e], tp.tris[3*t+(e+1)%3]
	n, other, lowest, sameWay := 1, int32(-1), true, false
	for _, u := range tp.star(a) {
		if u == int32(t) {
			continue
		}
		j := tp.corner(u, b)
		if j < 0 {
			continue
		}
		n++
		other = u
		lowest = lowest && u > int32(t)
		// In u the edge runs a→b (same way: inconsistent) when b follows a.
		sameWay = tp.tris[3*int(u)+(j+2)%3] == a
	}
	switch n {
	case 1:
		tp.nbr[3*t+e] = edgeBoundary
	case 2:
		tp.nbr[3*t+e] = other
	default:
		tp.nbr[3*t+e] = edgeNonManifold
	}
	if !lowest {
		return
	}
	count.edges++
	switch {
	case n == 1:
		count.boundary++
	case n > 2:
		count.nonManifold++
	case sameWay:
		count.inconsistent++
	}
}

func (tp *topology) star(v int32) []int32 {
	return tp.starTri[tp.starOff[v]:tp.starOff[v+1]]
}

// edgeSharers calls visit for every proper triangle holding edge ab.
func (tp *topology) edgeSharers(a, b int32, visit func(u int32)) {
	for _, u := range tp.star(a) {
		if tp.corner(u, b) >= 0 {
			visit(u)
		}
	}
}

// components labels the triangles by edge-connected component (through
// any shared edge, non-manifold ones included), numbered from 0 in order
// of their lowest triangle; collapsed triangles get −1. It returns the
// labels and the number of components.
func (tp *topology) components() ([]int32, int) {
	nt := len(tp.tris) / 3
	uf := unionfind.New(nt)
	for t := range nt {
		for e := range 3 {
			switch n := tp.nbr[3*t+e]; {
			case n >= 0:
				uf.Union(int32(t), n)
			case n == edgeNonManifold:
				tp.edgeSharers(tp.tris[3*t+e], tp.tris[3*t+(e+1)%3], func(u int32) { uf.Union(int32(t), u) })
			}
		}
	}
	return uf.Labels(func(t int) bool { return !collapsed(tp.tris, t) })
}

// boundaryLoops gathers the boundary edges into loops and returns each as
// its edges (codes 3t+e: edge e of triangle t) in the order walked, loops
// in order of their lowest edge code. The walk ignores direction, so the
// boundary of a non-orientable or inconsistently oriented patch is still
// one loop; where more than two boundary edges meet at a vertex, the
// lowest unvisited one continues the loop.
func (tp *topology) boundaryLoops() [][]int32 {
	var half []int32 // boundary edges as 3t+e
	for i, n := range tp.nbr {
		if n == edgeBoundary {
			half = append(half, int32(i))
		}
	}
	ends := func(h int32) (int32, int32) { return tp.tris[h], tp.tris[h-h%3+(h%3+1)%3] }
	off := make([]int32, tp.nv+1) // boundary edges at each vertex, as indices into half
	for _, h := range half {
		a, b := ends(h)
		off[a+1]++
		off[b+1]++
	}
	for v := range tp.nv {
		off[v+1] += off[v]
	}
	at := make([]int32, 2*len(half))
	fill := append([]int32(nil), off[:tp.nv]...)
	for i, h := range half {
		a, b := ends(h)
		at[fill[a]], at[fill[b]] = int32(i), int32(i)
		fill[a]++
		fill[b]++
	}
	visited := make([]bool, len(half))
	var loops [][]int32
	for start := range half {
		if visited[start] {
			continue
		}
		var loop []int32
		_, v := ends(half[start])
		for cur := int32(start); cur >= 0; {
			visited[cur] = true
			loop = append(loop, half[cur])
			next := int32(-1)
			for _, i := range at[off[v]:off[v+1]] {
				if !visited[i] {
					next = i
					break
				}
			}
			if next >= 0 {
				if a, b := ends(half[next]); a == v {
					v = b
				} else {
					v = a
				}
			}
			cur = next
		}
		loops = append(loops, loop)
	}
	return loops
}

// nonManifoldVertices counts the vertices whose triangles do not form a
// single fan (brokenFan).
func (tp *topology) nonManifoldVertices() int {
	count := 0
	for v := range int32(tp.nv) {
		if tp.brokenFan(v) {
			count++
		}
	}
	return count
}

// brokenFan reports whether v's triangles do not form a single fan:
// walking around v from its first triangle across the manifold edges at
// it, both ways, does not reach all its triangles (two cones touching at
// their tips; any vertex on a non-manifold edge). The walk goes by
// vertices, not edge directions, so orientation does not matter.
func (tp *topology) brokenFan(v int32) bool {
	star := tp.star(v)
	if len(star) < 2 {
		return false
	}
	reached := 1
	t0 := star[0]
	c := tp.corner(t0, v)
	for _, e := range [2]int{c, (c + 2) % 3} { // the two edges of t0 at v, one per direction
		prev, u := t0, tp.nbr[3*int(t0)+e]
		for u >= 0 && u != t0 && reached <= len(star) {
			reached++
			// Leave u by its other edge at v: the one not shared with prev.
			next := int32(-1)
			cu := tp.corner(u, v)
			for _, f := range [2]int{cu, (cu + 2) % 3} {
				if n := tp.nbr[3*int(u)+f]; n != prev {
					next = n
				}
			}
			prev, u = u, next
		}
		if u == t0 {
			break // a closed fan: the other direction would repeat it
		}
	}
	return reached < len(star)
}

// Pinched returns, in increasing order, the vertices of s at which it is
// not a closed, consistently oriented manifold: the ends of edges not
// shared by exactly two triangles that traverse them in opposite
// directions, the corners of collapsed triangles and of triangles whose
// vertices another's repeat (a closed pair is a manifold of no volume),
// and the vertices whose triangles do not form a single fan. A closed
// oriented manifold of positive volume everywhere has none; a contouring
// that moved vertices can undo the moves at these.
func Pinched(s *Surface) []int32 {
	tris := s.Triangles
	tp := newTopology(tris, s.NumVertices())
	bad := make([]bool, tp.nv)
	for t := range len(tris) / 3 {
		for e := range 3 {
			a, b := tris[3*t+e], tris[3*t+(e+1)%3]
			switch u := tp.nbr[3*t+e]; {
			case u < 0:
				bad[a], bad[b] = true, true
			case tp.tris[3*int(u)+(tp.corner(u, a)+1)%3] == b: // u runs a→b too
				bad[a], bad[b] = true, true
			}
		}
	}
	for t, d := range duplicates(tris, tp.nv) {
		if d {
			bad[tris[3*t]], bad[tris[3*t+1]], bad[tris[3*t+2]] = true, true, true
		}
	}
	var out []int32
	for v := range int32(tp.nv) {
		if bad[v] || tp.brokenFan(v) {
			out = append(out, v)
		}
	}
	return out
}
