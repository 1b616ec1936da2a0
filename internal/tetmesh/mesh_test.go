package tetmesh

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// cubeCentre is the paper's 12-tet cube: every boundary triangle joined to
// a centre vertex. It is the smallest valid mesh of a cube.
func cubeCentre() *Mesh {
	pos := []float64{}
	for i := 0; i < 8; i++ {
		pos = append(pos, float64(i&1), float64(i>>1&1), float64(i>>2&1))
	}
	pos = append(pos, 0.5, 0.5, 0.5)
	// Outward boundary triangles of the unit cube (corner i = x + 2y + 4z).
	tris := []int32{
		0, 2, 3, 0, 3, 1, // z = 0
		4, 5, 7, 4, 7, 6, // z = 1
		0, 1, 5, 0, 5, 4, // y = 0
		2, 6, 7, 2, 7, 3, // y = 1
		0, 4, 6, 0, 6, 2, // x = 0
		1, 3, 7, 1, 7, 5, // x = 1
	}
	m := &Mesh{Positions: pos}
	for i := 0; i < len(tris); i += 3 {
		// Outward face (a, b, c) and an interior apex: (a, c, b, apex) is
		// positive.
		m.Tets = append(m.Tets, tris[i], tris[i+2], tris[i+1], 8)
	}
	m.Tags = make([]Tag, 9)
	for i := 0; i < 8; i++ {
		m.Tags[i] = Boundary
	}
	m.Tags[8] = Core
	return m
}

func TestCubeCentreValid(t *testing.T) {
	m := cubeCentre()
	if err := Validate(m); err != nil {
		t.Fatal(err)
	}
	if v := m.Volume(); math.Abs(v-1) > 1e-15 {
		t.Fatalf("volume %g, want 1", v)
	}
	nbr, ok := Neighbors(m.Tets, m.NumVertices())
	if !ok {
		t.Fatal("non-manifold")
	}
	if got := len(BoundaryFaces(m.Tets, nbr)) / 3; got != 12 {
		t.Fatalf("%d boundary faces, want 12", got)
	}
}

func problemKinds(err error) string {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return ""
	}
	var k []string
	for _, p := range ve.Problems {
		k = append(k, p.Kind)
	}
	return strings.Join(k, "|")
}

func TestValidateFindsDefects(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(m *Mesh)
		want   string
	}{
		{"inverted tet", func(m *Mesh) { m.Tets[0], m.Tets[1] = m.Tets[1], m.Tets[0] }, "tet not positively oriented"},
		{"index out of range", func(m *Mesh) { m.Tets[3] = 99 }, "index out of range"},
		{"tag missing", func(m *Mesh) { m.Tags = m.Tags[:8] }, "array lengths"},
		{"boundary vertex tagged interior", func(m *Mesh) { m.Tags[0] = Interior }, "boundary vertex not tagged Boundary"},
		{"centre tagged boundary", func(m *Mesh) { m.Tags[8] = Boundary }, "zero-pressure"},
		{"nan", func(m *Mesh) { m.Positions[0] = math.NaN() }, "non-finite coordinate"},
		{"unused vertex", func(m *Mesh) { m.Positions = append(m.Positions, 5, 5, 5); m.Tags = append(m.Tags, Interior) }, "unused vertex"},
		{"notch exposes the centre", func(m *Mesh) { m.Tets = m.Tets[4:] }, "boundary vertex not tagged Boundary"},
		{"bow-tie vertex", func(m *Mesh) {
			// Two tets that touch only at vertex 0.
			m.Positions = []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, -1, 0, 0, 0, -1, 0, 0, 0, -1}
			m.Tets = []int32{0, 1, 2, 3, 0, 4, 6, 5}
			m.Tags = []Tag{1, 1, 1, 1, 1, 1, 1}
		}, "non-manifold boundary vertex"},
		{"crack: duplicated centre", func(m *Mesh) {
			m.Positions = append(m.Positions, 0.5, 0.5, 0.5)
			m.Tags = append(m.Tags, Core)
			m.Tets[3] = 9
		}, "duplicate vertex (crack)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := cubeCentre()
			tc.break_(m)
			err := Validate(m)
			if err == nil || !strings.Contains(problemKinds(err), tc.want) {
				t.Fatalf("got %v, want a %q problem", err, tc.want)
			}
		})
	}
}

// The Kuhn split of the cube into six tets has only boundary vertices: every
// tet is a zero-pressure void.
func TestValidateFindsVoids(t *testing.T) {
	m := cubeCentre()
	m.Positions = m.Positions[:24]
	m.Tags = m.Tags[:8]
	m.Tets = []int32{0, 1, 3, 7, 0, 1, 7, 5, 0, 5, 7, 4, 0, 3, 2, 7, 0, 2, 6, 7, 0, 6, 4, 7}
	for t := 0; t < 6; t++ { // orient by the float volume; the cube is exact
		if v := (&Mesh{Positions: m.Positions, Tets: m.Tets[4*t : 4*t+4]}).Volume(); v < 0 {
			m.Tets[4*t], m.Tets[4*t+1] = m.Tets[4*t+1], m.Tets[4*t]
		}
	}
	k := problemKinds(Validate(m))
	for _, want := range []string{"zero-pressure tet", "zero-pressure interior face", "zero-pressure interior edge"} {
		if !strings.Contains(k, want) {
			t.Errorf("missing %q in %q", want, k)
		}
	}
}

