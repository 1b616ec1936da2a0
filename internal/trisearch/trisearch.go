// Package trisearch answers closest-point queries on a triangle surface
// through a BVH over its triangles.
package trisearch

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Index is a closest-point index over a triangle surface, safe for
// concurrent queries. Closest and NearestLifted answer for the corners as
// they were at New (the index keeps a copy of them with its boxes);
// Triangle and TriangleDist2 read Positions as they are now, for callers
// that move vertices after indexing.
type Index struct {
	Positions []float64
	Triangles []int32
	Tree      *bvh.Tree
	// corners holds each triangle's corners and unit normal (zero when
	// degenerate, for the plane-distance test), twelve values a triangle:
	// a query reads them in one place instead of through Triangles.
	corners []float64
}

// New indexes the triangles (three vertex indices each) over positions.
func New(positions []float64, triangles []int32) *Index {
	n := len(triangles) / 3
	boxes := make([]float64, 6*n)
	for t := 0; t < n; t++ {
		b := boxes[6*t : 6*t+6]
		for k := 0; k < 3; k++ {
			b[k], b[3+k] = positions[3*triangles[3*t]+int32(k)], positions[3*triangles[3*t]+int32(k)]
		}
		for j := 1; j < 3; j++ {
			for k := 0; k < 3; k++ {
				x := positions[3*triangles[3*t+j]+int32(k)]
				b[k], b[3+k] = min(b[k], x), max(b[3+k], x)
			}
		}
	}
	corners := make([]float64, 12*n)
	for t := 0; t < n; t++ {
		a, b, c := geom.At(positions, triangles[3*t]), geom.At(positions, triangles[3*t+1]), geom.At(positions, triangles[3*t+2])
		r := corners[12*t : 12*t+12]
		copy(r, a[:])
		copy(r[3:], b[:])
		copy(r[6:], c[:])
		if nv := geom.Cross(geom.Sub(b, a), geom.Sub(c, a)); geom.Norm(nv) > 0 {
			u := geom.Scale(1/geom.Norm(nv), nv)
			copy(r[9:], u[:])
		}
	}
	return &Index{Positions: positions, Triangles: triangles, Tree: bvh.Build(boxes, 4), corners: corners}
}

// Triangle returns the corners of triangle t.
func (ix *Index) Triangle(t int32) (a, b, c geom.Vec) {
	return geom.At(ix.Positions, ix.Triangles[3*t]), geom.At(ix.Positions, ix.Triangles[3*t+1]), geom.At(ix.Positions, ix.Triangles[3*t+2])
}

// Closest returns the point of the surface nearest p, the triangle it lies
// on and the squared distance; ties go to the lowest triangle index. It
// returns tri = −1 for an empty surface.
func (ix *Index) Closest(p geom.Vec) (q geom.Vec, tri int32, d2 float64) {
	tri, d2 = ix.nearest(p, nil)
	if tri >= 0 {
		a, b, c := ix.Triangle(tri)
		q = ClosestOnTriangle(p, a, b, c)
	}
	return q, tri, d2
}

// NearestLifted returns the triangle t nearest p when each is pushed away
// from p by lift(t, a) ≥ 0 (a its first corner), and the square of that
// lifted distance, |p − t| + lift; ties as Closest's.
func (ix *Index) NearestLifted(p geom.Vec, lift func(t int32, a geom.Vec) float64) (tri int32, d2 float64) {
	return ix.nearest(p, lift)
}

// nearest is Closest's search, and NearestLifted's when lift is not nil.
// A triangle whose plane is farther from p than the nearest triangle so
// far cannot be nearer, so its closest point is not sought: a lower bound
// of its distance is returned instead, which the search passes over as it
// would the exact one. Points deep inside a body (a medial core's) have
// many triangles within their boxes' reach and beyond their planes'
// (BenchmarkClosest: 145 → 64 µs a query).
func (ix *Index) nearest(p geom.Vec, lift func(t int32, a geom.Vec) float64) (int32, float64) {
	least := math.Inf(1)
	return ix.Tree.Nearest(p, func(t int32) float64 {
		r := ix.corners[12*t : 12*t+12]
		a, b, c, n := (*geom.Vec)(r[0:3]), (*geom.Vec)(r[3:6]), (*geom.Vec)(r[6:9]), (*geom.Vec)(r[9:12])
		l := 0.0
		if lift != nil {
			l = lift(t, *a)
		}
		// In scalars, as closest is.
		apx, apy, apz := p[0]-a[0], p[1]-a[1], p[2]-a[2]
		// |ap·n| is within a few ulps of |ap| of the plane's distance; the
		// margin, far above that, keeps the test from passing over a
		// triangle whose exact distance ties with or beats least.
		s := math.Abs(apx*n[0]+apy*n[1]+apz*n[2]) - 1e-12*(math.Abs(apx)+math.Abs(apy)+math.Abs(apz))
		if lb := max(0, s) + l; lb*lb > least*(1+1e-9) {
			return lb * lb
		}
		e := dist2(&p, a, b, c)
		if lift != nil {
			d := math.Sqrt(e) + l
			e = d * d
		}
		least = min(least, e)
		return e
	})
}

