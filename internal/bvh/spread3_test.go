package bvh

import (
	"math/rand"
	"testing"
)

// TestSpread3 checks Spread3 against moving the bits one at a time.
func TestSpread3(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for it := 0; it < 10000; it++ {
		x := r.Uint64()
		var want uint64
		for j := 0; j < 21; j++ {
			want |= (x >> j & 1) << (3 * j)
		}
		if got := Spread3(x); got != want {
			t.Fatalf("Spread3(%#x) = %#x, want %#x", x, got, want)
		}
	}
}
