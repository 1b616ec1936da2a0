package medial

import (
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Parameters of the medial core; see docs/field.md.
const (
	// sizeFraction is the target edge length relative to the local half
	// thickness.
	sizeFraction = 0.25
	// sheetSizeFraction replaces it where the axis is a sheet.
	sheetSizeFraction = 1.0
	// solidAlpha: balls with α at least this make the solid part of the
	// core, which is given to the exact mesher as a closed surface; thinner
	// (sheet-like) parts are given as points on the sheet.
	solidAlpha = 0.3
	// contourFraction is the contour grid spacing relative to the smallest
	// core radius α·r of the solid part.
	contourFraction = 0.5
	// insideTol is the relative tolerance of the inside test, so that points
	// computed on the core boundary count as inside.
	insideTol = 1e-9
)

// kernel is the medial 1-set K: the union over the kept medial balls
// (centre c, radius r, core fraction α, reach ρ) of the points within ρ of
// c at depth at least (1−α)·r below the surface. For a plate that is the
// mid-slab of half-thickness α·T/2, for a cylinder the tube of radius α·r
// about the axis, for a sphere — or a cube — the ball of radius α·r at the
// centre.
type kernel struct {
	o       *solid
	ax      *Axis
	kept    []int32    // kept balls, in axis order
	balls   *ballIndex // the kept balls
	tree    *bvh.Tree  // balls.tree
	support *ballIndex
}

func newKernel(o *solid, ax *Axis) *kernel {
	k := &kernel{o: o, ax: ax, support: newBallIndex(ax, nil, supportReach)}
	for i, kept := range ax.Kept {
		if kept {
			k.kept = append(k.kept, int32(i))
		}
	}
	k.balls = newBallIndex(ax, k.kept, 1)
	k.tree = k.balls.tree
	return k
}

// level returns max over kept balls i (with α ≥ minAlpha) of
// min(ρ − |p − c|, depth(p) − (1−α)·r), floored at −cap: positive inside
// K, negative outside, and 1-Lipschitz (a max of mins of 1-Lipschitz
// functions), as contouring needs.
func (k *kernel) level(p geom.Vec, cap, minAlpha float64) float64 {
	best := -cap
	depth := math.NaN()
	box := [6]float64{p[0] - cap, p[1] - cap, p[2] - cap, p[0] + cap, p[1] + cap, p[2] + cap}
	k.tree.Query(box, func(j int32) bool {
		i := k.kept[j]
		r, a := k.ax.Radii[i], k.ax.Alpha[i]
		if a < minAlpha {
			return true
		}
		in := k.ax.Reach[i] - math.Sqrt(geom.Dist2(p, k.ax.Centre(int(i))))
		if in <= best {
			return true
		}
		if math.IsNaN(depth) {
			_, _, d2 := k.o.closest(p)
			depth = math.Sqrt(d2)
		}
		best = max(best, min(in, depth-(1-a)*r))
		return true
	})
	return best
}

// inside reports whether p belongs to the part of K made by the balls with
// α below maxAlpha.
func (k *kernel) inside(p geom.Vec, maxAlpha float64) bool {
	found := false
	depth := math.NaN()
	k.tree.Query([6]float64{p[0], p[1], p[2], p[0], p[1], p[2]}, func(j int32) bool {
		i := k.kept[j]
		r, a := k.ax.Radii[i], k.ax.Alpha[i]
		if a >= maxAlpha {
			return true
		}
		d2 := geom.Dist2(p, k.ax.Centre(int(i)))
		if rho := k.ax.Reach[i]; d2 > rho*rho {
			return true
		}
		// The ball is inscribed, so depth(p) ≥ r − |p − c|: points within
		// α·r ≤ ρ of the centre pass without a distance query.
		if d2 <= a*a*r*r {
			found = true
			return false
		}
		if math.IsNaN(depth) {
			_, _, dd := k.o.closest(p)
			depth = math.Sqrt(dd)
		}
		found = depth >= (1-a)*r*(1-insideTol)
		return !found
	})
	return found
}

// thickness returns the local half thickness at p (see LocalHalfThickness).
func (k *kernel) thickness(p geom.Vec) float64 {
	if i := k.support.largest(p); i >= 0 {
		return k.ax.Radii[i]
	}
	return k.ax.Radii[len(k.ax.Radii)-1]
}

// sizing is the target edge length at p: sizeFraction of the local half
// thickness, graded towards the core where the field curves. In the model
// field of codimension m about the axis, ε″ ∝ ρ^(−m) at distance ρ from
// it, so an even P1 error wants edges ∝ ρ^(m/2): at a sphere's core
// (ρ = r/2) about a third of those at its surface. A sheet's field is
// linear across it, which P1 reproduces on any mesh: it gets no grading
// and edges up to sheetSizeFraction of the half thickness, so that a thin
// plate does not take a fine mesh over its whole width.
func (k *kernel) sizing(p geom.Vec) float64 { return k.size(p, false) }

// surfaceSizing is sizing on the boundary of K, where the distance to the
// axis is the core radius α·r: no closest-point query, which would
// dominate remeshing the core surface.
func (k *kernel) surfaceSizing(p geom.Vec) float64 { return k.size(p, true) }

func (k *kernel) size(p geom.Vec, onCore bool) float64 {
	s := sizeFraction * k.thickness(p)
	i := k.balls.largest(p)
	if i < 0 {
		// Outside the kept balls (near pruned branches, or outside the
		// body, where the mesher asks about circumcentres of flat tets
		// at the surface): the ball that sets the thickness.
		if i = k.support.largest(p); i < 0 {
			return s
		}
	}
	r, a, m := k.ax.Radii[i], k.ax.Alpha[i], k.ax.Codim[i]
	e := m / 2
	if m < 1.5 {
		// Ramps from the sheet's (m = 1) to the curve's (m = 1.5).
		f := max(0, min(1, 2*(1.5-m)))
		s *= 1 + f*(sheetSizeFraction/sizeFraction-1)
		e = 1.5 * (m - 1)
	}
	if e <= 0 || a <= 0 {
		return s
	}
	rho := a * r
	if onCore {
		return s * math.Pow(a, e)
	}
	_, _, d2 := k.o.closest(p)
	depth := math.Sqrt(d2)
	if in := min(k.ax.Reach[i]-math.Sqrt(geom.Dist2(p, k.ax.Centre(int(i)))), depth-(1-a)*r); a >= solidAlpha && in > 0 {
		// Inside the solid core ε is 1 whatever the mesh: edges grow
		// with the distance to the core's surface.
		return max(s*math.Pow(a, e), in)
	}
	rho = max(r-depth, rho)
	return s * math.Pow(min(rho/r, 1), e)
}

// sheetPoints returns the centres of the kept balls of the sheet-like part
// of K (α < solidAlpha): the mesher inserts them so that the thin core of a
// plate is present at any mesh resolution. Centres within a target edge
// length of the solid part are left out: the solid part's surface carries
// the core there, and a point just off a surface the mesher conforms to
// would make it refine down to their distance. Centres not strictly inside
// the body are left out too: the mesher rejects them (corpus/netgen_hinge.stl
// had kept balls centred 1.4 to 2 outside it until the sag tolerance
// stopped applying from beyond a facet's plane; shrink.go).
//
// A ball less than a tenth of the budget's edge deep gives no point, unless
// every one is that thin: its centre is that close to the surface, so the
// mesh would either make tets that small around it or flat ones (the
// propeller's blade tips, where the kept sheet runs into the trailing
// edge: 0.57 mm under the surface against edges of metres, 0.0° tets and
// a layer depth of 4 mm). Such a thin edge of a thicker part then has no
// core of its own; a part that thin throughout keeps its points.
//
// The balls of a plate lie about its half thickness apart, so a plate much
// thinner than the tet budget's edge has far more of them than the budget
// has tets (a 4×4 plate 0.01 to 0.07 thick, stepped: 834 k points, and
// its build had not ended after five minutes). Beyond tets/10 points (a
// few tets around each; at least one point), the points are thinned to
// keep at least the budget's edge apart, then twice that and so on until
// there are few enough, larger balls first.
func (k *kernel) sheetPoints(tets int) []float64 {
	var pts, thin []float64
	edge := k.o.budgetEdge(tets) // 0 without a budget
	cut := edge / 10
	for _, i := range k.kept {
		c := k.ax.Centre(int(i))
		if s := k.sizing(c); k.ax.Alpha[i] < solidAlpha && k.level(c, s, solidAlpha) <= -s && k.o.inside(c, -insideTol*k.ax.Radii[i]) {
			if k.ax.Radii[i] < cut {
				thin = append(thin, c[:]...)
			} else {
				pts = append(pts, c[:]...)
			}
		}
	}
	if len(pts) == 0 {
		pts = thin
	}
	if tets < 0 {
		return pts
	}
	for d := edge; len(pts)/3 > max(tets/10, 1); d *= 2 {
		pts = thinPoints(pts, d)
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
	c := &Core{Mode: Medial, Axis: ax, Sizing: k.sizing, Points: k.sheetPoints(opt.TetBudget)}
	c.Inside = func(p geom.Vec) bool { return k.inside(p, math.Inf(1)) }
	c.Stats = Stats{Samples: ax.Samples, Balls: ax.NumBalls(), Points: len(c.Points) / 3, MinRadius: math.Inf(1)}
	lo, hi := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}, geom.Vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	g, area := math.Inf(1), 0.0
	for _, i := range k.kept {
		r := ax.Radii[i]
		c.Stats.Kept++
		c.Stats.MinRadius = min(c.Stats.MinRadius, r)
		c.Stats.MaxRadius = max(c.Stats.MaxRadius, r)
		if a := ax.Alpha[i]; a >= solidAlpha {
			g = min(g, contourFraction*a*r)
			area += 4 * math.Pi * a * a * r * r
			for d := range 3 {
				lo[d], hi[d] = min(lo[d], ax.Centres[3*i+int32(d)]-r), max(hi[d], ax.Centres[3*i+int32(d)]+r)
			}
		}
	}
	if c.Stats.Kept == 0 {
		c.Stats.MinRadius = 0
	}
	if area > 0 {
		// The remesh makes the core surface's edges no shorter than the
		// budget's edge, so a finer grid only resolves what it then
		// removes: on corpus/bunny_npm.obj a grid of a third of that edge
		// pinched the snapped contour and the remesh of the unsnapped one
		// crossed itself.
		g = max(g, o.budgetEdge(opt.TetBudget))
		// The level is floored at two start spacings below zero: floored
		// at the (wider) spacing the budget leads to, more grid vertices
		// snap, and on corpus/bunny_npm.obj the snapped contour pinched
		// and the remesh of the unsnapped one crossed itself. Its bound
		// lets the grid search rule out blocks far from K.
		lv := level{
			f:     func(p geom.Vec) float64 { return k.level(p, 2*g, solidAlpha) },
			bound: func(p geom.Vec, r float64) float64 { return k.level(p, r, solidAlpha) },
		}
		opt.progress("core surface", 0)
		pad := geom.Vec{g, g, g}
		s, err := closedContour(lv, geom.Sub(lo, pad), geom.Add(hi, pad), g, o.cellBudget(), o.budgeted(k.surfaceSizing, opt.TetBudget))
		if err == errEmptyContour {
			s, err = nil, nil // too thin for the grid: Inside and Points carry it
		}
		if err != nil {
			return nil, fmt.Errorf("medial: core surface: %w", err)
		}
		opt.progress("core surface", 1)
		if s != nil {
			// The core surface's faces cut inside K (its vertices lie on
			// K's boundary); the 1-set is the polyhedron, not K, so that
			// the vertices a finer mesh puts between the two do not grow
			// the core as the mesh refines. Sheet-like parts stay K's.
			cs, err := newSolid(s, "core surface")
			if err != nil {
				return nil, fmt.Errorf("medial: core surface: %w", err)
			}
			tol := insideTol * cs.diag()
			c.Inside = func(p geom.Vec) bool { return cs.inside(p, tol) || k.inside(p, solidAlpha) }
			c.Surface = s
			c.Stats.SurfaceTriangles = s.NumTriangles()
		}
	}
	return c, nil
}
