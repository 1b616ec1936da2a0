package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// The end-to-end tests run the built binary, as a user would, in a scratch
// directory holding a copy of fixtures/.

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "pfmesh-e2e-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "pfmesh")
	out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// workdir returns a temporary directory with fixtures/ copied into it.
func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "fixtures")
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "fixtures"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), ".pfm") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "fixtures", e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

type runResult struct {
	stdout, stderr string
	code           int
}

func runCLI(t *testing.T, dir string, args ...string) runResult {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{o.String(), e.String(), code}
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	r := runCLI(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("pfmesh %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// TestPipeline: build → inspect --json → export → contact on a fixture,
// checking each output against what the input implies.
func TestPipeline(t *testing.T) {
	dir := workdir(t)
	out := mustRun(t, dir, "build", "fixtures/icosphere.obj", "-E", "1MPa")
	if !strings.Contains(out, filepath.Join("fixtures", "icosphere.pfm")+":") || !strings.Contains(out, "tets") {
		t.Fatalf("build summary %q does not name the output and its tets", out)
	}
	pfm := filepath.Join("fixtures", "icosphere.pfm")

	ins := inspectJSON(t, dir, pfm)
	if ins.Schema != "pfmesh.inspect/2" || !ins.File.CRCOK || ins.Mesh.Tets == 0 {
		t.Fatalf("inspect: %+v", ins.File)
	}
	// The fixture is an icosphere of radius 1 (level 2: 320 triangles);
	// the mesh must fill exactly the polyhedron, whose volume is known.
	if v := ins.Mesh.Volume; math.Abs(v-polyVolume(t, filepath.Join(dir, "fixtures", "icosphere.obj"))) > 1e-9 {
		t.Errorf("mesh volume %.12g differs from the surface's", v)
	}
	if f := ins.Field; f.MinEpsilon != 0 || f.MaxEpsilon != 1 || f.Violations != 0 {
		t.Errorf("field range %g…%g with %d violations", f.MinEpsilon, f.MaxEpsilon, f.Violations)
	}
	if ins.Material.Modulus != 1e6 || ins.Material.Mapping != "linear" {
		t.Errorf("material %+v", ins.Material)
	}

	mustRun(t, dir, "export", pfm, "-o", "ico.vtk")
	vtk, err := os.ReadFile(filepath.Join(dir, "ico.vtk"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(vtk, []byte("# vtk DataFile")) || !bytes.Contains(vtk, []byte("CELLS "+strconv.Itoa(ins.Mesh.Tets)+" ")) {
		t.Errorf("VTK export lacks the header or the %d cells", ins.Mesh.Tets)
	}
	mustRun(t, dir, "export", pfm, "-o", "ico.obj")
	if n := strings.Count(readString(t, filepath.Join(dir, "ico.obj")), "\nf "); n != ins.Mesh.BoundaryTriangles {
		t.Errorf("OBJ export has %d faces, want %d boundary triangles", n, ins.Mesh.BoundaryTriangles)
	}

	// Sphere against the half-space: pushed up along +z, B feels the
	// opposite force, and no sideways force by symmetry of the pose.
	var res struct {
		OnA  struct{ Force [3]float64 } `json:"wrench_on_a"`
		OnB  struct{ Force [3]float64 } `json:"wrench_on_b"`
		Area float64                    `json:"area"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "contact", pfm, "halfspace", "--pose-a", "0 0 0.9 0 0 0", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	fz := res.OnA.Force[2]
	if !(fz > 0) || math.Abs(res.OnB.Force[2]+fz) > 1e-9*fz || math.Abs(res.OnA.Force[0]) > 1e-6*fz || math.Abs(res.OnA.Force[1]) > 1e-6*fz {
		t.Errorf("contact forces on A %v and B %v", res.OnA.Force, res.OnB.Force)
	}
	// The contact patch lies inside the sphere's cross-section at
	// z = −0.9 + ... : its area is below π(1 − 0.9²).
	if !(res.Area > 0 && res.Area < math.Pi*(1-0.81)) {
		t.Errorf("contact area %g", res.Area)
	}
}

// polyVolume is the volume the surface file encloses (divergence theorem
// over its triangles), independent of any meshing.
func polyVolume(t *testing.T, path string) float64 {
	t.Helper()
	s, err := format.ReadSurface(path, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return shapes.Volume(s)
}

// TestHelpExamplesRun runs every example line of every command's help, in
// order (build first, so the later examples find its outputs).
func TestHelpExamplesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds several meshes")
	}
	dir := workdir(t)
	for _, cmd := range []string{"build", "check", "inspect", "export", "contact", "version"} {
		help := mustRun(t, dir, "help", cmd)
		_, after, _ := strings.Cut(help, "Example")
		examples := regexp.MustCompile(`(?m)^\s+pfmesh (.+)$`).FindAllStringSubmatch(after, -1)
		if len(examples) == 0 {
			t.Errorf("pfmesh help %s has no example", cmd)
		}
		for _, ex := range examples {
			args, err := splitArgs(ex[1])
			if err != nil {
				t.Fatalf("%s: %v", ex[1], err)
			}
			if r := runCLI(t, dir, args...); r.code != 0 {
				t.Errorf("example `pfmesh %s` exits %d: %s", ex[1], r.code, r.stderr)
			}
		}
	}
}

// splitArgs splits a command line on spaces, honouring double quotes.
func splitArgs(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	inQuote, have := false, false
	for _, r := range s {
		switch {
		case r == '"':
			inQuote, have = !inQuote, true
		case r == ' ' && !inQuote:
			if have {
				args = append(args, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteRune(r)
			have = true
		}
	}
	if inQuote {
		return nil, errors.New("unbalanced quote")
	}
	if have {
		args = append(args, cur.String())
	}
	return args, nil
}

func TestErrorsAndExitCodes(t *testing.T) {
	dir := workdir(t)
	if err := os.WriteFile(filepath.Join(dir, "empty.stl"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.pfm"), []byte("not a pfm file at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string // in the single stderr line
	}{
		{[]string{"build"}, 2, "no input files"},
		{[]string{"build", "fixtures/cube.stl"}, 2, "modulus is required"},
		{[]string{"build", "fixtures/cube.stl", "-E", "soft"}, 2, "--modulus"},
		{[]string{"build", "fixtures/cube.stl", "-E", "1MPa", "--bogus"}, 2, "bogus"},
		{[]string{"build", "fixtures/cube.stl", "-E", "1MPa", "--scheme", "foo"}, 2, "scheme"},
		{[]string{"build", "fixtures/cube.stl", "-E", "1MPa", "--mesher", "foo"}, 2, "mesher"},
		{[]string{"build", "fixtures/cube.stl", "-E", "1MPa", "--units", "ft"}, 2, "unit"},
		{[]string{"build", "fixtures/cube.stl", "-E", "1MPa", "--quality", "1.1"}, 2, "quality"},
		{[]string{"export", "junk.pfm"}, 2, "-o"},
		{[]string{"frobnicate"}, 2, "frobnicate"},
		{[]string{"build", "missing.stl", "-E", "1e6"}, 1, "missing.stl"},
		{[]string{"build", "empty.stl", "-E", "1e6"}, 1, "empty.stl"},
		{[]string{"inspect", "junk.pfm"}, 1, "junk.pfm"},
		{[]string{"export", "junk.pfm", "-o", "x.vtk"}, 1, "junk.pfm"},
		{[]string{"export", "fixtures/cube.stl", "-o", "x.xyz"}, 2, ".xyz"},
		{[]string{"check", "empty.stl"}, 1, "empty.stl"},
	}
	for _, tc := range tests {
		r := runCLI(t, dir, tc.args...)
		lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
		if r.code != tc.code || len(lines) != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("pfmesh %s: exit %d, stderr %q; want exit %d and one line containing %q",
				strings.Join(tc.args, " "), r.code, r.stderr, tc.code, tc.want)
		}
	}
	// Failed runs leave no output behind.
	for _, f := range []string{"missing.pfm", "empty.pfm", "x.vtk"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("failed run left %s", f)
		}
	}
}

// A build's output is byte-identical whatever the number of cores.
func TestDeterministicAcrossCores(t *testing.T) {
	dir := workdir(t)
	var files [][]byte
	for _, procs := range []string{"1", "2", "4"} {
		cmd := exec.Command(binary, "build", "fixtures/icosphere.obj", "-E", "1e6", "-o", "t"+procs+".pfm", "--quiet")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+procs)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("GOMAXPROCS=%s: %v\n%s", procs, err, out)
		}
		files = append(files, []byte(readString(t, filepath.Join(dir, "t"+procs+".pfm"))))
	}
	for i := 1; i < len(files); i++ {
		if !bytes.Equal(files[0], files[i]) {
			t.Errorf("output with GOMAXPROCS %d differs from GOMAXPROCS 1", []int{1, 2, 4}[i])
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestKeepTrianglesFlag: by default each flat face of the L bracket is
// meshed as one facet, so some boundary faces cross the input edges
// inside a flat face; with --keep-triangles every boundary face lies in one
// input triangle. Both ways the file's build parameters say which, and
// the mesh fills exactly the solid the surface encloses.
func TestKeepTrianglesFlag(t *testing.T) {
	dir := workdir(t)
	in := filepath.Join(dir, "fixtures", "lbracket.ply")
	surf, err := format.ReadSurface(in, format.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := shapes.Volume(surf)
	for _, c := range []struct {
		out   string
		flags []string
		keep  bool
	}{
		{"merged.pfm", nil, false},
		{"kept.pfm", []string{"--keep-triangles"}, true},
	} {
		mustRun(t, dir, append([]string{"build", "fixtures/lbracket.ply", "-E", "1MPa", "-o", c.out, "--quiet"}, c.flags...)...)
		ins := inspectJSON(t, dir, c.out)
		var params struct {
			KeepTriangles bool `json:"keep_triangles"`
		}
		if err := json.Unmarshal(ins.Params, &params); err != nil {
			t.Fatalf("%s: build parameters %s: %v", c.out, ins.Params, err)
		}
		if params.KeepTriangles != c.keep {
			t.Errorf("%s: keep_triangles %v in the file, want %v", c.out, params.KeepTriangles, c.keep)
		}
		if v := ins.Mesh.Volume; math.Abs(v-want) > 1e-9*want {
			t.Errorf("%s: mesh volume %.12g, the surface encloses %.12g", c.out, v, want)
		}
		p, err := format.ReadPFM(filepath.Join(dir, c.out))
		if err != nil {
			t.Fatal(err)
		}
		crossing := 0
		for f := range p.NumBoundary() {
			if !inInputTriangle(surf, p.Positions, p.Boundary[3*f:3*f+3]) {
				crossing++
			}
		}
		if c.keep && crossing > 0 || !c.keep && crossing == 0 {
			t.Errorf("%s: %d of %d boundary faces lie in no single input triangle", c.out, crossing, p.NumBoundary())
		}
	}
}

// inInputTriangle reports whether boundary face f (vertex indices into
// pos) lies in one triangle of s: its corners within 1e-9 of the
// bracket's size of that triangle's plane and inside its edges. (Steiner
// points are rounded to within an ulp of their triangle's plane.)
func inInputTriangle(s *format.Surface, pos []float64, f []int32) bool {
	at := func(xyz []float64, i int) geom.Vec { return geom.Vec{xyz[3*i], xyz[3*i+1], xyz[3*i+2]} }
	size := 0.0
	for i := range s.NumVertices() {
		size = max(size, geom.Dist2(at(s.Positions, 0), at(s.Positions, i)))
	}
	tol := 1e-9 * math.Sqrt(size)
	for tri := range s.NumTriangles() {
		var c [3]geom.Vec
		for k := range 3 {
			c[k] = at(s.Positions, int(s.Triangles[3*tri+k]))
		}
		n := geom.Cross(geom.Sub(c[1], c[0]), geom.Sub(c[2], c[0]))
		n = geom.Scale(1/math.Sqrt(geom.Dot(n, n)), n)
		inside := true
		for _, v := range f {
			x := at(pos, int(v))
			if math.Abs(geom.Dot(n, geom.Sub(x, c[0]))) > tol {
				inside = false
				break
			}
			for k := range 3 {
				// Distance of x inside edge k, in the triangle's plane.
				e := geom.Cross(n, geom.Sub(c[(k+1)%3], c[k]))
				if geom.Dot(e, geom.Sub(x, c[k])) < -tol*math.Sqrt(geom.Dot(e, e)) {
					inside = false
				}
			}
		}
		if inside {
			return true
		}
	}
	return false
}

// inspectJSON runs inspect --json on file in dir and decodes its report.
// It also requires every key of the document, the stored build report's
// included, to be snake case, as docs/cli.md names them.
func inspectJSON(t *testing.T, dir, file string) Inspection {
	t.Helper()
	out := []byte(mustRun(t, dir, "inspect", file, "--json"))
	var ins Inspection
	if err := json.Unmarshal(out, &ins); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	checkSnakeKeys(t, "", doc)
	return ins
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// checkSnakeKeys reports the keys below v (at path) that are not snake case.
func checkSnakeKeys(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !snakeCase.MatchString(k) {
				t.Errorf("inspect --json: key %s.%s is not snake case", path, k)
			}
			checkSnakeKeys(t, path+"."+k, e)
		}
	case []any:
		for _, e := range v {
			checkSnakeKeys(t, path+"[]", e)
		}
	}
}

// TestInspectCrease: inspect prints the sharpest crease of the 30° wedge
// fixture's build — at most the wedge's 30° (the core surface may add
// sharper ones) and at least the mesh's smallest dihedral angle, which
// the tets at that crease bound.
func TestInspectCrease(t *testing.T) {
	dir := workdir(t)
	mustRun(t, dir, "build", "fixtures/wedge_be.ply", "-E", "1MPa", "-o", "w.pfm", "--quiet")
	ins := inspectJSON(t, dir, "w.pfm")
	var br struct {
		ExactMesh struct {
			SharpestCrease float64 `json:"sharpest_crease_deg"`
		} `json:"exact_mesh"`
	}
	if err := json.Unmarshal(ins.Build, &br); err != nil {
		t.Fatal(err)
	}
	c := br.ExactMesh.SharpestCrease
	if c > 30+1e-9 || c < ins.Mesh.Quality.MinDihedral {
		t.Errorf("sharpest crease %g°: not within [%g°, 30°]", c, ins.Mesh.Quality.MinDihedral)
	}
	if text, want := mustRun(t, dir, "inspect", "w.pfm"), fmt.Sprintf("(sharpest crease %.1f°)", c); !strings.Contains(text, want) {
		t.Errorf("inspect's text lacks %q:\n%s", want, text)
	}
}

// TestInspectOffCore: inspect's quality of the tets off the core (those
// with a vertex not tagged Core) is the brute-force minimum and maximum
// dihedral angle over exactly those tets of the file.
func TestInspectOffCore(t *testing.T) {
	dir := workdir(t)
	mustRun(t, dir, "build", "fixtures/icosphere.obj", "-E", "1MPa", "-o", "ico.pfm", "--quiet")
	ins := inspectJSON(t, dir, "ico.pfm")
	p, err := format.ReadPFM(filepath.Join(dir, "ico.pfm"))
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, inside := 180.0, 0.0, 0
	for i := 0; i < p.NumTets(); i++ {
		q := p.Tets[4*i : 4*i+4]
		if p.Tags[q[0]] == tetmesh.Core && p.Tags[q[1]] == tetmesh.Core && p.Tags[q[2]] == tetmesh.Core && p.Tags[q[3]] == tetmesh.Core {
			inside++
			continue
		}
		for _, a := range tetmesh.Dihedral(geom.At(p.Positions, q[0]), geom.At(p.Positions, q[1]), geom.At(p.Positions, q[2]), geom.At(p.Positions, q[3])) {
			lo, hi = min(lo, a*180/math.Pi), max(hi, a*180/math.Pi)
		}
	}
	oc := ins.Mesh.OffCore
	if inside == 0 || oc == nil {
		t.Fatalf("%d tets inside the core, off-core quality %v: the fixture's default build has a core", inside, oc)
	}
	if math.Abs(oc.MinDihedral-lo) > 1e-9 || math.Abs(oc.MaxDihedral-hi) > 1e-9 {
		t.Errorf("off-core dihedral angles %g … %g°, brute force %g … %g°", oc.MinDihedral, oc.MaxDihedral, lo, hi)
	}
	if text := mustRun(t, dir, "inspect", "ico.pfm"); !strings.Contains(text, fmt.Sprintf("(%.1f° … %.1f° without the tets inside the core", lo, hi)) {
		t.Errorf("inspect's text lacks the off-core angles %.1f° … %.1f°:\n%s", lo, hi, text)
	}
}
