package format_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/fixtures"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// want is the part of a Report a fixture's construction determines.
// Negative triangles, vertices and edges are not checked.
type want struct {
	triangles, vertices, duplicateVertices   int
	edges, boundary, nonManifold, nmVertices int
	inconsistent, components                 int
	loops                                    []int
	closed, manifold, oriented, orientable   bool
	genus                                    int // −1: none
	area, volume                             float64
	path                                     string
	reason                                   string // a verdict reason must contain this
}

// Each fixture's diagnosis, derived by hand from how it was built
// (fixtures.go): counts from Euler's formula and the construction, areas
// and volumes from the solids' dimensions.
func TestDiagnoseFixtures(t *testing.T) {
	// The L-bracket: arms 2, thickness 0.5, depth 1. Its L has area
	// 2·0.5 + 0.5·1.5 and perimeter 2+0.5+1.5+1.5+0.5+2.
	lArea, lPerim := 2*0.5+0.5*1.5, 8.0
	cases := map[string]want{
		"cube.stl":        {12, 8, 0, 18, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, 6, 1, format.PathExact, ""},
		"cube_binary.stl": {12, 8, 0, 18, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, 6, 1, format.PathExact, ""},
		"lbracket.ply": {-1, -1, 0, -1, 0, 0, 0, 0, 1, nil, true, true, true, true, 0,
			2*lArea + lPerim*1, lArea * 1, format.PathExact, ""},
		"plate.ply":    {-1, -1, 0, -1, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, 2 + 4*0.05, 0.05, format.PathExact, ""},
		"wedge_be.ply": {-1, -1, 0, -1, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, math.NaN(), 0.5 * math.Sin(math.Pi/6) * 0.5, format.PathExact, ""},
		// Closed genus-0 and genus-1 surfaces: E = 3F/2, V = E − F + 2 − 2g.
		"icosphere.obj": {320, 162, 0, 480, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, math.NaN(), math.NaN(), format.PathExact, ""},
		"torus.off":     {576, 288, 0, 864, 0, 0, 0, 0, 1, nil, true, true, true, true, 1, math.NaN(), math.NaN(), format.PathExact, ""},
		// The 2×2 box (26 vertices, 48 triangles, 72 edges) less one cell
		// of its top: the cell's diagonal goes, its 4 sides become a loop.
		"hole.obj": {46, 26, 0, 71, 4, 0, 0, 0, 1, []int{4}, false, true, true, true, -1, 6 - 0.25, math.NaN(), format.PathRobust,
			"not closed: 4 boundary edges in 1 loop"},
		// One reversed triangle disagrees with its three neighbours.
		"flipped.stl": {12, 8, 0, 18, 0, 0, 0, 3, 1, nil, true, true, false, true, 0, 6, math.NaN(), format.PathExact,
			"orientation disagrees across 3 edges: Clean makes it consistent"},
		// The fin: one edge with three triangles (its two ends become
		// non-manifold vertices), and the fin's two free edges.
		"nonmanifold.obj": {13, 9, 0, 20, 2, 1, 2, 0, 1, []int{2}, false, false, false, true, -1, math.NaN(), math.NaN(), format.PathRobust,
			"1 non-manifold edge"},
		// 36 vertices at 8 positions.
		"duplicate_vertices.obj": {12, 36, 28, 18, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, 6, 1, format.PathExact,
			"28 duplicate vertices: Clean welds them"},
		// Two closed cubes, interpenetrating.
		"selfx.stl": {24, 16, 0, 36, 0, 0, 0, 0, 2, nil, true, true, true, true, 0, 12, 2, format.PathRobust, "self-intersecting"},
		"inside_out.off": {12, 8, 0, 18, 0, 0, 0, 0, 1, nil, true, true, true, true, 0, 6, -1, format.PathExact,
			"inside out (negative volume): Clean turns it outward"},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := format.Check(fixtures.Path(name), format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, r, w)
		})
	}
}

