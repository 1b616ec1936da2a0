package bvh

// Morton (Z-order) codes, for BuildMorton.

// spread moves the low 21 bits of x to every third bit.
func spread(x uint64) uint64 {
	x &= 1<<21 - 1
	x = (x | x<<32) & 0x1f00000000ffff
	x = (x | x<<16) & 0x1f0000ff0000ff
	x = (x | x<<8) & 0x100f00f00f00f00f
	x = (x | x<<4) & 0x10c30c30c30c30c3
	x = (x | x<<2) & 0x1249249249249249
	return x
}

// Spread3 moves the low 21 bits of x to every third bit (bit j to bit
// 3j): the interleave of three coordinates' bits in a Morton or Hilbert key.
func Spread3(x uint64) uint64 { return spread(x) }
