package tetgen

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// coreSliverAngle is the dihedral angle below which a tet inside the core
// whose four vertices lie on the core surface gets a point inside.
const coreSliverAngle = 5 * math.Pi / 180

// splitCoreSlivers gives a point to each flat tet inside the core whose
// vertices all lie on the core surface: no vertex of it may move, and no
// flip that keeps the core surface can reach it (a sliver under a
// saddle-shaped quad). The point, the centroid of the vertices of the tet
// and of its neighbours inside the core, replaces the tet by a forced
// insertion; optimization then smooths it.
func (ms *mesher) splitCoreSlivers() error {
	if ms.opt.Coarse || ms.opt.CoreSurface == nil {
		return nil
	}
	m := ms.m
	bound := math.Sin(coreSliverAngle)
	n := int32(m.numTets()) // new tets all have the new, free vertex
	var verts []int32
	for t := int32(0); t < n; t++ {
		if !m.alive(t) || m.region[t] != regionCore || m.tetMinSine(t) >= bound {
			continue
		}
		q := m.tet(t)
		if !slices.ContainsFunc(q, func(v int32) bool { return ms.on[v] != onCore }) {
			verts = append(verts[:0], q...)
			for k := int32(0); k < 4; k++ {
				if o := m.c[t<<3|4|k]; o >= 0 && m.region[o>>2] == regionCore {
					for _, u := range m.tet(o >> 2) {
						if !slices.Contains(verts, u) {
							verts = append(verts, u)
						}
					}
				}
			}
			var c geom.Vec
			for _, u := range verts {
				c = geom.Add(c, m.pos(u))
			}
			v := ms.addVertex(geom.Scale(1/float64(len(verts)), c), vVolume, -1, onNone)
			if ms.insertForced(v, t, []int32{t}, true, 0) != inserted {
				ms.popVertex()
				continue
			}
			ms.tagSteiner(v)
			ms.rep.SteinerVolume++
		}
	}
	return nil
}