func checkReport(t *testing.T, r *format.Report, w want) {
	t.Helper()
	ints := []struct {
		what      string
		got, want int
	}{
		{"triangles", r.Triangles, w.triangles}, {"vertices", r.Vertices, w.vertices},
		{"duplicate vertices", r.DuplicateVertices, w.duplicateVertices}, {"edges", r.Edges, w.edges},
		{"boundary edges", r.BoundaryEdges, w.boundary}, {"non-manifold edges", r.NonManifoldEdges, w.nonManifold},
		{"non-manifold vertices", r.NonManifoldVertices, w.nmVertices},
		{"inconsistent edges", r.InconsistentEdges, w.inconsistent}, {"components", r.Components, w.components},
	}
	for _, c := range ints {
		if c.want >= 0 && c.got != c.want {
			t.Errorf("%s = %d, want %d", c.what, c.got, c.want)
		}
	}
	if w.loops == nil {
		w.loops = []int{}
	}
	if !slices.Equal(r.BoundaryLoops, w.loops) {
		t.Errorf("boundary loops %v, want %v", r.BoundaryLoops, w.loops)
	}
	bools := []struct {
		what      string
		got, want bool
	}{{"closed", r.Closed, w.closed}, {"manifold", r.Manifold, w.manifold},
		{"consistently oriented", r.ConsistentlyOriented, w.oriented}, {"orientable", r.Orientable, w.orientable}}
	for _, c := range bools {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	switch {
	case w.genus < 0 && r.Genus != nil:
		t.Errorf("genus %d, want none", *r.Genus)
	case w.genus >= 0 && (r.Genus == nil || *r.Genus != w.genus):
		t.Errorf("genus %v, want %d", r.Genus, w.genus)
	}
	if !math.IsNaN(w.area) && math.Abs(r.Area-w.area) > 1e-12*w.area {
		t.Errorf("area %.17g, want %g", r.Area, w.area)
	}
	if !math.IsNaN(w.volume) && math.Abs(r.Volume-w.volume) > 1e-12*math.Abs(w.volume) {
		t.Errorf("volume %.17g, want %g", r.Volume, w.volume)
	}
	if r.Verdict.Path != w.path {
		t.Errorf("verdict %s (%v), want %s", r.Verdict.Path, r.Verdict.Reasons, w.path)
	}
	if w.reason != "" && !slices.ContainsFunc(r.Verdict.Reasons, func(s string) bool { return strings.Contains(s, w.reason) }) {
		t.Errorf("verdict reasons %q lack %q", r.Verdict.Reasons, w.reason)
	}
	if w.reason == "" && len(r.Verdict.Reasons) > 0 {
		t.Errorf("verdict reasons %q, want none", r.Verdict.Reasons)
	}
}

// Defects built in memory, one per case, with the counts they must give.
func TestDiagnoseDefects(t *testing.T) {
	cube := func() *format.Surface { return shapes.Box(1, 1, 1, 1) }
	// Two cubes meeting only at the corner (1,1,1): one vertex whose
	// triangles form two fans.
	bowtie := func() *format.Surface {
		a, b := cube(), cube()
		for i := range b.Positions {
			b.Positions[i]++
		}
		return concat(a, b)
	}
	withTriangles := func(s *format.Surface, extra ...int32) *format.Surface {
		s.Triangles = append(s.Triangles, extra...)
		return s
	}
	withVertex := func(s *format.Surface, x, y, z float64) *format.Surface {
		s.Positions = append(s.Positions, x, y, z)
		return s
	}
	cases := []struct {
		name  string
		s     *format.Surface
		check func(r *format.Report) bool
	}{
		{"bowtie", bowtie(), func(r *format.Report) bool {
			return r.NonManifoldVertices == 1 && r.NonManifoldEdges == 0 && r.Components == 2 && r.Closed && !r.Manifold &&
				r.Verdict.Path == format.PathRobust
		}},
		{"unused vertex", withVertex(cube(), 5, 5, 5), func(r *format.Report) bool {
			return r.UnusedVertices == 1 && r.Closed && r.Verdict.Path == format.PathExact && r.Diagonal == math.Sqrt(75)
		}},
		{"collapsed triangle", withTriangles(cube(), 0, 0, 1), func(r *format.Report) bool {
			return r.CollapsedTriangles == 1 && !r.Closed && r.BoundaryEdges == 0 && r.Verdict.Path == format.PathRobust
		}},
		{"duplicate triangle, reversed", withTriangles(cube(), cube().Triangles[2], cube().Triangles[1], cube().Triangles[0]), func(r *format.Report) bool {
			return r.DuplicateTriangles == 1 && r.NonManifoldEdges == 3 && r.SelfIntersectingPairs == 0 && !r.ConsistentlyOriented
		}},
		{"needle", needle(), func(r *format.Report) bool {
			// The T-junction's segments 0-4 and 4-1 each lie in two
			// triangles that share only one corner: two touching pairs.
			return r.ZeroAreaTriangles == 1 && r.Closed && r.ConsistentlyOriented && r.SelfIntersectingPairs == 2 &&
				r.Verdict.Path == format.PathRobust && math.Abs(r.Volume-8.0/6) < 1e-15
		}},
		{"flat", &format.Surface{Positions: []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0}, Triangles: []int32{0, 1, 2, 1, 3, 2}}, func(r *format.Report) bool {
			return r.Verdict.Path == format.PathRefuse && r.BoundaryEdges == 4 && slices.Equal(r.BoundaryLoops, []int{4})
		}},
		{"no area", &format.Surface{Positions: []float64{0, 0, 0, 1, 0, 0, 2, 0, 0}, Triangles: []int32{0, 1, 2}}, func(r *format.Report) bool {
			return r.Verdict.Path == format.PathRefuse && r.ZeroAreaTriangles == 1
		}},
		{"empty", &format.Surface{}, func(r *format.Report) bool {
			return r.Verdict.Path == format.PathRefuse && !r.Closed && r.Components == 0
		}},
		{"Möbius strip", moebius(12), func(r *format.Report) bool {
			return !r.Orientable && r.BoundaryEdges == 24 && slices.Equal(r.BoundaryLoops, []int{24}) && r.Verdict.Path == format.PathRobust
		}},
	}
	for _, c := range cases {
		if r := format.Diagnose(c.s); !c.check(r) {
			j, _ := json.MarshalIndent(r, "", " ")
			t.Errorf("%s: unexpected report\n%s", c.name, j)
		}
	}
}

