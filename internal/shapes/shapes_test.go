package shapes

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
)

// closedOriented checks every directed edge has its reverse exactly once.
func closedOriented(s *format.Surface) bool {
	c := map[[2]int32]int{}
	for i := 0; i < len(s.Triangles); i += 3 {
		for k := 0; k < 3; k++ {
			c[[2]int32{s.Triangles[i+k], s.Triangles[i+(k+1)%3]}]++
		}
	}
	for e, n := range c {
		if n != 1 || c[[2]int32{e[1], e[0]}] != 1 {
			return false
		}
	}
	return true
}

func TestShapes(t *testing.T) {
	tests := []struct {
		name string
		s    *format.Surface
		vol  float64 // exact volume of the polyhedron
		tol  float64
	}{
		{"box", Box(1, 2, 3, 3), 6, 1e-12},
		{"plate", Plate(100, 1, 10), 1e4, 1e-9},
		// Icosahedron of circumradius 1: volume (5/12)(3+√5)a³ with a = 4/√(10+2√5).
		{"icosahedron", Icosphere(1, 0), 5.0 / 12 * (3 + math.Sqrt(5)) * math.Pow(4/math.Sqrt(10+2*math.Sqrt(5)), 3), 1e-12},
		{"icosphere", Icosphere(1, 4), 4 * math.Pi / 3, 3e-3},
		{"torus", Torus(2, 0.5, 128, 64), 2 * math.Pi * math.Pi * 2 * 0.25, 3e-3},
		{"cylinder", Cylinder(1, 2, 256, 4), 2 * math.Pi, 1e-3},
		{"L-bracket", LBracket(3, 1, 2), (3 + 2) * 2, 1e-12},
		{"wedge", Wedge(5, 1, 1), 0.5 * math.Sin(5*math.Pi/180), 1e-12},
	}
	for _, tc := range tests {
		if !closedOriented(tc.s) {
			t.Errorf("%s: not closed and consistently oriented", tc.name)
		}
		if v := Volume(tc.s); math.Abs(v-tc.vol) > tc.tol*tc.vol {
			t.Errorf("%s: volume %g, want %g", tc.name, v, tc.vol)
		}
	}
}

// TestFromBytes checks that the fuzz families give closed, consistently
// oriented surfaces of positive volume with a box inside, whatever the
// bytes: short, long, all zeros, all ones, random.
func TestFromBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := [][]byte{nil, {0}, make([]byte, 64), slices.Repeat([]byte{255}, 64)}
	for range 200 {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		inputs = append(inputs, b)
	}
	for family := range byte(3) {
		for _, b := range inputs {
			s, lo, hi := FromBytes(family, b)
			if !closedOriented(s) {
				t.Fatalf("family %d, bytes %v: not closed and consistently oriented", family, b)
			}
			if v := Volume(s); !(v > 0) {
				t.Fatalf("family %d, bytes %v: volume %g", family, b, v)
			}
			for k := range 3 {
				if !(lo[k] < hi[k]) {
					t.Fatalf("family %d, bytes %v: empty inner box %v–%v", family, b, lo, hi)
				}
			}
		}
	}
}
