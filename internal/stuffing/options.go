package stuffing

import "github.com/pfmesh/pfmesh/internal/geom"

// Options controls Build. The zero value asks for the default tolerance
// and no size limits.
type Options struct {
	// Tolerance is the two-sided Hausdorff distance the boundary may keep
	// from the input, in metres; 0 means 1e-3 of the input's bounding-box
	// diagonal.
	Tolerance float64
	// EdgeLength and MaxVolume bound the size of the lattice cells
	// everywhere (0: no bound).
	EdgeLength, MaxVolume float64
	// Core, when set, tags the non-boundary vertices where it holds Core.
	Core func(p geom.Vec) bool
	// Sizing, when set, is a target edge length at p (≤ 0: none), e.g. to
	// resolve the core.
	Sizing func(p geom.Vec) float64
	// FeatureAngle is the dihedral angle between neighbouring triangles'
	// normals, in degrees, above which an input edge is a crease the
	// boundary keeps; 0 means 29.
	FeatureAngle float64
	// Progress, when set, is called with the stage running and the
	// fraction of the build done.
	Progress func(stage string, done float64)
}

// Report says what Build did and how faithful the result is.
type Report struct {
	Tolerance float64 // the Hausdorff target used
	// HausdorffOut is the largest distance from the output boundary to
	// the input surface, over the boundary that lies on the input (not
	// the patches spanning holes); HausdorffIn the largest distance from
	// the parts of the input that bound the solid to the output boundary.
	// Both are upper bounds, certified to within Tolerance/8.
	HausdorffOut, HausdorffIn float64
	// VolumeGap is the volume between the output boundary and the input,
	// sampled (Σ face area × mean distance to the input): a bound on the
	// volume error of the parts on the input, kept under 0.6% of the
	// volume by refining where it is widest.
	VolumeGap float64
	// FillArea is the area of the boundary that spans holes of the input
	// (on the level surface w = 1/2 rather than on an input triangle).
	FillArea float64
	// ThinnestFeature is the smallest thickness of the output solid: the
	// shortest inward distance from a boundary vertex, along its normal,
	// to the opposite boundary.
	ThinnestFeature float64
	// MinDihedral and MaxDihedral are the extreme dihedral angles, degrees.
	MinDihedral, MaxDihedral      float64
	Vertices, Tets, BoundaryFaces int
	Volume                        float64
	// Rounds is the number of lattices built: each after the first
	// refines where the previous one missed the tolerance.
	Rounds int
	Leaves int // octree leaves of the final lattice
	// FeatureEdges and Corners count the input's sharp features;
	// SnappedToEdges and SnappedToCorners the boundary vertices moved
	// onto them.
	FeatureEdges, Corners int
	// Crossings counts the feature edges where parts of the input cross
	// (included in FeatureEdges).
	Crossings                        int
	SnappedToEdges, SnappedToCorners int
	// Unwarped counts lattice vertices kept off the surface to avoid an
	// inverted or non-manifold result; Steiner the points added inside
	// prisms and to break zero-pressure voids.
	Unwarped, Steiner int
	// Mended counts the boundary vertices slid along the input onto input
	// points that missed the tolerance, and added on the input to split
	// boundary edges that missed it, instead of refining the lattice.
	Mended int
	// Flips counts the 2-3 and 3-2 flips that replaced poor tets after
	// snapping (the interior vertices splits add count in Steiner).
	Flips int
	// Notes lists anything the caller should know (clipping, tolerance
	// not reached).
	Notes []string
}