func concat(a, b *format.Surface) *format.Surface {
	nv := int32(a.NumVertices())
	out := &format.Surface{Positions: append(append([]float64{}, a.Positions...), b.Positions...)}
	out.Triangles = append(out.Triangles, a.Triangles...)
	for _, v := range b.Triangles {
		out.Triangles = append(out.Triangles, v+nv)
	}
	return out
}

// needle returns a closed tetrahedron whose face 0-2-1 is split at the
// midpoint 4 of edge 0-1 while face 0-1-3 is not; the T-junction is
// closed by the zero-area triangle 1-0-4.
func needle() *format.Surface {
	return &format.Surface{
		Positions: []float64{0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 0, 0},
		Triangles: []int32{0, 2, 4, 4, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3, 1, 0, 4},
	}
}

// moebius returns a Möbius strip of n quads: the band turns half a turn
// as it goes round, so its two edges join into one loop of 2n edges.
func moebius(n int) *format.Surface {
	s := &format.Surface{}
	for i := range n {
		th := 2 * math.Pi * float64(i) / float64(n)
		for _, w := range []float64{-0.3, 0.3} {
			r := 1 + w*math.Cos(th/2)
			s.Positions = append(s.Positions, r*math.Cos(th), r*math.Sin(th), w*math.Sin(th/2))
		}
	}
	for i := range n {
		a, b := int32(2*i), int32(2*i+1)
		c, d := int32(2*((i+1)%n)), int32(2*((i+1)%n)+1)
		if i == n-1 { // the half turn: the strip's sides swap
			c, d = d, c
		}
		s.Triangles = append(s.Triangles, a, c, b, b, c, d)
	}
	return s
}

// The JSON field names are an interface: `pfmesh check --json` prints them.
func TestReportJSONFields(t *testing.T) {
	r, err := format.Check(fixtures.Path("hole.obj"), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"file", "vertices", "triangles", "duplicate_vertices", "unused_vertices", "collapsed_triangles",
		"zero_area_triangles", "duplicate_triangles", "edges", "boundary_edges", "boundary_loops", "nonmanifold_edges",
		"nonmanifold_vertices", "inconsistent_edges", "closed", "manifold", "consistently_oriented", "orientable",
		"components", "area", "volume", "bbox_min", "bbox_max", "diagonal", "self_intersecting_pairs", "self_intersections", "verdict"} {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	if v := m["verdict"].(map[string]any); v["path"] != "robust" {
		t.Errorf("verdict %v", v)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"verdict:      robust meshing path", "- not closed: 4 boundary edges in 1 loop",
		"closed:       no (1 boundary loop of lengths [4])", "triangles:    46"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text report lacks %q:\n%s", line, text.String())
		}
	}
}

