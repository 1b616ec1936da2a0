package format

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// CleanOptions tunes Clean. The zero value welds exactly equal vertices
// only.
type CleanOptions struct {
	// Tolerance, when positive, also merges vertices closer than
	// Tolerance times the bounding-box diagonal (1e-6 is a typical value
	// for CAD exports with rounding noise). Values below 1e-12, where
	// float64 coordinates cannot tell positions apart anyway, weld
	// exactly only.
	Tolerance float64
}

// CleanReport counts every change Clean made. JSON field names are
// stable.
type CleanReport struct {
	VerticesIn   int `json:"vertices_in"`
	TrianglesIn  int `json:"triangles_in"`
	VerticesOut  int `json:"vertices_out"`
	TrianglesOut int `json:"triangles_out"`

	MergedExact     int `json:"merged_exact"`     // vertices merged into an earlier one at the same position
	MergedTolerance int `json:"merged_tolerance"` // vertices merged into an earlier one within the tolerance
	UnusedVertices  int `json:"unused_vertices"`  // vertices no triangle used, dropped

	DroppedCollapsed int `json:"dropped_collapsed"` // triangles with two corners at one vertex
	DroppedZeroArea  int `json:"dropped_zero_area"` // triangles with three distinct but collinear corners
	DroppedDuplicate int `json:"dropped_duplicate"` // triangles on the same three vertices as an earlier one

	FlippedTriangles     int `json:"flipped_triangles"`     // reversed to agree with their neighbours
	ReversedPatches      int `json:"reversed_patches"`      // consistently oriented patches turned to face outward
	NonOrientablePatches int `json:"nonorientable_patches"` // patches no orientation makes consistent (left as walked)
}

// Changed reports whether Clean changed anything.
func (r *CleanReport) Changed() bool {
	return r.VerticesIn != r.VerticesOut || r.TrianglesIn != r.TrianglesOut ||
		r.FlippedTriangles+r.ReversedPatches > 0
}

// Clean returns a copy of s with exactly equal vertices welded (and,
// with a tolerance, nearby ones), unused vertices removed, collapsed,
// zero-area and duplicate triangles dropped, and every patch — triangles
// connected through edges shared by exactly two triangles — oriented
// consistently and outward: enclosing positive volume, or negative for
// the closed wall of a cavity inside another closed patch. The report
// counts every change; s is not modified.
//
// Merged vertices take the position of the lowest-numbered vertex of
// their group; surviving vertices and triangles keep their relative
// order. Zero-area triangles are recognised exactly (their corners are
// collinear in exact arithmetic), not by a threshold.
func Clean(s *Surface, opt CleanOptions) (*Surface, *CleanReport) {
	rep := &CleanReport{VerticesIn: s.NumVertices(), TrianglesIn: s.NumTriangles()}
	remap, pos := weldExact(s.Positions)
	rep.MergedExact = s.NumVertices() - len(pos)/3
	if diag := diagonal(pos); opt.Tolerance >= 1e-12 && diag > 0 {
		var remapTol []int32
		remapTol, pos = weldTolerance(pos, opt.Tolerance*diag)
		rep.MergedTolerance = len(remapTol) - len(pos)/3
		for i, r := range remap {
			remap[i] = remapTol[r]
		}
	}
	tris := make([]int32, 0, len(s.Triangles))
	for t := range s.NumTriangles() {
		a, b, c := remap[s.Triangles[3*t]], remap[s.Triangles[3*t+1]], remap[s.Triangles[3*t+2]]
		switch {
		case a == b || b == c || c == a:
			rep.DroppedCollapsed++
		case collinear(geom.At(pos, a), geom.At(pos, b), geom.At(pos, c)):
			rep.DroppedZeroArea++
		default:
			tris = append(tris, a, b, c)
		}
	}
	dup := duplicates(tris, len(pos)/3)
	kept := tris[:0]
	for t, d := range dup {
		if d {
			rep.DroppedDuplicate++
		} else {
			kept = append(kept, tris[3*t:3*t+3]...)
		}
	}
	tris = kept
	pos, rep.UnusedVertices = dropUnused(pos, tris)

	p := newTopology(tris, len(pos)/3).orientPatches()
	rep.FlippedTriangles = applyFlips(tris, p.flip)
	for _, c := range p.conflicted {
		if c {
			rep.NonOrientablePatches++
		}
	}
	rep.ReversedPatches = orientOutward(pos, tris, p)

	out := &Surface{Positions: pos, Triangles: tris}
	rep.VerticesOut, rep.TrianglesOut = out.NumVertices(), out.NumTriangles()
	return out, rep
}

