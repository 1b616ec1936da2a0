package pfmesh

import (
	"errors"
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/medial"
)

// Options controls Build. The zero value of every field but Modulus (or
// Youngs and Poisson) selects a documented default.
type Options struct {
	// Input.
	Units  string  `json:"units"`            // length unit of the input file: "m" (default), "mm", "cm", "in"
	Scale  float64 `json:"scale,omitempty"`  // extra factor applied after Units; 0 means 1
	Repair bool    `json:"repair,omitempty"` // fill small holes, drop tiny components, fix orientation

	// Pressure field p0 = E·g(ε).
	Modulus     float64                `json:"modulus"`                // E, Pa
	Youngs      float64                `json:"youngs,omitempty"`       // Young's modulus Y, Pa: E = (1−ν)Y/((1+ν)(1−2ν)) (elastic foundation)
	Poisson     float64                `json:"poisson,omitempty"`      // Poisson ratio ν, with Youngs
	Mapping     format.PressureMapping `json:"mapping"`                // g: format.Linear (default) or format.Log
	PressureCap float64                `json:"pressure_cap,omitempty"` // Log only: the largest p0, Pa; 0 means 100·E
	Dissipation float64                `json:"dissipation"`            // default Hunt–Crossley dissipation stored in the file, s/m
	Friction    float64                `json:"friction"`               // default Coulomb friction coefficient stored in the file

	// The 1-set, where ε = 1.
	CoreFile  string  `json:"core_file,omitempty"`  // a closed surface file inside the part; "" for the medial core
	CoreDepth float64 `json:"core_depth,omitempty"` // rigid core: ε = 1 deeper than this, m; 0 for the medial core

	// Tetrahedralization.
	Mesher     string  `json:"mesher"`                // "auto" (default), "exact" or "robust"
	Quality    float64 `json:"quality,omitempty"`     // radius-edge bound; 0 means 2.0
	MaxVolume  float64 `json:"max_volume,omitempty"`  // largest tet volume, m³; 0: none
	EdgeLength float64 `json:"edge_length,omitempty"` // largest edge length, m; 0: none
	Coarse     bool    `json:"coarse,omitempty"`      // fewest tets: surface vertices plus what the field needs
	// KeepTriangles meshes every input triangle as a facet of its own, so
	// that each is a union of boundary faces. By default each planar group
	// of the surface (triangles joined across edges where they are
	// coplanar: exactly, or to an ulp where needles lie; tetgen's
	// MergeCoplanar) is
	// one facet, retriangulated Delaunay: needle triangles of flat CAD
	// faces then no longer bound the mesh quality, and each group, not
	// each input triangle, is a union of boundary faces (exact mesher
	// only; see docs/meshing.md).
	KeepTriangles bool    `json:"keep_triangles,omitempty"`
	Tolerance     float64 `json:"tolerance,omitempty"` // robust path: Hausdorff bound, m; 0 means 1e-3 of the bbox diagonal
	// TetBudget bounds the default core sizing: edges are no shorter
	// than a budget of this many tets over the part's volume would give
	// (input features and explicit size limits may need more), and the
	// core's medial samples and sheet points (medial.Options.TetBudget).
	// 0 means DefaultTetBudget; negative means no bound.
	TetBudget int `json:"tet_budget,omitempty"`

	// Solver.
	// Scheme is the discretization of Laplace's equation: SchemeLimited
	// (the default), SchemeGalerkin or SchemeMonotone; see docs/field.md.
	Scheme          string  `json:"scheme,omitempty"`
	SolverTolerance float64 `json:"solver_tolerance,omitempty"` // relative residual; 0 means 1e-10

	// Output.
	Float32 bool `json:"float32,omitempty"` // store positions and ε as float32
	NoBVH   bool `json:"no_bvh,omitempty"`  // omit the prebuilt BVH section

	// Progress, if not nil, is called with the current stage and the
	// fraction of it done.
	Progress func(stage string, done float64) `json:"-"`
}

// Mesher names.
const (
	MesherAuto   = "auto"
	MesherExact  = "exact"
	MesherRobust = "robust"
)

