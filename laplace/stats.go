package laplace

import (
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// Stats summarise a field ε on a tet mesh for `pfmesh inspect`. They are
// computed from flat arrays alone, so a loaded .pfm file can be measured
// without the mesher. The JSON names are stable.
type Stats struct {
	Vertices         int `json:"vertices"`
	Tets             int `json:"tets"`
	BoundaryVertices int `json:"boundary_vertices"` // Dirichlet ε = 0
	CoreVertices     int `json:"core_vertices"`     // Dirichlet ε = 1
	InteriorVertices int `json:"interior_vertices"` // free

	// Histogram counts vertices by ε in equal bins over [0, 1]; values
	// below 0 or above 1 fall in the first or last bin (and are
	// Violations).
	Histogram []int `json:"eps_histogram"`
	// Violations counts vertices with ε < 0 or ε > 1, which the discrete
	// maximum principle forbids; MinEpsilon and MaxEpsilon are the range.
	Violations int     `json:"max_principle_violations"`
	MinEpsilon float64 `json:"eps_min"`
	MaxEpsilon float64 `json:"eps_max"`

	Volume     float64 `json:"volume"`      // of all tets
	CoreVolume float64 `json:"core_volume"` // of tets whose four vertices are Core
	// FractionAboveHalf is the fraction of the volume where the
	// piecewise-linear ε exceeds 1/2, computed exactly per tet.
	FractionAboveHalf float64 `json:"volume_fraction_eps_above_half"`

	// LayerDepth is h = 1/|∇ε| over the Boundary vertices: the depth of an
	// elastic layer with the same surface stiffness.
	LayerDepth LayerDepth `json:"boundary_layer_depth"`
}

// LayerDepth summarises h = 1/|∇ε| at the boundary vertices.
type LayerDepth struct {
	Min       float64    `json:"min"`
	Median    float64    `json:"median"`
	Max       float64    `json:"max"`
	MinAt     [3]float64 `json:"min_at"`     // position of the vertex with the smallest h
	MinVertex int        `json:"min_vertex"` // its index (−1 if no vertex has finite h)
	// Flat counts boundary vertices where ∇ε = 0, whose h is infinite and
	// left out of the figures above.
	Flat int `json:"flat_vertices"`
}

// Measure computes Stats for the field eps (per vertex) on a mesh with
// vertex tags. grad holds the per-vertex gradients (xyz per vertex) as
// Field.Gradient does; if it is nil they are recomputed with
// VertexGradients. bins is the histogram's bin count (0 means 10). It
// returns an error if the arrays are inconsistent or hold non-finite
// values.
func Measure(positions []float64, tets []int32, tags []tetmesh.Tag, eps, grad []float64, bins int) (Stats, error) {
	if err := checkField(positions, tets, eps); err != nil {
		return Stats{}, err
	}
	nv := len(positions) / 3
	if len(tags) != nv {
		return Stats{}, fmt.Errorf("laplace: %d tags for %d vertices", len(tags), nv)
	}
	for v, e := range eps {
		if math.IsNaN(e) || math.IsInf(e, 0) {
			return Stats{}, fmt.Errorf("laplace: vertex %d has non-finite ε %g", v, e)
		}
	}
	if grad == nil {
		grad = tetmesh.VertexGradients(positions, tets, eps)
	}
	if len(grad) != 3*nv {
		return Stats{}, fmt.Errorf("laplace: %d gradient components for %d vertices", len(grad), nv)
	}
	if bins < 0 {
		return Stats{}, fmt.Errorf("laplace: negative histogram bin count %d", bins)
	}
	if bins == 0 {
		bins = 10
	}
	s := Stats{Vertices: nv, Tets: len(tets) / 4, Histogram: make([]int, bins), MinEpsilon: math.Inf(1), MaxEpsilon: math.Inf(-1)}
	var depths []float64
	s.LayerDepth.MinVertex = -1
	for v, tag := range tags {
		switch tag {
		case tetmesh.Interior:
			s.InteriorVertices++
		case tetmesh.Boundary:
			s.BoundaryVertices++
		case tetmesh.Core:
			s.CoreVertices++
		default:
			return Stats{}, fmt.Errorf("laplace: vertex %d has unknown tag %d", v, tag)
		}
		e := eps[v]
		s.MinEpsilon, s.MaxEpsilon = min(s.MinEpsilon, e), max(s.MaxEpsilon, e)
		if e < 0 || e > 1 {
			s.Violations++
		}
		s.Histogram[min(max(int(e*float64(bins)), 0), bins-1)]++
		if tag != tetmesh.Boundary {
			continue
		}
		g := math.Sqrt(grad[3*v]*grad[3*v] + grad[3*v+1]*grad[3*v+1] + grad[3*v+2]*grad[3*v+2])
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return Stats{}, fmt.Errorf("laplace: vertex %d has non-finite gradient", v)
		}
		if g == 0 {
			s.LayerDepth.Flat++
			continue
		}
		h := 1 / g
		if s.LayerDepth.MinVertex < 0 || h < s.LayerDepth.Min {
			s.LayerDepth.Min, s.LayerDepth.MinVertex = h, v
			s.LayerDepth.MinAt = [3]float64{positions[3*v], positions[3*v+1], positions[3*v+2]}
		}
		depths = append(depths, h)
	}
	if len(depths) > 0 {
		slices.Sort(depths)
		s.LayerDepth.Max = depths[len(depths)-1]
		if k := len(depths); k%2 == 1 {
			s.LayerDepth.Median = depths[k/2]
		} else {
			s.LayerDepth.Median = (depths[k/2-1] + depths[k/2]) / 2
		}
	}
	var above float64
	for t := 0; 4*t < len(tets); t++ {
		q := tets[4*t : 4*t+4]
		_, det := tetGeometry(positions, q)
		vol := det / 6
		s.Volume += vol
		if tags[q[0]] == tetmesh.Core && tags[q[1]] == tetmesh.Core && tags[q[2]] == tetmesh.Core && tags[q[3]] == tetmesh.Core {
			s.CoreVolume += vol
		}
		above += vol * fractionAbove([4]float64{eps[q[0]], eps[q[1]], eps[q[2]], eps[q[3]]}, 0.5)
	}
	s.FractionAboveHalf = above / s.Volume
	return s, nil
}

