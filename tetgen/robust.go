package tetgen

import (
	"fmt"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/stuffing"
)

// RobustOptions controls BuildRobust: the Hausdorff tolerance, size
// bounds, feature angle, core test and sizing of the robust path.
type RobustOptions = stuffing.Options

// RobustReport says what BuildRobust did and how faithful the result is:
// the measured two-sided Hausdorff distance to the input, the thinnest
// feature kept, the dihedral range and the features snapped.
type RobustReport = stuffing.Report

// BuildRobust meshes the solid bounded by any triangle soup — open,
// overlapping, self-intersecting or inside-out — as the region where the
// generalized winding number of s exceeds 1/2. It fills an octree-graded
// body-centred cubic lattice with isosurface stuffing (Labelle & Shewchuk),
// snaps boundary vertices onto the input and its sharp creases and
// corners, and refines until the boundary is within the Hausdorff
// tolerance. Build takes clean closed surfaces exactly; BuildRobust takes
// what Build refuses. See docs/meshing.md for its guarantees.
func BuildRobust(s *format.Surface, opt RobustOptions) (*Mesh, *RobustReport, error) {
	if s != nil {
		if err := geom.CheckExtent(s.Positions); err != nil {
			return nil, nil, fmt.Errorf("tetgen: the surface: %w", err)
		}
	}
	return stuffing.Build(s, opt)
}
