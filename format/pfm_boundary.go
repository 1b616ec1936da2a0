package format

import "github.com/pfmesh/pfmesh/internal/tetmesh"

// A .pfm file stores each boundary triangle as a face reference, one
// uint32 instead of three: ref = 16·t + 4·r + k names face k of tet t
// (the face opposite local vertex k, in tetmesh.TetFaces order, which is
// outward for a positively oriented tet) rotated left by r ∈ {0, 1, 2}:
// with f = TetFaces[k], the triangle is
//
//	tet[f[r]], tet[f[(r+1)%3]], tet[f[(r+2)%3]].
//
// Besides saving 8 bytes per triangle, this makes "an outward face of a
// tet" hold by construction.

// pfmBoundaryRefs encodes p's boundary triangles, which must have indices
// in range, checking that each is an outward face of exactly one tet.
func pfmBoundaryRefs(p *PFM) ([]uint32, error) {
	start, inc := tetmesh.VertexTets(p.Tets, p.NumVertices())
	refs := make([]uint32, p.NumBoundary())
	for i := range refs {
		a, b, c := p.Boundary[3*i], p.Boundary[3*i+1], p.Boundary[3*i+2]
		count, found := 0, false
		for _, t := range inc[start[a]:start[a+1]] {
			tet := p.Tets[4*t : 4*t+4]
			n, k := 0, 0
			for j, v := range tet {
				if v == a || v == b || v == c {
					n++
				} else {
					k = j
				}
			}
			if n != 3 {
				continue
			}
			count++
			f := tetmesh.TetFaces[k]
			for r := range 3 {
				if tet[f[r]] == a && tet[f[(r+1)%3]] == b && tet[f[(r+2)%3]] == c {
					refs[i], found = uint32(16*int(t)+4*r+k), true
				}
			}
		}
		switch {
		case count == 0:
			return nil, pfmInvalid("boundary triangle %d (%d %d %d): not a face of any tet", i, a, b, c)
		case count > 1:
			return nil, pfmInvalid("boundary triangle %d (%d %d %d): an interior face, shared by %d tets", i, a, b, c, count)
		case !found:
			return nil, pfmInvalid("boundary triangle %d (%d %d %d): faces into its tet", i, a, b, c)
		}
	}
	return refs, nil
}

// pfmExpandBoundary decodes face references into triangles.
func pfmExpandBoundary(refs []uint32, tets []int32) ([]int32, error) {
	nt := uint32(len(tets) / 4)
	tris := make([]int32, 3*len(refs))
	for i, ref := range refs {
		t, r, k := ref>>4, ref>>2&3, ref&3
		if t >= nt || r > 2 {
			return nil, pfmCorrupt("boundary triangle %d: face reference %#x names tet %d of %d, rotation %d of 3", i, ref, t, nt, r)
		}
		f, tet := tetmesh.TetFaces[k], tets[4*t:4*t+4]
		tris[3*i], tris[3*i+1], tris[3*i+2] = tet[f[r]], tet[f[(r+1)%3]], tet[f[(r+2)%3]]
	}
	return tris, nil
}
