package tetmesh

import (
	"sync/atomic"

	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/radix"
)

// Neighbors returns, for each tet t and local vertex k, the tet across the
// face opposite k, or −1 where that face is on the boundary. ok is false
// if some face is in more than two tets; the tet reported across it is
// then the last of the others in index order. (Tets with a repeated
// vertex, which Validate rejects, get some neighbour across their faces.)
//
// Faces are matched by sorting: every face gets a key from its sorted
// vertex indices and the keys are radix sorted with the face they came
// from, so equal faces end up side by side. That takes a fifth of the
// time of searching each face among its vertices' tets (on two cores, the
// aneurysm's 642 k-tet default build: 61 against 308 ms; the 40³ grid of
// BenchmarkNeighbors, whose vertices have few tets: 31 against 75 ms).
// Meshes of FaceKeyLimit vertices or more, whose keys would not fit in 64
// bits, are searched.
func Neighbors(tets []int32, nv int) (nbr []int32, ok bool) {
	if nv >= FaceKeyLimit {
		return searchNeighbors(tets, nv)
	}
	return sortNeighbors(tets)
}

// sortNeighbors is Neighbors by sorting face keys; every vertex index
// must be below FaceKeyLimit.
func sortNeighbors(tets []int32) (nbr []int32, ok bool) {
	n := len(tets)
	keys, slots := make([]uint64, n), make([]int32, n)
	par.For(n, 1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			f := TetFaces[i%4]
			t := tets[i-i%4 : i-i%4+4]
			keys[i], slots[i] = FaceKey(t[f[0]], t[f[1]], t[f[2]]), int32(i)
		}
	})
	radix.Sort(keys, slots) // stable: equal faces in slot order
	nbr = make([]int32, n)
	ok = true
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j] == keys[i] {
			j++
		}
		if j-i == 2 && slots[i]/4 != slots[i+1]/4 {
			nbr[slots[i]], nbr[slots[i+1]] = slots[i+1]/4, slots[i]/4
		} else {
			ok = matchRun(slots[i:j], nbr) && ok
		}
		i = j
	}
	return nbr, ok
}

// matchRun sets the neighbour across each of a run of face slots with the
// same vertices, in increasing order: the tet of the last slot of another
// tet, or −1. It reports false if a slot has more than one such.
func matchRun(run, nbr []int32) bool {
	ok := true
	for _, s := range run {
		found, others := int32(-1), 0
		for _, u := range run {
			if u/4 != s/4 {
				found, others = u/4, others+1
			}
		}
		nbr[s] = found
		ok = ok && others <= 1
	}
	return ok
}

// FaceKeyLimit bounds the vertex indices FaceKey packs.
const FaceKeyLimit = 1 << 21

// FaceKey packs the sorted vertices of a face, each below FaceKeyLimit,
// into a key that equal faces, and only they, share.
func FaceKey(x, y, z int32) uint64 {
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

// searchNeighbors is Neighbors by searching each face among the tets of
// its vertex with the fewest.
func searchNeighbors(tets []int32, nv int) (nbr []int32, ok bool) {
	start, inc := VertexTets(tets, nv)
	nbr = make([]int32, len(tets))
	// Each tet's faces are searched on their own and written to its own
	// slots, so the tets split across cores.
	var crowded atomic.Bool
	par.For(len(tets)/4, 4096, func(lo, hi int) {
		for t := lo; t < hi; t++ {
			for k, f := range TetFaces {
				a, b, c := tets[4*t+f[0]], tets[4*t+f[1]], tets[4*t+f[2]]
				// Every tet holding the face is in each of its vertices'
				// lists, in the same order.
				w := a
				for _, v := range [2]int32{b, c} {
					if start[v+1]-start[v] < start[w+1]-start[w] {
						w = v
					}
				}
				found := int32(-1)
				for _, u := range inc[start[w]:start[w+1]] {
					if int(u) == t || !hasVertex(tets[4*u:4*u+4], a, b, c) {
						continue
					}
					if found >= 0 {
						crowded.Store(true)
					}
					found = u
				}
				nbr[4*t+k] = found
			}
		}
	})
	return nbr, !crowded.Load()
}

func hasVertex(tet []int32, a, b, c int32) bool {
	n := 0
	for _, v := range tet {
		if v == a || v == b || v == c {
			n++
		}
	}
	return n == 3
}
