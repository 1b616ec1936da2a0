package bvh

import (
	"math/rand"
	"testing"
)

// TestHilbert3 checks the defining properties of a Hilbert curve on small
// grids: the keys are a bijection of the cells onto 0..8^bits−1, and
// cells with consecutive keys are face neighbours.
func TestHilbert3(t *testing.T) {
	for bits := 1; bits <= 5; bits++ {
		side := uint32(1) << bits
		cell := make([][3]uint32, side*side*side)
		seen := make([]bool, len(cell))
		for x := uint32(0); x < side; x++ {
			for y := uint32(0); y < side; y++ {
				for z := uint32(0); z < side; z++ {
					k := Hilbert3([3]uint32{x, y, z}, bits)
					if k >= uint64(len(cell)) || seen[k] {
						t.Fatalf("bits %d: cell (%d,%d,%d) has key %d, out of range or repeated", bits, x, y, z, k)
					}
					seen[k] = true
					cell[k] = [3]uint32{x, y, z}
				}
			}
		}
		for k := 1; k < len(cell); k++ {
			d := 0
			for i := 0; i < 3; i++ {
				d += int(max(cell[k][i], cell[k-1][i]) - min(cell[k][i], cell[k-1][i]))
			}
			if d != 1 {
				t.Fatalf("bits %d: keys %d and %d at cells %v and %v, not neighbours", bits, k-1, k, cell[k-1], cell[k])
			}
		}
	}
}

// TestHilbert3Skilling checks Hilbert3 on random 20-bit cells against
// Skilling's transform written out bit by bit: the same curve, so the
// same insertion order (and the same vertex numbers breaking ties).
func TestHilbert3Skilling(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for it := 0; it < 100000; it++ {
		bits := 1 + r.Intn(20)
		var c [3]uint32
		for k := range c {
			c[k] = r.Uint32() & (1<<bits - 1)
		}
		if got, want := Hilbert3(c, bits), skillingHilbert(c, bits); got != want {
			t.Fatalf("cell %v, %d bits: key %x, want %x", c, bits, got, want)
		}
	}
}

// TestHilbert3x3 checks Hilbert3x3 against Hilbert3 on random cells of
// 1 to 21 bits; every other case sets all the coordinates' bits, which
// fills the lanes to the top at 21 bits.
func TestHilbert3x3(t *testing.T) {
	r := rand.New(rand.NewSource(10))
	for it := 0; it < 100000; it++ {
		bits := 1 + r.Intn(21)
		var c [3][3]uint32
		for i := range c {
			for k := range c[i] {
				c[i][k] = r.Uint32() & (1<<bits - 1)
				if it%2 == 0 && r.Intn(2) == 0 {
					c[i][k] = 1<<bits - 1
				}
			}
		}
		got := Hilbert3x3(&c, bits)
		for i := range c {
			if want := Hilbert3(c[i], bits); got[i] != want {
				t.Fatalf("cells %v, %d bits: key %d is %x, want %x", c, bits, i, got[i], want)
			}
		}
	}
}

// skillingHilbert is Skilling's AxestoTranspose (2004) followed by the
// interleave of the transposed bits, one bit at a time.
func skillingHilbert(c [3]uint32, bits int) uint64 {
	x := c
	m := uint32(1) << (bits - 1)
	for q := m; q > 1; q >>= 1 {
		p := q - 1
		for i := range 3 {
			if x[i]&q != 0 {
				x[0] ^= p
			} else {
				t := (x[0] ^ x[i]) & p
				x[0] ^= t
				x[i] ^= t
			}
		}
	}
	for i := 1; i < 3; i++ {
		x[i] ^= x[i-1]
	}
	t := uint32(0)
	for q := m; q > 1; q >>= 1 {
		if x[2]&q != 0 {
			t ^= q - 1
		}
	}
	for i := range 3 {
		x[i] ^= t
	}
	var key uint64
	for b := bits - 1; b >= 0; b-- {
		for i := range 3 {
			key = key<<1 | uint64(x[i]>>b&1)
		}
	}
	return key
}
