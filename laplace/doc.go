// Package laplace computes the penetration-extent field ε of a pressure
// field mesh: the piecewise-linear (P1) finite-element solution of
// Laplace's equation on a tet mesh with ε = 0 on Boundary vertices and
// ε = 1 on Core vertices, and its gradient.
//
// Solve assembles the stiffness matrix of the free vertices (numbered along
// a Hilbert curve for memory locality), eliminates the Dirichlet vertices
// and solves the SPD system by conjugate gradients preconditioned with
// smoothed-aggregation algebraic multigrid (or Jacobi, as a baseline).
// TetGradients and VertexGradients give the exact per-tet gradient and the
// volume-weighted vertex average stored for dissipation. Measure
// summarises a field for inspection, from flat arrays alone, and
// FoundationModulus converts Young's modulus and Poisson's ratio to the
// elastic-foundation modulus used with a rigid core.
//
// Results are bit-identical whatever GOMAXPROCS is: parallel loops cover
// index ranges fixed in advance and reduce in index order.
package laplace
