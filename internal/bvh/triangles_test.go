package bvh

import "testing"

func TestTriangleBoxes(t *testing.T) {
	pos := []float64{0, 0, 0, 1, 2, -1, -3, 0.5, 4, 7, 7, 7}
	tris := []int32{0, 1, 2, 3, 1, 0}
	got := TriangleBoxes(pos, tris)
	want := []float64{-3, 0, -1, 1, 2, 4, 0, 0, -1, 7, 7, 7}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("box value %d = %g, want %g", i, got[i], want[i])
		}
	}
}
