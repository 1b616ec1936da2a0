package format

import (
	"math"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// Most candidate pairs in a self-intersection search are neighbours: two
// triangles around one vertex. flatFans certifies, per vertex, that no
// two triangles of its star meet beyond what they share, so the search
// can skip those pairs; the certificate is exact.
//
// A vertex v qualifies when its triangles form one closed fan, oriented
// consistently, whose projection along some coordinate axis is a proper
// fan: every triangle keeps its orientation (exactly, by Orient2D) and
// the angular sectors at v go round exactly once. Then the projected
// triangles have disjoint interiors and meet only along the projected
// shared edges, and since projection is injective on each triangle, the
// triangles themselves meet only along their shared edges and at v.

// flatFans returns, per vertex, whether its star is a certified fan.
func flatFans(pos []float64, tp *topology) []bool {
	ok := make([]bool, tp.nv)
	var sectors [][2]geom.Vec
	for v := range int32(tp.nv) {
		if !tp.closedConsistentFan(v) {
			continue
		}
		sectors = sectors[:0]
		for _, t := range tp.star(v) {
			c := tp.corner(t, v)
			sectors = append(sectors, [2]geom.Vec{geom.At(pos, tp.tris[3*int(t)+(c+1)%3]), geom.At(pos, tp.tris[3*int(t)+(c+2)%3])})
		}
		ok[v] = projectsOnce(geom.At(pos, v), sectors)
	}
	return ok
}

// closedConsistentFan reports whether the triangles around v form a single
// closed fan whose neighbours run along their shared edges in opposite
// directions.
func (tp *topology) closedConsistentFan(v int32) bool {
	star := tp.star(v)
	if len(star) < 3 {
		return false
	}
	for _, t := range star {
		c := tp.corner(t, v)
		for _, e := range [2]int{c, (c + 2) % 3} {
			u := tp.nbr[3*int(t)+e]
			if u < 0 || tp.sameWay(int(t), e, u) {
				return false
			}
		}
	}
	// Every edge at v is manifold and consistent, so the star is a union
	// of closed fans; it is one fan if walking round reaches all of it.
	t0 := star[0]
	prev, t := t0, tp.nbr[3*int(t0)+tp.corner(t0, v)]
	n := 1
	for t != t0 && n <= len(star) {
		c := tp.corner(t, v)
		next := tp.nbr[3*int(t)+c]
		if next == prev {
			next = tp.nbr[3*int(t)+(c+2)%3]
		}
		prev, t = t, next
		n++
	}
	return t == t0 && n == len(star)
}

// projectsOnce reports whether, projected along some direction, the
// sectors (v; a, b) of v's triangles (v, a, b in each triangle's corner
// order) all turn the same way and wind round v exactly once: the number
// of sectors containing the direction of the first sector's edge v→a,
// each sector taken half-open as [a, b), is one. The directions tried are
// the coordinate axes (dropping a coordinate, Orient2D) and then the four
// cube diagonals, which suit corners of axis-aligned parts: along q − v
// for a float point q, the projected orientation of (v, a, b) is exactly
// Orient3D(v, a, b, q).
func projectsOnce(v geom.Vec, sectors [][2]geom.Vec) bool {
	for k := range 3 {
		if windsOnce(fanView{axis: k, v: v}, sectors) {
			return true
		}
	}
	reach := 0.0
	for _, s := range sectors {
		reach = max(reach, geom.Dist2(v, s[0]))
	}
	reach = math.Sqrt(reach)
	for _, d := range [4]geom.Vec{{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}} {
		q := geom.Add(v, geom.Scale(reach, d))
		if q != v && windsOnce(fanView{axis: -1, v: v, q: q}, sectors) {
			return true
		}
	}
	return false
}

// fanView is a parallel projection of a fan round v: along a coordinate
// axis, or along q − v.
type fanView struct {
	axis int // 0, 1, 2, or −1 for along q − v
	v, q geom.Vec
}

// orient returns the orientation of the projected triangle (v, a, b).
func (p fanView) orient(a, b geom.Vec) int {
	if p.axis < 0 {
		return geom.Orient3D(p.v, a, b, p.q)
	}
	i, j := (p.axis+1)%3, (p.axis+2)%3
	return geom.Orient2D([2]float64{p.v[i], p.v[j]}, [2]float64{a[i], a[j]}, [2]float64{b[i], b[j]})
}

// windsOnce applies the test of projectsOnce for one projection.
func windsOnce(p fanView, sectors [][2]geom.Vec) bool {
	turn := 0
	for _, s := range sectors {
		o := p.orient(s[0], s[1])
		if o == 0 || turn != 0 && o != turn {
			return false
		}
		turn = o
	}
	ref := sectors[0][0]
	covers := 0
	for _, s := range sectors {
		if turn*p.orient(s[0], ref) >= 0 && turn*p.orient(ref, s[1]) > 0 {
			covers++
		}
	}
	return covers == 1
}
