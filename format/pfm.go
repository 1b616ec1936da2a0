package format

import "encoding/json"

// PFM is the content of a .pfm pressure-field mesh file (docs/pfm.md):
// a tetrahedral mesh with the penetration extent ε and its gradient at
// every vertex. Lengths are in metres, pressures in pascals.
//
// Validate states what a PFM must satisfy; WritePFM refuses a PFM that
// does not, and ReadPFM and OpenPFM return only PFMs that do.
type PFM struct {
	Header
	Positions []float64 // x, y, z per vertex
	Tets      []int32   // four vertex indices per tet, positively oriented
	Epsilon   []float64 // ε per vertex, in [0, 1]
	Gradient  []float64 // ∇ε per vertex (x, y, z), in 1/m
	Tags      []uint8   // per vertex: 0 interior, 1 boundary, 2 core
	Boundary  []int32   // outward boundary triangles, three indices each; each a face of exactly one tet
	BVH       *BVH      // optional prebuilt hierarchy over the tets; nil if absent
}

// NumVertices returns the number of vertices.
func (p *PFM) NumVertices() int { return len(p.Positions) / 3 }

// NumTets returns the number of tetrahedra.
func (p *PFM) NumTets() int { return len(p.Tets) / 4 }

// NumBoundary returns the number of boundary triangles.
func (p *PFM) NumBoundary() int { return len(p.Boundary) / 3 }

// PressureMapping names the function g in p0 = E·g(ε).
type PressureMapping uint32

// Pressure mappings. Header.Pressure evaluates them.
const (
	// Linear is g(ε) = ε.
	Linear PressureMapping = 0
	// Log is g(ε) = −ln(1 − ε), for bounded interpenetration, continued
	// near ε = 1 by its tangent line so that p0 rises to exactly
	// Header.PressureCap at ε = 1 (see Header.Pressure).
	Log PressureMapping = 1
)

// The .pfm format version this package writes. Readers accept any minor
// version of the same major version and refuse other major versions.
const (
	VersionMajor = 1
	VersionMinor = 0
)

// Header holds a .pfm file's scalar data.
type Header struct {
	// Major, Minor is the file format version: filled in by the readers;
	// WritePFM always writes VersionMajor.VersionMinor.
	Major, Minor uint16
	Modulus      float64         // E in p0 = E·g(ε), Pa; positive
	Mapping      PressureMapping // g
	PressureCap  float64         // Log: p0 at ε = 1, Pa, greater than Modulus; Linear: 0
	Dissipation  float64         // default Hunt–Crossley dissipation d, s/m; ≥ 0
	Friction     float64         // default Coulomb friction coefficient μ; ≥ 0
	// LengthUnit is the length unit of the source surface file in metres
	// (0.001 for millimetres), or 0 if unknown. Positions are always in
	// metres; this only records what the source used.
	LengthUnit float64
	// BBox is min x, y, z, max x, y, z of the positions as stored: filled
	// in by the readers and computed by WritePFM, which ignores this field.
	BBox         [6]float64
	SourceSHA256 [32]byte        // of the source surface file's bytes
	BuildParams  json.RawMessage // the build's parameters, as JSON; may be empty
	BuildReport  json.RawMessage // the build's measured results (solver, mesher), as JSON; may be empty
}

// BVH is a bounding volume hierarchy over a PFM's tets, laid out as in
// internal/bvh (depth-first; an inner node's left child follows it).
type BVH struct {
	Bounds []float64 // six per node: min x, y, z, max x, y, z
	// Nodes holds two values per node, (first, count). A leaf has
	// count > 0 and holds Items[first : first+count]; an inner node has
	// count == 0, its left child at the next index and its right child at
	// index first.
	Nodes []int32
	Items []int32 // tet indices, each leaf's contiguous
}
