package tetgen

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// gearPrism is a gear-like prism: 32 planar side walls of two coplanar
// triangles each, at generic angles, so that Steiner points on their
// diagonals lie off the wall's plane by rounding.
func gearPrism() *format.Surface {
	var poly [][2]float64
	const teeth = 8
	for i := range 4 * teeth {
		a := 2 * math.Pi * float64(i) / (4 * teeth)
		r := 19.0
		if i%4 >= 2 {
			r = 17.5
		}
		poly = append(poly, [2]float64{r * math.Cos(a), r * math.Sin(a)})
	}
	return shapes.Extrude(poly, 8)
}

// latticePrism is a prism over a parallelogram with sides along (3, 7)
// and (−5, 2), its vertices on a lattice of exact binary fractions: each
// side wall is a row of exactly coplanar quads (2n or 2n+2 triangles) at
// a generic angle.
func latticePrism(n int) *format.Surface {
	d := [4][2]float64{{0.75, 1.75}, {-1.25, 0.5}, {-0.75, -1.75}, {1.25, -0.5}}
	var poly [][2]float64
	p := [2]float64{0, 0}
	for i, step := range d {
		for range n + i%2 {
			poly = append(poly, p)
			p = [2]float64{p[0] + step[0], p[1] + step[1]}
		}
	}
	return shapes.Extrude(poly, 2.6)
}

// flatTets counts the live tets with a vertex from `from` on whose
// smallest dihedral sine is below voidFloorSine: flat to rounding. With
// onWall, only those with a face on the surface count.
func flatTets(ms *mesher, from int32, onWall bool) int {
	m, n := ms.m, 0
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) || m.isGhost(t) {
			continue
		}
		q := m.tet(t)
		if max(q[0], q[1], q[2], q[3]) < from || minSine(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) >= voidFloorSine {
			continue
		}
		wall := false
		for k := int32(0); k < 4; k++ {
			wall = wall || m.across(4*t+k) < noTet
		}
		if wall || !onWall {
			n++
		}
	}
	return n
}

// TestPlanarFacetGroups counts the planar groups against the planar walls
// each shape has.
func TestPlanarFacetGroups(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *format.Surface
		want int
	}{
		{"box 2×3×4 split 3×3", shapes.Box(2, 3, 4, 3), 6},
		{"lattice prism", latticePrism(4), 6},
		{"gear prism", gearPrism(), 34},
		{"icosphere level 1", shapes.Icosphere(1, 1), 80},
		{"L bracket", shapes.LBracket(2, 0.5, 1), 8},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, stages := newMesher(c.s, Options{}, true)
			if err := stages[0].run(); err != nil {
				t.Fatal(err)
			}
			groups := map[int32]bool{}
			for _, f := range ms.facets {
				groups[f.plane] = true
			}
			if len(groups) != c.want {
				t.Errorf("%d planar groups of %d facets, the shape has %d planar walls", len(groups), len(ms.facets), c.want)
			}
		})
	}
}

// TestNoFlatTetsOnPlanarWalls: a Steiner point inserted on a planar wall
// must not be joined to a subface it is coplanar with, in a neighbouring
// facet of the wall: the tet would be flat to rounding. Refinement made
// such tets when only the point's own facets were kept out (joinCoplanar;
// gear prism 25, lattice prism 27; stlmodels_gearwheel 4 578). With
// planar groups it makes none, and the finished mesh passes checkMesh. With joinCoplanar
// the same run must make some, or the test no longer covers its case.
// Only flat tets with a face on the surface count: four points on two
// input edges that meet at a vertex, split at the same distances from it
// (concentric shells, segmentSplitPoint), are cocircular, and the
// Delaunay tetrahedralization may join them in a flat tet inside the
// body, as it did on the gear prism once size refinement changed order.
func TestNoFlatTetsOnPlanarWalls(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *format.Surface
		opt  Options
	}{
		{"gear prism", gearPrism(), Options{Quality: 2, MaxVolume: 1}},
		{"lattice prism", latticePrism(4), Options{Quality: 2, MaxVolume: 0.05}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, join := range []bool{false, true} {
				ms, stages := newMesher(c.s, c.opt, true)
				ms.joinCoplanar = join
				n := -1
				for _, st := range stages {
					if err := st.run(); err != nil {
						t.Fatalf("%s: %v", st.name, err)
					}
					if st.name == "refine" {
						n = flatTets(ms, 0, true)
						if join {
							break
						}
					}
				}
				switch {
				case !join && n != 0:
					t.Errorf("%d flat tets after refinement", n)
				case join && n == 0:
					t.Errorf("no flat tets after refinement with joinCoplanar: the test no longer covers its case")
				}
				if !join {
					checkMesh(t, c.s, ms.output())
				}
				t.Logf("joinCoplanar %v: %d flat tets after refinement", join, n)
			}
		})
	}
}
