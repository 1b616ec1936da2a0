package tetmesh

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// randomTets returns n tets of random vertices, some nearly flat, some
// with a repeated or collinear vertex (degenerate: NaN and ±Inf paths).
func randomTets(n int) [][4]geom.Vec {
	rng := rand.New(rand.NewPCG(5, 6))
	out := make([][4]geom.Vec, n)
	for i := range out {
		for k := range 4 {
			out[i][k] = geom.Vec{rng.Float64(), rng.Float64(), rng.Float64() * math.Pow(10, -float64(i%7))}
		}
		switch i % 50 {
		case 0:
			out[i][3] = out[i][0]
		case 1:
			out[i][2] = geom.Add(out[i][0], geom.Scale(2, geom.Sub(out[i][1], out[i][0])))
		}
	}
	return out
}

// The scalar kernels do the vector form's operations in the same order:
// the results are the same bits.
func TestScalarKernelsAsVectorForm(t *testing.T) {
	if fptest.Fused() {
		t.Skip("this build fuses multiply-adds: the scalar and vector forms may round differently")
	}
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	for i, p := range randomTets(20000) {
		a, b, c, d := p[0], p[1], p[2], p[3]
		if got, want := dihedralCosines(a, b, c, d), vectorCosines(a, b, c, d); got != want {
			for k := range got {
				if !same(got[k], want[k]) {
					t.Fatalf("tet %d %v: cosines %v, vector form %v", i, p, got, want)
				}
			}
		}
		if got, want := RadiusEdge(a, b, c, d), vectorRadiusEdge(a, b, c, d); !same(got, want) {
			t.Fatalf("tet %d %v: radius-edge %v, vector form %v", i, p, got, want)
		}
	}
}

// RadiusEdge against the circumcentre found another way: the point
// equidistant from the four vertices solves 2(pₖ−p₀)·x = |pₖ|²−|p₀|²,
// here by Cramer's rule.
func TestRadiusEdgeByLinearSystem(t *testing.T) {
	for i, p := range randomTets(2000) {
		if i%50 < 2 {
			continue // degenerate: no circumcentre
		}
		var rows [3]geom.Vec
		var rhs geom.Vec
		for k := 1; k < 4; k++ {
			rows[k-1] = geom.Scale(2, geom.Sub(p[k], p[0]))
			rhs[k-1] = geom.Dot(p[k], p[k]) - geom.Dot(p[0], p[0])
		}
		det := func(a, b, c geom.Vec) float64 { return geom.Dot(a, geom.Cross(b, c)) }
		col := func(j int) geom.Vec { return geom.Vec{rows[0][j], rows[1][j], rows[2][j]} }
		c0, c1, c2 := col(0), col(1), col(2)
		den := det(c0, c1, c2)
		x := geom.Vec{det(rhs, c1, c2) / den, det(c0, rhs, c2) / den, det(c0, c1, rhs) / den}
		short := math.Inf(1)
		for _, e := range TetEdges {
			short = min(short, geom.Dist2(p[e[0]], p[e[1]]))
		}
		want := geom.Norm(geom.Sub(x, p[0])) / math.Sqrt(short)
		if got := RadiusEdge(p[0], p[1], p[2], p[3]); math.Abs(got-want) > 1e-6*want {
			t.Fatalf("tet %d: radius-edge %.12g, by the linear system %.12g", i, got, want)
		}
	}
}

func vectorCosines(a, b, c, d geom.Vec) [6]float64 {
	p := [4]geom.Vec{a, b, c, d}
	var n [4]geom.Vec
	var l [4]float64
	for k, f := range TetFaces {
		n[k] = geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
		l[k] = geom.Norm(n[k])
	}
	var out [6]float64
	for i, f := range [6][2]int{{2, 3}, {1, 3}, {1, 2}, {0, 3}, {0, 2}, {0, 1}} {
		out[i] = max(-1, min(1, geom.Dot(n[f[0]], n[f[1]])/(l[f[0]]*l[f[1]])))
	}
	return out
}

func vectorRadiusEdge(a, b, c, d geom.Vec) float64 {
	u, v, w := geom.Sub(b, a), geom.Sub(c, a), geom.Sub(d, a)
	den := 2 * geom.Dot(u, geom.Cross(v, w))
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

// Volume sums geom.TetVolume: the same bits, and the unit cube's six
// corner tets make volume 1.
func TestVolumeAsTetVolume(t *testing.T) {
	m := &Mesh{}
	want := 0.0
	for i, p := range randomTets(5000) {
		for _, v := range p {
			m.Positions = append(m.Positions, v[0], v[1], v[2])
		}
		m.Tets = append(m.Tets, int32(4*i), int32(4*i+1), int32(4*i+2), int32(4*i+3))
		want += geom.TetVolume(p[0], p[1], p[2], p[3])
	}
	if got := m.Volume(); !fptest.Same(got, want, math.Abs(want)) {
		t.Fatalf("volume %v, sum of TetVolume %v", got, want)
	}
	cube := &Mesh{Positions: []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1}}
	// Kuhn's six tets along the diagonal 0–6.
	for _, q := range [][4]int32{{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}} {
		cube.Tets = append(cube.Tets, q[0], q[1], q[2], q[3])
	}
	if got := cube.Volume(); math.Abs(math.Abs(got)-1) > 1e-15 {
		t.Fatalf("unit cube volume %v", got)
	}
}

