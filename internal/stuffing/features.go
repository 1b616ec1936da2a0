package stuffing

import (
	"cmp"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/trisearch"
	"github.com/pfmesh/pfmesh/internal/unionfind"
)

// features are the input's sharp edges and corners: the curves and points
// the output boundary must follow for a CAD part to keep its edges. An
// edge is a feature when its two triangles' normals differ by more than
// the feature angle, when only one triangle uses it (the rim of a hole) or
// when more than two do (a non-manifold seam). A corner is a vertex where
// the feature edges do not continue as one smooth curve: one, or three or
// more, feature edges meet there, or two meet at a sharp turn.
type features struct {
	edges   []int32 // vertex pairs
	corners []int32 // vertex indices
	tree    *bvh.Tree
	pos     []float64
	// The smooth patches on the sides of feature edge e are
	// sides[sideStart[e]:sideStart[e+1]] (onLevelSet for the open side of
	// a rim); those around corner c, cornerSides[cornerStart[c]:…].
	sides, sideStart         []int32
	cornerSides, cornerStart []int32
	crossings                int // feature edges where parts of the input cross
}

// cornerTurnCos: two feature edges meeting at a vertex continue one curve
// when the angle between them exceeds 145° (a turn under 35°).
var cornerTurnCos = math.Cos(145 * math.Pi / 180)

func findFeatures(in *input, cosFeature float64) *features {
	type half struct {
		a, b int32 // a < b
		tri  int32
		fwd  bool // the triangle runs a→b
	}
	nt := in.numTris()
	hs := make([]half, 0, 3*nt)
	for t := 0; t < nt; t++ {
		for k := 0; k < 3; k++ {
			a, b := in.tris[3*t+k], in.tris[3*t+(k+1)%3]
			hs = append(hs, half{min(a, b), max(a, b), int32(t), a < b})
		}
	}
	slices.SortFunc(hs, func(x, y half) int {
		return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b), cmp.Compare(x.tri, y.tri))
	})
	sets := unionfind.New(nt)
	f := &features{pos: in.pos}
	for i := 0; i < len(hs); {
		j := i
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			j++
		}
		feature := j-i != 2
		if !feature {
			n1, n2 := in.normal[hs[i].tri], in.normal[hs[i+1].tri]
			if hs[i].fwd == hs[i+1].fwd { // inconsistent winding: compare as if fixed
				n2 = geom.Scale(-1, n2)
			}
			zero := geom.Vec{}
			feature = n1 != zero && n2 != zero && geom.Dot(n1, n2) < cosFeature
			if !feature {
				sets.Union(hs[i].tri, hs[i+1].tri)
			}
		}
		if feature {
			f.edges = append(f.edges, hs[i].a, hs[i].b)
			f.sideStart = append(f.sideStart, int32(len(f.sides)))
			for _, h := range hs[i:j] {
				f.sides = append(f.sides, h.tri) // patches once union-find is done
			}
			if j-i == 1 {
				f.sides = append(f.sides, -1)
			}
		}
		i = j
	}
	f.sideStart = append(f.sideStart, int32(len(f.sides)))
	in.patch = make([]int32, nt)
	for t := range in.patch {
		in.patch[t] = sets.Find(int32(t))
	}
	for k, t := range f.sides {
		if t >= 0 {
			f.sides[k] = in.patch[t]
		} else {
			f.sides[k] = onLevelSet
		}
	}
	f.findCorners(len(in.pos) / 3)
	f.cornerPatches(in)
	f.addIntersections(in)
	boxes := make([]float64, 0, 3*len(f.edges))
	for e := 0; e < len(f.edges); e += 2 {
		p, q := geom.At(f.pos, f.edges[e]), geom.At(f.pos, f.edges[e+1])
		boxes = append(boxes, min(p[0], q[0]), min(p[1], q[1]), min(p[2], q[2]), max(p[0], q[0]), max(p[1], q[1]), max(p[2], q[2]))
	}
	f.tree = bvh.Build(boxes, 4)
	return f
}

func (f *features) findCorners(nv int) {
	deg := make([]int32, nv)
	other := make([][2]int32, nv) // the first two feature neighbours
	for e := 0; e < len(f.edges); e += 2 {
		for s := 0; s < 2; s++ {
			v, w := f.edges[e+s], f.edges[e+1-s]
			if deg[v] < 2 {
				other[v][deg[v]] = w
			}
			deg[v]++
		}
	}
	for v := range deg {
		switch {
		case deg[v] == 0:
		case deg[v] != 2:
			f.corners = append(f.corners, int32(v))
		default:
			p := geom.At(f.pos, int32(v))
			u, w := geom.Sub(geom.At(f.pos, other[v][0]), p), geom.Sub(geom.At(f.pos, other[v][1]), p)
			if geom.Dot(u, w) > cornerTurnCos*geom.Norm(u)*geom.Norm(w) {
				f.corners = append(f.corners, int32(v))
			}
		}
	}
}

// cornerPatches lists the patches around each corner, and onLevelSet
// for a corner on a rim.
func (f *features) cornerPatches(in *input) {
	at := make(map[int32]int, len(f.corners))
	for c, v := range f.corners {
		at[v] = c
	}
	lists := make([][]int32, len(f.corners))
	for t := 0; t < in.numTris(); t++ {
		for _, v := range in.tris[3*t : 3*t+3] {
			if c, ok := at[v]; ok {
				lists[c] = append(lists[c], in.patch[t])
			}
		}
	}
	for e := 0; e < len(f.edges)/2; e++ {
		if f.sideStart[e+1]-f.sideStart[e] == 2 && f.sides[f.sideStart[e]+1] == onLevelSet {
			for _, v := range f.edges[2*e : 2*e+2] {
				if c, ok := at[v]; ok {
					lists[c] = append(lists[c], onLevelSet)
				}
			}
		}
	}
	for _, l := range lists {
		f.cornerStart = append(f.cornerStart, int32(len(f.cornerSides)))
		slices.Sort(l)
		f.cornerSides = append(f.cornerSides, slices.Compact(l)...)
	}
	f.cornerStart = append(f.cornerStart, int32(len(f.cornerSides)))
}

func (f *features) edgeSides(e int32) []int32 { return f.sides[f.sideStart[e]:f.sideStart[e+1]] }

func (f *features) cornerPatchList(c int32) []int32 {
	return f.cornerSides[f.cornerStart[c]:f.cornerStart[c+1]]
}

// closestOnEdges returns the point of the feature edges nearest p, the
// feature edge it lies on (−1 if there are none) and its squared distance.
func (f *features) closestOnEdges(p geom.Vec) (geom.Vec, int32, float64) {
	return f.closestWhere(p, func(int32) bool { return true })
}

// closestWhere is closestOnEdges over the feature edges ok accepts.
func (f *features) closestWhere(p geom.Vec, ok func(e int32) bool) (geom.Vec, int32, float64) {
	e, d2 := f.tree.Nearest(p, func(e int32) float64 {
		if !ok(e) {
			return math.Inf(1)
		}
		return geom.Dist2(p, trisearch.ClosestOnSegment(p, geom.At(f.pos, f.edges[2*e]), geom.At(f.pos, f.edges[2*e+1])))
	})
	if e < 0 {
		return p, -1, d2
	}
	return trisearch.ClosestOnSegment(p, geom.At(f.pos, f.edges[2*e]), geom.At(f.pos, f.edges[2*e+1])), e, d2
}
