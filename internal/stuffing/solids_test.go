package stuffing

import (
	"math"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// translate returns s moved by d.
func translate(s *format.Surface, d geom.Vec) *format.Surface {
	out := &format.Surface{Positions: slices.Clone(s.Positions), Triangles: slices.Clone(s.Triangles)}
	for i := range out.Positions {
		out.Positions[i] += d[i%3]
	}
	return out
}

// union concatenates surfaces.
func union(ss ...*format.Surface) *format.Surface {
	out := &format.Surface{}
	for _, s := range ss {
		base := int32(len(out.Positions) / 3)
		out.Positions = append(out.Positions, s.Positions...)
		for _, v := range s.Triangles {
			out.Triangles = append(out.Triangles, v+base)
		}
	}
	return out
}

// contains reports whether p lies in some tet of m (brute force, closed
// tets).
func contains(m *tetmesh.Mesh, p geom.Vec) bool {
	for t := 0; t < m.NumTets(); t++ {
		q := m.Tets[4*t : 4*t+4]
		v := [4]geom.Vec{m.Vertex(q[0]), m.Vertex(q[1]), m.Vertex(q[2]), m.Vertex(q[3])}
		in := true
		for k, f := range tetmesh.TetFaces {
			if geom.Orient3D(v[f[0]], v[f[1]], v[f[2]], p) > 0 { // outside face k
				_ = k
				in = false
				break
			}
		}
		if in {
			return true
		}
	}
	return false
}

// components counts the connected components of m's tets (sharing a
// face).
func components(m *tetmesh.Mesh) int {
	nbr, _ := tetmesh.Neighbors(m.Tets, m.NumVertices())
	seen := make([]bool, m.NumTets())
	n := 0
	for s := range seen {
		if seen[s] {
			continue
		}
		n++
		stack := []int{s}
		seen[s] = true
		for len(stack) > 0 {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, u := range nbr[4*t : 4*t+4] {
				if u >= 0 && !seen[u] {
					seen[u] = true
					stack = append(stack, int(u))
				}
			}
		}
	}
	return n
}

// buildChecked builds s and checks the properties every result has: it
// validates, and the report's fidelity meets the tolerance.
func buildChecked(t *testing.T, s *format.Surface, opt Options) (*tetmesh.Mesh, *Report) {
	t.Helper()
	m, rep, err := Build(s, opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := tetmesh.Validate(m); err != nil {
		t.Fatal(err)
	}
	if rep.HausdorffIn > rep.Tolerance || rep.HausdorffOut > rep.Tolerance {
		t.Errorf("Hausdorff in %.3g out %.3g, tolerance %.3g", rep.HausdorffIn, rep.HausdorffOut, rep.Tolerance)
	}
	if rel := math.Abs(m.Volume()-rep.Volume) / rep.Volume; rel > 1e-12 {
		t.Errorf("report volume %g, mesh %g", rep.Volume, m.Volume())
	}
	return m, rep
}

func within(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %.6g, want %.6g ± %.2g%%", what, got, want, 100*rel)
	} else {
		t.Logf("%s = %.6g, want %.6g (%.3f%%)", what, got, want, 100*math.Abs(got-want)/want)
	}
}

// An inside-out cube is the cube: Build orients shells outward.
func TestInsideOutCube(t *testing.T) {
	s := shapes.Box(1, 1, 1, 2)
	for i := 0; i < len(s.Triangles); i += 3 {
		s.Triangles[i+1], s.Triangles[i+2] = s.Triangles[i+2], s.Triangles[i+1]
	}
	m, rep := buildChecked(t, s, Options{Tolerance: 2e-3})
	within(t, "volume", rep.Volume, 1, 0.002)
	if rep.SnappedToCorners != 8 {
		t.Errorf("%d corners snapped, want 8", rep.SnappedToCorners)
	}
	if !contains(m, geom.Vec{0.5, 0.5, 0.5}) || contains(m, geom.Vec{1.01, 0.5, 0.5}) {
		t.Error("the cube's centre must be inside and a point beside it outside")
	}
}

// A duplicated face changes nothing: the solid is still the cube.
func TestCubeWithDuplicatedFace(t *testing.T) {
	s := shapes.Box(1, 1, 1, 1)
	s.Triangles = append(s.Triangles, s.Triangles[:6]...)
	_, rep := buildChecked(t, s, Options{Tolerance: 2e-3})
	within(t, "volume", rep.Volume, 1, 0.002)
}

// Two overlapping spheres are their union.
func TestOverlappingSpheres(t *testing.T) {
	skipUnderRace(t)
	const r, d = 1.0, 1.0
	a := shapes.Icosphere(r, 4)
	s := union(a, translate(a, geom.Vec{d, 0, 0}))
	debugf = t.Logf
	defer func() { debugf = nil }()
	m, rep := buildChecked(t, s, Options{})
	// The union of the two polyhedra: twice one, less the lens they share,
	// the lens computed for the ideal spheres and scaled by the polyhedron
	// to sphere volume ratio (both are sums over the same tessellation).
	ball := 4.0 / 3 * math.Pi * r * r * r
	poly := shapes.Volume(a)
	lens := math.Pi * (4*r + d) * (2*r - d) * (2*r - d) / 12
	within(t, "volume", rep.Volume, 2*poly-lens*poly/ball, 0.003)
	if components(m) != 1 {
		t.Errorf("%d components, want 1", components(m))
	}
	if !contains(m, geom.Vec{d / 2, 0, 0}) {
		t.Error("the point inside both spheres is not in the mesh")
	}
}

// Two disjoint shells are two solids.
func TestTwoDisjointShells(t *testing.T) {
	a := shapes.Icosphere(1, 3)
	b := shapes.Box(1, 1, 1, 2)
	s := union(a, translate(b, geom.Vec{2, -0.5, -0.5}))
	m, rep := buildChecked(t, s, Options{})
	within(t, "volume", rep.Volume, shapes.Volume(a)+1, 0.005)
	if components(m) != 2 {
		t.Errorf("%d components, want 2", components(m))
	}
	if contains(m, geom.Vec{1.5, 0, 0}) {
		t.Error("the gap between the shells is in the mesh")
	}
}

// A sphere with a hole is still a ball: the winding number closes the
// hole with a surface w = 1/2 spanning it.
func TestSphereWithHole(t *testing.T) {
	skipUnderRace(t)
	s := shapes.Icosphere(1, 3)
	// Drop the triangles around the north pole (z > 0.93): a hole about
	// 0.37 across.
	var kept []int32
	for i := 0; i < len(s.Triangles); i += 3 {
		top := true
		for _, v := range s.Triangles[i : i+3] {
			top = top && s.Positions[3*v+2] > 0.93
		}
		if !top {
			kept = append(kept, s.Triangles[i:i+3]...)
		}
	}
	if len(kept) == len(s.Triangles) {
		t.Fatal("no hole made")
	}
	s.Triangles = kept
	m, rep := buildChecked(t, s, Options{})
	// The ball, less at most the cap above the hole's rim.
	full := shapes.Volume(shapes.Icosphere(1, 3))
	h := 1 - 0.93
	capVol := math.Pi * h * h * (3 - h) / 3
	if rep.Volume > full*1.002 || rep.Volume < full-capVol {
		t.Errorf("volume %.5g, want between %.5g and %.5g", rep.Volume, full-capVol, full)
	}
	if rep.FillArea <= 0 {
		t.Error("no boundary spans the hole")
	}
	if !contains(m, geom.Vec{0, 0, 0}) || !contains(m, geom.Vec{0, 0, 0.85}) || contains(m, geom.Vec{0, 0, 1.05}) {
		t.Error("centre and a point under the hole must be inside, a point above it outside")
	}
	t.Logf("fill area %.4g (hole about %.4g)", rep.FillArea, math.Pi*(1-0.93*0.93))
}
