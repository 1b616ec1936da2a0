// Package contact is the reference evaluator of hydroelastic (pressure
// field) contact, after Elandt et al., "A pressure field model for fast,
// robust approximation of net contact force and moment between nominally
// rigid objects": given two bodies, their poses and spatial velocities, it
// computes the contact surface, the pressure on it and the net wrench. It
// reads .pfm content (format.PFM) or plain arrays and never imports the
// build code.
//
// # Bodies
//
// A compliant body is a tet mesh with a penetration extent ε at every
// vertex; its static pressure is p0 = E·g(ε) with g the file's pressure
// mapping, interpolated linearly in each tet from the vertex values (exact
// for the linear mapping). A rigid body is a closed, outward-oriented
// triangle surface; a half-space is the set z ≤ 0 of its own frame. At
// least one body of a pair must be compliant.
//
// # Frames and signs
//
// Poses are X_WA and X_WB (Drake's notation: the pose of body frame A in
// world W). The contact normal n̂ points from B into A. Results are in
// world: the wrench on A is ∫ T dA with traction T on A and moment
// ∫ r × T dA about the world origin (and about the surface's area
// centroid); the wrench on B is its negative. With the relative velocity
// v = v_A − v_B of the two body points at r, the separation rate is
// v_n = v·n̂ (negative while approaching) and the slip v_t = v − v_n·n̂.
//
// # Broad phase
//
// Each body keeps a tree of axis-aligned boxes over its elements in its own
// frame — the .pfm's stored BVH, or one built once by bvh.BuildMorton — and
// a query traverses the two trees together with no rebuilding: B's node
// boxes are mapped into A's frame as the boxes around them, and, for two
// compliant bodies, node pairs whose pressure ranges cannot meet are pruned
// too. The cost grows with the number m of element pairs near the surface,
// times the trees' depth. Oriented boxes would fit better when the bodies
// are turned relative to each other; measured on the benchmark balls
// (BenchmarkSpheresRotation), turning B by 45° costs about 15–25% over
// aligned frames, which bounds what they could save, so the stored layout
// (AABB) is used as it is.
//
// # Contact surface
//
// Compliant–compliant: for each pair of tets whose boxes overlap, the
// plane where E_A·g_A = E_B·g_B (paper, appendix X-B) is sliced by the
// tet of A and clipped by the tet of B. The pair is dropped when the plane
// cannot be a contact surface: when the two linear pressures have the
// same gradient (no plane), or when n̂ makes an angle of more than
// Options.MaxNormalAngle (default 5π/8, 112.5°) with ∇p_A or with −∇p_B
// (a tet whose pressure gradient is zero is never the cause of a drop).
// Such planes arise where one body's field runs the wrong way for the
// other, e.g. across thin parts, and would pull the bodies together. The
// rule is the one source of discontinuity the model admits; the
// continuity tests keep away from it.
//
// Compliant–rigid: the rigid body's triangles are clipped by the tets of
// the compliant body; the surface is the rigid boundary inside the
// compliant body, n̂ is the rigid body's outward normal and the pressure
// that of the compliant body. No triangle is dropped, so the static force
// is exactly minus the gradient of U = ∫ p0 dV over the overlap.
// Compliant–half-space: the tets are sliced by the plane.
//
// Each convex polygon is fanned into n triangles about its area centroid,
// so faces appear and vanish with zero area and the wrench is a
// continuous function of the poses. Quadrature is the 3-point rule on each
// triangle (exact for force and moment of a linear pressure) or the
// centroid rule.
//
// # Tractions and material combination
//
// The normal pressure is Hunt–Crossley, p = p0·(1 − d·v_n)₊, with d the
// combined dissipation in s/m (an approach at speed s raises the pressure
// by the factor 1 + d·s; a separation faster than 1/d leaves none). The
// friction traction is regularized Coulomb,
// T_f = −μ·p·(2/π)·atan(|v_t|/v_s)·v_t/|v_t|, with v_s the stiction speed
// (Options.StictionSpeed). Each body's modulus enters its own field, so E
// needs no combining; dissipation combines as d = (E_B·d_A + E_A·d_B) /
// (E_A + E_B), so the softer body dominates and a rigid partner (E = ∞)
// leaves d = d_A; friction combines as μ = 2·μ_A·μ_B / (μ_A + μ_B) (0
// when both are 0).
package contact
