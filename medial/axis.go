package medial

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// Axis is a sampled medial axis: medial balls (largest inscribed balls
// touching the surface at a sample), merged where they nearly coincide,
// each marked kept or pruned by the filter and, when kept, with the local
// codimension of the axis around it and the core fraction α it gets.
type Axis struct {
	Centres    []float64 // x, y, z per ball
	Radii      []float64
	Contacts   []float64 // the surface sample each ball was grown from (xyz)
	Separation []float64 // separation angle θ at the centre between the two contacts, radians
	Weight     []int32   // surface samples merged into the ball
	// Support is the radius of the largest ball whose centre lies within
	// twice its own radius of this ball's centre (this ball included): the
	// reference scale of the filter.
	Support []float64
	// Strength grades how clearly a ball passes the filter, from 0 (at the
	// threshold) to 1 (well above it); Kept is Strength > 0. A ball's part
	// of the core is scaled by it, so the core grows and shrinks
	// continuously as the shape changes instead of jumping as marginal
	// balls come and go (a cube and a 1×1×1.01 box get nearly the same
	// core).
	Strength []float64
	Kept     []bool
	// Codim is the local codimension m of the axis: the number of
	// independent directions in which the ball touches the surface — 3 at a
	// point (a sphere's centre), 2 along a curve (a cylinder's axis), 1 on a
	// sheet (a plate), in between where it changes.
	Codim []float64
	// Alpha is the core fraction of a kept ball, times its Strength: its
	// part of the 1-set is the points at depth at least (1−α)·r within Reach
	// of its centre. Reach
	// is r on a sheet, so that neighbouring balls' parts join into a slab,
	// and r/2 along a curve or at a point, which still joins parts along a
	// tube but keeps the part of a ball near a point of the axis round (a
	// cube's, as a sphere's). Both are 0 if pruned.
	Alpha, Reach []float64
	// Samples is the number of surface samples the balls were grown from.
	Samples int

	samplePts   []geom.Vec // per surface sample
	sampleBalls []ball     // the ball grown from each sample
	sampleBall  []int32    // the merged ball each sample went to
}

// NumBalls returns the number of (merged) medial balls.
func (a *Axis) NumBalls() int { return len(a.Radii) }

// Centre returns the centre of ball i.
func (a *Axis) Centre(i int) geom.Vec { return geom.At(a.Centres, int32(i)) }

// Parameters of the medial axis; see docs/field.md for how they were
// chosen.
const (
	// sampleSpacing is the surface sample spacing relative to the medial
	// radius found there.
	sampleSpacing = 1.0
	// initialSamples sets the first, uniform sample spacing from the area.
	initialSamples = 256
	// mergeFraction: a ball whose centre lies within this fraction of its
	// radius from a larger kept representative is merged into it.
	mergeFraction = 0.5
	// supportReach is κ: a ball of radius R supports the points (and the
	// balls centred) within κR of its centre. It exceeds √3, which just
	// reaches the corner of a box from the ball inscribed in the corner, so
	// that sampled balls near that one reach it too.
	supportReach = 2.0
	// strengthRamp: a ball's strength rises from 0 at λ = β·R* to 1 at
	// λ = (1 + strengthRamp)·β·R*.
	strengthRamp = 0.5
	// A ball whose contacts subtend θ ≥ plateAngle sits between two nearly
	// opposite walls: the middle of a tooth, rib or fin. It is kept, however
	// thick the region beside it, when r ≥ plateFraction·R* — the λ rule
	// alone prunes every such feature thinner than β times the thickness
	// beside it (a gear's teeth on its body). Branches into a convex edge
	// have θ = π − the edge's interior angle (90° at a box's edge) and radii
	// falling to 0, so the λ rule still removes them; of a sharp edge's
	// branch (interior angle below 30°) the part with r < plateFraction·R*.
	// Strength ramps over plateRamp in θ and over strengthRamp in r/R*.
	plateAngle    = 150 * math.Pi / 180
	plateRamp     = 15 * math.Pi / 180
	plateFraction = 0.1
	// maxPasses bounds the adaptive resampling.
	maxPasses = 8
)

// MedialAxis samples the medial axis of a closed, outward-oriented surface
// by shrinking balls, merges near-duplicate balls, filters spurious
// branches and estimates the local dimension of what remains.
//
// The filter is a scale-relative λ-medial axis (Chazal & Lieutier 2005): a
// ball of radius r whose two contacts subtend the angle θ has closest-point
// set of circumradius λ = r·sin(θ/2); it is kept when λ ≥ β·R*, R* being
// its Support. Noise branches (small θ) and the sheets running into convex
// edges and corners (r → 0 beside a large ball) fall below; plates,
// cylinders and smooth parts (θ ≈ π, R* ≈ r) stay. A plate-like ball
// (θ ≥ 150°, r ≥ R*/10) is kept too, so that teeth, ribs and fins beside
// a thicker region keep their part of the axis.
func MedialAxis(s *format.Surface, opt Options) (*Axis, error) {
	o, err := newSolid(s, "surface")
	if err != nil {
		return nil, err
	}
	return o.medialAxis(opt.withDefaults())
}

