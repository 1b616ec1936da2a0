package medial

import (
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// LocalHalfThickness returns, at each point of points (x, y, z each; nil
// means the vertices of s), the local half thickness of the body bounded
// by s: the radius of the largest inscribed ball whose centre lies within
// twice its radius of the point. It is R everywhere on a sphere of radius
// R, T/2 everywhere on a plate of thickness T — face centres, rims and
// corners alike, since the ball inscribed in a right-angled corner has the
// corner at √3 of its radius — and it follows each wall of a part with
// walls of different thicknesses. Inscribed balls are sampled by the
// medial axis (so values are a little below the exact ones, by the
// sampling); a point no ball reaches (far outside) gets 0.
func LocalHalfThickness(s *format.Surface, points []float64) ([]float64, error) {
	o, err := newSolid(s, "surface")
	if err != nil {
		return nil, err
	}
	if points == nil {
		points = o.pos
	}
	if len(points)%3 != 0 {
		return nil, fmt.Errorf("medial: %d point coordinates are not whole triples", len(points))
	}
	for i, x := range points {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("medial: point %d has a non-finite coordinate %v", i/3, x)
		}
	}
	pts, balls, err := o.sampleBalls(Options{}.withDefaults())
	if err != nil {
		return nil, err
	}
	// The polished merged balls (the largest inscribed ones) and every
	// sampled ball besides: the more balls, the closer the largest one
	// reaching a corner is to the inscribed one.
	ax := mergeBalls(pts, balls)
	o.polish(ax)
	for _, b := range balls {
		ax.Centres = append(ax.Centres, b.c[:]...)
		ax.Radii = append(ax.Radii, b.r)
	}
	idx := newBallIndex(ax, nil, supportReach)
	t := make([]float64, len(points)/3)
	par.Each(len(t), chunk, func(i int) {
		if j := idx.largest(geom.At(points, int32(i))); j >= 0 {
			t[i] = ax.Radii[j]
		}
	})
	return t, nil
}
