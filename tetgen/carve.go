package tetgen

import "fmt"

// Tet regions, decided by carve.
const (
	regionUnknown int8 = iota
	regionOutside
	regionBody
	regionCore
)

// carve labels every tet outside, in the body or in the core, using the
// subfaces (now faces of the tetrahedralization) as walls: the tet on a
// subface's inner side is body (core, for a core subface), the one on its
// outer side outside (body). Labels spread across every other face; a
// tet reached with two labels means the surface does not bound a solid
// consistently. It then deletes the outside tets and ghosts, and turns
// every subface into a constraint: the tets on its two sides stop being
// neighbours and refer to the subface instead.
func (ms *mesher) carve() error {
	m, s := ms.m, &ms.s
	nt := int32(m.numTets())
	region := make([]int8, nt)
	wall := make(map[int32]int32, 2*s.num()) // tet face on a subface → subface
	var queue []int32
	label := func(t int32, r int8) error {
		switch region[t] {
		case regionUnknown:
			region[t] = r
			queue = append(queue, t)
		case r:
		default:
			return fmt.Errorf("tetgen: the surface does not bound a solid consistently near (%g, %g, %g)",
				m.pos(m.tet(t)[0])[0], m.pos(m.tet(t)[0])[1], m.pos(m.tet(t)[0])[2])
		}
		return nil
	}
	for t := int32(0); t < nt; t++ {
		if m.alive(t) && m.isGhost(t) {
			if err := label(t, regionOutside); err != nil {
				return err
			}
		}
	}
	ms.s.side = make([]int32, 2*s.num())
	for f := int32(0); f < s.num(); f++ {
		q := s.sv[3*f : 3*f+3]
		face := ms.findFace(q[0], q[1], q[2])
		if face < 0 {
			return fmt.Errorf("tetgen: internal error: subface %d lost after boundary recovery", f)
		}
		other := m.across(face)
		// The face's outward normal (as a face of its tet) agrees with
		// the subface's exactly when the tet is on the inner side.
		inner, outer := face, other
		if !sameOrientation(m.faceVerts(face), [3]int32{q[0], q[1], q[2]}) {
			inner, outer = other, face
		}
		in, out := regionBody, regionOutside
		if ms.facets[s.facet[f]].core {
			in, out = regionCore, regionBody
		}
		if err := label(inner>>2, in); err != nil {
			return err
		}
		if err := label(outer>>2, out); err != nil {
			return err
		}
		wall[face], wall[other] = f, f
		s.side[2*f], s.side[2*f+1] = inner, outer
	}
	for i := 0; i < len(queue); i++ {
		t := queue[i]
		for k := int32(0); k < 4; k++ {
			f := 4*t + k
			if _, ok := wall[f]; ok {
				continue
			}
			if err := label(m.across(f)>>2, region[t]); err != nil {
				return err
			}
		}
	}
	// Cut the links across subfaces, then delete what is outside.
	for f := int32(0); f < s.num(); f++ {
		for k := int32(0); k < 2; k++ {
			face := s.side[2*f+k]
			if region[face>>2] == regionOutside {
				s.side[2*f+k] = noTet
				continue
			}
			m.c[ni(face)] = subfaceRef(f)
		}
	}
	for t := int32(0); t < nt; t++ {
		if m.alive(t) && region[t] == regionOutside {
			m.c[t<<3] = dead
			m.free = append(m.free, t)
		}
	}
	for v := range m.vt {
		m.vt[v] = noTet
	}
	for t := int32(0); t < nt; t++ {
		if m.alive(t) {
			for _, v := range m.tet(t) {
				m.vt[v] = t
			}
		}
	}
	m.region = region
	m.onSubface = ms.moveSubfaceSide
	m.crossSubface = ms.crossSubface
	return nil
}

// crossSubface returns the tet face on the other side of subface f from
// face, or noTet.
func (ms *mesher) crossSubface(f, face int32) int32 {
	s := &ms.s
	if s.side[2*f] == face {
		return s.side[2*f+1]
	}
	return s.side[2*f]
}

// moveSubfaceSide records that the tet face on one side of subface f is
// now face.
func (ms *mesher) moveSubfaceSide(f, face int32) {
	s := &ms.s
	q := s.sv[3*f : 3*f+3]
	if sameOrientation(ms.m.faceVerts(face), [3]int32{q[0], q[1], q[2]}) {
		s.side[2*f] = face
	} else {
		s.side[2*f+1] = face
	}
}

// sameOrientation reports whether triangles a and b have the same
// vertices in the same cyclic order.
func sameOrientation(a, b [3]int32) bool {
	for r := 0; r < 3; r++ {
		if a[r] == b[0] && a[(r+1)%3] == b[1] && a[(r+2)%3] == b[2] {
			return true
		}
	}
	return false
}

// faceVerts returns the vertices of face f = 4·t+k, outward from t.
func (m *tri) faceVerts(f int32) [3]int32 {
	t, k := f>>2, f&3
	fk := faces[k]
	q := m.tet(t)
	return [3]int32{q[fk[0]], q[fk[1]], q[fk[2]]}
}
