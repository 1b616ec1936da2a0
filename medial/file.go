package medial

import (
	"fmt"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// fileCore takes the user's core surface after checking it is closed,
// outward-oriented and strictly inside the body.
func (o *solid) fileCore(opt Options) (*Core, error) {
	c, err := newSolid(opt.CoreFile, "core surface")
	if err != nil {
		return nil, err
	}
	for v := range len(c.pos) / 3 {
		p := geom.At(c.pos, int32(v))
		if d, _ := o.signedDistance(p); !(d > 0) {
			return nil, fmt.Errorf("medial: core surface is not strictly inside the body: its vertex %d at %v is %s", v, p, outsideBy(-d))
		}
	}
	for v := range len(o.pos) / 3 {
		p := geom.At(o.pos, int32(v))
		if d, _ := c.signedDistance(p); d >= 0 {
			return nil, fmt.Errorf("medial: core surface encloses part of the body's surface (vertex %d at %v)", v, p)
		}
	}
	if err := crossing(o, c); err != nil {
		return nil, err
	}
	inside := func(p geom.Vec) bool {
		d, _ := c.signedDistance(p)
		return d >= 0
	}
	sizing := func(p geom.Vec) float64 {
		db, _ := o.signedDistance(p)
		dc, _ := c.signedDistance(p)
		return max(abs(db)+abs(dc), 1e-12*o.diag()) / 3
	}
	return &Core{Mode: File, Surface: opt.CoreFile, Inside: inside, Sizing: sizing,
		Stats: Stats{SurfaceTriangles: opt.CoreFile.NumTriangles()}}, nil
}

func abs(x float64) float64 { return max(x, -x) }

func outsideBy(d float64) string {
	if d == 0 {
		return "on the body's surface"
	}
	return fmt.Sprintf("%g outside it", d)
}

// crossing reports whether any triangle of the core c meets one of the
// body a (or the core meets itself), by the exact self-intersection test
// of format.Diagnose run over both surfaces together.
func crossing(a, c *solid) error {
	na := int32(len(a.pos) / 3)
	both := &format.Surface{
		Positions: append(append([]float64(nil), a.pos...), c.pos...),
		Triangles: append([]int32(nil), a.tris...),
	}
	for _, v := range c.tris {
		both.Triangles = append(both.Triangles, v+na)
	}
	r := format.Diagnose(both)
	if r.SelfIntersectingPairs == 0 {
		return nil
	}
	ta := int32(len(a.tris) / 3)
	for _, p := range r.SelfIntersections {
		if (p[0] < ta) != (p[1] < ta) {
			return fmt.Errorf("medial: core surface crosses the body's surface: core triangle %d meets body triangle %d", max(p[0], p[1])-ta, min(p[0], p[1]))
		}
	}
	p := r.SelfIntersections[0]
	return fmt.Errorf("medial: the body and core surfaces have %d intersecting triangle pairs (first: triangles %d and %d, numbered body first, then core)", r.SelfIntersectingPairs, p[0], p[1])
}
