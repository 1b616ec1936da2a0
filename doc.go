// Package pfmesh builds pressure-field meshes for hydroelastic contact: a
// closed triangle surface in, a tetrahedral mesh carrying the penetration
// extent ε out (0 on the surface, 1 on a core inside, harmonic in
// between), ready to be written as a .pfm file.
//
// Build is the whole pipeline as one call; the command-line tool is a thin
// wrapper around it. The stages are packages of their own:
//
//	format   read the surface, clean and diagnose it; write the .pfm
//	medial   the 1-set where ε = 1 (medial core, rigid core or a given core)
//	tetgen   tetrahedralize (exact path for clean surfaces, robust for dirty)
//	laplace  solve ∇²ε = 0 and compute ∇ε
//
// contact evaluates hydroelastic contact between the resulting files.
package pfmesh
