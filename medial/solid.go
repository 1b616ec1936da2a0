package medial

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// solid is a closed, outward-oriented triangle surface prepared for
// closest-point, signed-distance and inside queries. It is immutable and
// safe for concurrent use.
type solid struct {
	what  string // names the input in errors: "surface", "core surface"
	pos   []float64
	tris  []int32
	ix    *trisearch.Index
	faceN []float64 // unit outward normal per triangle (zero if degenerate)
	adj   []int32   // per triangle, the triangle across edge (k, k+1)
	vertN []float64 // angle-weighted pseudonormal per vertex
	// smoothVertex marks the vertices where every incident face normal is
	// within creaseAngle of the pseudonormal: points of a curved surface,
	// not of an edge or corner.
	smoothVertex []bool
	// sag is per triangle the tolerance by which a ball may cut into it:
	// half its longest edge times the sine of the largest angle between its
	// normal and the smoothed normals at its corners (zero on flat parts).
	sag    []float64
	area   float64
	volume float64
	lo, hi geom.Vec
}

// newSolid checks that s is a non-empty, finite, closed, consistently and
// outward-oriented surface and indexes it. The error names what (e.g.
// "surface") and the first defect found.
func newSolid(s *format.Surface, what string) (*solid, error) {
	if s == nil || len(s.Triangles) == 0 {
		return nil, fmt.Errorf("medial: %s is empty", what)
	}
	if len(s.Positions)%3 != 0 || len(s.Triangles)%3 != 0 {
		return nil, fmt.Errorf("medial: %s: %d coordinates and %d indices are not whole triples", what, len(s.Positions), len(s.Triangles))
	}
	nv := int32(len(s.Positions) / 3)
	o := &solid{what: what, pos: s.Positions, tris: s.Triangles}
	for i, x := range s.Positions {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("medial: %s: vertex %d has a non-finite coordinate %v", what, i/3, x)
		}
	}
	for i, v := range s.Triangles {
		if v < 0 || v >= nv {
			return nil, fmt.Errorf("medial: %s: triangle %d refers to vertex %d of %d", what, i/3, v, nv)
		}
	}
	nt := len(s.Triangles) / 3
	for t := range nt {
		a, b, c := s.Triangles[3*t], s.Triangles[3*t+1], s.Triangles[3*t+2]
		if a == b || b == c || c == a {
			return nil, fmt.Errorf("medial: %s: triangle %d repeats a vertex (%d %d %d)", what, t, a, b, c)
		}
	}
	if err := o.link(); err != nil {
		return nil, err
	}
	o.normals()
	o.smoothing()
	if !(o.volume > 0) {
		return nil, fmt.Errorf("medial: %s is inside-out or flat: enclosed volume %g (triangles must wind counterclockwise seen from outside)", what, o.volume)
	}
	o.ix = trisearch.New(o.pos, o.tris)
	o.lo, o.hi = geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}, geom.Vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i < len(o.pos); i += 3 {
		for k := range 3 {
			o.lo[k], o.hi[k] = min(o.lo[k], o.pos[i+k]), max(o.hi[k], o.pos[i+k])
		}
	}
	return o, nil
}

// link fills adj, failing unless every edge is shared by exactly two
// triangles that traverse it in opposite directions.
func (o *solid) link() error {
	type half struct{ a, b, t, k int32 } // edge a→b, edge k of triangle t
	nt := len(o.tris) / 3
	hs := make([]half, 0, 3*nt)
	for t := range nt {
		for k := range 3 {
			a, b := o.tris[3*t+k], o.tris[3*t+(k+1)%3]
			hs = append(hs, half{min(a, b), max(a, b), int32(t), int32(k)})
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b), cmp.Compare(x.t, y.t))
	})
	o.adj = make([]int32, 3*nt)
	for i := 0; i < len(hs); {
		j := i
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			j++
		}
		if j-i != 2 {
			return fmt.Errorf("medial: %s is not closed and manifold: edge (%d, %d) is used by %d triangles, not 2", o.what, hs[i].a, hs[i].b, j-i)
		}
		x, y := hs[i], hs[i+1]
		if o.tris[3*x.t+x.k] == o.tris[3*y.t+y.k] {
			return fmt.Errorf("medial: %s is not consistently oriented: triangles %d and %d traverse edge (%d, %d) in the same direction", o.what, x.t, y.t, x.a, x.b)
		}
		o.adj[3*x.t+x.k], o.adj[3*y.t+y.k] = y.t, x.t
		i = j
	}
	return nil
}

