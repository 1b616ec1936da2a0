package format

import (
	"runtime"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Self-intersection of a triangle surface, decided exactly: every test
// below is a sign of geom.Orient3D or geom.Orient2D of input points, never
// a constructed point or a tolerance. Triangles are closed sets, so
// touching counts as intersecting, except where the rule for shared
// vertices says otherwise:
//
//   - sharing all three vertices: a duplicate, reported as such, not here;
//   - sharing an edge: they intersect only if coplanar and on the same
//     side of the edge (folded onto each other);
//   - sharing a vertex: they intersect if they meet anywhere else;
//   - sharing nothing: they intersect if they meet at all.
//
// Degenerate triangles (collapsed or zero-area) have no plane and are
// left out; Diagnose counts them separately.

// maxExamples is how many intersecting pairs a report lists.
const maxExamples = 20

// triangleTree returns a BVH over the triangles (Morton order: a linear
// build); it needs only the geometry, so it can be built before welding.
func triangleTree(pos []float64, tris []int32) *bvh.Tree {
	return bvh.BuildMorton(bvh.TriangleBoxes(pos, tris), 4)
}

// selfIntersections returns the number of intersecting pairs among the
// triangles not marked skip, and the first maxExamples of them in
// lexicographic order. tree is triangleTree's for the same triangles;
// tris may since have been renumbered onto welded vertices. Pairs sharing
// a vertex that fans certifies (see flatFans) are known not to intersect.
func selfIntersections(pos []float64, tris []int32, tree *bvh.Tree, skip, fans []bool) (int, [][2]int32) {
	// Per-worker tallies, merged by sum and by sorted insertion: the same
	// whichever worker saw which pair.
	workers := runtime.GOMAXPROCS(0)
	counts := make([]int, workers)
	found := make([][][2]int32, workers)
	scratch := make([][2][]leafTriangle, workers)
	tree.SelfLeafPairsParallel(workers, func(w int, a, b []int32) {
		la := loadLeaf(pos, tris, skip, a, scratch[w][0][:0])
		scratch[w][0] = la
		lb := la
		same := &a[0] == &b[0]
		if !same {
			lb = loadLeaf(pos, tris, skip, b, scratch[w][1][:0])
			scratch[w][1] = lb
		}
		for x := range la {
			start := 0
			if same {
				start = x + 1
			}
			s := &la[x]
			for y := start; y < len(lb); y++ {
				t := &lb[y]
				if s.skip || t.skip || !boxesOverlap(&s.box, &t.box) || shareFan(s.c[:], t.c[:], fans) ||
					!trianglesIntersect(pos, s.c[:], t.c[:]) {
					continue
				}
				counts[w]++
				found[w] = addExample(found[w], [2]int32{min(s.id, t.id), max(s.id, t.id)})
			}
		}
	})
	count := 0
	var ex [][2]int32
	for w := range workers {
		count += counts[w]
		for _, p := range found[w] {
			ex = addExample(ex, p)
		}
	}
	return count, ex
}

// leafTriangle is what the search needs of a triangle, loaded once per
// leaf pair rather than once per triangle pair.
type leafTriangle struct {
	id   int32
	c    [3]int32   // corner indices
	box  [6]float64 // min xyz, max xyz
	skip bool
}

func loadLeaf(pos []float64, tris []int32, skip []bool, items []int32, out []leafTriangle) []leafTriangle {
	for _, it := range items {
		lt := leafTriangle{id: it, c: [3]int32(tris[3*it : 3*it+3]), skip: skip[it]}
		for k := range 3 {
			x0, x1, x2 := pos[3*lt.c[0]+int32(k)], pos[3*lt.c[1]+int32(k)], pos[3*lt.c[2]+int32(k)]
			lt.box[k], lt.box[3+k] = min(x0, x1, x2), max(x0, x1, x2)
		}
		out = append(out, lt)
	}
	return out
}

func boxesOverlap(a, b *[6]float64) bool {
	return a[0] <= b[3] && b[0] <= a[3] && a[1] <= b[4] && b[1] <= a[4] && a[2] <= b[5] && b[2] <= a[5]
}

// shareFan reports whether triangles s and t share a vertex whose fan is
// certified.
func shareFan(s, t []int32, fans []bool) bool {
	for _, u := range s {
		if fans[u] && (u == t[0] || u == t[1] || u == t[2]) {
			return true
		}
	}
	return false
}

// addExample inserts p into the sorted list ex, keeping at most
// maxExamples of the smallest pairs.
func addExample(ex [][2]int32, p [2]int32) [][2]int32 {
	less := func(a, b [2]int32) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }
	if len(ex) == maxExamples && !less(p, ex[len(ex)-1]) {
		return ex
	}
	i := len(ex)
	for i > 0 && less(p, ex[i-1]) {
		i--
	}
	if len(ex) < maxExamples {
		ex = append(ex, [2]int32{})
	}
	copy(ex[i+1:], ex[i:])
	ex[i] = p
	return ex
}

