package format

import (
	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// patches holds a consistent orientation of each patch of a surface — a
// set of triangles connected through manifold edges (shared by exactly
// two triangles) — found by walking the patch from its lowest triangle,
// which keeps its corner order.
type patches struct {
	flip  []bool  // per triangle: reverse its corner order to agree with its patch
	label []int32 // per triangle: its patch, −1 for collapsed triangles
	n     int     // number of patches
	// conflicted[p] is true when patch p is not orientable (a Möbius
	// strip): some manifold edge cannot be made consistent. Its triangles
	// keep the orientation of the walk's spanning tree.
	conflicted []bool
	closed     []bool // per patch: every edge of every triangle is manifold
}

// sameWay reports whether triangles t and u run along their shared edge
// a→b (a the corner e of t) in the same direction.
func (tp *topology) sameWay(t, e int, u int32) bool {
	a, b := tp.tris[3*t+e], tp.tris[3*t+(e+1)%3]
	j := tp.corner(u, a)
	return tp.tris[3*int(u)+(j+1)%3] == b
}

func (tp *topology) orientPatches() *patches {
	nt := len(tp.tris) / 3
	p := &patches{flip: make([]bool, nt), label: make([]int32, nt)}
	for t := range p.label {
		p.label[t] = -1
	}
	var queue []int32
	for seed := range nt {
		if p.label[seed] >= 0 || collapsed(tp.tris, seed) {
			continue
		}
		id := int32(p.n)
		p.n++
		p.conflicted = append(p.conflicted, false)
		p.closed = append(p.closed, true)
		p.label[seed] = id
		queue = append(queue[:0], int32(seed))
		for len(queue) > 0 {
			t := int(queue[0])
			queue = queue[1:]
			for e := range 3 {
				u := tp.nbr[3*t+e]
				if u < 0 {
					p.closed[id] = false
					continue
				}
				want := p.flip[t] != tp.sameWay(t, e, u)
				if p.label[u] < 0 {
					p.label[u], p.flip[u] = id, want
					queue = append(queue, u)
				} else if p.flip[u] != want {
					p.conflicted[id] = true
				}
			}
		}
	}
	return p
}

// applyFlips reverses the corner order of every triangle whose flip is set.
func applyFlips(tris []int32, flip []bool) int {
	n := 0
	for t, f := range flip {
		if f {
			tris[3*t+1], tris[3*t+2] = tris[3*t+2], tris[3*t+1]
			n++
		}
	}
	return n
}

// orientOutward makes every patch of tris (already consistent within
// itself) face away from the material it bounds, and returns how many
// patches it reversed. A patch's enclosed signed volume is positive when
// it faces outward — except for a closed patch inside an odd number of
// other closed patches, the wall of a cavity, which must enclose negative
// volume so its normals point into the cavity, out of the material.
func orientOutward(pos []float64, tris []int32, p *patches) int {
	nt := len(tris) / 3
	vol := make([]float64, p.n)
	// A corner of the patch as the apex of the volume's tetrahedra keeps
	// the sum well conditioned far from the origin.
	ref := make([]geom.Vec, p.n)
	for t := nt - 1; t >= 0; t-- {
		if l := p.label[t]; l >= 0 {
			ref[l] = geom.At(pos, tris[3*t])
		}
	}
	for t := range nt {
		if l := p.label[t]; l >= 0 {
			a, b, c := geom.At(pos, tris[3*t]), geom.At(pos, tris[3*t+1]), geom.At(pos, tris[3*t+2])
			vol[l] += geom.TetVolume(ref[l], a, b, c)
		}
	}
	reverse := make([]bool, p.n)
	for i, v := range vol {
		reverse[i] = v < 0
	}
	flip := make([]bool, nt)
	for t := range nt {
		if l := p.label[t]; l >= 0 {
			flip[t] = reverse[l]
		}
	}
	applyFlips(tris, flip)
	for i, cavity := range cavities(pos, tris, p) {
		if cavity {
			reverse[i] = !reverse[i]
			for t := range nt {
				if p.label[t] == int32(i) {
					tris[3*t+1], tris[3*t+2] = tris[3*t+2], tris[3*t+1]
				}
			}
		}
	}
	n := 0
	for _, r := range reverse {
		if r {
			n++
		}
	}
	return n
}

// cavities reports, for each patch of the outward-facing tris, whether it
// is a closed patch lying inside an odd number of other closed patches.
// A triangle centroid of the patch is tested against each closed patch
// whose box contains it, by that patch's winding number.
func cavities(pos []float64, tris []int32, p *patches) []bool {
	cavity := make([]bool, p.n)
	closedPatches := 0
	for _, c := range p.closed {
		if c {
			closedPatches++
		}
	}
	if closedPatches < 2 {
		return cavity
	}
	nt := len(tris) / 3
	members := make([][]int32, p.n) // triangles of each closed patch, corner indices
	sample := make([]geom.Vec, p.n)
	seen := make([]bool, p.n)
	for t := range nt {
		l := p.label[t]
		if l < 0 || !p.closed[l] {
			continue
		}
		members[l] = append(members[l], tris[3*t:3*t+3]...)
		if !seen[l] {
			seen[l] = true
			a, b, c := geom.At(pos, tris[3*t]), geom.At(pos, tris[3*t+1]), geom.At(pos, tris[3*t+2])
			sample[l] = geom.Scale(1.0/3, geom.Add(a, geom.Add(b, c)))
		}
	}
	var closedIDs []int32
	var boxes []float64
	for l, m := range members {
		if m != nil {
			closedIDs = append(closedIDs, int32(l))
			boxes = append(boxes, boxOf(pos, m)...)
		}
	}
	tree := bvh.Build(boxes, 1)
	trees := make(map[int32]*winding.Tree)
	for _, l := range closedIDs {
		q := sample[l]
		depth := 0
		tree.Query([6]float64{q[0], q[1], q[2], q[0], q[1], q[2]}, func(i int32) bool {
			o := closedIDs[i]
			if o == l {
				return true
			}
			wt := trees[o]
			if wt == nil {
				wt = winding.New(pos, members[o])
				trees[o] = wt
			}
			if wt.Inside(q) {
				depth++
			}
			return true
		})
		cavity[l] = depth%2 == 1
	}
	return cavity
}

// boxOf returns the bounding box (min xyz, max xyz) of the vertices the
// triangles use.
func boxOf(pos []float64, tris []int32) []float64 {
	b := []float64{pos[3*tris[0]], pos[3*tris[0]+1], pos[3*tris[0]+2], pos[3*tris[0]], pos[3*tris[0]+1], pos[3*tris[0]+2]}
	for _, v := range tris {
		for k := range 3 {
			x := pos[3*v+int32(k)]
			b[k], b[3+k] = min(b[k], x), max(b[3+k], x)
		}
	}
	return b
}