func TestQualityRegularTet(t *testing.T) {
	a, b, c, d := [3]float64{1, 1, 1}, [3]float64{1, -1, -1}, [3]float64{-1, 1, -1}, [3]float64{-1, -1, 1}
	want := math.Acos(1.0 / 3)
	for _, x := range Dihedral(a, b, c, d) {
		if math.Abs(x-want) > 1e-12 {
			t.Fatalf("dihedral %g, want %g", x, want)
		}
	}
	if re := RadiusEdge(a, b, c, d); math.Abs(re-math.Sqrt(3.0/8)) > 1e-12 {
		t.Fatalf("radius-edge %g", re)
	}
	// Right-corner tet: three right dihedral angles at the corner edges.
	o, x, y, z := [3]float64{}, [3]float64{1, 0, 0}, [3]float64{0, 1, 0}, [3]float64{0, 0, 1}
	ang := Dihedral(o, x, y, z)
	for i := 0; i < 3; i++ {
		if math.Abs(ang[i]-math.Pi/2) > 1e-12 {
			t.Fatalf("corner dihedral %d = %g", i, ang[i])
		}
	}
}

// MeasureQuality against dihedral angles computed another way: at edge
// pq, the angle between the other two vertices' offsets from the edge's
// line, projected perpendicular to it.
func TestMeasureQualityBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := &Mesh{}
	for i := range 400 {
		for range 4 {
			// Some nearly flat tets, so the smallest angles are small.
			m.Positions = append(m.Positions, rng.Float64(), rng.Float64(), rng.Float64()*float64(1+i%4)/4)
		}
		m.Tets = append(m.Tets, int32(4*i), int32(4*i+1), int32(4*i+2), int32(4*i+3))
		if a, b := m.Vertex(int32(4*i)), m.Vertex(int32(4*i+1)); geom.Dot(geom.Sub(b, a), geom.Cross(geom.Sub(m.Vertex(int32(4*i+2)), a), geom.Sub(m.Vertex(int32(4*i+3)), a))) < 0 {
			m.Tets[4*i], m.Tets[4*i+1] = m.Tets[4*i+1], m.Tets[4*i]
		}
	}
	lo, hi := 180.0, 0.0
	var hist [7]int
	for i := 0; i < len(m.Tets); i += 4 {
		var p [4]geom.Vec
		for k := range 4 {
			p[k] = m.Vertex(m.Tets[i+k])
		}
		tetLo := 180.0
		for _, e := range TetEdges {
			var o []geom.Vec
			for k := range 4 {
				if k != e[0] && k != e[1] {
					o = append(o, p[k])
				}
			}
			axis := geom.Sub(p[e[1]], p[e[0]])
			axis = geom.Scale(1/geom.Norm(axis), axis)
			perp := func(q geom.Vec) geom.Vec {
				v := geom.Sub(q, p[e[0]])
				return geom.Sub(v, geom.Scale(geom.Dot(v, axis), axis))
			}
			u, w := perp(o[0]), perp(o[1])
			deg := math.Atan2(geom.Norm(geom.Cross(u, w)), geom.Dot(u, w)) * 180 / math.Pi
			tetLo, hi = min(tetLo, deg), max(hi, deg)
		}
		lo = min(lo, tetLo)
		hist[min(6, int(tetLo/10))]++
	}
	q := MeasureQuality(m)
	if math.Abs(q.MinDihedral-lo) > 1e-9 || math.Abs(q.MaxDihedral-hi) > 1e-9 {
		t.Errorf("dihedral range %.12g … %.12g, want %.12g … %.12g", q.MinDihedral, q.MaxDihedral, lo, hi)
	}
	if q.DihedralHist != hist {
		t.Errorf("histogram %v, want %v", q.DihedralHist, hist)
	}
}

// MeasureQuality splits a large mesh into chunks measured on several
// goroutines: the result must equal one serial pass over every tet,
// whatever GOMAXPROCS is, and an empty mesh keeps the empty range.
func TestMeasureQualitySplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := &Mesh{}
	for i := range 3*qualityChunk + 123 {
		for range 4 {
			m.Positions = append(m.Positions, rng.Float64(), rng.Float64(), rng.Float64())
		}
		m.Tets = append(m.Tets, int32(4*i), int32(4*i+1), int32(4*i+2), int32(4*i+3))
	}
	want := measureTets(m, m.Tets)
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		got := MeasureQuality(m)
		runtime.GOMAXPROCS(old)
		if got != want {
			t.Errorf("GOMAXPROCS %d: %+v, one pass %+v", procs, got, want)
		}
	}
	if q := MeasureQuality(&Mesh{}); q != (Quality{MinDihedral: 180}) {
		t.Errorf("empty mesh: %+v", q)
	}
}

// BenchmarkMeasureQuality measures 1e5 random tets; builds measure every
// tet of their output.
func BenchmarkMeasureQuality(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := &Mesh{}
	for i := range 100_000 {
		for range 4 {
			m.Positions = append(m.Positions, rng.Float64(), rng.Float64(), rng.Float64())
		}
		m.Tets = append(m.Tets, int32(4*i), int32(4*i+1), int32(4*i+2), int32(4*i+3))
	}
	for b.Loop() {
		MeasureQuality(m)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e5, "ns/tet")
}

// OffCoreTets keeps exactly the tets with a vertex not tagged Core, in
// order: every tagging of a tet's four vertices.
func TestOffCoreTets(t *testing.T) {
	tags := []Tag{Interior, Boundary, Core, Core, Core, Core}
	var tets, want []int32
	for mask := range 16 { // bit k: vertex k of the tet is Core
		q := make([]int32, 4)
		core := true
		for k := range q {
			if mask>>k&1 == 1 {
				q[k] = int32(2 + k) // Core vertices 2..5
			} else {
				q[k] = int32(k % 2) // Interior or Boundary
				core = false
			}
		}
		tets = append(tets, q...)
		if !core {
			want = append(want, q...)
		}
	}
	if got := OffCoreTets(tets, tags); !slices.Equal(got, want) {
		t.Errorf("OffCoreTets = %v, want %v", got, want)
	}
}
