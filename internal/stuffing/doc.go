// Package stuffing is pfmesh's robust mesher: it fills the solid a dirty
// triangle surface bounds — open, overlapping, self-intersecting or
// inconsistently oriented — with tetrahedra, where the exact (TetGen-style)
// path must refuse. The solid is {p : w(p) > 1/2}, w the generalized
// winding number of the input.
//
// Build stuffs an octree-graded body-centred cubic lattice (Labelle and
// Shewchuk 2007), fine near the surface and coarse inside, with boundary
// vertices on the input; snaps them onto its creases and corners; breaks
// the zero-pressure voids (interior simplices with every vertex on the
// boundary) that a pressure field cannot have; and improves the worst
// tets. It then measures, not assumes, how faithful the result is — both
// one-sided Hausdorff distances and the volume gap to the input — and
// refines the lattice where either misses its target, up to a bounded
// number of rounds. docs/robust-meshing.md states what is guaranteed.
package stuffing
