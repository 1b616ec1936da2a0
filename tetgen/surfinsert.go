package tetgen

// Insertion of a vertex into the surface triangulation (Bowyer–Watson in
// the facets), and, once the mesh is carved, into the tets beside it.

// surfCavity is the cavity of a new surface vertex: the subfaces whose
// circumcircle holds it, and the boundary of their union.
type surfCavity struct {
	subs  []int32
	edges []cavEdge // boundary, each edge as in its subface (counterclockwise around the cavity)
	fan   []int32   // after surfFan: the new subface built on each boundary edge
	in    []uint32  // per subface: stamp when in the cavity
	stamp uint32
}

type cavEdge struct {
	a, b   int32 // the edge a→b of a cavity subface
	across int32 // 3·f+e of the same edge outside the cavity
	seg    bool
	facet  int32
}

func (c *surfCavity) has(f int32) bool { return c.in[f] == c.stamp }

// surfaceCavity collects the cavity of vertex v, which lies in subface f0
// or on its edge e0 (−1 for inside): the subfaces connected to f0 through
// non-subsegment edges whose circumcircle contains v, plus the subface
// across e0. It shrinks the cavity until v sees every boundary edge from
// inside, and reports false if even f0's part cannot be kept.
func (ms *mesher) surfaceCavity(v, f0, e0 int32) bool {
	return ms.surfaceCavityGrow(v, f0, e0, true)
}

// surfaceCavityGrow is surfaceCavity; without grow the cavity is only f0
// and the subface across e0.
func (ms *mesher) surfaceCavityGrow(v, f0, e0 int32, grow bool) bool {
	s, c := &ms.s, &ms.sc
	if len(c.in) < int(s.num()) {
		c.in = append(c.in, make([]uint32, int(s.num())-len(c.in)+64)...)
	}
	c.stamp++
	c.subs = append(c.subs[:0], f0)
	c.in[f0] = c.stamp
	if e0 >= 0 {
		g := s.adj[3*f0+e0] / 3
		c.subs = append(c.subs, g)
		c.in[g] = c.stamp
	}
	seeds := len(c.subs)
	for i := 0; i < len(c.subs) && grow; i++ {
		f := c.subs[i]
		for e := int32(0); e < 3; e++ {
			if s.isSeg(f, e) {
				continue
			}
			g := s.adj[3*f+e] / 3
			if c.has(g) {
				continue
			}
			q := s.sv[3*g : 3*g+3]
			if ms.inCircle(s.facet[g], q[0], q[1], q[2], v) {
				c.in[g] = c.stamp
				c.subs = append(c.subs, g)
			}
		}
	}
	for {
		c.edges = c.edges[:0]
		for _, f := range c.subs {
			for e := int32(0); e < 3; e++ {
				h := s.adj[3*f+e]
				if c.has(h / 3) {
					continue
				}
				a, b := s.edge(f, e)
				c.edges = append(c.edges, cavEdge{a, b, h, s.isSeg(f, e), s.facet[f]})
			}
		}
		// v must see each boundary edge from inside; else drop the
		// subface that owns the edge (never a seed).
		drop := false
		for _, ce := range c.edges {
			if ms.orient2(ce.facet, ce.a, ce.b, v) > 0 {
				continue
			}
			f := s.adj[ce.across] / 3
			for _, g := range c.subs[:seeds] {
				if g == f {
					return false
				}
			}
			c.in[f] = 0
			drop = true
		}
		if !drop {
			return true
		}
		keep := c.subs[:0]
		for _, f := range c.subs {
			if c.has(f) {
				keep = append(keep, f)
			}
		}
		c.subs = keep
	}
}

// surfFan replaces the cavity's subfaces by the fan from v over its
// boundary, reusing their slots, and records the new subface of each
// boundary edge in sc.fan. Edges from v to the ends of a split
// subsegment, where the fan passes from one facet to the other, are
// subsegments.
func (ms *mesher) surfFan(v int32) {
	s, c := &ms.s, &ms.sc
	ms.setProtected(c.subs, false)
	defer func() { ms.setProtected(c.fan, true) }()
	c.fan = c.fan[:0]
	for i, ce := range c.edges {
		var g int32
		if i < len(c.subs) {
			g = c.subs[i]
			s.facet[g] = ce.facet
		} else {
			g = s.add(ce.a, ce.b, v, ce.facet)
		}
		s.set(g, ce.a, ce.b, v, bit(ce.seg, 0))
		s.relink(ce.across, g, 0)
		c.fan = append(c.fan, g)
	}
	// The boundary is one cycle: link each fan subface to the one that
	// starts where it ends.
	for i, ce := range c.edges {
		for j, cf := range c.edges {
			if cf.a != ce.b {
				continue
			}
			g, h := c.fan[i], c.fan[j]
			s.link(g, 1, h, 2)
			if ce.facet != cf.facet {
				s.segs[g] |= 1 << 1
				s.segs[h] |= 1 << 2
			}
			break
		}
	}
}

// addToSurface inserts vertex v, lying in subface f or on its edge e, into
// the surface triangulation only (before carving).
func (ms *mesher) addToSurface(v, f, e int32) bool {
	if !ms.surfaceCavity(v, f, e) {
		return false
	}
	ms.surfFan(v)
	return true
}