// collinear reports whether a, b and c lie on one line, exactly: their
// projections onto all three coordinate planes are collinear.
func collinear(a, b, c geom.Vec) bool {
	for k := range 3 {
		i, j := (k+1)%3, (k+2)%3
		if geom.Orient2D([2]float64{a[i], a[j]}, [2]float64{b[i], b[j]}, [2]float64{c[i], c[j]}) != 0 {
			return false
		}
	}
	return true
}

// diagonal returns the length of the bounding-box diagonal of positions.
func diagonal(pos []float64) float64 {
	lo, hi := bounds(pos)
	return math.Sqrt(geom.Dist2(lo, hi))
}

// bounds returns the bounding box of positions; zero for none.
func bounds(pos []float64) (lo, hi geom.Vec) {
	if len(pos) < 3 {
		return
	}
	lo, hi = geom.At(pos, 0), geom.At(pos, 0)
	for i := 3; i+2 < len(pos); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], pos[i+k]), max(hi[k], pos[i+k])
		}
	}
	return lo, hi
}

// duplicates marks every triangle whose three vertices (in any order) are
// those of an earlier triangle. Triangles are grouped by their smallest
// vertex, so each is compared only with the few sharing it.
func duplicates(tris []int32, nv int) []bool {
	nt := len(tris) / 3
	sorted := func(t int) [3]int32 {
		a, b, c := tris[3*t], tris[3*t+1], tris[3*t+2]
		if a > b {
			a, b = b, a
		}
		if b > c {
			b, c = c, b
		}
		if a > b {
			a, b = b, a
		}
		return [3]int32{a, b, c}
	}
	off := make([]int32, nv+1)
	for t := range nt {
		off[sorted(t)[0]+1]++
	}
	for v := range nv {
		off[v+1] += off[v]
	}
	group := make([]int32, nt)
	fill := append([]int32(nil), off[:nv]...)
	for t := range nt {
		v := sorted(t)[0]
		group[fill[v]] = int32(t)
		fill[v]++
	}
	dup := make([]bool, nt)
	for v := range nv {
		g := group[off[v]:off[v+1]] // increasing triangle order
		for i, t := range g {
			for _, u := range g[:i] {
				if sorted(int(u)) == sorted(int(t)) {
					dup[t] = true
					break
				}
			}
		}
	}
	return dup
}

// dropUnused removes the vertices no triangle uses, renumbering tris in
// place, and returns the remaining positions and how many were removed.
func dropUnused(pos []float64, tris []int32) ([]float64, int) {
	nv := len(pos) / 3
	newIndex := make([]int32, nv)
	for _, v := range tris {
		newIndex[v] = 1
	}
	n := int32(0)
	out := make([]float64, 0, len(pos))
	for v := range nv {
		if newIndex[v] == 0 {
			newIndex[v] = -1
			continue
		}
		newIndex[v] = n
		n++
		out = append(out, pos[3*v:3*v+3]...)
	}
	for i, v := range tris {
		tris[i] = newIndex[v]
	}
	return out, nv - int(n)
}

// weldTolerance merges vertices within distance tol of an earlier kept
// vertex (the nearest, lowest index on ties); kept vertices never move,
// so merging does not drift along chains of close points. It returns
// each vertex's new index and the kept positions.
func weldTolerance(pos []float64, tol float64) ([]int32, []float64) {
	nv := len(pos) / 3
	lo, _ := bounds(pos)
	cellOf := func(p geom.Vec) [3]int64 {
		return [3]int64{int64(math.Floor((p[0] - lo[0]) / tol)), int64(math.Floor((p[1] - lo[1]) / tol)), int64(math.Floor((p[2] - lo[2]) / tol))}
	}
	head := make(map[[3]int64]int32) // cell → last kept vertex in it (new index)
	var next []int32                 // per kept vertex: the previous one in its cell, −1 at the end
	remap := make([]int32, nv)
	var out []float64
	for i := range nv {
		p := geom.At(pos, int32(i))
		c := cellOf(p)
		best, bestD2 := int32(-1), tol*tol
		for dx := int64(-1); dx <= 1; dx++ {
			for dy := int64(-1); dy <= 1; dy++ {
				for dz := int64(-1); dz <= 1; dz++ {
					k, ok := head[[3]int64{c[0] + dx, c[1] + dy, c[2] + dz}]
					for ; ok && k >= 0; k = next[k] {
						if d2 := geom.Dist2(p, geom.At(out, k)); d2 < bestD2 || (d2 == bestD2 && best >= 0 && k < best) {
							best, bestD2 = k, d2
						}
					}
				}
			}
		}
		if best >= 0 {
			remap[i] = best
			continue
		}
		k := int32(len(out) / 3)
		out = append(out, p[:]...)
		prev, ok := head[c]
		if !ok {
			prev = -1
		}
		next = append(next, prev)
		head[c] = k
		remap[i] = k
	}
	return remap, out
}