// TriangleDist2 returns the squared distance from p to triangle t, as
// geom.Dist2(p, ClosestOnTriangle(p, a, b, c)) for its corners a, b, c
// does, bit for bit. Like Triangle, it reads the corners from Positions:
// a caller that moved vertices after New sees them where they are now.
func (ix *Index) TriangleDist2(p geom.Vec, t int32) float64 {
	a, b, c := ix.cornersNow(t)
	return dist2(&p, a, b, c)
}

// ClosestOn returns the point of triangle t nearest p, as
// ClosestOnTriangle(p, a, b, c) for its corners a, b, c does, bit for bit,
// reading the corners from Positions as TriangleDist2 does.
func (ix *Index) ClosestOn(p geom.Vec, t int32) geom.Vec {
	a, b, c := ix.cornersNow(t)
	x, y, z := closest(&p, a, b, c)
	return geom.Vec{x, y, z}
}

// cornersNow returns pointers to triangle t's corners in Positions.
func (ix *Index) cornersNow(t int32) (a, b, c *geom.Vec) {
	at := func(v int32) *geom.Vec { return (*geom.Vec)(ix.Positions[3*v : 3*v+3]) }
	return at(ix.Triangles[3*t]), at(ix.Triangles[3*t+1]), at(ix.Triangles[3*t+2])
}

// dist2 is the squared distance from p to triangle abc, in scalars.
func dist2(p, a, b, c *geom.Vec) float64 {
	x, y, z := closest(p, a, b, c)
	dx, dy, dz := p[0]-x, p[1]-y, p[2]-z
	return dx*dx + dy*dy + dz*dz
}

// ClosestOnTriangle returns the point of triangle abc nearest p, by the
// Voronoi-region case analysis of Ericson, "Real-Time Collision
// Detection", §5.1.5. Degenerate triangles are handled: the answer is then
// the nearest point of their edges.
func ClosestOnTriangle(p, a, b, c geom.Vec) geom.Vec {
	x, y, z := closest(&p, &a, &b, &c)
	return geom.Vec{x, y, z}
}

// closest is ClosestOnTriangle on pointers, written out in scalars: the
// closest-point queries (the core's, the robust path's) spend most of
// their time in it, and the vector form copied [3]float64 values through
// memory. Its operations are the vector form's, in the same order, so its
// answers are the same to the bit.
func closest(p, a, b, c *geom.Vec) (x, y, z float64) {
	abx, aby, abz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	acx, acy, acz := c[0]-a[0], c[1]-a[1], c[2]-a[2]
	apx, apy, apz := p[0]-a[0], p[1]-a[1], p[2]-a[2]
	d1, d2 := abx*apx+aby*apy+abz*apz, acx*apx+acy*apy+acz*apz
	if d1 <= 0 && d2 <= 0 {
		return a[0], a[1], a[2]
	}
	bpx, bpy, bpz := p[0]-b[0], p[1]-b[1], p[2]-b[2]
	d3, d4 := abx*bpx+aby*bpy+abz*bpz, acx*bpx+acy*bpy+acz*bpz
	if d3 >= 0 && d4 <= d3 {
		return b[0], b[1], b[2]
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		s := d1 / (d1 - d3)
		return a[0] + s*abx, a[1] + s*aby, a[2] + s*abz
	}
	cpx, cpy, cpz := p[0]-c[0], p[1]-c[1], p[2]-c[2]
	d5, d6 := abx*cpx+aby*cpy+abz*cpz, acx*cpx+acy*cpy+acz*cpz
	if d6 >= 0 && d5 <= d6 {
		return c[0], c[1], c[2]
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		s := d2 / (d2 - d6)
		return a[0] + s*acx, a[1] + s*acy, a[2] + s*acz
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		s := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return b[0] + s*(c[0]-b[0]), b[1] + s*(c[1]-b[1]), b[2] + s*(c[2]-b[2])
	}
	den := va + vb + vc
	if den <= 0 { // degenerate triangle: nearest of the three edges
		best := closestOnSegment(*p, *a, *b)
		for _, q := range []geom.Vec{closestOnSegment(*p, *b, *c), closestOnSegment(*p, *c, *a)} {
			if geom.Dist2(*p, q) < geom.Dist2(*p, best) {
				best = q
			}
		}
		return best[0], best[1], best[2]
	}
	v, w := vb/den, vc/den
	return a[0] + (v*abx + w*acx), a[1] + (v*aby + w*acy), a[2] + (v*abz + w*acz)
}

func closestOnSegment(p, a, b geom.Vec) geom.Vec {
	ab := geom.Sub(b, a)
	l := geom.Dot(ab, ab)
	if l == 0 {
		return a
	}
	t := max(0, min(1, geom.Dot(geom.Sub(p, a), ab)/l))
	return geom.Add(a, geom.Scale(t, ab))
}
