package laplace_test

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/pfmesh/pfmesh"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
)

// knownStalls lists the corpus models on which SolveLimited's nonlinear
// iteration is known not to converge; see docs/field.md. The test reports
// them as skipped with the error, so that a fix shows as a pass.
var knownStalls = map[string]string{
	"gmsh_lever.stl": "stalls at a relative residual of 1.5e-4 after 200 corrections, measured at 0ccb852",
}

// Every corpus model, meshed by the root pipeline with its default options
// (exact path, robust fallback): SolveLimited keeps 0 ≤ ε ≤ 1 with exact
// Dirichlet values and solves the limited equations to the tolerance. It
// logs how far Solve leaves [0, 1] and the CPU time of both (median of
// three interleaved runs). Long: the pipeline takes from seconds to
// minutes per model (PFMESH_LONG=1).
func TestSolveLimitedCorpus(t *testing.T) {
	if os.Getenv("PFMESH_LONG") == "" {
		t.Skip("PFMESH_LONG=1 runs the corpus models")
	}
	dir := corpus.Dir(t)
	for _, e := range corpus.Manifest(t, dir) {
		t.Run(e["file"], func(t *testing.T) {
			p, rep, err := pfmesh.Build(e.Path(dir), pfmesh.Options{Modulus: 1e6})
			if err != nil {
				t.Fatal(err)
			}
			m := &tetmesh.Mesh{Positions: p.Positions, Tets: p.Tets, Tags: p.Tags}
			var plain *laplace.Field
			var f *laplace.LimitedField
			var cpuPlain, cpuLimited []time.Duration
			for range 3 {
				c0 := laplace.CPUTimeForTest()
				if plain, err = laplace.Solve(m, laplace.Options{}); err != nil {
					t.Fatal(err)
				}
				c1 := laplace.CPUTimeForTest()
				if f, err = laplace.SolveLimited(m, laplace.Options{}); err != nil {
					if reason, ok := knownStalls[e["file"]]; ok {
						t.Skipf("known failure (%s): %v", reason, err)
					}
					t.Fatal(err)
				}
				cpuPlain, cpuLimited = append(cpuPlain, c1-c0), append(cpuLimited, laplace.CPUTimeForTest()-c1)
			}
			outside, worst := 0, 0.0
			for _, e := range plain.Epsilon {
				if e < 0 || e > 1 {
					outside++
					worst = max(worst, -e, e-1)
				}
			}
			slices.Sort(cpuPlain)
			slices.Sort(cpuLimited)
			t.Logf("%s path, %d vertices; Solve: %d outside [0, 1] by ≤ %.2g, %d CG iterations, CPU %v; SolveLimited: %d corrections, %d CG iterations, residual %.2g, %d of %d flux edges limited, CPU %v (×%.2f)",
				rep.Mesher, m.NumVertices(), outside, worst, plain.Iterations, cpuPlain[1].Round(time.Millisecond), f.Corrections, f.Iterations, f.Residual,
				f.LimitedEdges, f.FluxEdges, cpuLimited[1].Round(time.Millisecond), cpuLimited[1].Seconds()/cpuPlain[1].Seconds())
			laplace.CheckDirichlet01ForTest(t, m, f.Epsilon)
			if r := laplace.LimitedResidualForTest(t, m, f.Epsilon); r > 1e-10 {
				t.Errorf("residual of the limited equations %.3g, want ≤ 1e-10", r)
			}
		})
	}
}
