// Command export builds a test tet mesh with about -n vertices (a jittered
// Kuhn-split unit cube with a central rigid core), solves it with
// laplace.Solve several times and reports the median stage times, then
// writes the reduced linear system Solve solved to -out so that another
// solver can run on exactly the same matrix: indptr.i64, indices.i32,
// data.f64 and b.f64, raw little-endian, and meta.json.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
)

func main() {
	n := flag.Int("n", 1_000_000, "approximate number of vertices")
	runs := flag.Int("runs", 5, "solves to time (the median is reported)")
	out := flag.String("out", "", "directory for the exported system (required)")
	flag.Parse()
	if *out == "" || *runs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	m := cube(*n)
	stats := map[string][]float64{}
	var f *laplace.Field
	for _, pc := range []string{"amg", "jacobi"} {
		for r := 0; r < *runs; r++ {
			var err error
			t0 := time.Now()
			f, err = laplace.Solve(m, laplace.Options{Preconditioner: pc})
			if err != nil {
				log.Fatal(err)
			}
			total := time.Since(t0)
			stats[pc+"_total_s"] = append(stats[pc+"_total_s"], total.Seconds())
			stats[pc+"_assemble_s"] = append(stats[pc+"_assemble_s"], f.AssembleTime.Seconds())
			stats[pc+"_setup_s"] = append(stats[pc+"_setup_s"], f.SetupTime.Seconds())
			stats[pc+"_cg_s"] = append(stats[pc+"_cg_s"], f.SolveTime.Seconds())
			stats[pc+"_solve_s"] = append(stats[pc+"_solve_s"], (f.SetupTime + f.SolveTime).Seconds())
			stats[pc+"_iterations"] = append(stats[pc+"_iterations"], float64(f.Iterations))
		}
	}
	meta := map[string]any{"vertices": m.NumVertices(), "tets": m.NumTets(), "unknowns": f.Unknowns, "nnz": f.NNZ}
	for k, v := range stats {
		meta[k] = median(v)
	}
	a, b, _, err := laplace.ReducedSystem(m)
	if err != nil {
		log.Fatal(err)
	}
	raw := a.RawMatrix()
	indptr := make([]int64, len(raw.Indptr))
	for i, p := range raw.Indptr {
		indptr[i] = int64(p)
	}
	indices := make([]int32, len(raw.Ind))
	for i, j := range raw.Ind {
		indices[i] = int32(j)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, data := range map[string]any{"indptr.i64": indptr, "indices.i32": indices, "data.f64": raw.Data, "b.f64": b} {
		if err := write(filepath.Join(*out, name), data); err != nil {
			log.Fatal(err)
		}
	}
	js, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(*out, "meta.json"), js, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(js))
}

// cube returns the unit cube split into Kuhn tets, jittered by 0.3 cells,
// with vertices in [3/8, 5/8]³ as the rigid core.
func cube(n int) *tetmesh.Mesh {
	k := 1
	for (k+2)*(k+2)*(k+2) <= n {
		k++
	}
	m := tetgrid.Box([3]int{k, k, k}, geom.Vec{0, 0, 0}, geom.Vec{1, 1, 1})
	for v := range m.Tags {
		p := m.Vertex(int32(v))
		if p[0] >= 0.375 && p[0] <= 0.625 && p[1] >= 0.375 && p[1] <= 0.625 && p[2] >= 0.375 && p[2] <= 0.625 {
			m.Tags[v] = tetmesh.Core
		}
	}
	tetgrid.Jitter(m, 0.3/float64(k), 1)
	return m
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// write stores data little-endian in path, through a temporary file.
func write(path string, data any) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := binary.Write(f, binary.LittleEndian, data); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
