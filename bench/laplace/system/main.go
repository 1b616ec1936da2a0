// Command system writes and solves the linear system of bench/laplace.
//
//	system write -n N -out DIR   builds a test tet mesh with about N vertices
//	                             (a jittered Kuhn-split unit cube with a
//	                             central rigid core), times its assembly and
//	                             writes the reduced system laplace.Solve
//	                             solves: indptr.i64, indices.i32, data.f64,
//	                             b.f64 (raw little-endian) and meta.json
//	system solve -dir DIR        solves that system with laplace.SolveSystem,
//	                             AMG then Jacobi preconditioning, and prints
//	                             one JSON line of timings
//
// Solving from the written files puts laplace and SciPy on exactly the same
// matrix, and lets run.sh interleave their runs on a noisy machine.
package main

import (
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
)

func main() {
	log.SetFlags(0)
	if len(os.Args) < 2 {
		log.Fatal("usage: system write -n N -out DIR | system solve -dir DIR")
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	n := fs.Int("n", 1_000_000, "approximate number of vertices (write)")
	dir := fs.String("dir", "", "directory of the system files")
	fs.StringVar(dir, "out", "", "same as -dir")
	if err := fs.Parse(os.Args[2:]); err != nil || *dir == "" {
		log.Fatal("usage: system write -n N -out DIR | system solve -dir DIR")
	}
	var err error
	switch os.Args[1] {
	case "write":
		err = write(*n, *dir)
	case "solve":
		err = solve(*dir)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		log.Fatal(err)
	}
}

func write(n int, dir string) error {
	m := cube(n)
	t0 := time.Now()
	a, b, _, err := laplace.ReducedSystem(m)
	if err != nil {
		return err
	}
	assemble := time.Since(t0)
	raw := a.RawMatrix()
	indptr := make([]int64, len(raw.Indptr))
	for i, p := range raw.Indptr {
		indptr[i] = int64(p)
	}
	indices := make([]int32, len(raw.Ind))
	for i, j := range raw.Ind {
		indices[i] = int32(j)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string]any{"indptr.i64": indptr, "indices.i32": indices, "data.f64": raw.Data, "b.f64": b} {
		if err := store(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	meta, _ := json.Marshal(map[string]any{"vertices": m.NumVertices(), "tets": m.NumTets(), "unknowns": len(b),
		"nnz": len(raw.Ind), "assemble_s": assemble.Seconds()})
	fmt.Println(string(meta))
	return os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644)
}

func solve(dir string) error {
	var indptr []int64
	var indices []int32
	var data, b []float64
	for name, dst := range map[string]any{"indptr.i64": &indptr, "indices.i32": &indices, "data.f64": &data, "b.f64": &b} {
		if err := load(filepath.Join(dir, name), dst); err != nil {
			return err
		}
	}
	ptr := make([]int, len(indptr))
	for i, p := range indptr {
		ptr[i] = int(p)
	}
	ind := make([]int, len(indices))
	for i, j := range indices {
		ind[i] = int(j)
	}
	a := sparse.NewCSR(len(b), len(b), ptr, ind, data)
	out := map[string]float64{}
	for _, pc := range []string{"amg", "jacobi"} {
		cpu0 := cpuSeconds()
		f, err := laplace.SolveSystem(a, b, laplace.Options{Preconditioner: pc})
		if err != nil {
			return err
		}
		// The process's CPU time for the solve: on a loaded machine it
		// shows the work done when the wall time is inflated.
		out[pc+"_cpu_s"] = cpuSeconds() - cpu0
		out[pc+"_setup_s"] = f.SetupTime.Seconds()
		out[pc+"_cg_s"] = f.SolveTime.Seconds()
		out[pc+"_solve_s"] = (f.SetupTime + f.SolveTime).Seconds()
		out[pc+"_iterations"] = float64(f.Iterations)
		out[pc+"_residual"] = f.Residual
	}
	js, _ := json.Marshal(out)
	fmt.Println(string(js))
	return nil
}

// cpuSeconds returns the user and system CPU time of the process.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
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

// store writes data little-endian to path, through a temporary file.
func store(path string, data any) error {
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

// load reads a little-endian array written by store into *dst.
func load(path string, dst any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var data any
	switch d := dst.(type) {
	case *[]int64:
		*d = make([]int64, len(raw)/8)
		data = *d
	case *[]int32:
		*d = make([]int32, len(raw)/4)
		data = *d
	case *[]float64:
		*d = make([]float64, len(raw)/8)
		data = *d
	}
	if _, err := binary.Decode(raw, binary.LittleEndian, data); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}
