package medial

import (
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// maxContourCells bounds the default contour grid: the spacing is H/2 unless
// the body's area would need more cells than this at that spacing.
const maxContourCells = 200_000

// depthCore builds the rigid core at depth H: the set of points at least H
// below the surface, bounded by the inward offset surface at depth H.
func (o *solid) depthCore(opt Options) (*Core, error) {
	h := opt.Depth
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("medial: core depth %v must be a positive length", h)
	}
	g := opt.Resolution
	if g == 0 {
		g = max(h/2, math.Sqrt(o.area/maxContourCells))
	}
	if !(g > 0) || math.IsInf(g, 0) {
		return nil, fmt.Errorf("medial: core surface resolution %v must be a positive length", g)
	}
	lv := level{
		f: func(p geom.Vec) float64 {
			d, _ := o.signedDistance(p)
			return d - h
		},
		project: func(p geom.Vec) (geom.Vec, bool) {
			d, q := o.signedDistance(p)
			if d <= 0 {
				return p, false
			}
			// The point at depth h on the ray from the closest point
			// through p: exactly on the offset where the offset is a plane.
			return geom.Add(q, geom.Scale(h/d, geom.Sub(p, q))), true
		},
	}
	opt.progress("core surface", 0)
	surf, err := o.closedContour(lv, g)
	if err != nil {
		return nil, fmt.Errorf("medial: core at depth %g: %w", h, err)
	}
	opt.progress("core surface", 1)
	inside := func(p geom.Vec) bool {
		d, _ := o.signedDistance(p)
		return d >= h*(1-insideTol)
	}
	sizing := func(p geom.Vec) float64 {
		d, _ := o.signedDistance(p)
		return max(h/2, d-h)
	}
	return &Core{Mode: Depth, Surface: surf, Inside: inside, Sizing: sizing,
		Stats: Stats{SurfaceTriangles: surf.NumTriangles()}}, nil
}

// closedContour contours lv over the body's box with spacing g and checks
// the result is a closed, oriented surface, retrying without snapping (which
// can pinch thin necks) if it is not.
func (o *solid) closedContour(lv level, g float64) (*format.Surface, error) {
	pad := geom.Vec{g, g, g}
	lo, hi := geom.Sub(o.lo, pad), geom.Add(o.hi, pad)
	var last error
	for _, snap := range []bool{true, false} {
		s, err := contour(lv, lo, hi, g, snap)
		if err != nil {
			return nil, err
		}
		if len(s.Triangles) == 0 {
			return nil, fmt.Errorf("no point of the body lies that deep")
		}
		if _, err := newSolid(s, "core surface"); err != nil {
			last = err
			continue
		}
		return s, nil
	}
	return nil, fmt.Errorf("extracting the core surface at grid spacing %g: %w", g, last)
}
