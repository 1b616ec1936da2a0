package medial

import (
	"fmt"
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
)

// level is a 1-Lipschitz function whose set {f ≥ 0} is to be contoured,
// with a projection of a nearby point onto {f = 0} (ok false if it has
// none to offer).
type level struct {
	f func(p geom.Vec) float64
	// bound, if set, returns f(p) where |f(p)| < r and otherwise a value
	// of the same sign and at least r in magnitude. The octree that finds the cells asks
	// about large blocks far from the level set, where f may be costly or
	// floored (the medial kernel's is, at a few grid spacings).
	bound   func(p geom.Vec, r float64) float64
	project func(p geom.Vec) (geom.Vec, bool)
}

// within returns f(p) where |f(p)| < r and otherwise a value of the same
// sign and at least r in magnitude.
func (lv level) within(p geom.Vec, r float64) float64 {
	if lv.bound != nil {
		return lv.bound(p, r)
	}
	return lv.f(p)
}

// onto returns the point of the level set near p along the line through p
// with direction n (searched within l either way), or the projection when
// that is within l; p itself if neither finds one.
func (lv level) onto(p, n geom.Vec, l float64) geom.Vec {
	if lv.project != nil {
		if q, ok := lv.project(p); ok && geom.Dist2(p, q) <= l*l {
			return q
		}
	}
	fp := lv.f(p)
	if fp == 0 || !(l > 0) {
		return p
	}
	if fp > 0 { // inside: f falls outwards, along n
		for t := l / 8; t <= l*(1+1e-9); t *= 2 {
			q := geom.Add(p, geom.Scale(t, n))
			if fq := lv.f(q); fq < 0 {
				return root(lv.f, p, q, fp, fq)
			}
		}
		return p
	}
	for t := l / 8; t <= l*(1+1e-9); t *= 2 {
		q := geom.Sub(p, geom.Scale(t, n))
		if fq := lv.f(q); fq >= 0 {
			if fq == 0 {
				return q
			}
			return root(lv.f, q, p, fq, fp)
		}
	}
	return p
}

// snap returns the point of the level set near grid vertex p, by the
// projection if there is one, else along the gradient of f (by central
// differences over g/4); ok is false if none lies within g/2.
func (lv level) snap(p geom.Vec, g float64) (geom.Vec, bool) {
	if lv.project != nil {
		q, ok := lv.project(p)
		return q, ok && geom.Dist2(q, p) < g*g/4
	}
	var grad geom.Vec
	h := g / 4
	for k := range 3 {
		a, b := p, p
		a[k] -= h
		b[k] += h
		grad[k] = (lv.f(b) - lv.f(a)) / (2 * h)
	}
	l := geom.Norm(grad)
	if !(l > 0) {
		return p, false
	}
	// Along −∇f points outwards, as onto expects of n.
	q := lv.onto(p, geom.Scale(-1/l, grad), g/2)
	return q, q != p && lv.f(q) == 0 || math.Abs(lv.f(q)) < 1e-12*g
}

// zeroFraction: a grid vertex whose value is within this fraction of the
// spacing of zero is on the level set, snapping or not; otherwise the
// crossings on its edges would land within rounding of it and form a knot
// of tiny triangles that cross each other.
const zeroFraction = 1e-12

// snapFraction: grid vertices closer than this fraction of the spacing to
// the level set are moved onto it, so that no triangle of the contour is a
// sliver cut next to a grid vertex.
const snapFraction = 0.2

// freudenthal lists the six tets of a grid cube (corners numbered by bits
// x, y, z), all around the diagonal 0–7, positively oriented; neighbouring
// cubes split their shared faces the same way.
var freudenthal = [6][4]int{{0, 1, 3, 7}, {0, 3, 2, 7}, {0, 2, 6, 7}, {0, 6, 4, 7}, {0, 4, 5, 7}, {0, 5, 1, 7}}

// grid is a cube grid of spacing g from lo, n cells along each axis,
// searched by octree descent from a root block of size cells (a power of
// two).
type grid struct {
	lo   geom.Vec
	g    float64
	n    [3]int
	size int
}

