package bvh

// Morton (Z-order) codes and their radix sort, for BuildMorton.

import "slices"

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

// radixSort sorts keys ascending, carrying items along, stably (LSD, 8
// bits a pass, skipping bytes that are the same in every key).
func radixSort(keys []uint64, items []int32) {
	if len(keys) == 0 {
		return
	}
	src, dst := keys, make([]uint64, len(keys))
	srcI, dstI := items, make([]int32, len(items))
	for shift := uint(0); shift < 64; shift += 8 {
		var count [257]int
		for _, k := range src {
			count[(k>>shift)&0xff+1]++
		}
		if slices.Max(count[1:]) == len(src) {
			continue // this byte is the same in every key
		}
		for i := 1; i < 257; i++ {
			count[i] += count[i-1]
		}
		for i, k := range src {
			d := (k >> shift) & 0xff
			dst[count[d]], dstI[count[d]] = k, srcI[i]
			count[d]++
		}
		src, dst = dst, src
		srcI, dstI = dstI, srcI
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
		copy(items, srcI)
	}
}
