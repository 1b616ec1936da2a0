package stuffing

import (
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

var stageTrace = flag.Bool("stuffing.stages", false, "BenchmarkBuild logs the wall and CPU time of each build stage")

// cpuSeconds is the user+system CPU time of the process so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// stageClock times the stages a Build reports through Options.Progress.
type stageClock struct {
	stage     string
	wall, cpu float64
	at        time.Time
	log       strings.Builder
}

func (c *stageClock) progress(stage string, _ float64) {
	now, cpu := time.Now(), cpuSeconds()
	if c.stage != "" {
		fmt.Fprintf(&c.log, "%-10s %6.3f s wall %6.3f s cpu\n", c.stage, now.Sub(c.at).Seconds(), cpu-c.cpu)
	}
	c.stage, c.at, c.cpu = stage, now, cpu
}

// meshHash fingerprints a mesh's positions (bits), tets and tags, to
// tell whether a change to the code changed its output.
func meshHash(m *tetmesh.Mesh) uint64 {
	h := fnv.New64a()
	binary.Write(h, binary.LittleEndian, m.Positions)
	binary.Write(h, binary.LittleEndian, m.Tets)
	binary.Write(h, binary.LittleEndian, m.Tags)
	return h.Sum64()
}

// BenchmarkBuild meshes the aneurysm of the corpus (organic, closed, half
// of it wound the wrong way). Each case is named by the number of tets it
// makes: the tolerance sets the size near the surface, EdgeLength inside
// (lattice cells come in powers of two: 0.61 gives 750k tets at the
// default tolerance, 0.386 gives 4.0M; 7e-4 of the diagonal with 0.61
// gives 1.16M in one round). s/Mtet is the wall time per million tets,
// the unit of the 5 s target; cpu-s is the process CPU time per build.
func BenchmarkBuild(b *testing.B) {
	dir := corpus.Dir(b)
	s, err := format.ReadSurface(dir+"/plb_aneurysm.stl", format.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	diag := bboxDiagonal(s.Positions)
	for _, c := range []struct {
		name      string
		tol, edge float64 // tolerance relative to the diagonal
	}{{"tets=2.9e5", 4e-3, 0}, {"tets=7.5e5", 1e-3, 0.61}, {"tets=1.2e6", 7e-4, 0.61}} {
		b.Run(c.name, func(b *testing.B) {
			var rep *Report
			var m *tetmesh.Mesh
			opt := Options{Tolerance: c.tol * diag, EdgeLength: c.edge}
			var clock stageClock
			if *stageTrace {
				opt.Progress = clock.progress
			}
			start, cpu := time.Now(), cpuSeconds()
			for b.Loop() {
				var err error
				if m, rep, err = Build(s, opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N)/float64(rep.Tets)*1e6, "s/Mtet")
			b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s")
			b.ReportMetric(float64(rep.Tets), "tets")
			b.ReportMetric(rep.MinDihedral, "min°")
			b.ReportMetric(float64(rep.Rounds), "rounds")
			if *stageTrace {
				fmt.Fprintf(os.Stderr, "%smesh hash %016x\n", clock.log.String(), meshHash(m))
			}
		})
	}
}
