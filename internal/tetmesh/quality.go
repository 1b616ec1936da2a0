package tetmesh

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
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

// edgeFaces lists, for each of TetEdges, the two faces (by opposite
// vertex) that meet at it: those opposite the other two vertices.
var edgeFaces = [6][2]int{{2, 3}, {1, 3}, {1, 2}, {0, 3}, {0, 2}, {0, 1}}

// dihedralCosines returns the cosines of the angles between the outward
// normals of the two faces at each of TetEdges. The interior dihedral
// angle π − acos(x) grows with x, so comparing cosines orders angles
// without the arccosines.
func dihedralCosines(a, b, c, d geom.Vec) [6]float64 {
	p := [4]geom.Vec{a, b, c, d}
	var n [4]geom.Vec
	var l [4]float64
	for k, f := range TetFaces {
		n[k] = geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
		l[k] = geom.Norm(n[k])
	}
	var out [6]float64
	for i, f := range edgeFaces {
		out[i] = max(-1, min(1, geom.Dot(n[f[0]], n[f[1]])/(l[f[0]]*l[f[1]])))
	}
	return out
}

// dihedralAngle is the interior angle, in radians, at an edge whose faces'
// outward normals make an angle of cosine x.
func dihedralAngle(x float64) float64 { return math.Pi - math.Acos(x) }

// RadiusEdge returns the ratio of the circumradius of tet abcd to its
// shortest edge: √(3/8) ≈ 0.612 for the regular tet, unbounded for
// slivers' degenerate neighbours (needles and caps).
func RadiusEdge(a, b, c, d geom.Vec) float64 {
	u, v, w := geom.Sub(b, a), geom.Sub(c, a), geom.Sub(d, a)
	den := 2 * geom.Dot(u, geom.Cross(v, w))
	// Circumcentre relative to a: (|u|² v×w + |v|² w×u + |w|² u×v) / den.
	num := geom.Add(geom.Add(geom.Scale(geom.Dot(u, u), geom.Cross(v, w)),
		geom.Scale(geom.Dot(v, v), geom.Cross(w, u))), geom.Scale(geom.Dot(w, w), geom.Cross(u, v)))
	r := geom.Norm(num) / math.Abs(den)
	p := [4]geom.Vec{a, b, c, d}
	short := math.Inf(1)
	for _, e := range TetEdges {
		short = min(short, geom.Dist2(p[e[0]], p[e[1]]))
	}
	return r / math.Sqrt(short)
}

// Quality summarises the shape of a mesh's tets.
type Quality struct {
	MinDihedral, MaxDihedral float64 // degrees
	// DihedralHist counts tets by their minimum dihedral angle in 10°
	// bins: [0,10), [10,20), … [60,70].
	DihedralHist  [7]int
	MaxRadiusEdge float64
	// RadiusEdgeHist counts tets by radius-edge ratio in the bins
	// [0.6,1), [1,1.5), [1.5,2), [2,3), [3,∞).
	RadiusEdgeHist [5]int
}

// RadiusEdgeBins are the lower edges of Quality.RadiusEdgeHist's bins.
var RadiusEdgeBins = [5]float64{0, 1, 1.5, 2, 3}

// MeasureQuality computes the Quality of m.
func MeasureQuality(m *Mesh) Quality {
	q := Quality{MinDihedral: 180, MaxDihedral: 0}
	for t := 0; t < len(m.Tets); t += 4 {
		a, b, c, d := m.Vertex(m.Tets[t]), m.Vertex(m.Tets[t+1]), m.Vertex(m.Tets[t+2]), m.Vertex(m.Tets[t+3])
		// Two arccosines per tet, not six: a build measures every tet.
		cosv := dihedralCosines(a, b, c, d)
		clo, chi := cosv[0], cosv[0]
		for _, x := range cosv[1:] {
			clo, chi = min(clo, x), max(chi, x)
		}
		lo := dihedralAngle(clo) * 180 / math.Pi
		q.MaxDihedral = max(q.MaxDihedral, dihedralAngle(chi)*180/math.Pi)
		q.MinDihedral = min(q.MinDihedral, lo)
		q.DihedralHist[min(6, int(lo/10))]++
		re := RadiusEdge(a, b, c, d)
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