// normals computes face normals, angle-weighted vertex pseudonormals
// (Bærentzen & Aanæs 2005), area and volume.
func (o *solid) normals() {
	nt := len(o.tris) / 3
	o.faceN = make([]float64, 3*nt)
	o.vertN = make([]float64, len(o.pos))
	for t := range nt {
		id := o.tris[3*t : 3*t+3]
		p := [3]geom.Vec{geom.At(o.pos, id[0]), geom.At(o.pos, id[1]), geom.At(o.pos, id[2])}
		n := geom.Cross(geom.Sub(p[1], p[0]), geom.Sub(p[2], p[0]))
		l := geom.Norm(n)
		o.area += l / 2
		o.volume += geom.Dot(p[0], geom.Cross(p[1], p[2])) / 6
		if l == 0 {
			continue
		}
		n = geom.Scale(1/l, n)
		copy(o.faceN[3*t:], n[:])
		for k := range 3 {
			u, v := geom.Sub(p[(k+1)%3], p[k]), geom.Sub(p[(k+2)%3], p[k])
			ang := math.Atan2(geom.Norm(geom.Cross(u, v)), geom.Dot(u, v))
			for c := range 3 {
				o.vertN[3*id[k]+int32(c)] += ang * n[c]
			}
		}
	}
}

// closest returns the surface point nearest p and its triangle.
func (o *solid) closest(p geom.Vec) (q geom.Vec, tri int32, d2 float64) {
	return o.ix.Closest(p)
}

// signedDistance returns the distance from p to the surface, positive
// inside and negative outside, and the closest surface point. The sign
// comes from the pseudonormal of the feature (face, edge or vertex) the
// closest point lies on, which is exact for a closed oriented surface.
func (o *solid) signedDistance(p geom.Vec) (float64, geom.Vec) {
	q, t, d2 := o.closest(p)
	d := math.Sqrt(d2)
	if d == 0 {
		return 0, q
	}
	if geom.Dot(geom.Sub(p, q), o.pseudonormal(t, q)) > 0 {
		return -d, q
	}
	return d, q
}

// pseudonormal returns the outward pseudonormal at point q of triangle t:
// the face normal inside the face, the sum of the two face normals on an
// edge, the angle-weighted normal at a vertex.
func (o *solid) pseudonormal(t int32, q geom.Vec) geom.Vec {
	id := o.tris[3*t : 3*t+3]
	a, b, c := geom.At(o.pos, id[0]), geom.At(o.pos, id[1]), geom.At(o.pos, id[2])
	w := barycentric(q, a, b, c)
	const tol = 1e-10
	for k := range 3 {
		if w[k] > 1-tol {
			return geom.At(o.vertN, id[k])
		}
	}
	n := geom.At(o.faceN, t)
	for k := range 3 {
		if w[(k+2)%3] < tol { // q on edge (k, k+1), opposite corner k+2
			return geom.Add(n, geom.At(o.faceN, o.adj[3*t+int32(k)]))
		}
	}
	return n
}

// barycentric returns the barycentric coordinates of q (assumed in the
// plane of abc) with respect to a, b, c; a degenerate triangle gives the
// coordinates of its nearest corner.
func barycentric(q, a, b, c geom.Vec) [3]float64 {
	v0, v1, v2 := geom.Sub(b, a), geom.Sub(c, a), geom.Sub(q, a)
	d00, d01, d11 := geom.Dot(v0, v0), geom.Dot(v0, v1), geom.Dot(v1, v1)
	d20, d21 := geom.Dot(v2, v0), geom.Dot(v2, v1)
	den := d00*d11 - d01*d01
	if den <= 0 {
		best, k := math.Inf(1), 0
		for i, x := range [3]geom.Vec{a, b, c} {
			if d := geom.Dist2(q, x); d < best {
				best, k = d, i
			}
		}
		var w [3]float64
		w[k] = 1
		return w
	}
	v := (d11*d20 - d01*d21) / den
	u := (d00*d21 - d01*d20) / den
	return [3]float64{1 - v - u, v, u}
}