// Diagnose gives the same report whatever GOMAXPROCS is (its
// self-intersection search runs in parallel).
func TestDiagnoseDeterministic(t *testing.T) {
	s, err := format.ReadSurface(fixtures.Path("selfx.stl"), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	soup := concat(s, concat(shapes.Icosphere(0.7, 3), shapes.Torus(0.6, 0.2, 40, 20)))
	var reports [][]byte
	for _, procs := range []int{1, 2, 7} {
		old := runtime.GOMAXPROCS(procs)
		j, _ := json.Marshal(format.Diagnose(soup))
		runtime.GOMAXPROCS(old)
		reports = append(reports, j)
	}
	for i := 1; i < len(reports); i++ {
		if !bytes.Equal(reports[0], reports[i]) {
			t.Fatalf("reports differ with GOMAXPROCS:\n%s\n%s", reports[0], reports[i])
		}
	}
}

// A closed cube with one collapsed triangle more: the file as read is not
// a clean solid, but Clean drops the triangle and what is left is, so
// Check names the exact path, as pfmesh.Build (which decides on the
// cleaned surface) takes it, and keeps the reason.
func TestCheckVerdictAfterClean(t *testing.T) {
	s := shapes.Box(1, 1, 1, 1)
	s.Triangles = append(s.Triangles, s.Triangles[0], s.Triangles[0], s.Triangles[1])
	path := writeOBJ(t, s)
	raw, err := format.ReadSurface(path, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := format.Diagnose(raw).Verdict; v.Path != format.PathRobust {
		t.Fatalf("the file as read: %s path, want robust (the test's premise)", v.Path)
	}
	r, err := format.Check(path, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Path != format.PathExact || r.CollapsedTriangles != 1 || !slices.ContainsFunc(r.Verdict.Reasons, func(s string) bool { return strings.Contains(s, "collapsed") }) {
		t.Errorf("verdict %s %q with %d collapsed triangles, want the exact path noting the collapsed one", r.Verdict.Path, r.Verdict.Reasons, r.CollapsedTriangles)
	}
}

// writeOBJ writes s to an OBJ file in a temporary directory and returns
// its path.
func writeOBJ(t *testing.T, s *format.Surface) string {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < len(s.Positions); i += 3 {
		fmt.Fprintf(&b, "v %v %v %v\n", s.Positions[i], s.Positions[i+1], s.Positions[i+2])
	}
	for i := 0; i < len(s.Triangles); i += 3 {
		fmt.Fprintf(&b, "f %d %d %d\n", s.Triangles[i]+1, s.Triangles[i+1]+1, s.Triangles[i+2]+1)
	}
	path := filepath.Join(t.TempDir(), "surface.obj")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A closed surface with half its triangles wound the other way (as
// marching-cubes exporters leave them: plb_aneurysm.stl), or all of them
// (inside out), encloses a volume its own triangles' sum does not give:
// Check reports the volume of the oriented surface, here the box's 2·3·5.
func TestCheckOrientedVolume(t *testing.T) {
	s := shapes.Box(2, 3, 5, 2)
	for i := 0; i < len(s.Triangles); i += 6 {
		s.Triangles[i+1], s.Triangles[i+2] = s.Triangles[i+2], s.Triangles[i+1]
	}
	r, err := format.Check(writeOBJ(t, s), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.InconsistentEdges == 0 || math.Abs(r.Volume-30) < 1 {
		t.Fatalf("as read: %d inconsistent edges, volume %g (the test's premise: inconsistent, and not the box's)", r.InconsistentEdges, r.Volume)
	}
	if r.OrientedVolume == nil || math.Abs(*r.OrientedVolume-30) > 1e-12 {
		t.Errorf("oriented volume %v, want 30", r.OrientedVolume)
	}
	// Inside out, every triangle turned: the sum is −30, the solid 30.
	out := shapes.Box(2, 3, 5, 2)
	for i := 0; i < len(out.Triangles); i += 3 {
		out.Triangles[i+1], out.Triangles[i+2] = out.Triangles[i+2], out.Triangles[i+1]
	}
	r, err = format.Check(writeOBJ(t, out), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Volume+30) > 1e-12 || r.OrientedVolume == nil || math.Abs(*r.OrientedVolume-30) > 1e-12 {
		t.Errorf("inside-out box: volume %g, oriented volume %v; want −30 and 30", r.Volume, r.OrientedVolume)
	}
	// Outward and consistent: Volume alone.
	r, err = format.Check(writeOBJ(t, shapes.Box(2, 3, 5, 2)), format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.OrientedVolume != nil || math.Abs(r.Volume-30) > 1e-12 {
		t.Errorf("consistent box: volume %g, oriented volume %v; want 30 and none", r.Volume, r.OrientedVolume)
	}
}

// The other way round: a flat square (two triangles back to back) with a
// collapsed triangle whose third corner lies off its plane. As read, the
// corners span a volume and the collapsed triangle only blocks the exact
// path; Clean drops it and what is left encloses nothing, which Build
// refuses — and so must Check say.
func TestCheckVerdictRefusedAfterClean(t *testing.T) {
	obj := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 0.5 1\nf 1 2 3\nf 1 3 4\nf 1 3 2\nf 1 4 3\nf 5 5 1\n"
	path := filepath.Join(t.TempDir(), "flat.obj")
	if err := os.WriteFile(path, []byte(obj), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := format.Check(path, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict.Path != format.PathRefuse {
		t.Errorf("verdict %s %q, want refuse, as Build does", r.Verdict.Path, r.Verdict.Reasons)
	}
}
