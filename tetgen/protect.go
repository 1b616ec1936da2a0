package tetgen

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Protecting balls at small input angles. Where two input edges meet at
// a small angle, Delaunay refinement for the radius-edge bound need not
// end: a tet whose shortest edge joins points on the two edges has a
// large circumradius, its circumcentre encroaches a subface or
// subsegment nearer the apex, that split makes a shorter edge across
// the angle, and so on towards the apex (on a cylinder's 10° cap fan,
// down to edges of 1e−8 at the fan's centre, until the global vertex cap
// stopped it). Shewchuk ("Delaunay refinement algorithms for triangular
// mesh generation", 2002) stops it by not splitting for shape near such
// apexes; Cheng, Dey and Shewchuk protect them with balls. Here every
// input vertex where two input edges meet at a small angle gets a ball,
// and refinement for the radius-edge bound puts no vertex inside a ball:
// the tets there keep their shape. Size bounds (MaxVolume, EdgeLength,
// Sizing) still refine inside the balls; they cannot cascade.
//
// An angle θ is small when sin θ < 1/(2·Quality) (14.5° at the default
// bound 2): the triangle an apex makes with points at equal distances on
// its two edges — where concentric shells put them — has radius-edge
// ratio 1/(2 sin θ), over the bound exactly then, and refinement chases
// it into the apex. (Twice that angle, 30°, also caught the 20-30°
// triangles of smooth surfaces such as a 24×12 torus, which refine to
// the end without help.) The ball's radius is ballFraction times the
// shortest input edge at the vertex, or, at a needle (sin θ <
// 1/(needleFactor·Quality)), ballFraction times the shorter of the two
// edges that make it: resolving a wedge of angle θ takes about 1/θ² tets
// per halving of the distance to its apex, tens of thousands at a
// needle, so the needle is left unrefined along half its length instead.

// ballFraction is a protecting ball's radius relative to the input edge
// that sets it: a smaller ball leaves fewer tets unrefined but lets
// refinement go nearer the apex.
const ballFraction = 0.5

// needleFactor sets the angle below which a needle, not only its apex,
// is protected (see above): 0.29° at the default bound. Measured on the
// corpus (docs/meshing.md): 16 and 40 (1.8° and 0.72°) coarsened the CAD
// models and lowered their minimum dihedral angles (netgen_hinge.stl
// 4.41° → 1.8°); without needles, gmsh_lever.stl's 0.008° ones refined
// for minutes.
const needleFactor = 100

// protection is the set of protecting balls, and the pairs of input
// edges that meet at a small angle.
type protection struct {
	centre []geom.Vec
	r2     []float64
	tree   *bvh.Tree
	// acute holds the pairs of segments (lower index first) that meet at
	// an input vertex at a small angle; segmentsAt, the segments at each
	// input vertex.
	acute      map[[2]int32]bool
	segmentsAt map[int32][]int32
	// acuteFacets holds the pairs of facets (lower index first) that meet
	// along a segment at a small angle inside the body.
	acuteFacets map[[2]int32]bool
}

// protectSmallAngles returns the protecting balls of the input vertices where
// input edges meet at small angles.
func (ms *mesher) protectSmallAngles() *protection {
	m := ms.m
	type end struct {
		dir geom.Vec // unit vector along an input edge from the vertex
		len float64
		seg int32
	}
	at := map[int32][]end{}
	p := &protection{acute: map[[2]int32]bool{}, segmentsAt: map[int32][]int32{}}
	for i := 0; i+1 < len(ms.segEnds); i += 2 {
		a, b, seg := ms.segEnds[i], ms.segEnds[i+1], int32(i/2)
		p.segmentsAt[a] = append(p.segmentsAt[a], seg)
		p.segmentsAt[b] = append(p.segmentsAt[b], seg)
		d := geom.Sub(m.pos(b), m.pos(a))
		l := geom.Norm(d)
		if l == 0 {
			continue
		}
		at[a] = append(at[a], end{geom.Scale(1/l, d), l, seg})
		at[b] = append(at[b], end{geom.Scale(-1/l, d), l, seg})
	}
	// sin θ < x with θ below 90°: cos θ > √(1 − x²).
	b := ms.opt.Quality
	cosSmall := math.Sqrt(1 - 1/(4*b*b))
	cosNeedle := math.Sqrt(1 - 1/(needleFactor*needleFactor*b*b))
	var boxes []float64
	for v := int32(0); v < int32(len(ms.kind)); v++ {
		ends := at[v]
		acute, short, pair := false, math.Inf(1), 0.0
		for i, e := range ends {
			short = min(short, e.len)
			for _, f := range ends[i+1:] {
				c := geom.Dot(e.dir, f.dir)
				if c > cosSmall {
					acute = true
					p.acute[[2]int32{min(e.seg, f.seg), max(e.seg, f.seg)}] = true
				}
				if c > cosNeedle {
					pair = max(pair, min(e.len, f.len))
				}
			}
		}
		if !acute {
			continue
		}
		r := ballFraction * max(short, pair)
		c := m.pos(v)
		p.centre = append(p.centre, c)
		p.r2 = append(p.r2, r*r)
		boxes = append(boxes, c[0]-r, c[1]-r, c[2]-r, c[0]+r, c[1]+r, c[2]+r)
	}
	p.tree = bvh.Build(boxes, 4)
	p.acuteFacets = ms.acuteFacetPairs(math.Asin(1/(2*b)) * 180 / math.Pi)
	return p
}

// acuteFacetPairs returns the pairs of facets that meet along a segment
// at an angle inside the body below small (degrees): creaseAngle at each
// subsegment, between the subfaces on either side, which decides a
// reflex angle by the exact predicate. Facets are flat, so every piece
// of a segment gives the same angle.
func (ms *mesher) acuteFacetPairs(small float64) map[[2]int32]bool {
	s := &ms.s
	out := map[[2]int32]bool{}
	for f := int32(0); f < s.num(); f++ {
		for e := int32(0); e < 3; e++ {
			h := s.adj[3*f+e]
			if !s.isSeg(f, e) || h < 0 {
				continue
			}
			g, ge := h/3, h%3
			fa, fb := s.facet[f], s.facet[g]
			if fa == fb {
				continue
			}
			a, b := s.edge(f, e)
			if creaseAngle(ms.m.xyz, a, b, s.apex(f, e), s.apex(g, ge)) < small {
				out[[2]int32{min(fa, fb), max(fa, fb)}] = true
			}
		}
	}
	return out
}

// covers reports whether x lies inside a protecting ball.
func (p *protection) covers(x geom.Vec) bool {
	if len(p.r2) == 0 {
		return false
	}
	in := false
	p.tree.Query([6]float64{x[0], x[1], x[2], x[0], x[1], x[2]}, func(i int32) bool {
		in = geom.Dist2(x, p.centre[i]) < p.r2[i]
		return !in
	})
	return in
}

// holdsSegment reports whether one protecting ball holds both a and b,
// and so, being convex, the segment between them.
func (p *protection) holdsSegment(a, b geom.Vec) bool {
	if len(p.r2) == 0 {
		return false
	}
	box := [6]float64{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2]), max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])}
	in := false
	p.tree.Query(box, func(i int32) bool {
		in = geom.Dist2(a, p.centre[i]) < p.r2[i] && geom.Dist2(b, p.centre[i]) < p.r2[i]
		return !in
	})
	return in
}
