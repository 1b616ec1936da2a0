package format

import (
	"fmt"
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// RepairOptions says how far Repair may go. Zero values take the defaults.
type RepairOptions struct {
	Clean CleanOptions // Repair cleans first, and again after filling holes

	// MaxHoleEdges: fill boundary loops of at most this many edges
	// (default 64; negative: fill none).
	MaxHoleEdges int
	// MaxHoleSize: fill only loops whose bounding-box diagonal is at most
	// this fraction of the surface's (default 0.1).
	MaxHoleSize float64
	// MinComponentArea: drop edge-connected components whose area is less
	// than this fraction of the total (default 1e-3; negative: drop none).
	// The largest component is always kept.
	MinComponentArea float64
}

// Change is one repair Repair made.
type Change struct {
	Kind   string `json:"kind"`   // what was done; see the Change… constants
	Count  int    `json:"count"`  // how many elements it affected
	Detail string `json:"detail"` // the change in words
}

func (c Change) String() string { return c.Kind + ": " + c.Detail }

// Kinds of Change.
const (
	ChangeWeld          = "weld"           // vertices merged
	ChangeDropTriangles = "drop-triangles" // degenerate or duplicate triangles removed
	ChangeDropVertices  = "drop-vertices"  // unused vertices removed
	ChangeOrient        = "orient"         // triangles or patches reversed
	ChangeDropComponent = "drop-component" // a tiny component removed
	ChangeFillHole      = "fill-hole"      // a boundary loop closed with new triangles
)

// Repair returns a repaired copy of s and every change made: Clean, then
// drop tiny components, then fill small holes — a loop of three edges with
// one triangle, a longer one with a fan of triangles around a new vertex
// at the loop's vertex centroid — and Clean again, which orients the
// filled surface outward. Fans suit the small, nearly flat holes of scans
// and exports; a large or twisted hole is left open (the robust meshing
// path copes with it) rather than closed badly. s is not modified.
func Repair(s *Surface, opt RepairOptions) (*Surface, []Change) {
	if opt.MaxHoleEdges == 0 {
		opt.MaxHoleEdges = 64
	}
	if opt.MaxHoleSize == 0 {
		opt.MaxHoleSize = 0.1
	}
	if opt.MinComponentArea == 0 {
		opt.MinComponentArea = 1e-3
	}
	out, rep := Clean(s, opt.Clean)
	changes := cleanChanges(rep)
	changes = append(changes, dropTinyComponents(out, opt.MinComponentArea)...)
	fills := fillHoles(out, opt.MaxHoleEdges, opt.MaxHoleSize)
	changes = append(changes, fills...)
	if len(fills) > 0 {
		out, rep = Clean(out, opt.Clean)
		changes = append(changes, cleanChanges(rep)...)
	}
	return out, changes
}

// cleanChanges lists the changes a CleanReport counts.
func cleanChanges(r *CleanReport) []Change {
	var c []Change
	add := func(kind string, n int, format string, args ...any) {
		if n > 0 {
			c = append(c, Change{kind, n, fmt.Sprintf(format, args...)})
		}
	}
	add(ChangeWeld, r.MergedExact, "merged %s into others at the same position", plural(r.MergedExact, "vertex"))
	add(ChangeWeld, r.MergedTolerance, "merged %s into others within the weld tolerance", plural(r.MergedTolerance, "vertex"))
	add(ChangeDropTriangles, r.DroppedCollapsed, "dropped %s", plural(r.DroppedCollapsed, "collapsed triangle"))
	add(ChangeDropTriangles, r.DroppedZeroArea, "dropped %s", plural(r.DroppedZeroArea, "zero-area triangle"))
	add(ChangeDropTriangles, r.DroppedDuplicate, "dropped %s", plural(r.DroppedDuplicate, "duplicate triangle"))
	add(ChangeDropVertices, r.UnusedVertices, "dropped %s", plural(r.UnusedVertices, "unused vertex"))
	add(ChangeOrient, r.FlippedTriangles, "reversed %s to agree with their neighbours", plural(r.FlippedTriangles, "triangle"))
	add(ChangeOrient, r.ReversedPatches, "turned %s to face outward", plural(r.ReversedPatches, "patch"))
	return c
}

// dropTinyComponents removes, in place, the components of s whose area is
// below frac of the total, except the largest, and the vertices only they
// used.
func dropTinyComponents(s *Surface, frac float64) []Change {
	if frac < 0 || s.NumTriangles() == 0 {
		return nil
	}
	labels, n := newTopology(s.Triangles, s.NumVertices()).components()
	area := make([]float64, n)
	count := make([]int, n)
	total := 0.0
	for t, l := range labels {
		a, b, c := geom.At(s.Positions, s.Triangles[3*t]), geom.At(s.Positions, s.Triangles[3*t+1]), geom.At(s.Positions, s.Triangles[3*t+2])
		at := 0.5 * geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a)))
		area[l] += at
		count[l]++
		total += at
	}
	largest := 0
	for l := range area {
		if area[l] > area[largest] {
			largest = l
		}
	}
	var changes []Change
	drop := make([]bool, n)
	for l := range area {
		if l != largest && area[l] < frac*total {
			drop[l] = true
			changes = append(changes, Change{ChangeDropComponent, count[l],
				fmt.Sprintf("dropped a component of %s, %.3g%% of the area", plural(count[l], "triangle"), 100*area[l]/total)})
		}
	}
	if changes == nil {
		return nil
	}
	kept := s.Triangles[:0]
	for t, l := range labels {
		if !drop[l] {
			kept = append(kept, s.Triangles[3*t:3*t+3]...)
		}
	}
	s.Triangles = kept
	var unused int
	s.Positions, unused = dropUnused(s.Positions, s.Triangles)
	if unused > 0 {
		changes = append(changes, Change{ChangeDropVertices, unused, fmt.Sprintf("dropped %s of the dropped components", plural(unused, "vertex"))})
	}
	return changes
}

