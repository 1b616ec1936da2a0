package stuffing

import (
	"math"
	"sync/atomic"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/trisearch"
)

// thinnest returns the smallest thickness of the meshed solid: over the
// boundary vertices v, the distance to the nearest boundary triangle that
// faces back at v across material — its normal against v's (angle over
// 120°), it lies on v's inner side, and it does not touch v. Thin parts
// the lattice had to resolve show up here, which is how Build reports the
// thinnest feature it kept.
func thinnest(m *tetmesh.Mesh, tris []int32) float64 {
	nv := m.NumVertices()
	normal := make([]geom.Vec, nv)
	tn := make([]geom.Vec, len(tris)/3)
	for t := range tn {
		v := tris[3*t : 3*t+3]
		a, b, c := m.Vertex(v[0]), m.Vertex(v[1]), m.Vertex(v[2])
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		for _, u := range v {
			normal[u] = geom.Add(normal[u], n)
		}
		if l := geom.Norm(n); l > 0 {
			tn[t] = geom.Scale(1/l, n)
		}
	}
	ix := trisearch.New(m.Positions, tris)
	cones := normalCones(ix.Tree, tn)
	var verts []int32
	for v := range nv {
		if m.Tags[v] == tetmesh.Boundary {
			if l := geom.Norm(normal[v]); l > 0 {
				normal[v] = geom.Scale(1/l, normal[v])
				verts = append(verts, int32(v))
			}
		}
	}
	// Look no farther than a twentieth of the boundary's extent: a part
	// thicker than that is not thin.
	reach := boxDiagonal(m.Positions, verts) / 20
	// Only the smallest thickness is wanted, so each search looks no
	// farther than the smallest found so far: the vertex where it is
	// smallest still finds it, whatever the order, so the result does not
	// depend on scheduling. (Non-negative floats order as their bits.)
	var least atomic.Uint64
	least.Store(math.Float64bits(reach * reach))
	par.For(len(verts), chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := verts[i]
			p, n := m.Vertex(v), normal[v]
			_, d2 := ix.Tree.NearestWhere(p, math.Float64frombits(least.Load()), func(node int32) bool {
				return geom.Dot(cones[node].axis, n) > cones[node].skipCos
			}, func(t int32) float64 {
				w := tris[3*t : 3*t+3]
				if geom.Dot(tn[t], n) > facingCos || w[0] == v || w[1] == v || w[2] == v {
					return math.Inf(1)
				}
				a, b, c := ix.Triangle(t)
				if geom.Dot(geom.Sub(a, p), n) >= 0 && geom.Dot(geom.Sub(b, p), n) >= 0 && geom.Dot(geom.Sub(c, p), n) >= 0 {
					return math.Inf(1) // wholly on the outer side: so is its nearest point
				}
				q := trisearch.ClosestOnTriangle(p, a, b, c)
				if geom.Dot(geom.Sub(q, p), n) >= 0 { // a gap, not across material
					return math.Inf(1)
				}
				return geom.Dist2(p, q)
			})
			for {
				old := least.Load()
				if d2 >= math.Float64frombits(old) || least.CompareAndSwap(old, math.Float64bits(d2)) {
					break
				}
			}
		}
	})
	return math.Sqrt(math.Float64frombits(least.Load()))
}

// normalCone bounds the unit normals of the triangles under a BVH node:
// none is more than its half angle from axis. skipCos is the cosine of
// 120° less that half angle, or 2: a vertex normal n with
// axis·n > skipCos is within 120° of every normal there, so thinnest's
// facing test rejects every triangle of the node.
type normalCone struct {
	axis    geom.Vec
	skipCos float64
}

// normalCones returns the normal cone of every node of tree, whose items
// are triangles with unit normals tn (zero where degenerate: thinnest
// rejects those anyway). In the depth-first layout a subtree's items are
// a contiguous run of tree.Items, found bottom-up.
func normalCones(tree *bvh.Tree, tn []geom.Vec) []normalCone {
	nn := tree.NumNodes()
	lo, hi := make([]int32, nn), make([]int32, nn)
	for i := nn - 1; i >= 0; i-- {
		first, count := tree.Nodes[2*i], tree.Nodes[2*i+1]
		if count > 0 {
			lo[i], hi[i] = first, first+count
		} else {
			lo[i], hi[i] = min(lo[i+1], lo[first]), max(hi[i+1], hi[first])
		}
	}
	cones := make([]normalCone, nn)
	par.For(nn, chunk, func(a, b int) {
		for i := a; i < b; i++ {
			items := tree.Items[lo[i]:hi[i]]
			var sum geom.Vec
			for _, t := range items {
				sum = geom.Add(sum, tn[t])
			}
			cones[i].skipCos = 2
			l := geom.Norm(sum)
			if !(l > 0) {
				continue
			}
			axis := geom.Scale(1/l, sum)
			least := 1.0
			for _, t := range items {
				if tn[t] != (geom.Vec{}) {
					least = min(least, geom.Dot(axis, tn[t]))
				}
			}
			// A margin for rounding: the cone only ever gets wider.
			half := math.Acos(max(-1, min(1, least))) + 1e-9
			if room := math.Acos(facingCos) - half; room > 0 {
				cones[i] = normalCone{axis, math.Cos(room) + 1e-9}
			}
		}
	})
	return cones
}

// boxDiagonal returns the diagonal of the bounding box of vertices vs.
func boxDiagonal(pos []float64, vs []int32) float64 {
	lo := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Scale(-1, lo)
	for _, v := range vs {
		p := geom.At(pos, v)
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	return geom.Norm(geom.Sub(hi, lo))
}