func newGrid(lo, hi geom.Vec, g float64) (grid, error) {
	gr := grid{lo: lo, g: g, size: 1}
	for k := range 3 {
		c := math.Ceil((hi[k]-lo[k])/g) + 1
		if !(c < 1<<20) {
			return gr, fmt.Errorf("medial: contour grid spacing %g is too fine for a box %g across", g, hi[k]-lo[k])
		}
		gr.n[k] = int(c)
		for gr.size < gr.n[k] {
			gr.size *= 2
		}
	}
	return gr, nil
}

func (gr grid) at(i, j, k int) geom.Vec {
	return geom.Vec{gr.lo[0] + gr.g*float64(i), gr.lo[1] + gr.g*float64(j), gr.lo[2] + gr.g*float64(k)}
}

// cells returns the cells the 1-Lipschitz bound on f cannot rule out, in
// octree order, or nil if there are more than limit. A block of the octree
// is ruled out when f at its centre exceeds its half diagonal, which
// lv.within decides without evaluating f exactly far from the level set.
// The work is bounded by the cells found: the octree visits a block only
// if its parent could not be ruled out, so it stops after at most a
// constant times limit evaluations, however fine the grid.
func (gr grid) cells(lv level, limit int) [][3]int {
	var cells [][3]int
	var descend func(i, j, k, s int) bool
	descend = func(i, j, k, s int) bool {
		if i >= gr.n[0] || j >= gr.n[1] || k >= gr.n[2] {
			return true
		}
		h := gr.g * float64(s) / 2
		c := geom.Add(gr.at(i, j, k), geom.Vec{h, h, h})
		r := h * math.Sqrt(3) * (1 + 1e-9)
		if math.Abs(lv.within(c, 2*r)) > r {
			return true
		}
		if s == 1 {
			cells = append(cells, [3]int{i, j, k})
			return len(cells) <= limit
		}
		s /= 2
		for _, d := range [8][3]int{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}} {
			if !descend(i+d[0]*s, j+d[1]*s, k+d[2]*s, s) {
				return false
			}
		}
		return true
	}
	if !descend(0, 0, 0, gr.size) {
		return nil
	}
	return cells
}

// spacing returns the smallest spacing g·1.5^k, k ≥ 0, at which at most
// budget cells of the grid over [lo, hi] meet the level set. The cells
// meeting a surface fall about as the square of the spacing, so the
// search gallops up k = 1, 2, 4, … until they fit and then bisects: about
// 2·log₂ k tries, each stopped by the budget, where stepping k by one
// would take k (tens on a part with one tiny core ball and a large core).
func spacing(lv level, lo, hi geom.Vec, g float64, budget int) float64 {
	at := func(k int) float64 {
		gk := g
		for range k {
			gk *= 1.5
		}
		return gk
	}
	fits := func(k int) bool {
		gr, err := newGrid(lo, hi, at(k))
		return err == nil && gr.cells(lv, budget) != nil
	}
	if fits(0) {
		return g
	}
	fail, ok := 0, 1
	for !fits(ok) {
		fail, ok = ok, 2*ok
	}
	for ok-fail > 1 {
		if m := (fail + ok) / 2; fits(m) {
			ok = m
		} else {
			fail = m
		}
	}
	return at(ok)
}

