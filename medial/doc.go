// Package medial builds the 1-set of the pressure field: the region where
// the penetration extent ε is 1, which the meshers resolve and the Laplace
// solve takes as its inner Dirichlet boundary.
//
// Three kinds of 1-set are offered (Options.Mode):
//
//   - Medial (default): a solid core around the filtered medial axis. The
//     axis is sampled by shrinking balls (Ma et al. 2012), filtered by a
//     scale-relative λ-medial axis (Chazal & Lieutier 2005) so that branches
//     into convex edges, corners, tessellation and noise are dropped, and
//     thickened by a fraction α of the local radius that depends on the
//     local dimension of the axis — a ball at a point-like axis, a tube
//     along a curve, a thin slab on a sheet — chosen so that the layer
//     depth h = 1/|∇ε| at the surface is about the local half thickness.
//     A point or a curve alone has zero capacity in 3D and would make ε
//     depend on the mesh; the core never does.
//   - Depth: a rigid core, everything at least H below the surface, bounded
//     by the inward offset surface at depth H (exactly planar where the
//     offset of a plane is).
//   - File: a closed surface given by the user, checked to lie strictly
//     inside the body.
//
// Build returns a Core in the forms the meshers take: points to insert, an
// optional closed core surface to conform to, an inside test and a sizing
// field. The core depends only on the surface, never on the volume mesh.
// LocalHalfThickness gives, for reports, the half thickness of the body
// near a point, against which the layer depth h is judged.
//
// docs/field.md states the rules, their parameters and the measured field
// quality.
package medial
