package format_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/hschendel/stl"

	"github.com/pfmesh/pfmesh/fixtures"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// benchSTL writes a closed torus of about n triangles as binary STL into a
// temporary directory and returns its path.
func benchSTL(b *testing.B, n int) string {
	b.Helper()
	nu := 1
	for 2*nu*(nu/2) < n {
		nu++
	}
	path := filepath.Join(b.TempDir(), fmt.Sprintf("torus-%d.stl", n))
	if err := os.WriteFile(path, fixtures.BinarySTL(shapes.Torus(1, 0.3, nu, nu/2), "benchmark torus"), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadCleanDiagnose is the pipeline every build starts with:
// read a binary STL (welding its corners), Clean (weld, drop degenerate
// triangles, orient) and Diagnose (topology, self-intersections). It
// reports the peak heap in bytes per triangle (runtime.MemStats.HeapSys
// after the run, which includes what the collector has not returned).
func BenchmarkReadCleanDiagnose(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		path := benchSTL(b, n)
		b.Run(fmt.Sprintf("n=%.0e", float64(n)), func(b *testing.B) {
			runtime.GC()
			var before runtime.MemStats
			runtime.ReadMemStats(&before)
			var peak uint64
			for b.Loop() {
				s, err := format.ReadSurface(path, format.ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				c, _ := format.Clean(s, format.CleanOptions{})
				r := format.Diagnose(c)
				if !r.Closed || r.Verdict.Path != format.PathExact {
					b.Fatalf("torus diagnosed as %+v", r.Verdict)
				}
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapSys-before.HeapReleased)
			}
			b.ReportMetric(float64(peak)/float64(n), "heapB/tri")
		})
	}
}

func BenchmarkRead(b *testing.B) {
	path := benchSTL(b, 1_000_000)
	b.Run("binarySTL/n=1e6", func(b *testing.B) {
		for b.Loop() {
			if _, err := format.ReadSurface(path, format.ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkASCIISTL compares pfmesh's ASCII STL reader with
// github.com/hschendel/stl's on the same file (reported per triangle).
func BenchmarkASCIISTL(b *testing.B) {
	const n = 100_000
	data := fixtures.ASCIISTL(shapes.Torus(1, 0.3, 500, 100), "torus")
	perTriangle := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n/1000, "µs/tri")
	}
	b.Run("pfmesh/n=1e5", func(b *testing.B) {
		for b.Loop() {
			if _, err := format.DecodeSurface(data, "torus.stl", format.ReadOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		perTriangle(b)
	})
	b.Run("hschendel/n=1e5", func(b *testing.B) {
		for b.Loop() {
			if _, err := stl.ReadAll(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
		perTriangle(b)
	})
}