// fractionAbove returns the fraction of a tet's volume where the linear
// function with vertex values f exceeds t. The set f ≤ t is cut from the
// tet by a plane; with the values sorted f0 ≤ f1 ≤ f2 ≤ f3 it is a
// corner tet (one vertex below), a prism (two) or the complement of a
// corner tet (three), whose volumes are products of the edge parameters
// where the plane crosses. Each case divides only by differences that
// its own condition makes positive.
func fractionAbove(f [4]float64, t float64) float64 {
	slices.Sort(f[:])
	switch {
	case t < f[0]:
		return 1
	case t >= f[3]:
		return 0
	case t < f[1]: // vertex 0 below
		return 1 - (t-f[0])*(t-f[0])*(t-f[0])/((f[1]-f[0])*(f[2]-f[0])*(f[3]-f[0]))
	case t >= f[2]: // vertex 3 above
		return (f[3] - t) * (f[3] - t) * (f[3] - t) / ((f[3] - f[0]) * (f[3] - f[1]) * (f[3] - f[2]))
	}
	// Vertices 0 and 1 below: the prism v0 v1 p02 p03 p12 p13 with pij
	// the crossing on edge ij at parameter (t−fi)/(fj−fi), split into
	// three tets.
	a := (t - f[0]) / (f[2] - f[0])
	b := (t - f[0]) / (f[3] - f[0])
	c := (t - f[1]) / (f[2] - f[1])
	d := (t - f[1]) / (f[3] - f[1])
	return 1 - (a*b + a*(1-b)*d + (1-a)*c*d)
}
