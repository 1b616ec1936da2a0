package stuffing

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// Evaluating w at every lattice vertex through the hierarchical tree costs
// tens of microseconds a point near the surface, the most of a build. The
// closure makes it cheap without changing the answer: cap the input S with
// a cone F over its boundary chain (the edges whose two directions are not
// used equally often), so that S ∪ F has no boundary and its winding
// number W is an integer, constant off the surface, changing by exactly
// ±1 across each triangle. Then
//
//	w_S(p) = W(p) − w_F(p),
//
// where W is carried from vertex to vertex along lattice edges by counting
// signed crossings with exact predicates, and w_F is the winding number
// of the (small) cone alone. A crossing through an edge or vertex of a
// triangle, where counting is ambiguous, is never guessed: that vertex
// gets W = round(w_S + w_F) from the trees instead.
type closure struct {
	pos  []float64 // input positions, then the cone apex
	tris []int32   // input triangles, then the cone's
	tree *bvh.Tree
	cone *winding.Tree // nil when the input is closed
}

func newClosure(in *input) *closure {
	type dir struct{ a, b int32 }
	es := make([]dir, 0, len(in.tris))
	for t := 0; t+2 < len(in.tris); t += 3 {
		for k := 0; k < 3; k++ {
			es = append(es, dir{in.tris[t+k], in.tris[t+(k+1)%3]})
		}
	}
	key := func(e dir) (int32, int32) { return min(e.a, e.b), max(e.a, e.b) }
	slices.SortFunc(es, func(x, y dir) int {
		xa, xb := key(x)
		ya, yb := key(y)
		return cmp.Or(cmp.Compare(xa, ya), cmp.Compare(xb, yb))
	})
	// Net multiplicity of each undirected edge in the direction lo→hi.
	var chain []dir
	for i := 0; i < len(es); {
		lo, hi := key(es[i])
		net := 0
		j := i
		for ; j < len(es); j++ {
			if a, b := key(es[j]); a != lo || b != hi {
				break
			}
			if es[j].a == lo {
				net++
			} else {
				net--
			}
		}
		for ; net > 0; net-- {
			chain = append(chain, dir{lo, hi})
		}
		for ; net < 0; net++ {
			chain = append(chain, dir{hi, lo})
		}
		i = j
	}
	c := &closure{pos: in.pos, tris: in.tris}
	if len(chain) > 0 {
		var apex geom.Vec
		for _, e := range chain {
			apex = geom.Add(apex, geom.At(in.pos, e.a))
		}
		apex = geom.Scale(1/float64(len(chain)), apex)
		c.pos = append(slices.Clip(in.pos), apex[:]...)
		n := int32(len(in.pos) / 3)
		coneTris := make([]int32, 0, 3*len(chain))
		for _, e := range chain {
			coneTris = append(coneTris, n, e.b, e.a) // the cone's boundary cancels the chain
		}
		c.tris = append(slices.Clip(in.tris), coneTris...)
		c.cone = winding.New(c.pos, coneTris)
	}
	c.tree = bvh.Build(bvh.TriangleBoxes(c.pos, c.tris), 4)
	return c
}

// coneW returns w_F(p).
func (c *closure) coneW(p geom.Vec) float64 {
	if c.cone == nil {
		return 0
	}
	return c.cone.At(p)
}

// jump returns W(b) − W(a), or ok = false when segment ab touches a
// triangle's edge, vertex or plane in a way counting cannot settle.
func (c *closure) jump(a, b geom.Vec) (sum int, ok bool) {
	box := [6]float64{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2]), max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])}
	ok = true
	c.tree.Query(box, func(t int32) bool {
		i := 3 * int(t)
		p, q, r := geom.At(c.pos, c.tris[i]), geom.At(c.pos, c.tris[i+1]), geom.At(c.pos, c.tris[i+2])
		j, exact := segmentCrossing(a, b, p, q, r)
		sum += j
		ok = exact
		return ok
	})
	return sum, ok
}

// segmentCrossing classifies segment ab against triangle pqr with exact
// predicates: jump +1 when it passes through the triangle's interior from
// the front (the side its normal points to) to the back, −1 the other way,
// 0 when it misses. exact = false when it meets the triangle's boundary,
// or an end lies on the triangle, or it runs in the triangle's plane
// across it; jump is then 1 or −1 for a crossing through an edge or a
// vertex, else 0.
func segmentCrossing(a, b, p, q, r geom.Vec) (jump int, exact bool) {
	sa, sb := geom.Orient3D(p, q, r, a), geom.Orient3D(p, q, r, b)
	if sa*sb > 0 {
		return 0, true
	}
	if sa == 0 && sb == 0 {
		return 0, !coplanarTouch(a, b, p, q, r)
	}
	o1, o2, o3 := geom.Orient3D(a, b, p, q), geom.Orient3D(a, b, q, r), geom.Orient3D(a, b, r, p)
	if (o1 < 0 || o2 < 0 || o3 < 0) && (o1 > 0 || o2 > 0 || o3 > 0) {
		return 0, true // the line misses the triangle
	}
	if sa == 0 || sb == 0 {
		return 0, false // an end on the triangle
	}
	jump = 1
	if sa < 0 {
		jump = -1
	}
	return jump, o1 != 0 && o2 != 0 && o3 != 0
}

// coplanarTouch reports, conservatively, whether segment ab, in the plane
// of triangle pqr, may meet it: their bounding boxes overlap.
func coplanarTouch(a, b, p, q, r geom.Vec) bool {
	for k := range 3 {
		if max(a[k], b[k]) < min(p[k], q[k], r[k]) || min(a[k], b[k]) > max(p[k], q[k], r[k]) {
			return false
		}
	}
	return true
}

// integerW returns W at p from the trees: w_S + w_F rounded.
func (in *input) integerW(p geom.Vec) int {
	return int(math.Round(in.wind.At(p) + in.cl.coneW(p)))
}
