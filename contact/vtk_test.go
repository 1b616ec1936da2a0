package contact

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The VTK file read back (by a minimal reader of the sections written)
// holds the same points, pressures and normals, and its triangles cover the
// contact area.
func TestWriteVTKRoundTrip(t *testing.T) {
	ball := sphereBody(t, 1, 2, 3, Material{Modulus: 1e5})
	hs := mustHalfSpace(t, Material{})
	r := mustEval(t, NewEvaluator(Options{}), ball, hs, static(Identity(), PoseFromRPY(0.1, 0, -0.8, 0.2, 0.1, 0)))
	var buf bytes.Buffer
	if err := WriteVTK(&buf, r.Surface); err != nil {
		t.Fatal(err)
	}
	sections := map[string][]float64{}
	var cur string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "POINTS", "POLYGONS", "SCALARS", "NORMALS":
			cur = f[0]
			continue
		case "LOOKUP_TABLE", "POINT_DATA", "CELL_DATA", "DATASET", "ASCII", "#", "pfmesh":
			continue
		}
		for _, x := range f {
			v, err := strconv.ParseFloat(x, 64)
			if err != nil {
				t.Fatalf("section %s: %v", cur, err)
			}
			sections[cur] = append(sections[cur], v)
		}
	}
	s := r.Surface
	if !equalFloats(sections["POINTS"], s.Vertices) || !equalFloats(sections["SCALARS"], s.Pressure) {
		t.Fatal("points or pressures differ after the round trip")
	}
	poly, pts, nrm := sections["POLYGONS"], sections["POINTS"], sections["NORMALS"]
	var area float64
	for i := 0; i < len(poly); i += 4 {
		if poly[i] != 3 {
			t.Fatalf("polygon %d has %g vertices, want 3", i/4, poly[i])
		}
		a, b, c := geom.At(pts, int32(poly[i+1])), geom.At(pts, int32(poly[i+2])), geom.At(pts, int32(poly[i+3]))
		cr := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
		n := geom.At(nrm, int32(i/4))
		if geom.Dot(cr, n) < 0 {
			t.Fatalf("triangle %d is clockwise about its normal", i/4)
		}
		area += geom.Norm(cr) / 2
	}
	if relErr(area, r.Area) > 1e-12 || len(nrm) != 3*len(poly)/4 {
		t.Fatalf("triangle area %g, want %g; %d normals for %d triangles", area, r.Area, len(nrm)/3, len(poly)/4)
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

// WriteVTKFile leaves either the whole file or nothing.
func TestWriteVTKFile(t *testing.T) {
	dir := t.TempDir()
	ball := sphereBody(t, 1, 1, 2, Material{Modulus: 1e5})
	hs := mustHalfSpace(t, Material{})
	r := mustEval(t, NewEvaluator(Options{}), ball, hs, static(Identity(), PoseFromRPY(0, 0, -0.8, 0, 0, 0)))
	path := filepath.Join(dir, "s.vtk")
	if err := WriteVTKFile(path, r.Surface); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	WriteVTK(&want, r.Surface)
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("file differs from WriteVTK output (err %v)", err)
	}
	bad := filepath.Join(dir, "missing", "s.vtk")
	if err := WriteVTKFile(bad, r.Surface); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("writing into a missing directory: error %v, want one naming %s", err, bad)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only s.vtk", len(entries))
	}
}

// The JSON names are part of the CLI's interface: pin them.
func TestResultJSONNames(t *testing.T) {
	ball := sphereBody(t, 1, 1, 2, Material{Modulus: 1e5})
	r := mustEval(t, NewEvaluator(Options{}), ball, mustHalfSpace(t, Material{}), static(Identity(), PoseFromRPY(0, 0, -0.8, 0, 0, 0)))
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"wrench_on_a", "wrench_on_b", "wrench_on_a_at_centroid", "wrench_on_b_at_centroid", "centroid",
		"mean_normal", "area", "max_pressure", "mean_pressure", "polygons", "candidate_pairs", "dropped_polygons"}
	if len(m) != len(want) {
		t.Errorf("JSON has %d keys, want %d: %s", len(m), len(want), b)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b)
		}
	}
	if w, ok := m["wrench_on_a"].(map[string]any); !ok || w["force"] == nil || w["torque"] == nil {
		t.Errorf("wrench_on_a is %v, want force and torque", m["wrench_on_a"])
	}
}
