package stuffing

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// Fidelity is measured, not assumed. Two one-sided distances are sampled:
//
//   - from the input to the output boundary, over the parts of the input
//     that bound the solid: every input vertex, points along every input
//     edge no farther apart than the tolerance, and a grid inside each
//     triangle about four times coarser (inside, the output's vertices lie
//     on the input); a point bounds the solid when w just in front of its
//     triangle and w just behind lie on opposite sides of 1/2, which is
//     tested point by point only on triangles whose centroid and corners
//     disagree;
//   - from the output boundary to those input triangles (the ones with a
//     bounding sample), over the boundary triangles that lie on the input
//     (all three vertices on an input triangle, not on a surface spanning a
//     hole): the midpoint of every edge and the centroid of every triangle,
//     vertices being on the input by construction.
//
// The distance to a set is 1-Lipschitz, so between samples s apart the
// sampled maximum can miss the true one by at most s/2.

// locator answers which side of the solid a point is on, from the lattice:
// W is known at the centre of the leaf containing the point and carried to
// it by counting crossings, as in classify.
type locator struct {
	in *input
	o  *octree
	L  *lattice
	w  []float64 // winding number per lattice vertex
}

func (lc *locator) windingAt(p geom.Vec) float64 {
	o := lc.o
	n := float64(uint32(1) << maxLevel)
	var idx [3]uint32
	for k := range 3 {
		f := (p[k] - o.origin[k]) / o.size * n
		if !(f >= 0 && f < n) {
			return 0 // outside the root: outside the solid
		}
		idx[k] = uint32(f)
	}
	key, _, ok := o.leafAt(maxLevel, idx[0], idx[1], idx[2])
	if !ok {
		return lc.in.wind.At(p)
	}
	l, i, j, k := unpackNode(key)
	s := cellUnits(l)
	c := lc.L.index.get(vertexKey(i*s+s/2, j*s+s/2, k*s+s/2))
	cp := lc.L.vertex(c)
	W := math.Round(lc.w[c] + lc.in.cl.coneW(cp))
	if jump, exact := lc.in.cl.jump(cp, p); exact {
		W += float64(jump)
	} else {
		W = float64(lc.in.integerW(p))
	}
	return W - lc.in.cl.coneW(p)
}

// bounds reports whether the point p of input triangle t lies on the
// solid's boundary: just in front of t and just behind it are on opposite
// sides of w = 1/2.
func (lc *locator) bounds(p geom.Vec, t int32) bool {
	d := 1e-7 * lc.in.diag
	n := lc.in.normal[t]
	front, back := geom.Add(p, geom.Scale(d, n)), geom.Sub(p, geom.Scale(d, n))
	wf := lc.windingAt(front)
	wb := wf
	if jump, exact := lc.in.cl.jump(front, back); exact {
		wb += float64(jump) - lc.in.cl.coneW(back) + lc.in.cl.coneW(front)
	} else {
		wb = lc.windingAt(back)
	}
	return (wf > 0.5) != (wb > 0.5)
}

// miss is a sample farther than the tolerance from the other surface.
// A sample of the output boundary records the edge it was taken on (for
// a triangle's centroid, the triangle's longest edge).
type miss struct {
	p    geom.Vec
	d    float64
	out  bool
	a, b int32
}

// fidelity is the result of measure.
type fidelity struct {
	in, out  float64 // largest sampled distances, input→output and output→input
	bad      []miss  // samples farther than the tolerance
	fillArea float64
	// gap is the volume between the output boundary and the input,
	// Σ area × mean distance over the boundary faces on the input (the
	// mean from the edge midpoints, exact for a quadratic gap): a bound on
	// the volume error, as convex and concave parts would partly cancel.
	gap float64
	// gaps holds each such face's centroid and share of gap.
	gaps []faceGap
}

// faceGap is one output boundary face's share of the volume gap.
type faceGap struct {
	at  geom.Vec
	gap float64
}

// widest returns the centroids of the faces with the largest gaps, as
// many as make up the part of f.gap over limit (refining one divides its
// gap by about four).
func (f *fidelity) widest(limit float64) []geom.Vec {
	if f.gap <= limit {
		return nil
	}
	g := slices.Clone(f.gaps)
	slices.SortFunc(g, func(a, b faceGap) int {
		return cmp.Or(cmp.Compare(b.gap, a.gap), cmp.Compare(a.at[0], b.at[0]), cmp.Compare(a.at[1], b.at[1]), cmp.Compare(a.at[2], b.at[2]))
	})
	var out []geom.Vec
	for rest := f.gap - limit/2; rest > 0 && len(out) < len(g); {
		rest -= 0.75 * g[len(out)].gap
		out = append(out, g[len(out)].at)
	}
	return out
}

