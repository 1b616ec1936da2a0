package contact

import (
	"fmt"
	"math"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/geom"
)

// threadCPU returns the CPU time used by the calling OS thread: on a shared,
// loaded machine it measures the work done, where wall time also counts the
// waits for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU returns the CPU time used by all the process's threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs f in b.Loop on a locked thread, reports its thread CPU time
// per op and returns it in seconds.
func loopCPU(b *testing.B, f func()) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := threadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	ns := float64(threadCPU()-start) / float64(n)
	b.ReportMetric(ns, "cpu-ns/op")
	return ns * 1e-9
}

// sphereSizes are ball meshes (icosphere level, shells) of about 1k, 4k,
// 32k, 266k and 1M tets.
var sphereSizes = []struct{ level, shells int }{{1, 5}, {2, 5}, {3, 9}, {4, 18}, {5, 17}}

// BenchmarkSpheres is the case scaled: two compliant balls of
// radius 3 (E = 1 MPa, ε = 1 − r/R), centres 5 apart so they overlap by 1,
// B turned by (0.1, 0.2, 0.3) rad; contact surface and wrench per op, one
// goroutine. tets=4160 is the ≤ 1 ms target.
func BenchmarkSpheres(b *testing.B) {
	for _, c := range sphereSizes {
		if testing.Short() && c.level > 2 {
			continue
		}
		a := sphereBody(b, 3, c.level, c.shells, Material{Modulus: 1e6})
		o := sphereBody(b, 3, c.level, c.shells, Material{Modulus: 1e6})
		b.Run(fmt.Sprintf("tets=%d", a.NumElements()), func(b *testing.B) {
			e := NewEvaluator(Options{})
			cfg := static(Identity(), PoseFromRPY(5, 0, 0, 0.1, 0.2, 0.3))
			r := mustEval(b, e, a, o, cfg)
			b.ReportAllocs()
			loopCPU(b, func() { e.Evaluate(a, o, cfg) })
			b.ReportMetric(float64(r.Polygons), "polygons")
			b.ReportMetric(float64(r.Candidates), "pairs")
		})
	}
}

// BenchmarkBodyBuild measures building a compliant body's BVH over its tets
// (tet boxes and bvh.BuildMorton; target ≥ 5M tets/s) and, for reference,
// the whole of NewCompliant (which also checks every tet's orientation
// exactly and computes the fields).
func BenchmarkBodyBuild(b *testing.B) {
	for _, c := range sphereSizes {
		if testing.Short() && c.level > 2 {
			continue
		}
		m := sphere(3, c.level, c.shells)
		eps := make([]float64, len(m.pos)/3)
		nt := len(m.tets) / 4
		// Process CPU time counts BuildMorton's helper goroutines too: the
		// rate is that of one core doing all the work.
		b.Run(fmt.Sprintf("tree/tets=%d", nt), func(b *testing.B) {
			boxes := make([]float64, 6*nt)
			var v [4]geom.Vec
			start := processCPU()
			for b.Loop() {
				for t := range nt {
					for k := range 4 {
						v[k] = geom.At(m.pos, m.tets[4*t+k])
					}
					elemBox(boxes[6*t:6*t+6], v[:])
				}
				bvh.BuildMorton(boxes, leafSize)
			}
			b.ReportMetric(float64(nt)*float64(b.N)/(processCPU()-start).Seconds(), "tets/cpu-s")
		})
		b.Run(fmt.Sprintf("body/tets=%d", nt), func(b *testing.B) {
			start := processCPU()
			for b.Loop() {
				NewCompliant(m.pos, m.tets, eps, Material{Modulus: 1})
			}
			b.ReportMetric(float64(nt)*float64(b.N)/(processCPU()-start).Seconds(), "tets/cpu-s")
		})
	}
}

// BenchmarkSpheresRotation turns B (about a generic axis) to see what the
// axis-aligned boxes cost: each body's tree is built in its own frame, and
// B's boxes are mapped into A's as the boxes around them, loosest at 45°.
func BenchmarkSpheresRotation(b *testing.B) {
	a := sphereBody(b, 3, 2, 5, Material{Modulus: 1e6})
	o := sphereBody(b, 3, 2, 5, Material{Modulus: 1e6})
	for _, deg := range []float64{0, 15, 45} {
		b.Run(fmt.Sprintf("deg=%g", deg), func(b *testing.B) {
			e := NewEvaluator(Options{})
			cfg := static(Identity(), PoseFromAxisAngle(geom.Vec{1, 2, 3}, deg*math.Pi/180, geom.Vec{5, 0, 0}))
			r := mustEval(b, e, a, o, cfg)
			loopCPU(b, func() { e.Evaluate(a, o, cfg) })
			b.ReportMetric(float64(r.Polygons), "polygons")
			b.ReportMetric(float64(r.Candidates), "pairs")
		})
	}
}
