package stuffing

import (
	"runtime"

	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// faceNeighbors is tetmesh.Neighbors by sorting instead of searching:
// every tet face gets a key from its sorted vertex indices, the keys are
// radix sorted with the face they came from, and equal neighbours are
// matched. It is some fifty times faster on meshes of a million tets, and
// the stages here call it after every change of the mesh. Meshes with
// 2^21 vertices or more, whose keys would not fit, go to tetmesh.Neighbors.
func faceNeighbors(tets []int32, nv int) (nbr []int32, ok bool) {
	if nv >= 1<<21 {
		return tetmesh.Neighbors(tets, nv)
	}
	n := len(tets)
	keys := make([]uint64, n)
	ids := make([]int32, n)
	par.For(n, chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			t, f := i/4, tetmesh.TetFaces[i%4]
			keys[i], ids[i] = faceKey(tets[4*t+f[0]], tets[4*t+f[1]], tets[4*t+f[2]]), int32(i)
		}
	})
	radixSort(keys, ids)
	nbr = make([]int32, n)
	for i := range nbr {
		nbr[i] = -1
	}
	ok = true
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j] == keys[i] {
			j++
		}
		switch j - i {
		case 1:
		case 2:
			nbr[ids[i]], nbr[ids[i+1]] = ids[i+1]/4, ids[i]/4
		default:
			ok = false
			for k := i; k < j; k++ { // as tetmesh.Neighbors: some other tet
				nbr[ids[k]] = ids[i+(k-i+1)%(j-i)] / 4
			}
		}
		i = j
	}
	return nbr, ok
}

// radixSort sorts keys ascending, permuting ids alike; equal keys keep
// their order. Each pass counts and scatters blocks of the keys at once,
// each block's share of a digit's slots following the earlier blocks', so
// the result is the serial one.
func radixSort(keys []uint64, ids []int32) {
	n := len(keys)
	if n == 0 {
		return
	}
	origKeys, origIDs := keys, ids
	k2, i2 := make([]uint64, n), make([]int32, n)
	// 11-bit digits: the counts stay in cache while the scatter runs.
	const bits, mask = 11, 1<<11 - 1
	blocks := max(1, min(runtime.GOMAXPROCS(0), n>>16))
	count := make([][1 << bits]int, blocks)
	block := func(b int) (int, int) { return b * n / blocks, (b + 1) * n / blocks }
	for shift := uint(0); shift < 64; shift += bits {
		par.For(blocks, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				c := &count[b]
				clear(c[:])
				x, y := block(b)
				for _, k := range keys[x:y] {
					c[k>>shift&mask]++
				}
			}
		})
		first := 0
		for b := range count {
			first += count[b][keys[0]>>shift&mask]
		}
		if first == n {
			continue // every key has this digit
		}
		sum := 0
		for d := range 1 << bits {
			for b := range count {
				count[b][d], sum = sum, sum+count[b][d]
			}
		}
		par.For(blocks, 1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				c := &count[b]
				x, y := block(b)
				for i := x; i < y; i++ {
					k := keys[i]
					d := k >> shift & mask
					k2[c[d]], i2[c[d]] = k, ids[i]
					c[d]++
				}
			}
		})
		keys, k2 = k2, keys
		ids, i2 = i2, ids
	}
	if &keys[0] != &origKeys[0] {
		copy(origKeys, keys)
		copy(origIDs, ids)
	}
}

// faceKey packs the sorted vertices of a face, each under 1<<21.
func faceKey(x, y, z int32) uint64 {
	a, b, c := uint64(x), uint64(y), uint64(z)
	if a > b {
		a, b = b, a
	}
	if b > c {
		b, c = c, b
	}
	if a > b {
		a, b = b, a
	}
	return a<<42 | b<<21 | c
}
