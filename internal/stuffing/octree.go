package stuffing

import (
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// The octree partitions a root cube into leaf cubes, fine where the surface
// needs them and coarse elsewhere. Cells are addressed by level and integer
// index; positions are integers in units of the root size / 2^(maxLevel+1),
// so that every corner and every centre of every cell is an exact integer
// point and lattice vertices can be identified by key, never by distance.

// maxLevel is the deepest octree level: cells 2^-18 of the root across,
// far below any tolerance a caller can ask for.
const maxLevel = 18

// unitBits is the number of bits of one integer coordinate (0..2^19).
const unitBits = 20

// Node states stored in octree.nodes.
const (
	leafNode    = 1
	innerNode   = 2
	surfaceLeaf = 3 // a leaf the input surface meets, at the level sizing chose
	grownLeaf   = 4 // a leaf the input surface meets, made by balancing
)

func nodeKey(level int, i, j, k uint32) uint64 {
	return uint64(level)<<57 | uint64(i)<<38 | uint64(j)<<19 | uint64(k)
}

func unpackNode(key uint64) (level int, i, j, k uint32) {
	const m = 1<<19 - 1
	return int(key >> 57), uint32(key>>38) & m, uint32(key>>19) & m, uint32(key) & m
}

// cellUnits returns the edge length of a level-l cell in integer units.
func cellUnits(level int) uint32 { return 1 << (maxLevel + 1 - level) }

// octree is a linear octree: the states of all its nodes keyed by nodeKey.
type octree struct {
	origin geom.Vec // minimum corner of the root cube
	size   float64  // root cube edge length
	nodes  *keyMap
	leaves []uint64 // leaf keys in increasing key order, after finish
}

// splitFunc decides whether a cell must be split; tris are the input
// triangles meeting it (padded), in increasing order.
type splitFunc func(level int, key uint64, centre geom.Vec, half float64, tris []int32) bool

// point returns the position of integer point (x, y, z).
func (o *octree) point(x, y, z uint32) geom.Vec {
	u := o.size / float64(uint32(1)<<(maxLevel+1))
	return geom.Vec{o.origin[0] + float64(x)*u, o.origin[1] + float64(y)*u, o.origin[2] + float64(z)*u}
}

// cell returns the centre and half edge length of a cell.
func (o *octree) cell(level int, i, j, k uint32) (geom.Vec, float64) {
	s := cellUnits(level)
	return o.point(i*s+s/2, j*s+s/2, k*s+s/2), o.size / float64(uint32(1)<<level) / 2
}

// buildOctree refines the root cube top-down: a cell is split while split
// says so, handing each child the triangles of its parent that meet it.
func buildOctree(origin geom.Vec, size float64, in *input, split splitFunc) *octree {
	o := &octree{origin: origin, size: size, nodes: newKeyMap(1 << 12)}
	// Cells at parLevel are refined at once, each recording its nodes; the
	// records are then entered in cell order. (split and trianglesIn only
	// read.)
	type cellJob struct {
		level   int
		i, j, k uint32
		tris    []int32
		nodes   []uint64 // key, state pairs
	}
	var jobs []*cellJob
	var rec func(level int, i, j, k uint32, tris []int32, job *cellJob)
	rec = func(level int, i, j, k uint32, tris []int32, job *cellJob) {
		if job == nil && level == parLevel {
			jobs = append(jobs, &cellJob{level: level, i: i, j: j, k: k, tris: tris})
			return
		}
		set := func(key uint64, st int32) {
			if job == nil {
				o.nodes.set(key, st)
			} else {
				job.nodes = append(job.nodes, key, uint64(st))
			}
		}
		c, h := o.cell(level, i, j, k)
		key := nodeKey(level, i, j, k)
		if level < maxLevel && split(level, key, c, h, tris) {
			set(key, innerNode)
			for ch := uint32(0); ch < 8; ch++ {
				ci, cj, ck := 2*i+ch&1, 2*j+ch>>1&1, 2*k+ch>>2
				cc, chh := o.cell(level+1, ci, cj, ck)
				rec(level+1, ci, cj, ck, in.trianglesIn(tris, cc, chh), job)
			}
			return
		}
		if len(tris) > 0 {
			set(key, surfaceLeaf)
		} else {
			set(key, leafNode)
		}
	}
	rec(0, 0, 0, 0, in.trianglesIn(in.allTris(), geom.Add(origin, geom.Scale(size/2, geom.Vec{1, 1, 1})), size/2), nil)
	par.For(len(jobs), 1, func(lo, hi int) {
		for _, j := range jobs[lo:hi] {
			rec(j.level, j.i, j.j, j.k, j.tris, j)
		}
	})
	for _, j := range jobs {
		for n := 0; n < len(j.nodes); n += 2 {
			o.nodes.set(j.nodes[n], int32(j.nodes[n+1]))
		}
	}
	return o
}

// parLevel is the octree level from which buildOctree refines cells in
// parallel: 64 cells at level 2.
const parLevel = 2

// leafAt returns the key and state of the leaf containing the level-l cell
// (i, j, k), or ok = false when that cell is outside the root or is split
// further (the cell exists as an inner node).
func (o *octree) leafAt(level int, i, j, k uint32) (key uint64, state int32, ok bool) {
	n := uint32(1) << level
	if i >= n || j >= n || k >= n {
		return 0, 0, false
	}
	for l := level; l >= 0; l-- {
		key = nodeKey(l, i, j, k)
		if st := o.nodes.get(key); st >= 0 {
			if st == innerNode {
				return key, st, false
			}
			return key, st, true
		}
		i, j, k = i>>1, j>>1, k>>1
	}
	return 0, 0, false
}

// splitLeaf turns leaf key into an inner node with eight leaf children,
// marking as grown the children that surface says meet the input.
func (o *octree) splitLeaf(key uint64, surface func(level int, i, j, k uint32) bool) []uint64 {
	level, i, j, k := unpackNode(key)
	o.nodes.set(key, innerNode)
	kids := make([]uint64, 0, 8)
	for ch := uint32(0); ch < 8; ch++ {
		ci, cj, ck := 2*i+ch&1, 2*j+ch>>1&1, 2*k+ch>>2
		st := int32(leafNode)
		if surface(level+1, ci, cj, ck) {
			st = grownLeaf
		}
		kk := nodeKey(level+1, ci, cj, ck)
		o.nodes.set(kk, st)
		kids = append(kids, kk)
	}
	return kids
}

// balance enforces two grading rules, splitting leaves until both hold:
//   - every leaf's 26 neighbours are at most one level coarser (2:1);
//   - the 26 neighbours of a surface leaf as sizing made it are no
//     coarser than it, so that where the surface runs through cells of one
//     size the tets crossing it join cells of that size, as in Labelle and
//     Shewchuk's graded lattice. Leaves that balancing splits are exempt,
//     or the finest level would spread over the whole surface.
//
// It sweeps levels from fine to coarse; splitting only ever creates
// leaves at the level being swept or coarser, which the sweep visits
// later, so one sweep suffices.
func (o *octree) balance(surface func(level int, i, j, k uint32) bool) {
	byLevel := make([][]uint64, maxLevel+1)
	o.eachLeaf(func(key uint64, _ int32) {
		l, _, _, _ := unpackNode(key)
		byLevel[l] = append(byLevel[l], key)
	})
	for l := range byLevel {
		slices.Sort(byLevel[l])
	}
	// ensure makes the level-m cell containing (i, j, k) exist, splitting
	// the coarser leaf that covers it.
	ensure := func(m int, i, j, k uint32) {
		for {
			key, st, ok := o.leafAt(m, i, j, k)
			if !ok {
				return // outside the root, or already split below m
			}
			lk, _, _, _ := unpackNode(key)
			if lk >= m {
				return
			}
			_ = st
			for _, kid := range o.splitLeaf(key, surface) {
				kl, _, _, _ := unpackNode(kid)
				byLevel[kl] = append(byLevel[kl], kid)
			}
		}
	}
	for l := maxLevel; l >= 1; l-- {
		for n := 0; n < len(byLevel[l]); n++ {
			key := byLevel[l][n]
			st := o.nodes.get(key)
			if st == innerNode {
				continue
			}
			_, i, j, k := unpackNode(key)
			for d := 0; d < 27; d++ {
				di, dj, dk := uint32(d%3)-1, uint32(d/3%3)-1, uint32(d/9)-1
				if d == 13 {
					continue
				}
				ni, nj, nk := i+di, j+dj, k+dk // wraps past 0 to a huge index: outside
				if st == surfaceLeaf {
					ensure(l, ni, nj, nk)
				} else {
					ensure(l-1, ni>>1, nj>>1, nk>>1)
				}
			}
		}
	}
	o.collectLeaves()
}

func (o *octree) eachLeaf(f func(key uint64, state int32)) {
	for s, key := range o.nodes.keys {
		if key != emptyKey && o.nodes.vals[s] != innerNode {
			f(key, o.nodes.vals[s])
		}
	}
}

func (o *octree) collectLeaves() {
	o.leaves = o.leaves[:0]
	o.eachLeaf(func(key uint64, _ int32) { o.leaves = append(o.leaves, key) })
	slices.Sort(o.leaves)
}
