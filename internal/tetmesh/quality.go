package tetmesh

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// Dihedral returns the six dihedral angles of tet abcd in radians, in the
// order of TetEdges (the angle at each edge between its two faces).
func Dihedral(a, b, c, d geom.Vec) [6]float64 {
	cosv := dihedralCosines(a, b, c, d)
	var out [6]float64
	for i, x := range cosv {
		out[i] = dihedralAngle(x)
	}
	return out
}

// MinDihedral returns the smallest of Dihedral's six angles, the same
// float64, with one arccosine for most tets instead of six: the angle
// grows with the cosine, so only cosines within cosineSlack of the
// smallest can give the smallest angle, even if Acos is not monotone to
// the last ulp. The sliver stage tests every tet of a vertex's star for
// every position it tries, and the arccosines were most of that cost.
func MinDihedral(a, b, c, d geom.Vec) float64 {
	cosv := dihedralCosines(a, b, c, d)
	return smallestAngle(&cosv, min(cosv[0], cosv[1], cosv[2], cosv[3], cosv[4], cosv[5]))
}

// MinDihedralBelow reports whether MinDihedral(a, b, c, d) < angle
// (radians, in [0, π]), with no arccosine unless the smallest cosine lies
// within cosineSlack of the angle's: the angle changes at least as fast
// as its cosine, and Acos errs by a few ulps, so outside that band the
// cosines decide as the angles would.
func MinDihedralBelow(a, b, c, d geom.Vec, angle float64) bool {
	cosv := dihedralCosines(a, b, c, d)
	lo := min(cosv[0], cosv[1], cosv[2], cosv[3], cosv[4], cosv[5])
	// dihedralAngle(x) = angle at x = cos(π − angle) = −cos(angle).
	at := -math.Cos(angle)
	switch {
	case lo < at-cosineSlack:
		return true
	case lo > at+cosineSlack:
		return false
	}
	return smallestAngle(&cosv, lo) < angle
}

// MinDihedralCapped returns min(angle, MinDihedral(a, b, c, d)), the
// same float64, with no arccosine unless the smallest cosine lies within
// cosineSlack of the angle's: beyond it the tet's angles are all above
// angle, as MinDihedralBelow decides. cosAngle is math.Cos(angle), which
// callers with a fixed angle compute once: the cosine cost as much as
// the arccosine it saves. The sliver stage's guards take the smallest
// angle, capped at the target, of every tet of every star it smooths.
func MinDihedralCapped(a, b, c, d geom.Vec, angle, cosAngle float64) float64 {
	cosv := dihedralCosines(a, b, c, d)
	lo := min(cosv[0], cosv[1], cosv[2], cosv[3], cosv[4], cosv[5])
	if lo > -cosAngle+cosineSlack {
		return angle
	}
	return min(angle, smallestAngle(&cosv, lo))
}

// smallestAngle returns the smallest dihedralAngle of the cosines cosv,
// whose smallest is lo: NaN if one is NaN, as min over the angles gives.
func smallestAngle(cosv *[6]float64, lo float64) float64 {
	if math.IsNaN(lo) {
		return lo
	}
	out := math.Inf(1)
	for _, x := range cosv {
		if x <= lo+cosineSlack {
			out = min(out, dihedralAngle(x))
		}
	}
	return out
}

// cosineSlack is how far apart two cosines must be for their arccosines'
// order to be certain: far more than Acos's error of a few ulps.
const cosineSlack = 1e-9