// inside reports whether p is inside the solid or within tol of its
// surface.
func (o *solid) inside(p geom.Vec, tol float64) bool {
	d, _ := o.signedDistance(p)
	return d >= -tol
}

// diag returns the length of the bounding-box diagonal.
func (o *solid) diag() float64 { return geom.Norm(geom.Sub(o.hi, o.lo)) }

// creaseCos is the cosine of the crease angle: faces meeting at a larger
// angle form a sharp edge, which normals are not smoothed across.
var creaseCos = math.Cos(30 * math.Pi / 180)

// smoothing fills smoothVertex and sag.
func (o *solid) smoothing() {
	nv, nt := len(o.pos)/3, len(o.tris)/3
	start := make([]int32, nv+1)
	for _, v := range o.tris {
		start[v+1]++
	}
	for v := range nv {
		start[v+1] += start[v]
	}
	ring := make([]int32, len(o.tris))
	fill := slices.Clone(start[:nv])
	for i, v := range o.tris {
		ring[fill[v]] = int32(i / 3)
		fill[v]++
	}
	o.smoothVertex = make([]bool, nv)
	for v := range nv {
		n := geom.At(o.vertN, int32(v))
		l := geom.Norm(n)
		ok := l > 0
		for _, t := range ring[start[v]:start[v+1]] {
			ok = ok && geom.Dot(geom.At(o.faceN, t), n) >= creaseCos*l
		}
		o.smoothVertex[v] = ok
	}
	o.sag = make([]float64, nt)
	for t := range nt {
		n := geom.At(o.faceN, int32(t))
		if n == (geom.Vec{}) {
			continue
		}
		minCos := 1.0
		for _, v := range o.tris[3*t : 3*t+3] {
			// The corner normal: the angle-weighted mean of the faces at v
			// within the crease angle of this face.
			var cn geom.Vec
			for _, u := range ring[start[v]:start[v+1]] {
				if nu := geom.At(o.faceN, u); geom.Dot(nu, n) >= creaseCos {
					cn = geom.Add(cn, geom.Scale(o.cornerAngle(u, v), nu))
				}
			}
			if l := geom.Norm(cn); l > 0 {
				minCos = min(minCos, geom.Dot(cn, n)/l)
			}
		}
		sin := math.Sqrt(max(0, 1-minCos*minCos))
		o.sag[t] = o.triangleSize(int32(t)).long * sin / 2
	}
}

// cornerAngle returns the angle of triangle t at its vertex v.
func (o *solid) cornerAngle(t, v int32) float64 {
	id := o.tris[3*t : 3*t+3]
	k := slices.Index(id, v)
	p := geom.At(o.pos, id[k])
	u, w := geom.Sub(geom.At(o.pos, id[(k+1)%3]), p), geom.Sub(geom.At(o.pos, id[(k+2)%3]), p)
	return math.Atan2(geom.Norm(geom.Cross(u, w)), geom.Dot(u, w))
}

// triSize is the size of a triangle.
type triSize struct{ long, twiceArea float64 }

// triangleSize returns the longest edge and twice the area of triangle t.
func (o *solid) triangleSize(t int32) triSize {
	id := o.tris[3*t : 3*t+3]
	a, b, c := geom.At(o.pos, id[0]), geom.At(o.pos, id[1]), geom.At(o.pos, id[2])
	return triSize{
		long:      math.Sqrt(max(geom.Dist2(a, b), geom.Dist2(b, c), geom.Dist2(c, a))),
		twiceArea: geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a))),
	}
}
