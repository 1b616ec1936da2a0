package stuffing

import (
	"math"
	"sync"

	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// dihedralRange returns the smallest and largest dihedral angles of m's
// tets, in degrees, in parallel (min and max do not depend on the order
// they are taken in).
func dihedralRange(m *tetmesh.Mesh) (lo, hi float64) {
	lo, hi = 180, 0
	var mu sync.Mutex
	par.For(m.NumTets(), chunk, func(a, b int) {
		cl, ch := -1.0, 1.0 // largest and smallest cosines seen
		for t := a; t < b; t++ {
			q := m.Tets[4*t : 4*t+4]
			c0, c1 := cosRange(m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3]))
			cl, ch = max(cl, c1), min(ch, c0)
		}
		mu.Lock()
		lo = min(lo, math.Acos(min(1, cl))*180/math.Pi)
		hi = max(hi, math.Acos(max(-1, ch))*180/math.Pi)
		mu.Unlock()
	})
	return lo, hi
}
