// Package radix sorts 64-bit keys that carry int32 values, stably and on
// all cores, with a result that does not depend on GOMAXPROCS.
//
// Spatial orders (Hilbert and Morton keys) and face matching sort millions
// of such pairs; a comparison sort takes several times as long.
package radix

import (
	"runtime"

	"github.com/pfmesh/pfmesh/internal/par"
)

// digit is the width of a pass's digit in bits. Eight bits make twice the
// passes of sixteen, but each writes to 256 places, which the caches hold.
const digit = 8

// blockMin is the least keys a block takes: fewer are not worth a goroutine.
const blockMin = 1 << 15

// Sort sorts keys ascending, permuting vals alongside; equal keys keep
// their order (LSD radix sort, passes over digits that are the same in
// every key skipped). Each pass counts and places the keys of contiguous
// blocks on all cores: a block places its keys of a digit after those of
// the blocks before it, so the result is the serial one. vals must be as
// long as keys.
func Sort(keys []uint64, vals []int32) {
	n := len(keys)
	if n == 0 {
		return
	}
	origKeys, origVals := keys, vals
	k2, v2 := make([]uint64, n), make([]int32, n)
	blocks := max(1, min(runtime.GOMAXPROCS(0), n/blockMin))
	bounds := func(b int) (int, int) { return b * n / blocks, (b + 1) * n / blocks }
	count := make([][1 << digit]int, blocks)
	for shift := uint(0); shift < 64; shift += digit {
		par.For(blocks, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				c := &count[b]
				clear(c[:])
				x, y := bounds(b)
				for _, k := range keys[x:y] {
					c[k>>shift&(1<<digit-1)]++
				}
			}
		})
		if d := keys[0] >> shift & (1<<digit - 1); total(count, d) == n {
			continue // every key has this digit
		}
		sum := 0
		for d := range 1 << digit {
			for b := range count {
				count[b][d], sum = sum, sum+count[b][d]
			}
		}
		par.For(blocks, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				c := &count[b]
				x, y := bounds(b)
				for i, k := range keys[x:y] {
					d := k >> shift & (1<<digit - 1)
					k2[c[d]], v2[c[d]] = k, vals[x+i]
					c[d]++
				}
			}
		})
		keys, k2 = k2, keys
		vals, v2 = v2, vals
	}
	// After an odd number of passes the sorted data sits in the scratch
	// slices; copy it back.
	if &keys[0] != &origKeys[0] {
		copy(origKeys, keys)
		copy(origVals, vals)
	}
}

// total returns the number of keys with digit d over all blocks' counts.
func total(count [][1 << digit]int, d uint64) int {
	t := 0
	for b := range count {
		t += count[b][d]
	}
	return t
}
