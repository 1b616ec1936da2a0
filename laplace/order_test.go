package laplace

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The first 8³ positions of the Hilbert curve fill the cube [0, 8)³, and
// consecutive cells along the curve share a face.
func TestHilbertKeyIsACurve(t *testing.T) {
	const side = 8
	cell := make([][3]uint32, side*side*side)
	seen := make([]bool, len(cell))
	for x := uint32(0); x < side; x++ {
		for y := uint32(0); y < side; y++ {
			for z := uint32(0); z < side; z++ {
				k := hilbertKey([3]uint32{x, y, z})
				if k >= uint64(len(cell)) || seen[k] {
					t.Fatalf("cell (%d,%d,%d) has key %d", x, y, z, k)
				}
				seen[k] = true
				cell[k] = [3]uint32{x, y, z}
			}
		}
	}
	for k := 1; k < len(cell); k++ {
		d := 0
		for a := range 3 {
			d += int(max(cell[k][a], cell[k-1][a]) - min(cell[k][a], cell[k-1][a]))
		}
		if d != 1 {
			t.Fatalf("cells %d %v and %d %v are not face neighbours", k-1, cell[k-1], k, cell[k])
		}
	}
}

// hilbertOrder returns a permutation, stable for coincident points.
func TestHilbertOrderPermutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pos := make([]float64, 3*5000)
	for i := range pos {
		pos[i] = rng.Float64()
	}
	copy(pos[300:303], pos[30:33]) // vertex 100 coincides with vertex 10
	order := hilbertOrder(pos)
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	for i, v := range sorted {
		if int(v) != i {
			t.Fatalf("not a permutation: %d at %d", v, i)
		}
	}
	if slices.Index(order, 10) > slices.Index(order, 100) {
		t.Error("coincident vertices 10 and 100 are out of input order")
	}
	if got := hilbertOrder(pos[:3]); len(got) != 1 || got[0] != 0 {
		t.Errorf("one vertex: %v", got)
	}
}
