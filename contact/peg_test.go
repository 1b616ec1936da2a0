package contact

import (
	"fmt"
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// A rigid peg in a slot: the compliant block [−1,1]×[0,1]×[0,1] has a slot
// |x| < 1/4 above z = 1/2, and ε = max(|x| − 1/4, 0) (exact on the grid,
// whose lines include x = ±1/4). The peg, 0.7 wide (0.1 wider than the slot
// on each side), spans y ∈ [−0.5, 1.5] and z ∈ [0.7, 2], shifted by s in x.
// It touches the block in two disconnected patches, one per wall: its side
// face (pressure E·(0.1 ∓ s), area 0.3) and a strip of its bottom face
// (pressure E·(|x| − 1/4)). With a = 0.1 − s, b = 0.1 + s, on the block:
//
//	F = E·(0.3·(b − a), 0, −(a² + b²)/2)
//	τ = E·(−(a² + b²)/4, 0.255·(b − a) + (b³ − a³)/3 + (b² − a²)/8, 0.15·(a − b))
func TestPegInSlot(t *testing.T) {
	const E = 1e5
	g := grid(geom.Vec{-1, 0, 0}, geom.Vec{2, 1, 1}, [3]int{8, 2, 4}, func(i, j, k int) bool {
		return !(i >= 3 && i < 5 && k >= 2) // slot: x ∈ (−1/4, 1/4), z > 1/2
	})
	block, err := NewCompliant(g.pos, g.tets, g.field(func(x geom.Vec) float64 { return math.Max(math.Abs(x[0])-0.25, 0) }), Material{Modulus: E})
	if err != nil {
		t.Fatal(err)
	}
	peg := rigidBox(t, geom.Vec{-0.35, -0.5, 0.7}, geom.Vec{0.7, 2, 1.3}, 3, Material{})
	e := NewEvaluator(Options{})
	for _, s := range []float64{0, 0.02, -0.05} {
		t.Run(fmt.Sprint("s=", s), func(t *testing.T) {
			r := mustEval(t, e, block, peg, static(Identity(), PoseFromRPY(s, 0, 0, 0, 0, 0)))
			a, b := 0.1-s, 0.1+s
			wantF := geom.Scale(E, geom.Vec{0.3 * (b - a), 0, -(a*a + b*b) / 2})
			wantT := geom.Scale(E, geom.Vec{-(a*a + b*b) / 4, 0.255*(b-a) + (b*b*b-a*a*a)/3 + (b*b-a*a)/8, 0.15 * (a - b)})
			if vecErr(r.OnA.Force, wantF) > 1e-12*E || vecErr(r.OnA.Torque, wantT) > 1e-12*E {
				t.Errorf("force %v torque %v; want %v %v", r.OnA.Force, r.OnA.Torque, wantF, wantT)
			}
			// Two patches: every polygon lies beside one wall, and both walls
			// have some.
			var left, right float64
			surf := r.Surface
			for i := range surf.NumPolygons() {
				c := surf.vertex(surf.Start[i+1] - 1)
				switch {
				case c[0] < -0.25:
					left += surf.Areas[i]
				case c[0] > 0.25:
					right += surf.Areas[i]
				default:
					t.Fatalf("polygon %d with centroid %v lies in the slot", i, c)
				}
			}
			if math.Abs(left-(0.3+a)) > 1e-12 || math.Abs(right-(0.3+b)) > 1e-12 {
				t.Errorf("patch areas %g, %g; want %g, %g", left, right, 0.3+a, 0.3+b)
			}
		})
	}
}
