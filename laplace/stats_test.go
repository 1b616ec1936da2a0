package laplace

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/tetgrid"
)

// fractionAbove against sampling: points uniform in the tet are
// barycentric combinations with Dirichlet(1,1,1,1) weights.
func TestFractionAboveMonteCarlo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	const samples = 200000
	for trial := 0; trial < 12; trial++ {
		var f [4]float64
		for k := range f {
			f[k] = rng.Float64()
		}
		if trial%3 == 0 {
			f[1] = f[0] // ties
		}
		th := rng.Float64()
		hits := 0
		for s := 0; s < samples; s++ {
			var w [4]float64
			var sum float64
			for k := range w {
				w[k] = rng.ExpFloat64()
				sum += w[k]
			}
			if (w[0]*f[0]+w[1]*f[1]+w[2]*f[2]+w[3]*f[3])/sum > th {
				hits++
			}
		}
		mc := float64(hits) / samples
		if got := fractionAbove(f, th); math.Abs(got-mc) > 0.005 {
			t.Errorf("values %v threshold %.3f: fraction %.4f, sampling %.4f", f, th, got, mc)
		}
	}
}

func TestFractionAboveExact(t *testing.T) {
	tests := []struct {
		f    [4]float64
		t    float64
		want float64
	}{
		{[4]float64{0, 0, 0, 1}, 0.5, 0.125},     // corner tet scaled by 1/2
		{[4]float64{0, 1, 1, 1}, 0.5, 0.875},     // its complement
		{[4]float64{0, 0, 1, 1}, 0.5, 0.5},       // symmetry
		{[4]float64{0.5, 0.5, 0.5, 0.5}, 0.5, 0}, // constant at the threshold
		{[4]float64{0.7, 0.9, 0.6, 0.8}, 0.5, 1}, // entirely above
		{[4]float64{0.5, 0.5, 0.5, 1}, 0.5, 1},   // above except a face
		{[4]float64{0, 0.5, 0.5, 0.5}, 0.5, 0},   // below except a face
		// f = λ2 + λ3 is Beta(2, 2) distributed: P(f ≤ t) = 3t² − 2t³.
		{[4]float64{0, 0, 1, 1}, 0.25, 1 - (3*0.0625 - 2*0.015625)},
	}
	for _, tc := range tests {
		if got := fractionAbove(tc.f, tc.t); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("fractionAbove(%v, %g) = %g, want %g", tc.f, tc.t, got, tc.want)
		}
	}
}

// On the slab every figure is known exactly: h = H at every boundary
// vertex, ε > 1/2 at depth > H/2, the core is the middle T − 2H.
func TestMeasureSlab(t *testing.T) {
	const T, H = 1.0, 0.25
	m, _ := slab(6, 8, 1, T, H, 5)
	f, err := Solve(m, Options{Tolerance: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Measure(m.Positions, m.Tets, m.Tags, f.Epsilon, f.Gradient, 4)
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %.12g, want %.12g", name, got, want)
		}
	}
	near("min h", s.LayerDepth.Min, H)
	near("median h", s.LayerDepth.Median, H)
	near("max h", s.LayerDepth.Max, H)
	near("volume", s.Volume, T)
	near("core volume", s.CoreVolume, T-2*H)
	near("fraction above 1/2", s.FractionAboveHalf, (T-H)/T)
	if s.Violations != 0 || s.LayerDepth.Flat != 0 {
		t.Errorf("violations %d, flat %d", s.Violations, s.LayerDepth.Flat)
	}
	sum := 0
	for _, c := range s.Histogram {
		sum += c
	}
	if sum != s.Vertices || s.Vertices != s.BoundaryVertices+s.CoreVertices+s.InteriorVertices {
		t.Errorf("counts %+v", s)
	}
	if z := s.LayerDepth.MinAt[2]; z != 0 && z != T {
		t.Errorf("smallest h at %v, not on a face", s.LayerDepth.MinAt)
	}
}

