package contact

import (
	"errors"
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Quadrature selects the rule integrating tractions over each fan triangle.
type Quadrature uint8

// Quadrature rules.
const (
	// ThreePoint samples each triangle at its three points with barycentric
	// coordinates (2/3, 1/6, 1/6) and permutations, weights 1/3: exact for
	// quadratic integrands, so for the force and moment of a linear pressure.
	ThreePoint Quadrature = iota
	// Centroid samples each triangle at its centroid: exact for the force of
	// a linear pressure, not for its moment.
	Centroid
)

// Options tune an Evaluator. The zero value selects the defaults.
type Options struct {
	Quadrature Quadrature
	// StictionSpeed is v_s of the regularized friction law, m/s
	// (default 1e-4).
	StictionSpeed float64
	// MaxNormalAngle is the largest angle, in radians, the contact plane
	// normal of a tet pair may make with ∇p_A or −∇p_B (default 5π/8).
	MaxNormalAngle float64
}

// Default option values.
const (
	DefaultStictionSpeed  = 1e-4
	DefaultMaxNormalAngle = 5 * math.Pi / 8
)

// Config is one contact query: the bodies' poses in world and their
// spatial velocities.
type Config struct {
	X_WA, X_WB Pose
	V_WA, V_WB SpatialVelocity
}

// Wrench is a force and a moment about a stated point, in world.
type Wrench struct {
	Force  geom.Vec `json:"force"`  // N
	Torque geom.Vec `json:"torque"` // N·m
}

// Result is the outcome of one evaluation. Field names in JSON are stable.
type Result struct {
	OnA           Wrench   `json:"wrench_on_a"`             // on A, moment about the world origin
	OnB           Wrench   `json:"wrench_on_b"`             // on B, moment about the world origin
	OnAAtCentroid Wrench   `json:"wrench_on_a_at_centroid"` // on A, moment about Centroid
	OnBAtCentroid Wrench   `json:"wrench_on_b_at_centroid"` // on B, moment about Centroid
	Centroid      geom.Vec `json:"centroid"`                // area centroid of the surface, m
	MeanNormal    geom.Vec `json:"mean_normal"`             // unit area-weighted normal, B into A (0 if no contact)
	Area          float64  `json:"area"`                    // m²
	MaxPressure   float64  `json:"max_pressure"`            // largest vertex pressure, Pa
	MeanPressure  float64  `json:"mean_pressure"`           // ∫ p dA / area, Pa
	Polygons      int      `json:"polygons"`                // polygons of the surface
	Candidates    int      `json:"candidate_pairs"`         // element pairs the broad phase passed on
	Dropped       int      `json:"dropped_polygons"`        // polygons dropped by the normal-angle rule
	// Surface is the contact surface. It belongs to the Evaluator and is
	// overwritten by its next evaluation.
	Surface *Surface `json:"-"`
}

// Evaluator computes contact between bodies, reusing its buffers so that
// evaluations in steady state do not allocate. It is not safe for
// concurrent use; use one per goroutine.
type Evaluator struct {
	opts   Options
	cosMax float64
	res    Result
	surf   Surface
	p0     []float64 // static pressure per surface vertex
	static []float64 // per polygon: ∫p0 dA, ∫p0·x dA (world), exact
	stack  bvh.PairScratch

	// Per-evaluation state read by the pair callbacks. P is the compliant
	// body the geometry is computed in; Q the other.
	p, q      *Body
	X_WP      Pose
	X_PQ      Pose
	eP, eQ    float64
	dropped   int
	cands     int
	poly, tmp polygon
	// Caches of parts of Q (elements, tree nodes) mapped into P, and of
	// P's tet face planes.
	qElems, qNodes, pTets slotCache

	visitLeaves          func(i, j int32) bool
	overlapCC, overlapCR func(i, j int32) bool
	visitH               func(a int32) bool
}

// NewEvaluator returns an Evaluator with the given options.
func NewEvaluator(opts Options) *Evaluator {
	if opts.StictionSpeed <= 0 {
		opts.StictionSpeed = DefaultStictionSpeed
	}
	if opts.MaxNormalAngle <= 0 {
		opts.MaxNormalAngle = DefaultMaxNormalAngle
	}
	e := &Evaluator{opts: opts, cosMax: math.Cos(opts.MaxNormalAngle)}
	// Method values are made once so passing them does not allocate.
	e.visitLeaves, e.visitH = e.leaves, e.tetHalfSpace
	e.overlapCC, e.overlapCR = e.overlapCompliant, e.overlapRigid
	return e
}

// Evaluate returns the contact between a and b for the poses and
// velocities in c, computed with a new Evaluator.
func Evaluate(a, b *Body, c Config, opts Options) (*Result, error) {
	return NewEvaluator(opts).Evaluate(a, b, c)
}

// Evaluate returns the contact between a and b. The Result and its
// Surface are owned by e and overwritten by its next call.
func (e *Evaluator) Evaluate(a, b *Body, c Config) (*Result, error) {
	if a == nil || b == nil {
		return nil, errors.New("contact: nil body")
	}
	if err := checkConfig(c); err != nil {
		return nil, err
	}
	if err := a.Material.check(a.kind); err != nil {
		return nil, fmt.Errorf("contact: body A: %w", err)
	}
	if err := b.Material.check(b.kind); err != nil {
		return nil, fmt.Errorf("contact: body B: %w", err)
	}
	swap := false
	switch {
	case a.kind == Compliant:
	case b.kind == Compliant:
		swap = true
		a, b = b, a
		c.X_WA, c.X_WB, c.V_WA, c.V_WB = c.X_WB, c.X_WA, c.V_WB, c.V_WA
	default:
		return nil, fmt.Errorf("contact: bodies are %v and %v: at least one must be compliant", a.kind, b.kind)
	}
	e.p, e.q = a, b
	e.X_WP = c.X_WA
	e.X_PQ = c.X_WA.Inverse()
	e.X_PQ = e.X_PQ.Mul(c.X_WB)
	e.eP, e.eQ = a.Material.Modulus, b.Material.Modulus
	e.dropped, e.cands = 0, 0
	e.qElems.reset(b.NumElements(), qElemSize)
	if b.tree != nil {
		e.qNodes.reset(b.tree.NumNodes(), 6)
	}
	e.pTets.reset(a.NumElements(), 16)
	e.surf.reset()
	e.p0 = e.p0[:0]
	e.static = e.static[:0]

	switch b.kind {
	case Compliant:
		a.tree.LeafPairs(b.tree, &e.stack, e.overlapCC, e.visitLeaves)
	case Rigid:
		a.tree.LeafPairs(b.tree, &e.stack, e.overlapCR, e.visitLeaves)
	case HalfSpace:
		n := geom.Vec{e.X_PQ.R[2], e.X_PQ.R[5], e.X_PQ.R[8]}
		a.tree.PlaneItems(n, -geom.Dot(n, e.X_PQ.P), &e.stack, e.visitH)
	}
	e.integrate(&c, combine(a, b))
	if swap {
		r := &e.res
		r.OnA, r.OnB = r.OnB, r.OnA
		r.OnAAtCentroid, r.OnBAtCentroid = r.OnBAtCentroid, r.OnAAtCentroid
		r.MeanNormal = geom.Scale(-1, r.MeanNormal)
		e.surf.flip()
	}
	return &e.res, nil
}

// checkConfig rejects poses that are not finite rigid transforms and
// velocities that are not finite.
func checkConfig(c Config) error {
	if err := checkPose("X_WA", c.X_WA); err != nil {
		return err
	}
	if err := checkPose("X_WB", c.X_WB); err != nil {
		return err
	}
	if !finite(c.V_WA.W[:]) || !finite(c.V_WA.V[:]) {
		return errors.New("contact: velocity V_WA is not finite")
	}
	if !finite(c.V_WB.W[:]) || !finite(c.V_WB.V[:]) {
		return errors.New("contact: velocity V_WB is not finite")
	}
	return nil
}

func checkPose(name string, p Pose) error {
	r := &p.R
	if !finite(r[:]) || !finite(p.P[:]) {
		return fmt.Errorf("contact: pose %s is not finite", name)
	}
	// RᵀR = I and det R = +1, to round-off.
	for i := range 3 {
		for j := range 3 {
			d := r[i]*r[j] + r[3+i]*r[3+j] + r[6+i]*r[6+j]
			if i == j {
				d--
			}
			if math.Abs(d) > 1e-9 {
				return fmt.Errorf("contact: pose %s: rotation is not orthonormal (RᵀR − I has entry %.3g)", name, d)
			}
		}
	}
	if det := geom.Dot(geom.Vec{r[0], r[1], r[2]}, geom.Cross(geom.Vec{r[3], r[4], r[5]}, geom.Vec{r[6], r[7], r[8]})); det < 0 {
		return fmt.Errorf("contact: pose %s: rotation is a reflection (det = %.3g)", name, det)
	}
	return nil
}

// combined holds the pair's combined dissipation and friction.
type combined struct{ d, mu float64 }

// combine applies the documented rules: d weighted by the partner's
// modulus (a rigid partner leaves the compliant body's d), μ the harmonic
// mean.
func combine(a, b *Body) combined {
	var c combined
	ma, mb := a.Material, b.Material
	if b.kind == Compliant {
		c.d = (mb.Modulus*ma.Dissipation + ma.Modulus*mb.Dissipation) / (ma.Modulus + mb.Modulus)
	} else {
		c.d = ma.Dissipation
	}
	if s := ma.Friction + mb.Friction; s > 0 {
		c.mu = 2 * ma.Friction * mb.Friction / s
	}
	return c
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
