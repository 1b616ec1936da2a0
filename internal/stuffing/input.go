package stuffing

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/trisearch"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// input is the surface as the mesher uses it: exactly welded, with unit
// normals, smooth patches separated by feature edges, and the two search
// structures every stage queries.
type input struct {
	pos    []float64
	tris   []int32
	normal []geom.Vec // unit normal per triangle; zero for a degenerate one
	patch  []int32    // smooth patch per triangle
	search *trisearch.Index
	wind   *winding.Tree
	lo, hi geom.Vec // bounding box
	diag   float64
	feat   *features
	cl     *closure
}

func (in *input) numTris() int { return len(in.tris) / 3 }

func (in *input) corners(t int32) (a, b, c geom.Vec) { return in.search.Triangle(t) }

// newInput prepares a welded, oriented surface for meshing. featureDeg is
// the dihedral angle between neighbouring normals above which an edge is a
// crease; 0 means defaultFeatureAngle.
func newInput(pos []float64, tris []int32, featureDeg float64) *input {
	in := &input{pos: pos, tris: tris}
	in.search = trisearch.New(pos, tris)
	in.wind = winding.New(pos, tris)
	in.lo = geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	in.hi = geom.Scale(-1, in.lo)
	for _, v := range tris {
		p := geom.At(pos, v)
		for k := range 3 {
			in.lo[k], in.hi[k] = min(in.lo[k], p[k]), max(in.hi[k], p[k])
		}
	}
	in.diag = geom.Norm(geom.Sub(in.hi, in.lo))
	in.normal = make([]geom.Vec, in.numTris())
	for t := range in.normal {
		a, b, c := in.corners(int32(t))
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		if l := geom.Norm(n); l > 0 {
			in.normal[t] = geom.Scale(1/l, n)
		}
	}
	if featureDeg == 0 {
		featureDeg = defaultFeatureAngle
	}
	in.feat = findFeatures(in, math.Cos(featureDeg*math.Pi/180))
	in.cl = newClosure(in)
	return in
}

// defaultFeatureAngle is the crease angle (degrees) when
// Options.FeatureAngle is 0: the edges of CAD parts and of coarse
// polygonal approximations (a 12-gon turns 30° per edge) are snapped;
// gentler turns, as between the facets of a scanned surface, are left to
// the lattice, refined where the curvature asks.
const defaultFeatureAngle = 29

// trianglesIn returns those of tris that meet the cube (centre, half),
// padded by a hair so that triangles on a cell face count for both cells.
func (in *input) trianglesIn(tris []int32, centre geom.Vec, half float64) []int32 {
	var out []int32
	h := half * 1.02
	for _, t := range tris {
		a, b, c := in.corners(t)
		if triBoxOverlap(a, b, c, centre, h) {
			out = append(out, t)
		}
	}
	return out
}

// allTris returns the indices of all triangles.
func (in *input) allTris() []int32 {
	all := make([]int32, in.numTris())
	for t := range all {
		all[t] = int32(t)
	}
	return all
}
