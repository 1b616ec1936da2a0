package format

import "encoding/json"

// PFM is the content of a .pfm pressure-field mesh file (docs/pfm.md):
// a tetrahedral mesh with the penetration extent ε and its gradient at
// every vertex. Lengths are in metres, pressures in pascals.
type PFM struct {
	Header
	Positions []float64 // x, y, z per vertex
	Tets      []int32   // four vertex indices per tet, positively oriented
	Epsilon   []float64 // ε per vertex, in [0, 1]
	Gradient  []float64 // ∇ε per vertex (x, y, z), in 1/m
	Tags      []uint8   // per vertex: 0 interior, 1 boundary, 2 core
	Boundary  []int32   // outward boundary triangles, three indices each
	BVH       *BVH      // optional prebuilt hierarchy over the tets; nil if absent
}

// PressureMapping names the function g in p0 = E·g(ε).
type PressureMapping uint32

// Pressure mappings.
const (
	// Linear is g(ε) = ε.
	Linear PressureMapping = 0
	// Log is g(ε) = −ln(1 − ε), capped at Header.PressureCap/E, for
	// bounded interpenetration.
	Log PressureMapping = 1
)

// Header holds a .pfm file's scalar data.
type Header struct {
	Major, Minor uint16          // file format version
	Modulus      float64         // E in p0 = E·g(ε), Pa
	Mapping      PressureMapping // g
	PressureCap  float64         // largest p0 the Log mapping reaches, Pa (0 for Linear)
	Dissipation  float64         // default Hunt–Crossley dissipation d, s/m
	Friction     float64         // default Coulomb friction coefficient μ
	BBox         [6]float64      // min x, y, z, max x, y, z of the vertices
	SourceSHA256 [32]byte        // of the source surface file's bytes
	BuildParams  json.RawMessage // the build's parameters, as JSON
	BuildReport  json.RawMessage // the build's measured results (solver, mesher), as JSON
}

// BVH is a bounding volume hierarchy over a PFM's tets, laid out as in
// internal/bvh (depth-first; an inner node's left child follows it).
type BVH struct {
	Bounds []float64 // six per node: min x, y, z, max x, y, z
	Nodes  []int32   // two per node: (first, count); count > 0 marks a leaf
	Items  []int32   // tet indices, each leaf's contiguous
}