// dihedralCosines returns the cosines of the angles between the outward
// normals of the two faces at each of TetEdges. The interior dihedral
// angle π − acos(x) grows with x, so comparing cosines orders angles
// without the arccosines. MeasureQuality calls it for every tet of a
// mesh, so it is written out in scalars (Go keeps [3]float64 values in
// memory); the normals are those of TetFaces, n = (p₁−p₀)×(p₂−p₀).
func dihedralCosines(a, b, c, d geom.Vec) [6]float64 {
	n0x, n0y, n0z := faceNormal(b, c, d)
	n1x, n1y, n1z := faceNormal(a, d, c)
	n2x, n2y, n2z := faceNormal(a, b, d)
	n3x, n3y, n3z := faceNormal(a, c, b)
	l0 := math.Sqrt(n0x*n0x + n0y*n0y + n0z*n0z)
	l1 := math.Sqrt(n1x*n1x + n1y*n1y + n1z*n1z)
	l2 := math.Sqrt(n2x*n2x + n2y*n2y + n2z*n2z)
	l3 := math.Sqrt(n3x*n3x + n3y*n3y + n3z*n3z)
	cosine := func(c, l float64) float64 { return max(-1, min(1, c/l)) }
	return [6]float64{ // faces by opposite vertex: the edge's other two
		cosine(n2x*n3x+n2y*n3y+n2z*n3z, l2*l3),
		cosine(n1x*n3x+n1y*n3y+n1z*n3z, l1*l3),
		cosine(n1x*n2x+n1y*n2y+n1z*n2z, l1*l2),
		cosine(n0x*n3x+n0y*n3y+n0z*n3z, l0*l3),
		cosine(n0x*n2x+n0y*n2y+n0z*n2z, l0*l2),
		cosine(n0x*n1x+n0y*n1y+n0z*n1z, l0*l1),
	}
}

// faceNormal returns (q−p)×(r−p).
func faceNormal(p, q, r geom.Vec) (x, y, z float64) {
	return cross(q[0]-p[0], q[1]-p[1], q[2]-p[2], r[0]-p[0], r[1]-p[1], r[2]-p[2])
}

// cross returns u×v. faceNormal is split in two so that both inline.
func cross(ux, uy, uz, vx, vy, vz float64) (x, y, z float64) {
	return uy*vz - uz*vy, uz*vx - ux*vz, ux*vy - uy*vx
}

// dihedralAngle is the interior angle, in radians, at an edge whose faces'
// outward normals make an angle of cosine x.
func dihedralAngle(x float64) float64 { return math.Pi - math.Acos(x) }

// RadiusEdge returns the ratio of the circumradius of tet abcd to its
// shortest edge: √(3/8) ≈ 0.612 for the regular tet, unbounded for
// slivers' degenerate neighbours (needles and caps). Written out in
// scalars like dihedralCosines.
func RadiusEdge(a, b, c, d geom.Vec) float64 {
	ux, uy, uz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	vx, vy, vz := c[0]-a[0], c[1]-a[1], c[2]-a[2]
	wx, wy, wz := d[0]-a[0], d[1]-a[1], d[2]-a[2]
	vwx, vwy, vwz := vy*wz-vz*wy, vz*wx-vx*wz, vx*wy-vy*wx
	wux, wuy, wuz := wy*uz-wz*uy, wz*ux-wx*uz, wx*uy-wy*ux
	uvx, uvy, uvz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
	den := 2 * (ux*vwx + uy*vwy + uz*vwz)
	uu, vv, ww := ux*ux+uy*uy+uz*uz, vx*vx+vy*vy+vz*vz, wx*wx+wy*wy+wz*wz
	// Circumcentre relative to a: (|u|² v×w + |v|² w×u + |w|² u×v) / den.
	nx, ny, nz := uu*vwx+vv*wux+ww*uvx, uu*vwy+vv*wuy+ww*uvy, uu*vwz+vv*wuz+ww*uvz
	r := math.Sqrt(nx*nx+ny*ny+nz*nz) / math.Abs(den)
	// |p − q|² is the same whichever way round p − q is taken.
	ex, ey, ez := b[0]-c[0], b[1]-c[1], b[2]-c[2]
	fx, fy, fz := b[0]-d[0], b[1]-d[1], b[2]-d[2]
	gx, gy, gz := c[0]-d[0], c[1]-d[1], c[2]-d[2]
	short := min(math.Inf(1), uu, vv, ww, ex*ex+ey*ey+ez*ez, fx*fx+fy*fy+fz*fz, gx*gx+gy*gy+gz*gz)
	return r / math.Sqrt(short)
}

