package bvh

// Hilbert3 returns the position of cell c (bits ≤ 21 bits per axis) along
// a 3D Hilbert curve (Skilling 2004, "Programming the Hilbert curve"): the
// key that orders tetgen's insertions and laplace's unknowns so that
// neighbours stay close in memory. Branches on coordinate bits are turned
// into masks: the bits are random, so branches would mispredict half the
// time.
func Hilbert3(c [3]uint32, bits int) uint64 {
	x, y, z := c[0], c[1], c[2]
	for b := bits - 1; b > 0; b-- {
		p := uint32(1)<<b - 1
		// Axis 0: invert the low bits if bit b is set.
		x ^= p & -(x >> b & 1)
		// Axes 1 and 2: invert x's low bits if set, else exchange them.
		set := -(y >> b & 1)
		t := (x ^ y) & p &^ set
		x ^= p&set | t
		y ^= t
		set = -(z >> b & 1)
		t = (x ^ z) & p &^ set
		x ^= p&set | t
		z ^= t
	}
	y ^= x
	z ^= y
	// Bit j of t is the parity of z's bits above j (Skilling's loop over
	// them, as a suffix XOR).
	t := z >> 1
	t ^= t >> 1
	t ^= t >> 2
	t ^= t >> 4
	t ^= t >> 8
	t ^= t >> 16
	x, y, z = x^t, y^t, z^t
	m := uint32(1)<<bits - 1
	return spread(uint64(x&m))<<2 | spread(uint64(y&m))<<1 | spread(uint64(z&m))
}
