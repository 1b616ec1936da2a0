package stuffing

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
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
type miss struct {
	p geom.Vec
	d float64
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

// measure samples both one-sided distances between the output boundary
// (triangles tris of m, vertex provenance onTri) and the input.
func measure(lc *locator, m *tetmesh.Mesh, tris []int32, onTri []int32, tol float64) fidelity {
	in := lc.in
	var f fidelity
	outIndex := trisearch.New(m.Positions, tris)

	// Input → output.
	nt := in.numTris()
	type result struct {
		d        float64
		bounding bool
		worst    geom.Vec
		bad      []miss
	}
	res := make([]result, nt)
	parallelFor(nt, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			r := &res[t]
			a, b, c := in.corners(int32(t))
			if in.normal[t] == (geom.Vec{}) {
				continue
			}
			longest := math.Sqrt(max(geom.Dist2(a, b), geom.Dist2(b, c), geom.Dist2(c, a)))
			n := int(min(4096, math.Ceil(longest/tol)))
			n = max(n, 1)
			// Samples: the grid i+j+k = n on the edges, and every
			// (n/4)-th grid point inside. Points are pulled a hair
			// towards the centroid so that they lie inside t.
			g := geom.Scale(1.0/3, geom.Add(a, geom.Add(b, c)))
			stride := max(1, n/4)
			// Whether t bounds the solid is tested at its centroid and
			// near its corners; only where they disagree (t crosses
			// another part of the input) is each sample tested.
			uniform, all := true, lc.bounds(g, int32(t))
			for _, p := range [3]geom.Vec{a, b, c} {
				if lc.bounds(geom.Add(p, geom.Scale(0.1, geom.Sub(g, p))), int32(t)) != all {
					uniform = false
				}
			}
			for i := 0; i <= n; i++ {
				for j := 0; i+j <= n; j++ {
					k := n - i - j
					onEdge := i == 0 || j == 0 || k == 0
					if !onEdge && (i%stride != 0 || j%stride != 0) {
						continue
					}
					p := geom.Scale(1/float64(n), geom.Add(geom.Scale(float64(i), a), geom.Add(geom.Scale(float64(j), b), geom.Scale(float64(k), c))))
					p = geom.Add(p, geom.Scale(1e-6, geom.Sub(g, p)))
					if uniform && !all || !uniform && !lc.bounds(p, int32(t)) {
						continue
					}
					r.bounding = true
					_, _, d2 := outIndex.Closest(p)
					d := math.Sqrt(d2)
					if d > r.d {
						r.d = d
					}
					if d > tol {
						r.bad = append(r.bad, miss{p, d})
					}
				}
			}
		}
	})
	var bounding []int32
	for t, r := range res {
		f.in = max(f.in, r.d)
		f.bad = append(f.bad, r.bad...)
		if r.bounding {
			bounding = append(bounding, in.tris[3*t:3*t+3]...)
		}
	}
	if len(bounding) == 0 {
		return f
	}
	inIndex := trisearch.New(in.pos, bounding)

	// Output → input.
	nb := len(tris) / 3
	dOut := make([]float64, nb)
	badOut := make([][]miss, nb)
	area := make([]float64, nb)
	gap := make([]float64, nb)
	parallelFor(nb, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			v := tris[3*t : 3*t+3]
			a, b, c := m.Vertex(v[0]), m.Vertex(v[1]), m.Vertex(v[2])
			area[t] = geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a))) / 2
			if onTri[v[0]] < 0 || onTri[v[1]] < 0 || onTri[v[2]] < 0 {
				continue
			}
			for k, p := range [4]geom.Vec{mid(a, b), mid(b, c), mid(c, a), geom.Scale(1.0/3, geom.Add(a, geom.Add(b, c)))} {
				_, _, d2 := inIndex.Closest(p)
				d := math.Sqrt(d2)
				dOut[t] = max(dOut[t], d)
				if d > tol {
					badOut[t] = append(badOut[t], miss{p, d})
				}
				if k < 3 {
					gap[t] += area[t] * d / 3
				}
			}
			area[t] = 0 // on the input: not fill
		}
	})
	for t := range dOut {
		f.out = max(f.out, dOut[t])
		f.bad = append(f.bad, badOut[t]...)
		f.fillArea += area[t]
		if gap[t] > 0 {
			f.gap += gap[t]
			v := tris[3*t : 3*t+3]
			f.gaps = append(f.gaps, faceGap{geom.Scale(1.0/3, geom.Add(m.Vertex(v[0]), geom.Add(m.Vertex(v[1]), m.Vertex(v[2])))), gap[t]})
		}
	}
	return f
}

func mid(a, b geom.Vec) geom.Vec { return geom.Scale(0.5, geom.Add(a, b)) }
