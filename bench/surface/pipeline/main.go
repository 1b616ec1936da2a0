// Command pipeline times pfmesh's surface intake on one file — read,
// Clean (weld, drop degenerate triangles, orient) and Diagnose — and
// prints wall and CPU time per stage and the peak resident memory per
// triangle. Without a file it generates a closed torus of -n triangles
// as binary STL (and, with -write, keeps it for a peer tool to read).
//
//	go run ./bench/surface/pipeline -n 1000000 -write /tmp/torus.stl
//	go run ./bench/surface/pipeline /tmp/torus.stl
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/pfmesh/pfmesh/fixtures"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS returns VmHWM, the peak resident set size, in bytes.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb int64
		if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}

func main() {
	n := flag.Int("n", 1_000_000, "triangles of the generated torus when no file is given")
	write := flag.String("write", "", "write the generated STL here and exit")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed stages here")
	flag.Parse()
	path := flag.Arg(0)
	if path == "" {
		nu := 1
		for 2*nu*(nu/2) < *n {
			nu++
		}
		data := fixtures.BinarySTL(shapes.Torus(1, 0.3, nu, nu/2), "pipeline torus")
		path = *write
		if path == "" {
			f, err := os.CreateTemp("", "pipeline-*.stl")
			if err != nil {
				log.Fatal(err)
			}
			path = f.Name()
			f.Close()
			defer os.Remove(path)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			log.Fatal(err)
		}
		if *write != "" {
			return
		}
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	base := peakRSS()
	t0, c0 := time.Now(), cpu()
	stage := func(name string) {
		t1, c1 := time.Now(), cpu()
		fmt.Printf("%-9s wall %7.3f s  cpu %7.3f s\n", name, t1.Sub(t0).Seconds(), (c1 - c0).Seconds())
		t0, c0 = t1, c1
	}
	start, cstart := t0, c0
	s, err := format.ReadSurface(path, format.ReadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	stage("read")
	nt := s.NumTriangles()
	c, _ := format.Clean(s, format.CleanOptions{})
	s = nil // as in a build: the surface as read is not needed after Clean
	stage("clean")
	r := format.Diagnose(c)
	stage("diagnose")
	fmt.Printf("%-9s wall %7.3f s  cpu %7.3f s\n", "total", time.Since(start).Seconds(), (cpu() - cstart).Seconds())
	fmt.Printf("triangles %d, closed %v, path %s\n", nt, r.Closed, r.Verdict.Path)
	fmt.Printf("peak RSS %.0f B/triangle (%.1f MB; %.1f MB before reading)\n", float64(peakRSS())/float64(nt), float64(peakRSS())/1e6, float64(base)/1e6)
}
