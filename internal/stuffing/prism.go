package stuffing

// A prism has triangles A0A1A2 and B0B1B2 joined by the edges AiBi; its
// quad q is (Aq, Aq+1, Bq+1, Bq), split by diagonal 0 (Aq–Bq+1) or
// 1 (Aq+1–Bq). Three tets fill it exactly when some vertex lies on the
// diagonals of both its quads, which fails only when all three diagonals
// turn the same way (Dompierre et al. 1999, "How to Subdivide Pyramids,
// Prisms and Hexahedra into Tetrahedra").

// prismTets returns the three tets (unoriented) of the prism with the
// given diagonals, or ok = false when the diagonals are cyclic.
func prismTets(A, B [3]int32, diag [3]uint8) (tets [3][4]int32, ok bool) {
	if diag[0] == diag[1] && diag[1] == diag[2] {
		return tets, false
	}
	// A vertex on both its quads' diagonals: Aq with diag[q] = 0 and
	// diag[q−1] = 1. Three bits around a cycle, not all equal, always have
	// such a 1→0 step.
	q := 0
	for diag[q] != 0 || diag[(q+2)%3] != 1 {
		q++
	}
	a0, a1, a2 := A[q], A[(q+1)%3], A[(q+2)%3]
	b0, b1, b2 := B[q], B[(q+1)%3], B[(q+2)%3]
	tets[0] = [4]int32{a0, b0, b1, b2}
	if diag[(q+1)%3] == 0 { // A1–B2
		tets[1], tets[2] = [4]int32{a0, a1, a2, b2}, [4]int32{a0, a1, b2, b1}
	} else { // A2–B1
		tets[1], tets[2] = [4]int32{a0, a1, a2, b1}, [4]int32{a0, b1, a2, b2}
	}
	return tets, true
}

// prismFaces returns the eight boundary triangles of the prism with the
// given diagonals (unoriented): the two ends and two per quad.
func prismFaces(A, B [3]int32, diag [3]uint8) [8][3]int32 {
	f := [8][3]int32{{A[0], A[1], A[2]}, {B[0], B[1], B[2]}}
	for q := 0; q < 3; q++ {
		a0, a1, b1, b0 := A[q], A[(q+1)%3], B[(q+1)%3], B[q]
		if diag[q] == 0 {
			f[2+2*q], f[3+2*q] = [3]int32{a0, a1, b1}, [3]int32{a0, b1, b0}
		} else {
			f[2+2*q], f[3+2*q] = [3]int32{a0, a1, b0}, [3]int32{a1, b1, b0}
		}
	}
	return f
}