// measurement holds the samples' results per input triangle and per
// output boundary triangle, so that moving a few boundary vertices (mend)
// needs only the triangles near them measured again.
type measurement struct {
	lc       *locator
	m        *tetmesh.Mesh
	tris     []int32 // output boundary triangles
	onTri    []int32
	tol      float64
	outIndex *trisearch.Index
	inIndex  *trisearch.Index // the input triangles that bound the solid
	in       []inResult       // per input triangle
	out      []outResult      // per output boundary triangle
}

type inResult struct {
	d        float64 // largest sampled distance to the output
	bounding bool
	bad      []miss
}

type outResult struct {
	d, gap, fill float64 // largest distance, share of the volume gap, fill area
	bad          []miss
}

// measure samples both one-sided distances between the output boundary
// (triangles tris of m, vertex provenance onTri) and the input.
func measure(lc *locator, m *tetmesh.Mesh, tris []int32, onTri []int32, tol float64) (*measurement, fidelity) {
	ms := &measurement{lc: lc, m: m, tris: tris, onTri: onTri, tol: tol,
		outIndex: trisearch.New(m.Positions, tris),
		in:       make([]inResult, lc.in.numTris()), out: make([]outResult, len(tris)/3)}
	// Input triangles differ in size, and so in samples, by orders of
	// magnitude: small chunks keep both cores busy to the end.
	par.For(len(ms.in), 16, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			ms.in[t] = ms.inputTri(int32(t))
		}
	})
	var bounding []int32
	for t, r := range ms.in {
		if r.bounding {
			bounding = append(bounding, lc.in.tris[3*t:3*t+3]...)
		}
	}
	if len(bounding) == 0 {
		return ms, ms.fidelity()
	}
	ms.inIndex = trisearch.New(lc.in.pos, bounding)
	par.For(len(ms.out), chunk, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			ms.out[t] = ms.outputTri(int32(t))
		}
	})
	return ms, ms.fidelity()
}

// inputTri samples input triangle t against the output boundary.
func (ms *measurement) inputTri(t int32) inResult {
	lc, in, tol := ms.lc, ms.lc.in, ms.tol
	var r inResult
	a, b, c := in.corners(t)
	if in.normal[t] == (geom.Vec{}) {
		return r
	}
	longest := math.Sqrt(max(geom.Dist2(a, b), geom.Dist2(b, c), geom.Dist2(c, a)))
	n := int(min(4096, math.Ceil(longest/tol)))
	n = max(n, 1)
	// Samples: the grid i+j+k = n on the edges, and every (n/4)-th grid
	// point inside. Points are pulled a hair towards the centroid so that
	// they lie inside t.
	g := geom.Scale(1.0/3, geom.Add(a, geom.Add(b, c)))
	stride := max(1, n/4)
	// Whether t bounds the solid is tested at its centroid and near its
	// corners; only where they disagree (t crosses another part of the
	// input) is each sample tested.
	uniform, all := true, lc.bounds(g, t)
	for _, p := range [3]geom.Vec{a, b, c} {
		if lc.bounds(geom.Add(p, geom.Scale(0.1, geom.Sub(g, p))), t) != all {
			uniform = false
		}
	}
	hint := int32(-1)
	for i := 0; i <= n; i++ {
		for j := 0; i+j <= n; j++ {
			k := n - i - j
			onEdge := i == 0 || j == 0 || k == 0
			if !onEdge && (i%stride != 0 || j%stride != 0) {
				continue
			}
			p := geom.Scale(1/float64(n), geom.Add(geom.Scale(float64(i), a), geom.Add(geom.Scale(float64(j), b), geom.Scale(float64(k), c))))
			p = geom.Add(p, geom.Scale(1e-6, geom.Sub(g, p)))
			if uniform && !all || !uniform && !lc.bounds(p, t) {
				continue
			}
			r.bounding = true
			// The nearest triangle is no farther than the last sample's:
			// a sample that near can neither raise r.d nor miss.
			if hint >= 0 {
				if d := math.Sqrt(ms.outIndex.TriangleDist2(p, hint)); d <= r.d && d <= tol {
					continue
				}
			}
			var d2 float64
			hint, d2 = nearestFrom(ms.outIndex, p, hint)
			d := math.Sqrt(d2)
			r.d = max(r.d, d)
			if d > tol {
				r.bad = append(r.bad, miss{p: p, d: d})
			}
		}
	}
	return r
}

// outputTri samples output boundary triangle t against the input.
func (ms *measurement) outputTri(t int32) outResult {
	var r outResult
	v := ms.tris[3*t : 3*t+3]
	a, b, c := ms.m.Vertex(v[0]), ms.m.Vertex(v[1]), ms.m.Vertex(v[2])
	area := geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a))) / 2
	if ms.onTri[v[0]] < 0 || ms.onTri[v[1]] < 0 || ms.onTri[v[2]] < 0 {
		r.fill = area
		return r
	}
	hint := int32(-1)
	for k, p := range [4]geom.Vec{mid(a, b), mid(b, c), mid(c, a), geom.Scale(1.0/3, geom.Add(a, geom.Add(b, c)))} {
		var d2 float64
		hint, d2 = nearestFrom(ms.inIndex, p, hint)
		d := math.Sqrt(d2)
		r.d = max(r.d, d)
		if d > ms.tol {
			e := k
			if k == 3 { // the longest edge
				l := [3]float64{geom.Dist2(a, b), geom.Dist2(b, c), geom.Dist2(c, a)}
				e = 0
				for j := range 3 {
					if l[j] > l[e] {
						e = j
					}
				}
			}
			r.bad = append(r.bad, miss{p: p, d: d, out: true, a: v[e], b: v[(e+1)%3]})
		}
		if k < 3 {
			r.gap += area * d / 3
		}
	}
	return r
}