func (o *solid) medialAxis(opt Options) (*Axis, error) {
	pts, balls, err := o.sampleBalls(opt)
	if err != nil {
		return nil, err
	}
	ax := mergeBalls(pts, balls)
	ax.Samples = len(balls)
	opt.progress("medial filter", 0)
	o.polish(ax)
	ax.filter(opt.Prune)
	ax.fractions(opt.SheetFraction)
	opt.progress("medial filter", 1)
	return ax, nil
}

// sampleBalls grows a medial ball from every surface sample: the smooth
// vertices, with their pseudonormals, and points inside every triangle,
// with its normal. Each triangle's sampling is refined until its spacing
// is at most sampleSpacing times the lower quartile of the radii found on
// it (or the budget is spent).
func (o *solid) sampleBalls(opt Options) ([]geom.Vec, []ball, error) {
	diag := o.diag()
	nt := len(o.tris) / 3
	spacing0 := math.Sqrt(o.area / initialSamples)
	floor := diag * 1e-4
	k := make([]int, nt)        // current number of samples on each triangle
	want := make([]int, nt)     // samples wanted after the last pass
	hint := make([]float64, nt) // first radius to try on each triangle
	for t := range nt {
		want[t] = o.sampleCount(int32(t), spacing0)
		hint[t] = diag
	}
	type tsamples struct {
		pts   []geom.Vec
		balls []ball
	}
	per := make([]tsamples, nt)
	total := 0
	for pass := 0; pass < maxPasses; pass++ {
		var todo []int32
		for t := range nt {
			if want[t] > k[t] && geom.At(o.faceN, int32(t)) != (geom.Vec{}) {
				todo = append(todo, int32(t))
			}
		}
		if len(todo) == 0 {
			break
		}
		grow := 0
		for _, t := range todo {
			grow += want[t] - k[t]
		}
		// Refinement stops short of more samples than the budget has
		// tets: each sample makes a ball, and more than that resolve
		// a thin plate's axis far finer than its mesh (a 4×4 plate 0.01
		// thick took 1.3 M, 26 s of its core's 33).
		if total+grow > opt.MaxSamples || pass > 0 && opt.TetBudget > 0 && total+grow > opt.TetBudget {
			if pass == 0 {
				return nil, nil, fmt.Errorf("medial: surface needs %d samples at the coarsest spacing, over the budget of %d", total+grow, opt.MaxSamples)
			}
			break
		}
		opt.progress("medial axis", float64(pass)/maxPasses)
		par.Each(len(todo), chunk, func(i int) {
			t := todo[i]
			m := geom.Scale(-1, geom.At(o.faceN, t))
			pts := o.trianglePoints(t, want[t], nil)
			bs := make([]ball, len(pts))
			guess := hint[t]
			for j, x := range pts {
				bs[j] = o.shrinkBall(x, m, guess, diag)
				guess = 1.25 * bs[j].r
			}
			per[t] = tsamples{pts, bs}
		})
		for _, t := range todo {
			total += want[t] - k[t]
			k[t] = want[t]
			radii := make([]float64, len(per[t].balls))
			for j, b := range per[t].balls {
				radii[j] = b.r
			}
			slices.Sort(radii)
			hint[t] = 1.25 * radii[len(radii)-1]
			// The median, not the minimum: radii fall to 0 at convex edges,
			// whose branches the filter removes anyway.
			q := radii[len(radii)/2]
			// At most four times as many per pass: a few small radii on a
			// triangle do not make the whole of it dense at once.
			want[t] = max(k[t], min(4*k[t], o.sampleCount(t, max(floor, sampleSpacing*q))))
		}
	}
	opt.progress("medial axis", 1)
	pts, balls := o.vertexBalls(diag, hint)
	for t := range per {
		pts = append(pts, per[t].pts...)
		balls = append(balls, per[t].balls...)
	}
	if len(balls) == 0 {
		return nil, nil, fmt.Errorf("medial: surface has no triangle of positive area")
	}
	return pts, balls, nil
}