// trianglesIntersect decides whether the non-degenerate triangles with
// corner indices s and t intersect, under the rules above.
func trianglesIntersect(pos []float64, s, t []int32) bool {
	// Bring the shared corners to the front of both, in matching order.
	var si, ti [3]int32
	n := 0
	for i, u := range s {
		for j, w := range t {
			if u == w {
				si[n], ti[n] = int32(i), int32(j)
				n++
			}
		}
	}
	p := func(k int32) geom.Vec { return geom.At(pos, k) }
	switch n {
	case 3:
		return false
	case 2:
		u, w := p(s[si[0]]), p(s[si[1]])
		a, b := p(s[3-si[0]-si[1]]), p(t[3-ti[0]-ti[1]])
		if geom.Orient3D(u, w, a, b) != 0 {
			return false
		}
		pr := newProjection(u, w, a)
		return pr.orient(u, w, a)*pr.orient(u, w, b) > 0
	case 1:
		v := p(s[si[0]])
		a, b := p(s[(si[0]+1)%3]), p(s[(si[0]+2)%3])
		c, d := p(t[(ti[0]+1)%3]), p(t[(ti[0]+2)%3])
		return sharedVertexIntersect(v, a, b, c, d)
	}
	a := [3]geom.Vec{p(s[0]), p(s[1]), p(s[2])}
	b := [3]geom.Vec{p(t[0]), p(t[1]), p(t[2])}
	if strictlyOneSide(a, b) || strictlyOneSide(b, a) {
		return false
	}
	for i := range 3 {
		if segmentTriangle(a[i], a[(i+1)%3], b) || segmentTriangle(b[i], b[(i+1)%3], a) {
			return true
		}
	}
	return false
}

// strictlyOneSide reports whether all corners of t lie strictly on one
// side of the plane of s: the common quick rejection.
func strictlyOneSide(s, t [3]geom.Vec) bool {
	o0 := geom.Orient3D(s[0], s[1], s[2], t[0])
	return o0 != 0 && geom.Orient3D(s[0], s[1], s[2], t[1]) == o0 && geom.Orient3D(s[0], s[1], s[2], t[2]) == o0
}

// sharedVertexIntersect decides whether triangles vab and vcd, sharing
// only the vertex v, meet anywhere else.
func sharedVertexIntersect(v, a, b, c, d geom.Vec) bool {
	sa, sb := geom.Orient3D(v, c, d, a), geom.Orient3D(v, c, d, b)
	if sa*sb > 0 {
		return false // vab touches vcd's plane only at v
	}
	if sa == 0 && sb == 0 {
		// Coplanar: they meet beyond v exactly when their angular sectors
		// at v overlap, boundary rays included.
		pr := newProjection(v, a, b)
		if pr.orient(v, a, b) < 0 {
			a, b = b, a
		}
		if pr.orient(v, c, d) < 0 {
			c, d = d, c
		}
		in := func(x, a, b geom.Vec) bool { return pr.orient(v, a, x) >= 0 && pr.orient(v, x, b) >= 0 }
		return in(c, a, b) || in(d, a, b) || in(a, c, d) || in(b, c, d)
	}
	sc, sd := geom.Orient3D(v, a, b, c), geom.Orient3D(v, a, b, d)
	if sc*sd > 0 {
		return false // vcd touches vab's plane only at v
	}
	// Both triangles cross the line L where their planes meet along
	// segments starting at v; these overlap beyond v exactly when the
	// point x where cd crosses vab's plane lies in the sector of vab at v.
	// With c off that plane (else swap c, d), x lies on the same side of
	// line va within the plane as b iff Orient3D(v, a, c, d) agrees in
	// sign with Orient3D(v, a, c, b): that predicate is affine in its last
	// point and vanishes at c. Likewise for line vb and a.
	if sc == 0 {
		c, d = d, c
	}
	side := func(o1, o2 int) bool { return o1 == 0 || o1 == o2 }
	return side(geom.Orient3D(v, a, c, d), geom.Orient3D(v, a, c, b)) &&
		side(geom.Orient3D(v, b, c, d), geom.Orient3D(v, b, c, a))
}