// fillHoles closes, in place, the boundary loops of s that are simple
// (no vertex twice) and small by maxEdges and maxSize.
func fillHoles(s *Surface, maxEdges int, maxSize float64) []Change {
	if maxEdges < 0 {
		return nil
	}
	tp := newTopology(s.Triangles, s.NumVertices())
	limit := maxSize * diagonal(s.Positions)
	var changes []Change
	for _, loop := range tp.boundaryLoops() {
		if len(loop) > maxEdges || len(loop) < 3 {
			continue
		}
		// A simple closed loop meets each of its vertices twice.
		edge := func(h int32) (int32, int32) { return tp.tris[h], tp.tris[h-h%3+(h%3+1)%3] }
		ends := make(map[int32]int, len(loop))
		for _, h := range loop {
			a, b := edge(h)
			ends[a]++
			ends[b]++
		}
		simple := len(ends) == len(loop)
		lo, hi := geom.At(s.Positions, tp.tris[loop[0]]), geom.At(s.Positions, tp.tris[loop[0]])
		var sum geom.Vec // of both ends of every edge: each vertex twice
		for _, h := range loop {
			a, b := edge(h)
			simple = simple && ends[a] == 2
			for _, v := range [2]int32{a, b} {
				p := geom.At(s.Positions, v)
				for k := range 3 {
					lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
				}
				sum = geom.Add(sum, p)
			}
		}
		if !simple || math.Sqrt(geom.Dist2(lo, hi)) > limit {
			continue
		}
		// Each boundary edge runs a→b in its triangle; the fill runs b→a.
		if len(loop) == 3 {
			a, b := edge(loop[0])
			c, d := edge(loop[1])
			if c == a || c == b {
				c = d
			}
			s.Triangles = append(s.Triangles, b, a, c)
			changes = append(changes, Change{ChangeFillHole, 1, "filled a hole of 3 edges with 1 triangle"})
			continue
		}
		c := int32(s.NumVertices())
		centre := geom.Scale(0.5/float64(len(loop)), sum)
		s.Positions = append(s.Positions, centre[:]...)
		for _, h := range loop {
			a, b := edge(h)
			s.Triangles = append(s.Triangles, b, a, c)
		}
		changes = append(changes, Change{ChangeFillHole, len(loop),
			fmt.Sprintf("filled a hole of %d edges with %d triangles around a new vertex", len(loop), len(loop))})
	}
	return changes
}
