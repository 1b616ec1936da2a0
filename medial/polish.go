package medial

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// polishCodim: balls touching the surface in at least this many
// independent directions may sit near a medial curve or point the
// sampling only came close to, and are polished.
const polishCodim = 1.5

// directions are the 26 steps of a 3×3×3 stencil, unit length.
var directions = func() (d [26]geom.Vec) {
	n := 0
	for x := -1; x <= 1; x++ {
		for y := -1; y <= 1; y++ {
			for z := -1; z <= 1; z++ {
				if x != 0 || y != 0 || z != 0 {
					v := geom.Vec{float64(x), float64(y), float64(z)}
					d[n] = geom.Scale(1/geom.Norm(v), v)
					n++
				}
			}
		}
	}
	return d
}()

// polish moves every ball that is a local maximum of the radius and
// touches the surface in more than one direction to the nearby local
// maximum of the distance to the surface, and recomputes its contacts.
// Sampling finds balls near a medial point (the centre of a cube) only
// approximately, touching fewer faces than the true one; the polished ball
// is the largest inscribed ball there, with all its contacts.
func (o *solid) polish(ax *Axis) {
	support := newBallIndex(ax, nil, supportReach)
	par.Each(ax.NumBalls(), chunk, func(i int) {
		r := ax.Radii[i]
		if ax.Codim[i] < polishCodim || ax.Radii[support.largest(ax.Centre(i))] != r {
			return
		}
		c, q := o.deepest(ax.Centre(i), r)
		if rn := math.Sqrt(geom.Dist2(c, q)); rn > r {
			copy(ax.Centres[3*i:], c[:])
			copy(ax.Contacts[3*i:], q[:])
			ax.Radii[i] = rn
			ax.Separation[i], ax.Codim[i] = o.contacts(q, c, rn)
		}
	})
}

// deepest climbs the distance to the surface from c by pattern search over
// the 26 stencil directions, starting with steps of r/10 and halving them
// down to r·1e-4 (at most 100 rounds: along a long, nearly level ridge the
// climb would crawl), and returns the point reached and its closest
// surface point.
func (o *solid) deepest(c geom.Vec, r float64) (geom.Vec, geom.Vec) {
	q, _, d2 := o.closest(c)
	for step, round := r/10, 0; step > r*1e-4 && round < 100; round++ {
		best, bq, bd2 := c, q, d2
		for _, d := range directions {
			p := geom.Add(c, geom.Scale(step, d))
			if pq, _, pd2 := o.closest(p); pd2 > bd2 {
				best, bq, bd2 = p, pq, pd2
			}
		}
		if bd2 > d2 {
			c, q, d2 = best, bq, bd2
		} else {
			step /= 2
		}
	}
	return c, q
}