// Scheme names: how ε is discretized on the tets.
const (
	// SchemeLimited is the P1 scheme with algebraic flux correction
	// (laplace.SolveLimited): 0 ≤ ε ≤ 1 by construction and linear
	// fields exact, at two to four times the solve's cost.
	SchemeLimited = "limited"
	// SchemeGalerkin is the plain P1 scheme (laplace.Solve); obtuse tets
	// can push a few values outside [0, 1], which are clamped and
	// reported.
	SchemeGalerkin = "galerkin"
	// SchemeMonotone is the upwinded M-matrix scheme
	// (laplace.SolveMonotone): 0 ≤ ε ≤ 1 by construction, linear fields
	// not exact.
	SchemeMonotone = "monotone"
)

// DefaultTetBudget is the TetBudget used when none is given: enough for
// the field on typical parts (see docs/field.md), a few seconds to build.
const DefaultTetBudget = medial.DefaultTetBudget

// withDefaults checks o and fills in defaults.
func (o Options) withDefaults() (Options, error) {
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) || v < 0 }
	for name, v := range map[string]float64{
		"modulus": o.Modulus, "youngs": o.Youngs, "pressure cap": o.PressureCap, "dissipation": o.Dissipation,
		"friction": o.Friction, "core depth": o.CoreDepth, "quality": o.Quality, "max volume": o.MaxVolume,
		"edge length": o.EdgeLength, "tolerance": o.Tolerance, "solver tolerance": o.SolverTolerance, "scale": o.Scale,
	} {
		if bad(v) {
			return o, fmt.Errorf("%s %g: must be finite and not negative", name, v)
		}
	}
	switch {
	case o.Youngs > 0 && o.Modulus > 0:
		return o, errors.New("give either the modulus E or Young's modulus and Poisson's ratio, not both")
	case o.Youngs > 0:
		if !(o.Poisson > -1 && o.Poisson < 0.5) {
			return o, fmt.Errorf("Poisson's ratio %g: must lie in (−1, 0.5)", o.Poisson)
		}
		if o.CoreDepth == 0 {
			return o, errors.New("Young's modulus and Poisson's ratio describe an elastic foundation: give its layer thickness as the core depth")
		}
		o.Modulus = (1 - o.Poisson) * o.Youngs / ((1 + o.Poisson) * (1 - 2*o.Poisson))
	case o.Modulus == 0:
		return o, errors.New("the modulus E is required (Pa), e.g. 1e6")
	}
	if o.CoreFile != "" && o.CoreDepth > 0 {
		return o, errors.New("give either a core file or a core depth, not both")
	}
	switch o.Mapping {
	case format.Linear:
		if o.PressureCap != 0 {
			return o, errors.New("a pressure cap applies only to the log pressure mapping")
		}
	case format.Log:
		if o.PressureCap == 0 {
			o.PressureCap = 100 * o.Modulus
		}
		if o.PressureCap <= o.Modulus {
			return o, fmt.Errorf("pressure cap %g Pa: must exceed E = %g Pa", o.PressureCap, o.Modulus)
		}
	default:
		return o, fmt.Errorf("unknown pressure mapping %d", o.Mapping)
	}
	switch o.Mesher {
	case "":
		o.Mesher = MesherAuto
	case MesherAuto, MesherExact, MesherRobust:
	default:
		return o, fmt.Errorf("unknown mesher %q: want auto, exact or robust", o.Mesher)
	}
	switch o.Scheme {
	case "":
		o.Scheme = SchemeLimited
	case SchemeLimited, SchemeGalerkin, SchemeMonotone:
	default:
		return o, fmt.Errorf("unknown scheme %q: want limited, galerkin or monotone", o.Scheme)
	}
	if o.Quality == 0 {
		o.Quality = 2
	}
	if o.Quality < 1.2 && !o.Coarse {
		return o, fmt.Errorf("quality %g: the radius-edge bound must be at least 1.2", o.Quality)
	}
	if o.TetBudget == 0 {
		o.TetBudget = DefaultTetBudget
	}
	if o.SolverTolerance == 0 {
		o.SolverTolerance = 1e-10
	}
	if o.Units == "" {
		o.Units = "m"
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	if _, err := (format.ReadOptions{Units: o.Units, Scale: o.Scale}).Factor(); err != nil {
		return o, err
	}
	return o, nil
}

// Validate reports the first problem with o that Build would refuse it
// for, before any file is read: a command line can tell its user so as a
// usage error.
func (o Options) Validate() error {
	_, err := o.withDefaults()
	return err
}
