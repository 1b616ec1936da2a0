package stuffing

import (
	"slices"

	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/radix"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// boundaryOf returns the outward boundary triangles of tets and the
// neighbour table they came from.
func boundaryOf(tets []int32, nv int) (tris, nbr []int32) {
	nbr, _ = tetmesh.Neighbors(tets, nv)
	return tetmesh.BoundaryFaces(tets, nbr), nbr
}

// pinchedVertices returns the boundary vertices around which the boundary
// triangles do not form a single disc: the link of such a vertex (the edge
// opposite it in each of its triangles) is not one cycle. This covers
// edges used twice in one direction and cones touching at a vertex.
func pinchedVertices(tris []int32, nv int) []int32 {
	start := make([]int32, nv+1)
	for _, v := range tris {
		start[v+1]++
	}
	for i := 0; i < nv; i++ {
		start[i+1] += start[i]
	}
	// link[start[v]:start[v+1]] holds (a, b) pairs packed as a<<32|b: the
	// edge a→b opposite v in each triangle v, a, b.
	link := make([]uint64, len(tris))
	fill := append([]int32(nil), start[:nv]...)
	for i := 0; i < len(tris); i += 3 {
		for k := 0; k < 3; k++ {
			v, a, b := tris[i+k], tris[i+(k+1)%3], tris[i+(k+2)%3]
			link[fill[v]] = uint64(a)<<32 | uint64(uint32(b))
			fill[v]++
		}
	}
	var bad []int32
	for v := 0; v < nv; v++ {
		l := link[start[v]:start[v+1]]
		if len(l) > 0 && !singleCycle(l) {
			bad = append(bad, int32(v))
		}
	}
	return bad
}

// singleCycle reports whether the directed edges a→b form one cycle
// through all of them. Links are short (a dozen edges), so quadratic
// search is cheapest.
func singleCycle(l []uint64) bool {
	if len(l) < 3 {
		return false
	}
	for i, e := range l { // every start vertex once
		for _, f := range l[i+1:] {
			if e>>32 == f>>32 {
				return false
			}
		}
	}
	first := l[0]
	cur, steps := uint32(first), 1
	for steps <= len(l) {
		next := -1
		for j, f := range l {
			if uint32(f>>32) == cur {
				next = j
				break
			}
		}
		if next < 0 {
			return false
		}
		if next == 0 {
			return steps == len(l)
		}
		cur = uint32(l[next])
		steps++
	}
	return false
}

// boundaryAmong returns what boundaryOf returns, in the same order, for
// tets in which every face with a vertex outside on is shared by two tets
// — a stuffed lattice, where only vertices on the surface can be on the
// boundary. Only the faces among those vertices, a small fraction, are
// matched.
func boundaryAmong(tets []int32, nv int, on func(v int32) bool) []int32 {
	if nv >= tetmesh.FaceKeyLimit {
		tris, _ := boundaryOf(tets, nv)
		return tris
	}
	// Faces found in runs at once, joined in order.
	const run = 1 << 16
	type found struct {
		keys []uint64
		ids  []int32
	}
	parts := make([]found, (len(tets)+run-1)/run)
	par.For(len(parts), 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			part := &parts[r]
			for i := r * run; i < min((r+1)*run, len(tets)); i++ {
				t, f := i/4, tetmesh.TetFaces[i%4]
				a, b, c := tets[4*t+f[0]], tets[4*t+f[1]], tets[4*t+f[2]]
				if on(a) && on(b) && on(c) {
					part.keys, part.ids = append(part.keys, tetmesh.FaceKey(a, b, c)), append(part.ids, int32(i))
				}
			}
		}
	})
	var keys []uint64
	var ids []int32
	for _, part := range parts {
		keys, ids = append(keys, part.keys...), append(ids, part.ids...)
	}
	radix.Sort(keys, ids)
	var faces []int32
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && keys[j] == keys[i] {
			j++
		}
		if j-i == 1 {
			faces = append(faces, ids[i])
		}
		i = j
	}
	slices.Sort(faces)
	tris := make([]int32, 0, 3*len(faces))
	for _, i := range faces {
		t, f := int(i/4), tetmesh.TetFaces[i%4]
		tris = append(tris, tets[4*t+f[0]], tets[4*t+f[1]], tets[4*t+f[2]])
	}
	return tris
}
