package format

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchFiles writes a 998,250-tet box (55³ cubes, with its BVH) once: in
// grid order at full precision and with Float32, and with its vertices
// and tets in random order.
var benchFiles = sync.OnceValue(func() map[string]string {
	dir, err := os.MkdirTemp("", "pfmbench")
	if err != nil {
		panic(err)
	}
	p := gridPFM(55, 0.001)
	out := map[string]string{}
	for name, c := range map[string]struct {
		p   *PFM
		opt WriteOptions
	}{
		"f64": {p, WriteOptions{}}, "f32": {p, WriteOptions{Float32: true}}, "random": {shuffled(p, 1), WriteOptions{}},
	} {
		out[name] = filepath.Join(dir, name+".pfm")
		if err := WritePFM(out[name], c.p, c.opt); err != nil {
			panic(err)
		}
	}
	return out
})

func benchLoad(b *testing.B, file string, load func(path string) error) {
	path := benchFiles()[file]
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	// CPU time too: on a shared machine wall time says more about the
	// neighbours than about the code.
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	n := 0
	for b.Loop() {
		if err := load(path); err != nil {
			b.Fatal(err)
		}
		n++
	}
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
	b.ReportMetric(float64(cpu.Milliseconds())/float64(n), "cpu-ms/op")
}

// BenchmarkOpenPFM measures a full checked load of a 1M-tet file (target:
// at most 50 ms at full precision), one without the CRCs, one of a float32
// file, and one of a file in random order (see PFM.Reorder).
func BenchmarkOpenPFM(b *testing.B) {
	for _, c := range []struct {
		name, file string
		opt        OpenOptions
	}{
		{"tets=1e6", "f64", OpenOptions{}},
		{"tets=1e6/skip-crc", "f64", OpenOptions{SkipCRC: true}},
		{"tets=1e6/float32", "f32", OpenOptions{}},
		{"tets=1e6/random-order", "random", OpenOptions{}},
	} {
		b.Run(c.name, func(b *testing.B) {
			benchLoad(b, c.file, func(path string) error {
				m, err := OpenPFM(path, c.opt)
				if err != nil {
					return err
				}
				return m.Close()
			})
		})
	}
}

func BenchmarkReadPFM(b *testing.B) {
	b.Run("tets=1e6", func(b *testing.B) {
		benchLoad(b, "f64", func(path string) error { _, err := ReadPFM(path); return err })
	})
}

func BenchmarkWritePFM(b *testing.B) {
	p := gridPFM(55, 0.001)
	dir := b.TempDir()
	for _, f32 := range []bool{false, true} {
		b.Run(map[bool]string{false: "tets=1e6", true: "tets=1e6/float32"}[f32], func(b *testing.B) {
			for b.Loop() {
				if err := WritePFM(filepath.Join(dir, "w.pfm"), p, WriteOptions{Float32: f32}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchFiles writes the benchmark mesh as .pfm, .vtu and .vtk into
// $PFMESH_BENCH_OUT for bench/pfm/run.sh, which times peer readers on
// them; without that variable it does nothing.
func TestBenchFiles(t *testing.T) {
	dir := os.Getenv("PFMESH_BENCH_OUT")
	if dir == "" {
		t.Skip("PFMESH_BENCH_OUT not set")
	}
	p := gridPFM(55, 0.001)
	if err := WritePFM(filepath.Join(dir, "box.pfm"), p, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WritePFM(filepath.Join(dir, "box32.pfm"), p, WriteOptions{Float32: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"box.vtu", "box.vtk"} {
		if err := Export(filepath.Join(dir, name), p); err != nil {
			t.Fatal(err)
		}
	}
}
