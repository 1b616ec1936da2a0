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
	forRanges(tp.nv, func(_, lo, hi int) {
		var sectors [][2]geom.Vec
		for v := int32(lo); v < int32(hi); v++ {
			var closed bool
			if sectors, closed = tp.fanSectors(pos, v, sectors[:0]); closed {
				ok[v] = projectsOnce(geom.At(pos, v), sectors)
			}
		}
	})
	return ok
}

// fanSectors walks round v from its first triangle and appends to sectors
// the corners (a, b) of each triangle (v, a, b) met, in corner order. It
// reports whether the walk closes, having met every triangle of the star
// once, with neighbours running along each shared edge in opposite
// directions: triangle (v, a, b) leaves by edge b→v, which the next
// triangle must run as v→b.
func (tp *topology) fanSectors(pos []float64, v int32, sectors [][2]geom.Vec) ([][2]geom.Vec, bool) {
	star := tp.star(v)
	if len(star) < 3 {
		return sectors, false
	}
	t := star[0]
	for range star {
		i := 3 * int(t)
		c := tp.corner(t, v)
		a, b := tp.tris[i+(c+1)%3], tp.tris[i+(c+2)%3]
		sectors = append(sectors, [2]geom.Vec{geom.At(pos, a), geom.At(pos, b)})
		u := tp.nbr[i+(c+2)%3]
		if u < 0 || tp.tris[3*int(u)+(tp.corner(u, v)+1)%3] != b {
			return sectors, false
		}
		if t = u; t == star[0] {
			break
		}
	}
	return sectors, t == star[0] && len(sectors) == len(star)
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
	// Start with the axis nearest the fan's mean normal, which nearly
	// always succeeds.
	var n geom.Vec
	for _, s := range sectors {
		n = geom.Add(n, geom.Cross(geom.Sub(s[0], v), geom.Sub(s[1], v)))
	}
	first := 0
	for k := 1; k < 3; k++ {
		if math.Abs(n[k]) > math.Abs(n[first]) {
			first = k
		}
	}
	for k := range 3 {
		if windsOnce(fanView{axis: (first + k) % 3, v: v}, sectors) {
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
	// The first sector covers its own edge v→a; no other may.
	ref := sectors[0][0]
	for _, s := range sectors[1:] {
		if turn*p.orient(s[0], ref) >= 0 && turn*p.orient(ref, s[1]) > 0 {
			return false
		}
	}
	return true
}
