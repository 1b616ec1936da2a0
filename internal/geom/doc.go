// Package geom holds the small geometric core shared by pfmesh's packages:
// three-vectors as [3]float64, and exact orientation and in-sphere
// predicates.
//
// The predicates are guaranteed to return the sign of the exact
// determinant of their float64 arguments. Each runs in two stages: a
// float64 evaluation whose rounding error is bounded from above (Shewchuk
// 1997, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
// Geometric Predicates", bound A), and, only when the bound cannot decide
// the sign, an exact evaluation with floating-point expansions built from
// error-free transformations. No tolerance ever decides a topological
// question: zero means exactly degenerate.
//
// Properties the tests check, for every predicate P:
//  1. Swapping two arguments negates P.
//  2. An even permutation of the arguments keeps P.
//  3. P is exactly zero on exactly degenerate input (collinear, coplanar,
//     cospherical points on integer and dyadic lattices) and agrees in sign
//     with an independent math/big evaluation on random and near-degenerate
//     input (points perturbed by single ulps).
//
// The exact stage assumes no intermediate overflow or underflow. An
// in-sphere determinant multiplies five coordinate differences, so that
// holds for point sets whose extent lies in [ExtentMin, ExtentMax]
// (1e-30 to 1e30, in any unit; measured: wrong signs from 1e-64 down and at
// 1e70, none between 1e-60 and 1e60), which
// CheckExtent tests and both meshers (tetgen.Build, tetgen.BuildRobust)
// require of their input.
package geom