// On the shell the boundary gradient is |ε'(b)| = a/(b(b−a)), so
// h = b(b−a)/a, and the volume where ε > 1/2 is r < 2ab/(a+b). The
// averaged gradient at a boundary vertex is one-sided, so h converges at
// first order.
func TestMeasureShell(t *testing.T) {
	a, b := shellA, shellB
	h := b * (b - a) / a
	rh := 2 * a * b / (a + b)
	frac := (rh*rh*rh - a*a*a) / (b*b*b - a*a*a)
	var herr []float64
	levels := []int{2, 4, 8}
	if testing.Short() {
		levels = levels[:2]
	}
	for _, n := range levels {
		m := tetgrid.Shell(a, b, n)
		f, err := Solve(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := Measure(m.Positions, m.Tets, m.Tags, f.Epsilon, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("n=%d: h min %.4f median %.4f max %.4f (exact %.4f); fraction above 1/2 %.4f (exact %.4f)", n,
			s.LayerDepth.Min, s.LayerDepth.Median, s.LayerDepth.Max, h, s.FractionAboveHalf, frac)
		herr = append(herr, math.Abs(s.LayerDepth.Median-h)/h)
		if math.Abs(s.FractionAboveHalf-frac) > 0.02 {
			t.Errorf("n=%d: volume fraction with ε > 1/2 %g, want %g", n, s.FractionAboveHalf, frac)
		}
		if len(s.Histogram) != 10 || s.Violations != 0 {
			t.Errorf("n=%d: histogram %v, violations %d", n, s.Histogram, s.Violations)
		}
	}
	for i := 1; i < len(herr); i++ {
		if herr[i] > herr[i-1]/1.7 {
			t.Errorf("relative error of median h %v does not halve under refinement", herr)
		}
	}
}

func TestMeasureCountsViolations(t *testing.T) {
	m, _ := slab(2, 4, 1, 1, 0.25, 1)
	eps := make([]float64, m.NumVertices())
	eps[0], eps[1] = -0.1, 1.5
	s, err := Measure(m.Positions, m.Tets, m.Tags, eps, nil, 5)
	if err != nil {
		t.Fatal(err)
	}
	if s.Violations != 2 || s.MinEpsilon != -0.1 || s.MaxEpsilon != 1.5 || s.Histogram[4] != 1 {
		t.Errorf("got %+v", s)
	}
}

func TestMeasureErrors(t *testing.T) {
	m, _ := slab(2, 4, 1, 1, 0.25, 1)
	nv := m.NumVertices()
	eps := make([]float64, nv)
	nan := make([]float64, nv)
	nan[3] = math.NaN()
	badTags := append([]uint8(nil), m.Tags...)
	badTags[2] = 9
	tests := []struct {
		name string
		tags []uint8
		eps  []float64
		grad []float64
		bins int
	}{
		{"short field", m.Tags, eps[1:], nil, 0},
		{"short tags", m.Tags[1:], eps, nil, 0},
		{"unknown tag", badTags, eps, nil, 0},
		{"NaN", m.Tags, nan, nil, 0},
		{"short gradient", m.Tags, eps, make([]float64, 3*nv-1), 0},
		{"bins", m.Tags, eps, nil, -2},
	}
	for _, tc := range tests {
		if _, err := Measure(m.Positions, m.Tets, tc.tags, tc.eps, tc.grad, tc.bins); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// The JSON names are part of the inspect output's contract.
func TestStatsJSONNames(t *testing.T) {
	b, err := json.Marshal(Stats{})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"eps_histogram"`, `"max_principle_violations"`, `"core_volume"`,
		`"volume_fraction_eps_above_half"`, `"boundary_layer_depth"`, `"median"`, `"min_at"`, `"boundary_vertices"`, `"core_vertices"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s lacks %s", b, key)
		}
	}
}