// contour returns the closed, outward-oriented boundary of {f ≥ 0} within
// the box [lo, hi], which f must be negative on the boundary of, by
// marching tetrahedra over a grid of spacing g. Only cells the
// 1-Lipschitz bound cannot rule out are visited, so the work grows with
// the area of the contour, not the volume of the box. Crossing points are
// found on the grid edges by root-finding on f, so planar parts of the
// level set come out exactly planar whatever the grid.
func contour(lv level, lo, hi geom.Vec, g float64, snap bool) (*format.Surface, error) {
	gr, err := newGrid(lo, hi, g)
	if err != nil {
		return nil, err
	}
	n := gr.n
	vid := func(i, j, k int) int64 { return int64(i) + int64(n[0]+1)*(int64(j)+int64(n[1]+1)*int64(k)) }
	at := gr.at
	cells := gr.cells(lv, math.MaxInt)

	// The distinct corners of those cells, their values and positions.
	var ids []int64
	for _, c := range cells {
		for b := range 8 {
			ids = append(ids, vid(c[0]+b&1, c[1]+b>>1&1, c[2]+b>>2&1))
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	gridPos := func(x int) geom.Vec {
		id := ids[x]
		return at(int(id%int64(n[0]+1)), int(id/int64(n[0]+1)%int64(n[1]+1)), int(id/(int64(n[0]+1)*int64(n[1]+1))))
	}
	val := make([]float64, len(ids))
	pos := make([]geom.Vec, len(ids))
	var raw []float64 // per grid vertex snapped: its value before, else 0
	if snap {
		raw = make([]float64, len(ids))
	}
	par.Each(len(ids), chunk, func(x int) {
		pos[x] = gridPos(x)
		val[x] = lv.f(pos[x])
		if a := math.Abs(val[x]); a != 0 && (snap && a < snapFraction*g || a <= zeroFraction*g) {
			if q, ok := lv.snap(pos[x], g); ok {
				if a > zeroFraction*g {
					raw[x] = val[x]
				}
				pos[x], val[x] = q, 0
			} else if a <= zeroFraction*g {
				val[x] = 0
			}
		}
	})
	corners := func(c [3]int) (corner [8]int32) {
		for b := range 8 {
			x, _ := slices.BinarySearch(ids, vid(c[0]+b&1, c[1]+b>>1&1, c[2]+b>>2&1))
			corner[b] = int32(x)
		}
		return corner
	}

	// Snapping can pinch the contour where the level set passes within a
	// snap of a grid vertex from two sides (a thin neck, a crease): the
	// vertex, moved onto it, joins sheets that should pass by. Such
	// vertices go back to the grid and the cells are marched again, until
	// nothing is pinched or only vertices that were not snapped are.
	// The crossing points found stay: they lie on grid edges between
	// vertices off the level set, which no round moves.
	found := map[[2]int32]geom.Vec{}
	for {
		out, ends := marchCells(lv, cells, corners, val, pos, found)
		if raw == nil {
			return out, nil
		}
		moved := false
		for _, v := range format.Pinched(out) {
			if a := ends[v][0]; val[a] == 0 && raw[a] != 0 {
				pos[a], val[a], raw[a] = gridPos(int(a)), raw[a], 0
				moved = true
			}
		}
		if !moved {
			return out, nil
		}
	}
}

// marchCells contours the cells, whose grid vertices have values val at
// positions pos, by marching tetrahedra. The cells are marched twice:
// first to number the crossing points in the order the triangles meet
// them, then, once their root-finding has run on all cores, to emit the
// triangles, whose quads split along the shorter diagonal. Crossing
// points are taken from found, by grid edge (inside end, outside end),
// and the new ones added to it. It returns the contour and each of its
// vertices' grid edge; a vertex at a grid vertex a on the level set has
// ends (a, b) with val[a] = 0.
func marchCells(lv level, cells [][3]int, corners func(c [3]int) [8]int32, val []float64, pos []geom.Vec, found map[[2]int32]geom.Vec) (*format.Surface, [][2]int32) {
	out := &format.Surface{}
	points := map[[2]int32]int32{} // crossing point of grid edge (a, b), a ≤ b
	var ends [][2]int32            // per crossing point: a inside (≥ 0), b outside (< 0)
	number := func(a, b int32) int32 {
		key := [2]int32{a, a}
		if val[a] != 0 {
			key = [2]int32{min(a, b), max(a, b)}
		}
		v, ok := points[key]
		if !ok {
			v = int32(len(ends))
			points[key] = v
			ends = append(ends, [2]int32{a, b})
		}
		return v
	}
	march(cells, corners, val, nil, number, func(a, b, c int32) {})
	out.Positions = make([]float64, 3*len(ends))
	var todo []int32
	for v, e := range ends {
		p, ok := pos[e[0]], true
		if val[e[0]] != 0 {
			p, ok = found[e]
		}
		if ok {
			copy(out.Positions[3*v:], p[:])
		} else {
			todo = append(todo, int32(v))
		}
	}
	par.Each(len(todo), chunk, func(i int) {
		e := ends[todo[i]]
		p := root(lv.f, pos[e[0]], pos[e[1]], val[e[0]], val[e[1]])
		copy(out.Positions[3*todo[i]:], p[:])
	})
	for _, v := range todo {
		found[ends[v]] = geom.At(out.Positions, v)
	}
	march(cells, corners, val, out.Positions, number, func(a, b, c int32) {
		if a != b && b != c && c != a {
			out.Triangles = append(out.Triangles, a, b, c)
		}
	})
	return out, ends
}

// march walks the marching tetrahedra of the cells (corners gives a
// cell's eight grid vertices, val their values), calling emit with the
// triangles' crossing points as cross numbers them. The points' positions
// choose each quad's diagonal; without them (nil) quads are numbered only.
func march(cells [][3]int, corners func(c [3]int) [8]int32, val []float64, positions []float64, cross func(a, b int32) int32, emit func(a, b, c int32)) {
	for _, c := range cells {
		corner := corners(c)
		for _, tet := range freudenthal {
			v := [4]int32{corner[tet[0]], corner[tet[1]], corner[tet[2]], corner[tet[3]]}
			var in, outv []int
			for l := range 4 {
				if val[v[l]] >= 0 {
					in = append(in, l)
				} else {
					outv = append(outv, l)
				}
			}
			switch len(in) {
			case 1, 3:
				// One vertex apart: a triangle around it, facing from the
				// inside to the outside. With (s, a, b, c) an even
				// permutation of the tet, triangle (a, b, c) faces away
				// from s.
				lone := in
				if len(in) == 3 {
					lone = outv
				}
				s := lone[0]
				a, b, cc := evenRest(s)
				if len(in) == 1 {
					emit(cross(v[s], v[a]), cross(v[s], v[b]), cross(v[s], v[cc]))
				} else {
					emit(cross(v[a], v[s]), cross(v[cc], v[s]), cross(v[b], v[s]))
				}
			case 2:
				i, j, k, l := in[0], in[1], outv[0], outv[1]
				if !evenPerm(i, j, k, l) {
					k, l = l, k
				}
				p, q, r, s := cross(v[i], v[k]), cross(v[i], v[l]), cross(v[j], v[l]), cross(v[j], v[k])
				if positions == nil {
					continue
				}
				// Split the quad p q r s along its shorter diagonal.
				P, Q, R, S := geom.At(positions, p), geom.At(positions, q), geom.At(positions, r), geom.At(positions, s)
				if geom.Dist2(P, R) <= geom.Dist2(Q, S) {
					emit(p, q, r)
					emit(p, r, s)
				} else {
					emit(p, q, s)
					emit(q, r, s)
				}
			}
		}
	}
}

// root returns the point where f vanishes on segment ab, f(a) = fa ≥ 0 >
// fb = f(b), by the Illinois variant of regula falsi: exact in one step
// where f is affine along the segment.
func root(f func(geom.Vec) float64, a, b geom.Vec, fa, fb float64) geom.Vec {
	ta, tb := 0.0, 1.0
	lerp := func(t float64) geom.Vec { return geom.Add(a, geom.Scale(t, geom.Sub(b, a))) }
	side := 0
	t := ta
	for range 60 {
		t = (ta*fb - tb*fa) / (fb - fa)
		if !(t > ta && t < tb) {
			t = (ta + tb) / 2
		}
		ft := f(lerp(t))
		switch {
		case ft == 0:
			return lerp(t)
		case ft > 0:
			ta, fa = t, ft
			if side == 1 {
				fb /= 2
			}
			side = 1
		default:
			tb, fb = t, ft
			if side == -1 {
				fa /= 2
			}
			side = -1
		}
		if tb-ta < 1e-12 || math.Abs(ft) < 1e-14*math.Sqrt(geom.Dist2(a, b)) {
			break
		}
	}
	return lerp(t)
}

// evenRest returns a, b, c with (s, a, b, c) an even permutation of
// (0, 1, 2, 3).
func evenRest(s int) (int, int, int) {
	r := [4][3]int{{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}[s]
	return r[0], r[1], r[2]
}

// evenPerm reports whether (i, j, k, l) is an even permutation of
// (0, 1, 2, 3).
func evenPerm(i, j, k, l int) bool {
	p := [4]int{i, j, k, l}
	even := true
	for x := range 4 {
		for y := x + 1; y < 4; y++ {
			if p[x] > p[y] {
				even = !even
			}
		}
	}
	return even
}