// fidelity sums up the per-triangle results.
func (ms *measurement) fidelity() fidelity {
	var f fidelity
	for _, r := range ms.in {
		f.in = max(f.in, r.d)
		f.bad = append(f.bad, r.bad...)
	}
	for t, r := range ms.out {
		f.out = max(f.out, r.d)
		f.bad = append(f.bad, r.bad...)
		f.fillArea += r.fill
		if r.gap > 0 {
			f.gap += r.gap
			v := ms.tris[3*t : 3*t+3]
			f.gaps = append(f.gaps, faceGap{geom.Scale(1.0/3, geom.Add(ms.m.Vertex(v[0]), geom.Add(ms.m.Vertex(v[1]), ms.m.Vertex(v[2])))), r.gap})
		}
	}
	return f
}

// update measures again after mend changed the boundary (now triangles
// tris, vertex provenance onTri), sampling only what can have changed:
// the output triangles around moved and new vertices (all output
// triangles, if the triangulation changed), and the input triangles within
// the largest input→output distance of those, before or after. (A sample
// farther than its distance from every changed triangle keeps its nearest
// point and its distance.)
func (ms *measurement) update(done mended, tris, onTri []int32, prev fidelity) fidelity {
	nv := int32(ms.m.NumVertices())
	if len(done.moved) == 0 && done.added == nv {
		return prev
	}
	ms.tris, ms.onTri = tris, onTri
	ms.outIndex = trisearch.New(ms.m.Positions, tris)
	was := make(map[int32]geom.Vec, len(done.moved))
	for i, v := range done.moved {
		was[v] = done.old[i]
	}
	touched := func(v int32) bool {
		_, ok := was[v]
		return ok || v >= done.added
	}
	fans := make(map[int32][]int32) // changed output triangles around each changed vertex
	var changed []int32
	for t := range len(tris) / 3 {
		hit := false
		for _, v := range tris[3*t : 3*t+3] {
			if touched(v) {
				fans[v] = append(fans[v], int32(t))
				hit = true
			}
		}
		if hit {
			changed = append(changed, int32(t))
		}
	}
	pad := prev.in
	seen := make(map[int32]bool)
	var inTris []int32
	for v, fan := range fans {
		box := [6]float64{math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		grow := func(p geom.Vec) {
			for k := range 3 {
				box[k], box[k+3] = min(box[k], p[k]-pad), max(box[k+3], p[k]+pad)
			}
		}
		if p, ok := was[v]; ok {
			grow(p)
		}
		for _, t := range fan {
			for _, u := range tris[3*t : 3*t+3] {
				grow(ms.m.Vertex(u))
			}
		}
		ms.lc.in.search.Tree.Query(box, func(u int32) bool {
			if !seen[u] {
				seen[u] = true
				inTris = append(inTris, u)
			}
			return true
		})
	}
	par.For(len(inTris), 16, func(lo, hi int) {
		for _, u := range inTris[lo:hi] {
			ms.in[u] = ms.inputTri(u)
		}
	})
	if ms.inIndex == nil {
		return ms.fidelity()
	}
	if done.added < nv { // new triangulation: all of it
		changed = changed[:0]
		for t := range len(tris) / 3 {
			changed = append(changed, int32(t))
		}
		ms.out = make([]outResult, len(tris)/3)
	}
	par.For(len(changed), 256, func(lo, hi int) {
		for _, t := range changed[lo:hi] {
			ms.out[t] = ms.outputTri(t)
		}
	})
	return ms.fidelity()
}

// nearestFrom returns the triangle of ix nearest p and its squared
// distance, as ix.Closest does, searching only nearer than triangle hint
// (the answer for a neighbouring sample) when there is one: samples along
// a triangle mostly share their nearest triangle, and the bound prunes
// the search to its neighbourhood. The distance is the same either way.
func nearestFrom(ix *trisearch.Index, p geom.Vec, hint int32) (int32, float64) {
	dist2 := func(t int32) float64 { return ix.TriangleDist2(p, t) }
	if hint < 0 {
		return ix.Tree.Nearest(p, dist2)
	}
	bound := dist2(hint)
	if t, d2 := ix.Tree.NearestWithin(p, bound, dist2); t >= 0 {
		return t, d2
	}
	return hint, bound
}

func mid(a, b geom.Vec) geom.Vec { return geom.Scale(0.5, geom.Add(a, b)) }