// Quality summarises the shape of a mesh's tets.
// Its JSON names are those of `pfmesh inspect --json` (docs/cli.md).
type Quality struct {
	MinDihedral float64 `json:"min_dihedral_deg"`
	MaxDihedral float64 `json:"max_dihedral_deg"`
	// DihedralHist counts tets by their minimum dihedral angle in 10°
	// bins: [0,10), [10,20), … [60,70].
	DihedralHist  [7]int  `json:"dihedral_histogram"`
	MaxRadiusEdge float64 `json:"max_radius_edge"`
	// RadiusEdgeHist counts tets by radius-edge ratio in the bins
	// [0.6,1), [1,1.5), [1.5,2), [2,3), [3,∞).
	RadiusEdgeHist [5]int `json:"radius_edge_histogram"`
}

// RadiusEdgeBins are the lower edges of Quality.RadiusEdgeHist's bins.
var RadiusEdgeBins = [5]float64{0, 1, 1.5, 2, 3}

// qualityChunk is how many tets MeasureQuality measures per goroutine
// task: a build measures every tet of meshes of millions.
const qualityChunk = 1 << 15

// MeasureQuality computes the Quality of m, on several goroutines for a
// large mesh: minima, maxima and counts merge exactly, so the result does
// not depend on how the tets were split.
func MeasureQuality(m *Mesh) Quality {
	n := m.NumTets()
	parts := make([]Quality, (n+qualityChunk-1)/qualityChunk)
	par.For(n, qualityChunk, func(lo, hi int) {
		parts[lo/qualityChunk] = measureTets(m, m.Tets[4*lo:4*hi])
	})
	q := Quality{MinDihedral: 180}
	for _, p := range parts {
		q.MinDihedral = min(q.MinDihedral, p.MinDihedral)
		q.MaxDihedral = max(q.MaxDihedral, p.MaxDihedral)
		q.MaxRadiusEdge = max(q.MaxRadiusEdge, p.MaxRadiusEdge)
		for k := range q.DihedralHist {
			q.DihedralHist[k] += p.DihedralHist[k]
		}
		for k := range q.RadiusEdgeHist {
			q.RadiusEdgeHist[k] += p.RadiusEdgeHist[k]
		}
	}
	return q
}

// measureTets computes the Quality of tets, four vertex indices of m's
// each.
func measureTets(m *Mesh, tets []int32) Quality {
	q := Quality{MinDihedral: 180, MaxDihedral: 0}
	for t := 0; t < len(tets); t += 4 {
		a, b, c, d := m.Vertex(tets[t]), m.Vertex(tets[t+1]), m.Vertex(tets[t+2]), m.Vertex(tets[t+3])
		// Two arccosines per tet, not six: a build measures every tet.
		cosv := dihedralCosines(a, b, c, d)
		clo, chi := cosv[0], cosv[0]
		for _, x := range cosv[1:] {
			clo, chi = min(clo, x), max(chi, x)
		}
		lo, hi := dihedralAngle(clo)*180/math.Pi, dihedralAngle(chi)*180/math.Pi
		if math.IsNaN(clo) {
			// A face whose cross product is zero: its corners are
			// collinear to rounding, though the exact predicate may find
			// the tet positive (a Steiner point of an input edge, a
			// rounding off that edge's line, with its two ends: FuzzBuild
			// met one in a coarse mesh). Such a tet is flat.
			lo, hi = 0, 180
		}
		q.MaxDihedral = max(q.MaxDihedral, hi)
		q.MinDihedral = min(q.MinDihedral, lo)
		q.DihedralHist[min(6, int(lo/10))]++
		re := RadiusEdge(a, b, c, d)
		if !(re <= math.MaxFloat64) {
			// Flat in floating point (zero volume, though the exact
			// predicate may find it positive): no finite ratio. The
			// largest float64 stands for it, which JSON can carry (the
			// report a .pfm file keeps): +Inf made writing it fail.
			re = math.MaxFloat64
		}
		q.MaxRadiusEdge = max(q.MaxRadiusEdge, re)
		bin := 0
		for i, lower := range RadiusEdgeBins {
			if re >= lower {
				bin = i
			}
		}
		q.RadiusEdgeHist[bin]++
	}
	return q
}