// MinDihedral is the smallest of Dihedral's six angles to the bit, and
// MinDihedralBelow compares that angle, also at angles an ulp and less
// than cosineSlack away from it, where the cosines alone cannot decide.
func TestMinDihedralAsSixAngles(t *testing.T) {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	tets := randomTets(20000)
	r := math.Sqrt(8.0 / 9)
	tets = append(tets,
		[4]geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},                                                                       // three right angles
		[4]geom.Vec{{0, 0, 1}, {r, 0, -1.0 / 3}, {-r / 2, r * math.Sqrt(3) / 2, -1.0 / 3}, {-r / 2, -r * math.Sqrt(3) / 2, -1.0 / 3}}) // six ties
	for i, p := range tets {
		a, b, c, d := p[0], p[1], p[2], p[3]
		six := Dihedral(a, b, c, d)
		want := slices.Min(six[:])
		if got := MinDihedral(a, b, c, d); !same(got, want) {
			t.Fatalf("tet %d %v: MinDihedral %v, smallest of %v", i, p, got, want)
		}
		for _, angle := range []float64{want, math.Nextafter(want, 0), math.Nextafter(want, 4), want - 1e-10, want + 1e-10,
			want - 1e-8, want + 1e-8, 12 * math.Pi / 180, 15 * math.Pi / 180, 0, math.Pi} {
			if got := MinDihedralBelow(a, b, c, d, angle); got != (want < angle) {
				t.Fatalf("tet %d %v: MinDihedralBelow(%v) = %v with the smallest angle %v", i, p, angle, got, want)
			}
		}
	}
}

// MinDihedralCapped is min(angle, smallest of Dihedral's six angles) to
// the bit, on random and near-degenerate tets, at angles an ulp and less
// than cosineSlack from the tet's smallest and at fixed ones.
func TestMinDihedralCapped(t *testing.T) {
	same := func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) }
	for i, p := range append(randomTets(20000), sineTets(200000)...) {
		a, b, c, d := p[0], p[1], p[2], p[3]
		six := Dihedral(a, b, c, d)
		small := slices.Min(six[:])
		for _, angle := range []float64{small, math.Nextafter(small, 0), math.Nextafter(small, 4), small - 1e-10, small + 1e-10,
			small - 1e-8, small + 1e-8, 12 * math.Pi / 180, 15 * math.Pi / 180, 0, math.Pi / 2} {
			if math.IsNaN(angle) {
				angle = 15 * math.Pi / 180
			}
			if got, want := MinDihedralCapped(a, b, c, d, angle, math.Cos(angle)), min(angle, small); !same(got, want) {
				t.Fatalf("tet %d %v, angle %v: %v, want %v", i, p, angle, got, want)
			}
		}
	}
}

// TestMeasureQualityCollinearFace: a tet one of whose faces has a zero
// cross product in floating point — a Steiner point of an input edge, a
// rounding off the edge's line, with the edge's two ends; FuzzBuild's
// coarse mesh of an integer height field had this one, which the exact
// predicate finds positive — measures as flat, 0° to 180°, in the first
// bin, instead of a NaN angle that indexed the histogram out of range.
func TestMeasureQualityCollinearFace(t *testing.T) {
	m := &Mesh{Positions: []float64{
		2, 3, 8,
		2, 2, 1,
		1, 2, 8,
		1.3827396060044141, 2, 5.3208227579691005,
	}, Tets: []int32{0, 1, 2, 3}}
	if o := geom.Orient3D(m.Vertex(0), m.Vertex(1), m.Vertex(2), m.Vertex(3)); o <= 0 {
		t.Fatalf("orientation %v: the tet is meant to be positive", o)
	}
	q := MeasureQuality(m)
	if q.MinDihedral != 0 || q.MaxDihedral != 180 || q.DihedralHist[0] != 1 || !(q.MaxRadiusEdge > 1e6) {
		t.Fatalf("quality %+v, want 0° to 180°, one tet in the first bin, a huge radius-edge ratio", q)
	}
}

// A tet of four coplanar points (zero volume in floating point) has no
// finite radius-edge ratio: it counts as math.MaxFloat64, in the last
// bin, and the Quality encodes as JSON, as the report a .pfm file keeps
// must (+Inf made the write fail).
func TestMeasureQualityFlatTetEncodes(t *testing.T) {
	m := &Mesh{Positions: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, Tets: []int32{0, 1, 2, 3}}
	q := MeasureQuality(m)
	if q.MaxRadiusEdge != math.MaxFloat64 || q.RadiusEdgeHist[len(q.RadiusEdgeHist)-1] != 1 {
		t.Errorf("quality %+v: want the largest float64 ratio, in the last bin", q)
	}
	if _, err := json.Marshal(q); err != nil {
		t.Error(err)
	}
}
