package stuffing

import (
	"github.com/pfmesh/pfmesh/internal/geom"

	"github.com/pfmesh/pfmesh/internal/par"
)

// The background mesh is the graded body-centred cubic lattice of the
// octree (after Labelle & Shewchuk 2007, §5): its vertices are the leaf
// corners and centres, and for every pair of leaves A, B sharing a face,
// with S the face of the smaller (either if equal), it has one tet
// (centre A, centre B, p, q) per segment pq of S's boundary, each edge of S
// being split at its midpoint when that point is a leaf corner. Between
// equal leaves these are the BCC tets; across a 2:1 face they are the
// bipyramid of the two centres over S cut along cA–cB. The segment cA–cB
// crosses S inside it (at 2/3 of the way towards the big cell's side for a
// 2:1 face), so the tets over S tile the two pyramids (cA, S) and (cB, S)
// exactly, and the pyramids over all leaf faces tile the root. Faces on the
// root boundary get no tets; the root is padded so nothing there is inside.
type lattice struct {
	o       *octree
	keys    []uint64  // vertex keys (packed integer coordinates)
	pos     []float64 // vertex positions
	centre  []bool    // vertex is a leaf centre (else a corner)
	level   []int8    // level of the leaf the vertex is the centre of, or the finest leaf it is a corner of
	tets    []int32   // background tets, positively oriented
	tetLeaf []int32   // the smaller of the two leaves each tet joins
	index   *keyMap   // vertex key → vertex
}

func vertexKey(x, y, z uint32) uint64 {
	return uint64(x)<<(2*unitBits) | uint64(y)<<unitBits | uint64(z)
}

func unpackVertex(key uint64) (x, y, z uint32) {
	const m = 1<<unitBits - 1
	return uint32(key >> (2 * unitBits)), uint32(key>>unitBits) & m, uint32(key) & m
}

// faceDirs are the six face directions; the first three point up an axis.
var faceDirs = [6][3]int32{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {-1, 0, 0}, {0, -1, 0}, {0, 0, -1}}

func newLattice(o *octree) *lattice {
	L := &lattice{o: o, index: newKeyMap(4 * len(o.leaves))}
	add := func(x, y, z uint32, centre bool, level int) int32 {
		key := vertexKey(x, y, z)
		id, fresh := L.index.put(key, int32(len(L.keys)))
		if fresh {
			L.keys = append(L.keys, key)
			L.pos = append(L.pos, 0, 0, 0)
			p := o.point(x, y, z)
			copy(L.pos[3*id:], p[:])
			L.centre = append(L.centre, centre)
			L.level = append(L.level, int8(level))
		} else if int8(level) > L.level[id] {
			L.level[id] = int8(level)
		}
		return id
	}
	centres := make([]int32, len(o.leaves))
	for n, key := range o.leaves {
		l, i, j, k := unpackNode(key)
		s := cellUnits(l)
		for c := uint32(0); c < 8; c++ {
			add((i+c&1)*s, (j+c>>1&1)*s, (k+c>>2)*s, false, l)
		}
		centres[n] = add(i*s+s/2, j*s+s/2, k*s+s/2, true, l)
	}
	leafIndex := newKeyMap(len(o.leaves))
	for n, key := range o.leaves {
		leafIndex.set(key, int32(n))
	}
	// The tets of each leaf depend only on the vertices, so runs of
	// leaves are stuffed at once and joined in leaf order.
	const run = 2048
	parts := make([]latticeTets, (len(o.leaves)+run-1)/run)
	par.For(len(parts), 1, func(plo, phi int) {
		for r := plo; r < phi; r++ {
			part := &parts[r]
			lo, hi := r*run, min((r+1)*run, len(o.leaves))
			for n := lo; n < hi; n++ {
				key := o.leaves[n]
				l, i, j, k := unpackNode(key)
				s := cellUnits(l)
				for d, dir := range faceDirs {
					nk, _, ok := o.leafAt(l, i+uint32(dir[0]), j+uint32(dir[1]), k+uint32(dir[2]))
					if !ok {
						continue // outside the root, or the finer leaves there make these tets
					}
					if lb, _, _, _ := unpackNode(nk); lb == l && d >= 3 {
						continue // equal leaves: made once, from the lower one
					}
					cB := centres[leafIndex.get(nk)]
					// The face's corners in cyclic order: axis a is the normal.
					a := d % 3
					base := [3]uint32{i * s, j * s, k * s}
					if d < 3 {
						base[a] += s
					}
					u, v := (a+1)%3, (a+2)%3
					var ring [4][3]uint32
					for r, uv := range [4][2]uint32{{0, 0}, {1, 0}, {1, 1}, {0, 1}} {
						ring[r] = base
						ring[r][u] += uv[0] * s
						ring[r][v] += uv[1] * s
					}
					for r := 0; r < 4; r++ {
						p, q := ring[r], ring[(r+1)%4]
						pid := L.index.get(vertexKey(p[0], p[1], p[2]))
						qid := L.index.get(vertexKey(q[0], q[1], q[2]))
						m := [3]uint32{(p[0] + q[0]) / 2, (p[1] + q[1]) / 2, (p[2] + q[2]) / 2}
						if mid := L.index.get(vertexKey(m[0], m[1], m[2])); mid >= 0 {
							part.addTet(L, centres[n], cB, pid, mid, int32(n))
							part.addTet(L, centres[n], cB, mid, qid, int32(n))
						} else {
							part.addTet(L, centres[n], cB, pid, qid, int32(n))
						}
					}
				}
			}
		}
	})
	// Joined in leaf order, each run copied to its place at once.
	at := make([]int, len(parts)+1)
	for r, part := range parts {
		at[r+1] = at[r] + len(part.leaf)
	}
	L.tets, L.tetLeaf = make([]int32, 4*at[len(parts)]), make([]int32, at[len(parts)])
	par.For(len(parts), 1, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			copy(L.tets[4*at[r]:], parts[r].tets)
			copy(L.tetLeaf[at[r]:], parts[r].leaf)
		}
	})
	return L
}

// addTet appends tet abcd, swapping c and d if needed so that it is
// positively oriented; the sign is exact, from integer coordinates.
// latticeTets are the tets of a run of leaves.
type latticeTets struct {
	tets, leaf []int32
}

func (part *latticeTets) addTet(L *lattice, a, b, c, d, leaf int32) {
	if L.orientInt(a, b, c, d) < 0 {
		c, d = d, c
	}
	part.tets = append(part.tets, a, b, c, d)
	part.leaf = append(part.leaf, leaf)
}

func (L *lattice) orientInt(a, b, c, d int32) int64 {
	var v [4][3]int64
	for n, id := range [4]int32{a, b, c, d} {
		x, y, z := unpackVertex(L.keys[id])
		v[n] = [3]int64{int64(x), int64(y), int64(z)}
	}
	var e [3][3]int64
	for r := 0; r < 3; r++ {
		for k := 0; k < 3; k++ {
			e[r][k] = v[r+1][k] - v[0][k]
		}
	}
	return e[0][0]*(e[1][1]*e[2][2]-e[1][2]*e[2][1]) - e[0][1]*(e[1][0]*e[2][2]-e[1][2]*e[2][0]) + e[0][2]*(e[1][0]*e[2][1]-e[1][1]*e[2][0])
}

func (L *lattice) vertex(i int32) geom.Vec { return geom.At(L.pos, i) }
