package format_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
)

// Every corpus file loads, and its diagnosis agrees with the facts
// MANIFEST.tsv records, which were measured independently of pfmesh.
func TestCorpusAgreesWithManifest(t *testing.T) {
	dir := corpus.Dir(t)
	for _, e := range corpus.Manifest(t, dir) {
		t.Run(e["file"], func(t *testing.T) {
			s, err := format.ReadSurface(e.Path(dir), format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r := format.Diagnose(s)
			intCol := func(col string, got int) {
				if e[col] == "" {
					return
				}
				want, err := strconv.Atoi(e[col])
				if err != nil {
					t.Fatalf("manifest column %s: %v", col, err)
				}
				if got != want {
					t.Errorf("%s = %d, manifest says %d", col, got, want)
				}
			}
			boolCol := func(col string, got bool) {
				if want := e[col] == "yes"; got != want {
					t.Errorf("%s = %v, manifest says %q", col, got, e[col])
				}
			}
			intCol("triangles", r.Triangles)
			if e["format"] == "stl-ascii" || e["format"] == "stl-binary" {
				// STL stores three corners per triangle; the reader welds them.
				intCol("raw_vertices", 3*r.Triangles)
			} else {
				intCol("raw_vertices", r.Vertices)
			}
			intCol("vertices", r.Vertices-r.DuplicateVertices-r.UnusedVertices)
			boolCol("watertight", r.Closed)
			boolCol("consistently_oriented", r.ConsistentlyOriented)
			intCol("components", r.Components)
			intCol("boundary_edges", r.BoundaryEdges)
			intCol("nonmanifold_edges", r.NonManifoldEdges)
			intCol("collapsed_tris", r.CollapsedTriangles)
			intCol("zero_area_tris", r.ZeroAreaTriangles)
			intCol("duplicate_tris", r.DuplicateTriangles)
			intCol("selfx_pairs", r.SelfIntersectingPairs)
			if e["genus"] != "" {
				if r.Genus == nil {
					t.Errorf("no genus, manifest says %s", e["genus"])
				} else {
					intCol("genus", *r.Genus)
				}
			}
			// Enclosed volume is defined only for closed, consistently
			// oriented surfaces (otherwise it depends on the origin).
			if v, err := strconv.ParseFloat(e["signed_volume"], 64); err == nil && r.Closed && r.ConsistentlyOriented {
				if math.Abs(r.Volume-v) > 1e-4*math.Abs(v) {
					t.Errorf("volume = %g, manifest says %g", r.Volume, v)
				}
			}
			if d, err := strconv.ParseFloat(e["bbox_diagonal"], 64); err == nil {
				if math.Abs(r.Diagonal-d) > 1e-5*d {
					t.Errorf("bbox diagonal = %g, manifest says %g", r.Diagonal, d)
				}
			}
		})
	}
}
