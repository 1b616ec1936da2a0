package medial

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Parameters of the medial core; see docs/field.md.
const (
	// sizeFraction is the target edge length relative to the local half
	// thickness.
	sizeFraction = 0.25
	// boundaryAlpha: where α is at least this, the core is solid enough to
	// be given points on its boundary (not on sheets, whose boundary faces
	// lie too close together to mesh cheaply).
	boundaryAlpha = 0.2
	// boundarySpacing is the spacing of core boundary points relative to
	// the core radius α·r.
	boundarySpacing = 0.5
	// insideTol is the relative tolerance of the depth test, so that points
	// computed on the core boundary count as inside.
	insideTol = 1e-9
)

// kernel is the medial 1-set K: the points p of the body lying in a kept
// medial ball, whose depth below the surface is at least (1−α)·r for the
// largest such ball (radius r, core fraction α). Inside a ball of a sphere
// that is the concentric ball of radius α·r; along a cylinder's axis the
// tube of radius α·r; in a plate the mid-slab of half-thickness α·T/2.
type kernel struct {
	o       *solid
	ax      *Axis
	kept    *ballIndex // kept balls, reach 1
	support *ballIndex // all balls, reach supportReach
}

func newKernel(o *solid, ax *Axis) *kernel {
	var kept []int32
	for i, k := range ax.Kept {
		if k {
			kept = append(kept, int32(i))
		}
	}
	return &kernel{o: o, ax: ax, kept: newBallIndex(ax, kept, 1), support: newBallIndex(ax, nil, supportReach)}
}

// inside reports whether p belongs to K.
func (k *kernel) inside(p geom.Vec) bool {
	i := k.kept.largest(p)
	if i < 0 {
		return false
	}
	r, a := k.ax.Radii[i], k.ax.Alpha[i]
	// The ball is inscribed, so depth(p) ≥ r − |p − c|: points within α·r
	// of the centre pass without a distance query.
	if geom.Dist2(p, k.ax.Centre(int(i))) <= a*a*r*r {
		return true
	}
	_, _, d2 := k.o.closest(p)
	return math.Sqrt(d2) >= (1-a)*r*(1-insideTol)
}

// thickness returns the local half thickness at p: the radius of the
// largest medial ball whose centre lies within √3 of its radius of p.
func (k *kernel) thickness(p geom.Vec) float64 {
	if i := k.support.largest(p); i >= 0 {
		return k.ax.Radii[i]
	}
	return k.ax.Radii[len(k.ax.Radii)-1]
}

// sizing is the target edge length at p.
func (k *kernel) sizing(p geom.Vec) float64 { return sizeFraction * k.thickness(p) }

// points returns the Core points for the mesher: the centres of the kept
// balls (the spine of K) and, where the core is solid (α ≥
// boundaryAlpha), points on its boundary spaced at boundarySpacing·α·r,
// found along each sample's segment to its ball centre at distance α·r
// from the centre.
func (k *kernel) points() []float64 {
	var pts []float64
	for i, kept := range k.ax.Kept {
		if kept {
			pts = append(pts, k.ax.Centres[3*i:3*i+3]...)
		}
	}
	grid := newScaleGrid()
	for s, x := range k.ax.samplePts {
		j := k.ax.sampleBall[s]
		a := k.ax.Alpha[j]
		if !k.ax.Kept[j] || a < boundaryAlpha {
			continue
		}
		b := k.ax.sampleBalls[s]
		p := geom.Add(geom.Scale(1-a, b.c), geom.Scale(a, x))
		spacing := boundarySpacing * a * b.r
		if grid.nearest(p, spacing) >= 0 || !k.inside(p) {
			continue
		}
		grid.add(p, spacing)
		pts = append(pts, p[:]...)
	}
	return pts
}

// medialCore builds the default 1-set.
func (o *solid) medialCore(opt Options) (*Core, error) {
	ax, err := o.medialAxis(opt)
	if err != nil {
		return nil, err
	}
	k := newKernel(o, ax)
	c := &Core{Mode: Medial, Axis: ax, Inside: k.inside, Sizing: k.sizing, Points: k.points()}
	c.Stats = Stats{Samples: ax.Samples, Balls: ax.NumBalls(), Points: len(c.Points) / 3, MinRadius: math.Inf(1)}
	for i, kept := range ax.Kept {
		if kept {
			c.Stats.Kept++
			c.Stats.MinRadius = min(c.Stats.MinRadius, ax.Radii[i])
			c.Stats.MaxRadius = max(c.Stats.MaxRadius, ax.Radii[i])
		}
	}
	if c.Stats.Kept == 0 {
		c.Stats.MinRadius = 0
	}
	return c, nil
}