// vertexBalls grows a ball from every smooth vertex (see smoothing)
// along its pseudonormal, starting from the largest hint of its
// triangles.
func (o *solid) vertexBalls(diag float64, hint []float64) ([]geom.Vec, []ball) {
	first := make([]float64, len(o.pos)/3)
	for i, v := range o.tris {
		first[v] = max(first[v], hint[i/3])
	}
	var smooth []int32
	for v, ok := range o.smoothVertex {
		if ok {
			smooth = append(smooth, int32(v))
		}
	}
	pts := make([]geom.Vec, len(smooth))
	balls := make([]ball, len(smooth))
	par.Each(len(smooth), chunk, func(i int) {
		v := smooth[i]
		n := geom.At(o.vertN, v)
		pts[i] = geom.At(o.pos, v)
		balls[i] = o.shrinkBall(pts[i], geom.Scale(-1/geom.Norm(n), n), first[v], diag)
	})
	return pts, balls
}

// mergeBalls merges, largest first, every ball whose centre lies within
// mergeFraction of its radius of an already-kept larger ball's centre, so
// that the axis is sampled at a spacing tied to the local radius whatever
// the surface sampling (all the balls of a sphere's samples merge into one).
func mergeBalls(pts []geom.Vec, balls []ball) *Axis {
	order := make([]int32, len(balls))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		return cmp.Or(cmp.Compare(balls[b].r, balls[a].r), cmp.Compare(a, b))
	})
	ax := &Axis{sampleBall: make([]int32, len(balls))}
	grid := newScaleGrid()
	for _, i := range order {
		b := balls[i]
		if j := grid.nearest(b.c, mergeFraction*b.r); j >= 0 {
			ax.Weight[j]++
			ax.Separation[j] = max(ax.Separation[j], b.sep)
			ax.sampleBall[i] = j
			continue
		}
		ax.sampleBall[i] = grid.add(b.c, mergeFraction*b.r)
		ax.Centres = append(ax.Centres, b.c[:]...)
		ax.Radii = append(ax.Radii, b.r)
		ax.Contacts = append(ax.Contacts, pts[i][:]...)
		ax.Separation = append(ax.Separation, b.sep)
		ax.Codim = append(ax.Codim, b.codim)
		ax.Weight = append(ax.Weight, 1)
	}
	ax.samplePts, ax.sampleBalls = pts, balls
	return ax
}

// filter computes Support, Strength and Kept.
func (a *Axis) filter(beta float64) {
	n := a.NumBalls()
	support := newBallIndex(a, nil, supportReach)
	a.Support = make([]float64, n)
	a.Strength = make([]float64, n)
	a.Kept = make([]bool, n)
	par.Each(n, chunk, func(i int) {
		s := a.Radii[support.largest(a.Centre(i))]
		a.Support[i] = s
		r, sep := a.Radii[i], a.Separation[i]
		st := unitRamp((r*math.Sin(sep/2)/(beta*s) - 1) / strengthRamp)
		st = max(st, unitRamp((sep-plateAngle)/plateRamp)*unitRamp((r/(plateFraction*s)-1)/strengthRamp))
		if r == s {
			// A ball supported by no larger one is a local maximum of the
			// radius, the middle of a part: always fully kept.
			st = 1
		}
		a.Strength[i] = st
		a.Kept[i] = st > 0
	})
}

// unitRamp clamps x to [0, 1].
func unitRamp(x float64) float64 { return max(0, min(1, x)) }

// fractions sets Alpha and Reach from Codim for the kept balls.
func (a *Axis) fractions(alphaMin float64) {
	a.Alpha = make([]float64, a.NumBalls())
	a.Reach = make([]float64, a.NumBalls())
	for i, k := range a.Kept {
		if k {
			al := coreFraction(a.Codim[i], alphaMin) * a.Strength[i]
			a.Alpha[i] = al
			a.Reach[i] = a.Radii[i] * max(0.5, min(1, 1.5-a.Codim[i]/2))
		}
	}
}

// coreFraction returns α for local codimension m: the fraction of the
// radius r at which ε = 1 must be imposed for the radially symmetric field
// in codimension m to reach the surface with layer depth h = r. The radial
// harmonic field in codimension m gives h/r = (α^(2−m) − 1)/(m − 2), so
// h = r at α = (m−1)^(1/(2−m)): 1/2 for a point (m = 3), 1/e for a curve
// (m = 2), 0 for a sheet (m = 1), where alphaMin takes over.
func coreFraction(m, alphaMin float64) float64 {
	var a float64
	switch {
	case m <= 1:
		a = 0
	case math.Abs(m-2) < 1e-9:
		a = 1 / math.E
	default:
		a = math.Pow(m-1, 1/(2-m))
	}
	return max(alphaMin, a)
}
