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
	return hilbertEnd(x, y, z, bits)
}

// hilbertEnd ends Skilling's AxestoTranspose (the Gray decode) and
// interleaves the transposed bits x, y, z into the key.
func hilbertEnd(x, y, z uint32, bits int) uint64 {
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

// Hilbert3x3 returns the Hilbert3 keys of three cells (coordinates below
// 1<<bits, bits ≤ 21). Their coordinates go side by side into 21-bit
// lanes of one word per axis, so that each of Hilbert3's steps, a chain
// of dependent operations, serves all three: the lanes never mix, as the
// operations are bitwise or shift a lane's bit b to its bottom, which the
// mask then isolates (bits shifted in from the lane above are masked
// off). The end, whose suffix XOR would mix lanes, runs per cell. Three
// keys take about half the time of three Hilbert3.
func Hilbert3x3(c *[3][3]uint32, bits int) [3]uint64 {
	const lane = 21
	const ones = 1 | 1<<lane | 1<<(2*lane) // bit 0 of each lane
	var w [3]uint64
	for i := range c {
		for k := range w {
			w[k] |= uint64(c[i][k]) << (lane * i)
		}
	}
	x, y, z := w[0], w[1], w[2]
	for b := bits - 1; b > 0; b-- {
		p := (uint64(1)<<b - 1) * ones
		// Per lane: all ones where bit b is set (1<<21 − 1 is 21 ones).
		fill := func(v uint64) uint64 { s := v >> b & ones; return s<<lane - s }
		x ^= p & fill(x)
		set := fill(y)
		t := (x ^ y) & p &^ set
		x ^= p&set | t
		y ^= t
		set = fill(z)
		t = (x ^ z) & p &^ set
		x ^= p&set | t
		z ^= t
	}
	var keys [3]uint64
	for i := range keys {
		s := lane * i
		keys[i] = hilbertEnd(uint32(x>>s)&(1<<lane-1), uint32(y>>s)&(1<<lane-1), uint32(z>>s)&(1<<lane-1), bits)
	}
	return keys
}
