package format

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestVertexGradientsLinear checks that a linear field's gradient is
// recovered exactly (to rounding) at every vertex of a jittered mesh: the
// per-tet gradients all equal it, so every weighted mean does.
func TestVertexGradientsLinear(t *testing.T) {
	p := gridPFM(5, 0.2)
	p.BVH = nil // the jitter moves tets out of its boxes
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(p.Positions); i += 3 {
		for a := range 3 {
			if x := p.Positions[i+a]; x > 0 && x < 1-1e-9 {
				p.Positions[i+a] += 0.03 * (rng.Float64() - 0.5) // keeps every tet positive
			}
		}
	}
	if err := p.validate(); err != nil {
		t.Fatal(err)
	}
	a := [3]float64{0.7, -1.3, 2.1}
	eps := make([]float64, p.NumVertices())
	for v := range eps {
		eps[v] = 0.25 + a[0]*p.Positions[3*v] + a[1]*p.Positions[3*v+1] + a[2]*p.Positions[3*v+2]
	}
	g := VertexGradients(p.Positions, p.Tets, eps)
	for v := range eps {
		for k := range 3 {
			if d := math.Abs(g[3*v+k] - a[k]); d > 1e-12 {
				t.Fatalf("vertex %d: gradient %v, want %v", v, g[3*v:3*v+3], a)
			}
		}
	}
}

// TestVertexGradientsWeights checks the volume weighting by hand: two tets
// share vertex 0; the first (volume 1/6) has ∇ε = (1, 2, 3), the second
// (volume 8/6, the first scaled by −2 in x and 2 in y, z) has ∇ε =
// (−1, 0, 0). A vertex in no tet gets zero.
func TestVertexGradientsWeights(t *testing.T) {
	pos := []float64{
		0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, // tet A
		-2, 0, 0, 0, 0, 2, 0, 2, 0, // tet B's other vertices (B = 0 4 5 6)
		9, 9, 9, // in no tet
	}
	tets := []int32{0, 1, 2, 3, 0, 4, 5, 6}
	eps := []float64{0, 1, 2, 3, 2, 0, 0, 0}
	g := VertexGradients(pos, tets, eps)
	a, b := [3]float64{1, 2, 3}, [3]float64{-1, 0, 0}
	va, vb := 1.0/6, 8.0/6
	want := [8][3]float64{}
	for k := range 3 {
		want[0][k] = (va*a[k] + vb*b[k]) / (va + vb)
		for _, v := range []int{1, 2, 3} {
			want[v][k] = a[k]
		}
		for _, v := range []int{4, 5, 6} {
			want[v][k] = b[k]
		}
	}
	for v := range want {
		for k := range 3 {
			if math.Abs(g[3*v+k]-want[v][k]) > 1e-15 {
				t.Errorf("vertex %d: gradient %v, want %v", v, g[3*v:3*v+3], want[v])
				break
			}
		}
	}
}

// TestPressure checks each mapping against its formula evaluated here,
// and the log mapping's knee for continuity of value and slope.
func TestPressure(t *testing.T) {
	lin := Header{Modulus: 2e5, Mapping: Linear}
	lg := Header{Modulus: 1, Mapping: Log, PressureCap: 5} // knee at 1 − e⁻⁴ ≈ 0.9817
	knee := 1 - math.Exp(-4)
	cases := []struct {
		h    Header
		eps  float64
		want float64
	}{
		{lin, 0, 0}, {lin, 0.25, 5e4}, {lin, 1, 2e5},
		{lg, 0, 0}, {lg, 0.5, math.Ln2}, {lg, 1 - math.Exp(-1), 1}, {lg, 1, 5},
		{lg, knee, 4},
		// Past the knee: the tangent line 4 + (ε − ε*)/e⁻⁴.
		{lg, 0.99, 4 + (0.99-knee)/math.Exp(-4)},
		// A knee that underflows: the log curve all the way, cap at 1.
		{Header{Modulus: 1, Mapping: Log, PressureCap: 1e4}, 1 - 1.0/1024, 10 * math.Ln2},
		{Header{Modulus: 1, Mapping: Log, PressureCap: 1e4}, 1, 1e4},
	}
	for _, c := range cases {
		if got := c.h.Pressure(c.eps); math.Abs(got-c.want) > 1e-12*math.Max(1, c.want) {
			t.Errorf("%+v: Pressure(%v) = %v, want %v", c.h, c.eps, got, c.want)
		}
	}
	// The slope is continuous at the knee (1/q* from both sides) and
	// positive everywhere; p never exceeds the cap.
	const d = 1e-7
	left := (lg.Pressure(knee) - lg.Pressure(knee-d)) / d
	right := (lg.Pressure(knee+d) - lg.Pressure(knee)) / d
	if want := math.Exp(4); math.Abs(left-want) > 1e-4*want || math.Abs(right-want) > 1e-4*want {
		t.Errorf("slope at knee: %v left, %v right, want %v", left, right, want)
	}
	prev := -1.0
	for i := 0; i <= 1000; i++ {
		p := lg.Pressure(float64(i) / 1000)
		if p <= prev || p > lg.PressureCap {
			t.Fatalf("Pressure(%v) = %v after %v: not increasing below the cap", float64(i)/1000, p, prev)
		}
		prev = p
	}
}
