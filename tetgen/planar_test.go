package tetgen

import (
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
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
			if groups, facets := planarGroupCount(t, c.s, Options{}); groups != c.want {
				t.Errorf("%d planar groups of %d facets, the shape has %d planar walls", groups, facets, c.want)
			}
		})
	}
}

// planarGroupCount returns the number of planar groups the mesher makes
// of s's facets with options opt (conforming recovery; the first stage
// only), and the number of facets.
func planarGroupCount(t *testing.T, s *format.Surface, opt Options) (groups, facets int) {
	ms, stages := newMesher(s, opt, true)
	if err := stages[0].run(); err != nil {
		t.Fatal(err)
	}
	seen := map[int32]bool{}
	for _, f := range ms.facets {
		seen[f.plane] = true
	}
	return len(seen), len(ms.facets)
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

// TestNearPlane checks nearPlane against distances from the plane z = 0
// (largest coordinate 16, whose unit in the last place is 2⁻⁴⁸ ≈ 3.55e−15)
// and from a plane whose normal is nearest the x axis.
func TestNearPlane(t *testing.T) {
	ulp := math.Ldexp(1, -48)
	a, b, c := geom.Vec{0, 0, 0}, geom.Vec{16, 0, 0}, geom.Vec{0, 16, 0}
	for _, x := range []struct {
		z    float64
		want bool
	}{{0, true}, {-8.881784197001252e-16, true}, {0.9 * ulp, true}, {-ulp, true}, {1.5 * ulp, false}, {-3 * ulp, false}, {1e-9, false}} {
		if got := nearPlane(a, b, c, geom.Vec{8, 8, x.z}); got != x.want {
			t.Errorf("z = %g: nearPlane %v, want %v", x.z, got, x.want)
		}
	}
	// The plane x = y/4 + 1 (normal nearest x): off it by 0.5 and 2 ulps along x.
	a, b, c = geom.Vec{1, 0, 0}, geom.Vec{1, 0, 16}, geom.Vec{5, 16, 0}
	if !nearPlane(a, b, c, geom.Vec{3 + ulp/2, 8, 8}) || nearPlane(a, b, c, geom.Vec{3 + 2*ulp, 8, 8}) {
		t.Error("nearPlane wrong on a plane whose normal is nearest the x axis")
	}
}

// TestNearGroups checks which needles join the floor's group: a floor
// of two triangles (0, 1) and, across its edge y = 0, a needle (2) whose
// vertices lie within rounding of the floor's plane or not. A needle whose
// own plane is tilted 45° by rounding but that lies within an ulp of the
// floor joins it; one that lies within rounding of the floor and of a
// sloping face (3, across its other long edge when sloped) joins neither,
// as the group would not be flat.
func TestNearGroups(t *testing.T) {
	floor := [][3]geom.Vec{{{0, 0, 0}, {10, 0, 0}, {10, 10, 0}}, {{0, 0, 0}, {10, 10, 0}, {0, 10, 0}}}
	slope := [3]geom.Vec{{5, -1e-15, -1e-15}, {0, 0, 0}, {5, -10, -10}}
	for _, c := range []struct {
		name   string
		needle [3]geom.Vec
		sloped bool
		want   bool
	}{
		{"flat to rounding", [3]geom.Vec{{10, 0, 0}, {0, 0, 0}, {5, -0.1, -8.9e-16}}, false, true},
		{"tilted by rounding", [3]geom.Vec{{10, 0, 0}, {0, 0, 0}, {5, -1e-15, 1e-15}}, false, true},
		{"off by more than rounding", [3]geom.Vec{{10, 0, 0}, {0, 0, 0}, {5, -0.1, -1e-14}}, false, false},
		{"not a needle", [3]geom.Vec{{10, 0, 0}, {0, 0, 0}, {5, -10, -8.9e-16}}, false, false},
		{"facing the other way", [3]geom.Vec{{0, 0, 0}, {10, 0, 0}, {5, -0.1, -8.9e-16}}, false, false},
		{"along a crease", [3]geom.Vec{{10, 0, 0}, {0, 0, 0}, {5, -1e-15, -1e-15}}, true, false},
	} {
		tris := [][3]geom.Vec{floor[0], floor[1], c.needle, slope}
		across := func(t, e int32) int32 {
			switch {
			case t == 0 && e == 0:
				return 2
			case t == 2 && e == 0:
				return 0
			case c.sloped && t == 2 && e == 1:
				return 3
			case c.sloped && t == 3 && e == 0:
				return 2
			}
			return -1
		}
		exact := func(t int32) int32 { return [4]int32{0, 0, 2, 3}[t] }
		got := nearGroups(4, func(t int32) [3]geom.Vec { return tris[t] }, across, exact)
		if (got[2] == 0) != c.want || got[0] != 0 || got[1] != 0 || got[3] != 3 {
			t.Errorf("%s: groups %v; want the needle in the floor's: %v", c.name, got, c.want)
		}
	}
}

// needleFloorBox is the box [0, 16]² × [0, 4] whose floor holds a needle
// (apex (12, 8, 0), base from (0, 7.9) to (0, 8.1): 0.95°) whose base
// vertices lie 8.9e−16 below the floor's plane, as netgen_hinge.stl's
// floor needles do (an exporter's rounding; a quarter of the floor's unit
// in the last place).
func needleFloorBox() *format.Surface {
	const eps = -8.881784197001252e-16
	p := []geom.Vec{
		{0, 0, 0}, {16, 0, 0}, {16, 16, 0}, {0, 16, 0}, // 0-3 floor corners
		{0, 8.1, eps}, {12, 8, 0}, {0, 7.9, eps}, // 4 B, 5 A, 6 C
		{0, 0, 4}, {16, 0, 4}, {16, 16, 4}, {0, 16, 4}, // 7-10 top
	}
	tris := [][3]int32{
		{0, 1, 5}, {1, 2, 5}, {2, 3, 5}, {3, 4, 5}, {6, 0, 5}, {5, 4, 6}, // floor, the needle last
		{7, 8, 9}, {7, 9, 10}, // top
		{0, 1, 8}, {0, 8, 7}, {1, 2, 9}, {1, 9, 8}, {2, 3, 10}, {2, 10, 9}, // y = 0, x = 16, y = 16
		{0, 7, 6}, {6, 7, 4}, {4, 7, 10}, {4, 10, 3}, // x = 0
	}
	var xyz []float64
	for _, v := range p {
		xyz = append(xyz, v[0], v[1], v[2])
	}
	centre := geom.Vec{8, 8, 2}
	var ts []int32
	for _, q := range tris {
		a, b, c := p[q[0]], p[q[1]], p[q[2]]
		n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		if geom.Dot(n, geom.Sub(a, centre)) < 0 { // outward
			q[1], q[2] = q[2], q[1]
		}
		ts = append(ts, q[0], q[1], q[2])
	}
	return &format.Surface{Positions: xyz, Triangles: ts}
}

// TestMergeNearCoplanar: with MergeCoplanar, the needle of a floor whose
// base vertices lie a quarter ulp below the floor's plane joins the two
// floor triangles beside it in one planar group (seven groups, not nine;
// those two triangles and the rest of the floor, exactly coplanar, have
// no angle below nearMergeAngle and stay apart), so the needle's 0.95°
// corner no longer bounds the mesh: its smallest dihedral angle reaches
// 12° (9.91° with exact groups). Without the option the groups stay
// exact.
func TestMergeNearCoplanar(t *testing.T) {
	s := needleFloorBox()
	checkCleanSurface(t, s)
	for _, c := range []struct {
		merge bool
		want  int
	}{{false, 9}, {true, 7}} {
		if groups, _ := planarGroupCount(t, s, Options{MergeCoplanar: c.merge}); groups != c.want {
			t.Errorf("MergeCoplanar %v: %d planar groups, want %d", c.merge, groups, c.want)
		}
	}
	m, _, err := Build(s, Options{MergeCoplanar: true})
	if err != nil {
		t.Fatal(err)
	}
	checkMergedMesh(t, s, m)
	t.Logf("%d tets, smallest dihedral angle %.3g°", m.NumTets(), tetmesh.MeasureQuality(m).MinDihedral)
	if got := tetmesh.MeasureQuality(m).MinDihedral; got < 12 {
		t.Errorf("smallest dihedral angle %.3g° with the near-coplanar floor merged, want at least 12°", got)
	}
}
