package medial

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// cellBudget bounds the number of grid cells a core surface is contoured
// over, so that it has about as many triangles as the body's surface (a
// cell gives about five): the spacing grows from the one asked for until
// the cells fit.
func (o *solid) cellBudget() int { return max(20000, len(o.tris)/3/4) }

// depthCore builds the rigid core at depth H: the set of points at least H
// below the surface, bounded by the inward offset surface at depth H.
func (o *solid) depthCore(opt Options) (*Core, error) {
	h := opt.Depth
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("medial: core depth %v must be a positive length", h)
	}
	// The core surface's edges match the mesh in the layer (H/2) unless a
	// resolution is asked for.
	g, budget := opt.Resolution, math.MaxInt
	if g == 0 {
		g, budget = h/2, o.cellBudget()
	}
	edge := g
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
	pad := geom.Vec{g, g, g}
	surf, err := closedContour(lv, geom.Sub(o.lo, pad), geom.Add(o.hi, pad), g, budget, func(geom.Vec) float64 { return edge })
	if err == errEmptyContour {
		return nil, fmt.Errorf("medial: no point of the body lies %g deep (core depth too large)", h)
	}
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

// checkClosed reports whether s is closed, oriented and free of
// self-intersections, coincident vertices and degenerate triangles
// (decided exactly by format.Diagnose), as the exact mesher needs a core
// surface to be: snapping can put two contour vertices at one point, which
// the topology alone does not show.
func checkClosed(s *format.Surface) error {
	if _, err := newSolid(s, "core surface"); err != nil {
		return err
	}
	if r := format.Diagnose(s); r.Verdict.Path != format.PathExact {
		return fmt.Errorf("core surface: %s", strings.Join(r.Verdict.Reasons, "; "))
	}
	return nil
}

// remeshRounds and minRemeshRounds bound the rounds of isotropic
// remeshing a core surface gets.
const remeshRounds, minRemeshRounds = 30, 4

// errEmptyContour says the level set has no part the grid resolves.
var errEmptyContour = errors.New("no part of it is resolved")

// closedContour contours lv over the box [lo, hi] with spacing g, widened
// (by spacing) until at most budget cells meet the level set (unless
// budget is math.MaxInt), remeshes the contour to
// edges about length(p) long, and checks the result is a closed, oriented
// surface, retrying without snapping (whose pinches contour undoes, but
// which can still put two vertices at one point) and then without
// remeshing if it is not.
func closedContour(lv level, lo, hi geom.Vec, g float64, budget int, length func(geom.Vec) float64) (*format.Surface, error) {
	if budget < math.MaxInt {
		g = spacing(lv, lo, hi, g, budget)
	}
	var last error
	for _, snap := range []bool{true, false} {
		s, err := contour(lv, lo, hi, g, snap)
		if err != nil {
			return nil, err
		}
		if len(s.Triangles) == 0 {
			return nil, errEmptyContour
		}
		if err := checkClosed(s); err != nil {
			last = err
			continue
		}
		if length != nil {
			r := remesh(s, length, lv.onto, remeshRounds)
			if checkClosed(r) == nil {
				return r, nil
			}
		}
		// The contour drops the triangles that snapping collapsed, which
		// can leave a crossing point unused; the mesher takes no such
		// vertex (nor does Clean change anything else on a surface
		// checkClosed passed).
		s, _ = format.Clean(s, format.CleanOptions{})
		return s, nil
	}
	return nil, fmt.Errorf("extracting the core surface at grid spacing %g: %w", g, last)
}
