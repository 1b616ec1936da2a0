package tetgen

import "github.com/pfmesh/pfmesh/internal/tetmesh"

// tagSteiner tags a new interior Steiner vertex: Core inside the core
// region or where Options.Core says so, else Interior.
func (ms *mesher) tagSteiner(v int32) {
	m := ms.m
	switch {
	case m.region[m.vt[v]] == regionCore:
		ms.tag[v] = tetmesh.Core
	case ms.opt.Core != nil && ms.opt.Core(m.pos(v)):
		ms.tag[v] = tetmesh.Core
	default:
		ms.tag[v] = tetmesh.Interior
	}
}

// output compacts the live tets into a Mesh: the input surface's
// vertices first, in input order, then the core surface's, then every
// other vertex in the order it was made.
func (ms *mesher) output() *Mesh {
	m := ms.m
	nv := len(ms.kind)
	newID := make([]int32, nv)
	for i := range newID {
		newID[i] = -1
	}
	used := make([]bool, nv)
	nt := 0
	for t := int32(0); t < int32(m.numTets()); t++ {
		if m.alive(t) {
			nt++
			for _, v := range m.tet(t) {
				used[v] = true
			}
		}
	}
	out := &Mesh{}
	// Input vertices by input index, then the rest in vertex order.
	inputs := make([]int32, ms.nInput)
	for v := 0; v < nv; v++ {
		if ms.kind[v] == vInput {
			inputs[ms.ref[v]] = int32(v)
		}
	}
	order := append([]int32(nil), inputs...)
	for v := 0; v < nv; v++ {
		if ms.kind[v] != vInput {
			order = append(order, int32(v))
		}
	}
	for _, v := range order {
		if !used[v] {
			continue
		}
		newID[v] = int32(len(out.Tags))
		p := m.pos(v)
		out.Positions = append(out.Positions, p[0], p[1], p[2])
		out.Tags = append(out.Tags, ms.tag[v])
	}
	out.Tets = make([]int32, 0, 4*nt)
	for t := int32(0); t < int32(m.numTets()); t++ {
		if m.alive(t) {
			for _, v := range m.tet(t) {
				out.Tets = append(out.Tets, newID[v])
			}
		}
	}
	return out
}
