package medial

import (
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// Mode selects how the 1-set is made.
type Mode int

const (
	// Medial (the default) thickens the filtered medial axis into a solid
	// core whose size follows the local radius and dimension of the axis.
	Medial Mode = iota
	// Depth makes a rigid core: everything at depth H or more below the
	// surface (the elastic-foundation layer of thickness H above it).
	Depth
	// File takes a closed core surface from the user.
	File
)

func (m Mode) String() string {
	switch m {
	case Medial:
		return "medial"
	case Depth:
		return "depth"
	case File:
		return "file"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Options configure Build. The zero value builds the default medial core.
type Options struct {
	Mode Mode
	// Depth is the core depth H in metres (Mode Depth).
	Depth float64
	// CoreFile is the user's closed, outward-oriented core surface (Mode
	// File); it must lie strictly inside the body.
	CoreFile *format.Surface

	// Prune is β of the medial filter: a ball is kept when r·sin(θ/2) ≥
	// β·Support, or when it is plate-like (see MedialAxis). 0 means 0.5.
	Prune float64
	// SheetFraction is the smallest core fraction α, used where the axis is
	// a sheet (the plate's h is then (1−α)·T/2). 0 means 0.1.
	SheetFraction float64
	// MaxSamples bounds the number of surface samples. 0 means 1<<21.
	MaxSamples int
	// Resolution is the grid spacing used to extract a core surface (Mode
	// Depth); 0 chooses it from H and the size of the body.
	Resolution float64
	// TetBudget bounds Sizing below by the edge length at which about this
	// many tets fill the body (a quality mesh's tets average about a tenth
	// of their edge length cubed), so that a fine core sizing on a thin or
	// large part cannot ask for millions of tets; a medial core surface is
	// made no finer than that either, the surface samples stop short of
	// the budget and a sheet's Points are thinned to a tenth of it (a
	// plate far thinner than that edge). 0 means DefaultTetBudget;
	// negative means no bound.
	TetBudget int

	Progress func(stage string, done float64)
}

// DefaultTetBudget is the TetBudget used when none is given, the same as
// the pfmesh pipeline's default.
const DefaultTetBudget = 200_000

func (o Options) withDefaults() Options {
	if o.TetBudget == 0 {
		o.TetBudget = DefaultTetBudget
	}
	if o.Prune == 0 {
		o.Prune = 0.5
	}
	if o.SheetFraction == 0 {
		o.SheetFraction = 0.1
	}
	if o.MaxSamples == 0 {
		o.MaxSamples = 1 << 21
	}
	return o
}

func (o Options) progress(stage string, done float64) {
	if o.Progress != nil {
		o.Progress(stage, done)
	}
}

// Core is the 1-set, the region where the pressure field ε is 1, in the
// forms the meshers take.
type Core struct {
	Mode Mode
	// Points lie in the 1-set; the mesher inserts them as Core vertices.
	Points []float64
	// Surface is the closed, outward-oriented boundary of the 1-set when it
	// has one the exact mesher should conform to (always in modes Depth and
	// File; in mode Medial the boundary of the solid, point- and curve-like
	// part of the core, nil when there is none); its vertices and
	// everything inside it are Core.
	Surface *format.Surface
	// Inside reports whether a point of the body belongs to the 1-set: the
	// meshers tag every other non-boundary vertex with it.
	Inside func(p geom.Vec) bool
	// Sizing is the target edge length at a point of the body, fine enough
	// to resolve the 1-set and the layer around it.
	Sizing func(p geom.Vec) float64
	// Axis is the filtered medial axis (mode Medial).
	Axis *Axis
	// Stats summarises what was built.
	Stats Stats
}

// Stats summarises a Core.
type Stats struct {
	Samples   int     `json:"samples"`    // surface samples (mode Medial)
	Balls     int     `json:"balls"`      // merged medial balls
	Kept      int     `json:"kept"`       // balls kept by the filter
	Points    int     `json:"points"`     // Core points handed to the mesher
	MinRadius float64 `json:"min_radius"` // smallest / largest kept medial radius
	MaxRadius float64 `json:"max_radius"`
	// SurfaceTriangles counts the triangles of Core.Surface.
	SurfaceTriangles int `json:"surface_triangles"`
}

// Build makes the 1-set of the body bounded by s, a closed,
// outward-oriented surface (as format.Clean leaves it).
func Build(s *format.Surface, opt Options) (*Core, error) {
	opt = opt.withDefaults()
	if opt.Prune < 0 || opt.Prune > 1 || math.IsNaN(opt.Prune) {
		return nil, fmt.Errorf("medial: prune fraction %v is outside [0, 1]", opt.Prune)
	}
	if opt.SheetFraction < 0 || opt.SheetFraction >= 0.5 || math.IsNaN(opt.SheetFraction) {
		return nil, fmt.Errorf("medial: sheet core fraction %v is outside [0, 0.5)", opt.SheetFraction)
	}
	o, err := newSolid(s, "surface")
	if err != nil {
		return nil, err
	}
	var c *Core
	switch opt.Mode {
	case Medial:
		c, err = o.medialCore(opt)
	case Depth:
		c, err = o.depthCore(opt)
	case File:
		c, err = o.fileCore(opt)
	default:
		return nil, fmt.Errorf("medial: unknown core mode %v", opt.Mode)
	}
	if err != nil {
		return nil, err
	}
	c.Sizing = o.budgeted(c.Sizing, opt.TetBudget)
	return c, nil
}

// budgeted bounds sizing below by the edge length at which about tets
// tets fill the body (Options.TetBudget); tets < 0 leaves it as it is.
func (o *solid) budgeted(sizing func(geom.Vec) float64, tets int) func(geom.Vec) float64 {
	if tets < 0 {
		return sizing
	}
	floor := o.budgetEdge(tets)
	return func(p geom.Vec) float64 { return max(sizing(p), floor) }
}

// budgetEdge is the edge length at which about tets tets fill the body (a
// quality mesh's tets average about a tenth of their edge length cubed); 0
// if tets < 0 (no budget).
func (o *solid) budgetEdge(tets int) float64 {
	if tets < 0 {
		return 0
	}
	return math.Cbrt(o.volume / (0.1 * float64(tets)))
}