// segmentTriangle decides whether the closed segment pq meets the closed
// non-degenerate triangle t.
func segmentTriangle(p, q geom.Vec, t [3]geom.Vec) bool {
	op, oq := geom.Orient3D(t[0], t[1], t[2], p), geom.Orient3D(t[0], t[1], t[2], q)
	if op*oq > 0 {
		return false
	}
	if op == 0 && oq == 0 {
		pr := newProjection(t[0], t[1], t[2])
		if pr.inTriangle(p, t) || pr.inTriangle(q, t) {
			return true
		}
		for i := range 3 {
			if pr.segmentsMeet(p, q, t[i], t[(i+1)%3]) {
				return true
			}
		}
		return false
	}
	// The segment crosses the plane once; the line pq passes through the
	// closed triangle iff it turns the same way (or not at all) around
	// each of its edges.
	o1, o2, o3 := geom.Orient3D(p, q, t[0], t[1]), geom.Orient3D(p, q, t[1], t[2]), geom.Orient3D(p, q, t[2], t[0])
	return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0)
}

// projection drops the coordinate axis along which a plane's points stay
// distinguishable, so exact 2D predicates decide questions within the
// plane; it preserves or reverses orientation consistently for all points
// of the plane.
type projection struct{ i, j int }

// newProjection returns a projection under which the non-collinear
// points a, b, c stay non-collinear.
func newProjection(a, b, c geom.Vec) projection {
	for k := range 3 {
		pr := projection{(k + 1) % 3, (k + 2) % 3}
		if pr.orient(a, b, c) != 0 {
			return pr
		}
	}
	return projection{0, 1}
}

func (pr projection) orient(a, b, c geom.Vec) int {
	return geom.Orient2D([2]float64{a[pr.i], a[pr.j]}, [2]float64{b[pr.i], b[pr.j]}, [2]float64{c[pr.i], c[pr.j]})
}

// inTriangle reports whether p lies in the closed triangle t (coplanar).
func (pr projection) inTriangle(p geom.Vec, t [3]geom.Vec) bool {
	o1, o2, o3 := pr.orient(t[0], t[1], p), pr.orient(t[1], t[2], p), pr.orient(t[2], t[0], p)
	return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0)
}

// segmentsMeet reports whether the closed coplanar segments pq and rs meet.
func (pr projection) segmentsMeet(p, q, r, s geom.Vec) bool {
	o1, o2 := pr.orient(p, q, r), pr.orient(p, q, s)
	o3, o4 := pr.orient(r, s, p), pr.orient(r, s, q)
	if o1*o2 < 0 && o3*o4 < 0 {
		return true
	}
	on := func(a, b, x geom.Vec) bool { // x collinear with ab: within its box?
		return min(a[pr.i], b[pr.i]) <= x[pr.i] && x[pr.i] <= max(a[pr.i], b[pr.i]) &&
			min(a[pr.j], b[pr.j]) <= x[pr.j] && x[pr.j] <= max(a[pr.j], b[pr.j])
	}
	return o1 == 0 && on(p, q, r) || o2 == 0 && on(p, q, s) || o3 == 0 && on(r, s, p) || o4 == 0 && on(r, s, q)
}
