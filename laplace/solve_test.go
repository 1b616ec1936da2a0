package laplace

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetgrid"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// shellRadii gives N/n = (b/a)^(4/π) = 2.5 in tetgrid.Shell, so that
// doubling n refines the shell mesh uniformly.
var shellA, shellB = 1.0, math.Pow(2.5, math.Pi/4)

// On the spherical shell with ε = 1 inside and 0 outside, the exact field
// is ε(r) = (1/r − 1/b)/(1/a − 1/b); P1 elements converge at order 2 in L2.
// AMG iteration counts should stay nearly flat under refinement.
func TestShellConvergence(t *testing.T) {
	levels := []int{2, 4, 8}
	if testing.Short() {
		levels = levels[:2]
	}
	exact := shellExact(shellA, shellB)
	var errs []float64
	var iters []int
	for _, n := range levels {
		m := tetgrid.Shell(shellA, shellB, n)
		f, err := Solve(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		e := l2Error(m, f.Epsilon, exact)
		t.Logf("n=%d: %d unknowns, %d iterations, residual %.2g, L2 error %.3g, %d levels", n, f.Unknowns, f.Iterations, f.Residual, e, f.Levels)
		if f.Residual > 1e-10 {
			t.Errorf("n=%d: residual %g above the default tolerance", n, f.Residual)
		}
		errs = append(errs, e)
		iters = append(iters, f.Iterations)
	}
	for i := 1; i < len(errs); i++ {
		if order := math.Log2(errs[i-1] / errs[i]); order < 1.8 {
			t.Errorf("L2 error order %.2f between n=%d and n=%d, want ≥ 1.8", order, levels[i-1], levels[i])
		}
	}
	// Jacobi-preconditioned CG doubles its count at each level (21, 47,
	// 94 here); multigrid should add only a few.
	if last := iters[len(iters)-1]; last > iters[0]+4*(len(iters)-1) {
		t.Errorf("AMG iterations %v grow by more than 4 per refinement", iters)
	}
}

// P1 elements reproduce linear functions: on a plate with a rigid core at
// depth H, ε = depth/H in the layers, on an irregular (jittered) mesh.
func TestSlabReproducesLinearField(t *testing.T) {
	m, exact := slab(6, 8, 1, 1, 0.25, 5)
	for _, pc := range []string{"amg", "jacobi"} {
		f, err := Solve(m, Options{Preconditioner: pc, Tolerance: 1e-13})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for v := range m.Tags {
			worst = max(worst, math.Abs(f.Epsilon[v]-exact(m.Vertex(int32(v)))))
		}
		if worst > 1e-9 {
			t.Errorf("%s: max |ε − d/H| = %g, want ≤ 1e-9", pc, worst)
		}
		// The averaged gradient is exact too where the field is linear
		// over all tets of the vertex: everywhere in a layer.
		for v, tag := range m.Tags {
			p := m.Vertex(int32(v))
			if tag != tetmesh.Boundary {
				continue
			}
			want := 4.0 // 1/H, pointing inwards
			if p[2] > 0.5 {
				want = -4
			}
			g := f.Gradient[3*v : 3*v+3]
			if math.Abs(g[0]) > 1e-8 || math.Abs(g[1]) > 1e-8 || math.Abs(g[2]-want) > 1e-8 {
				t.Fatalf("%s: gradient %v at boundary vertex %d (%v), want (0, 0, %g)", pc, g, v, p, want)
			}
		}
	}
}

// The discrete maximum principle: with an M-matrix (Kuhn tets of cubes)
// the solution lies in [0, 1] for any Dirichlet data in {0, 1}, here with
// scattered Core vertices.
func TestMaximumPrinciple(t *testing.T) {
	m := tetgrid.Box([3]int{10, 12, 8}, geom.Vec{0, 0, 0}, geom.Vec{1, 1.2, 0.8})
	rng := rand.New(rand.NewPCG(11, 3))
	for v, tag := range m.Tags {
		if tag == tetmesh.Interior && rng.IntN(20) == 0 {
			m.Tags[v] = tetmesh.Core
		}
	}
	f, err := Solve(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for v, e := range f.Epsilon {
		if e < 0 || e > 1 {
			t.Fatalf("ε = %g at vertex %d", e, v)
		}
		switch m.Tags[v] {
		case tetmesh.Boundary:
			if e != 0 {
				t.Fatalf("ε = %g at Boundary vertex %d, want exactly 0", e, v)
			}
		case tetmesh.Core:
			if e != 1 {
				t.Fatalf("ε = %g at Core vertex %d, want exactly 1", e, v)
			}
		}
	}
}

// Results are bit-identical whatever GOMAXPROCS is.
func TestDeterministic(t *testing.T) {
	m := jitteredCube(22, 0.4, 9) // several row chunks and smoother blocks
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref *Field
	for _, procs := range []int{1, 2, 3, 8} {
		runtime.GOMAXPROCS(procs)
		f, err := Solve(m, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = f
			continue
		}
		if f.Iterations != ref.Iterations || f.Residual != ref.Residual ||
			!slices.Equal(f.Epsilon, ref.Epsilon) || !slices.Equal(f.Gradient, ref.Gradient) {
			t.Fatalf("GOMAXPROCS=%d: result differs from GOMAXPROCS=1", procs)
		}
	}
}

// Both preconditioners solve the same system.
func TestPreconditionersAgree(t *testing.T) {
	m := jitteredCube(12, 0.4, 4)
	a, err := Solve(m, Options{Tolerance: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	j, err := Solve(m, Options{Tolerance: 1e-12, Preconditioner: "jacobi"})
	if err != nil {
		t.Fatal(err)
	}
	for v := range a.Epsilon {
		if d := math.Abs(a.Epsilon[v] - j.Epsilon[v]); d > 1e-9 {
			t.Fatalf("vertex %d: AMG %g, Jacobi %g", v, a.Epsilon[v], j.Epsilon[v])
		}
	}
	if a.Iterations >= j.Iterations {
		t.Errorf("AMG took %d iterations, Jacobi %d", a.Iterations, j.Iterations)
	}
}

func TestSolveProgress(t *testing.T) {
	m := jitteredCube(8, 0.3, 1)
	for _, pc := range []string{"amg", "jacobi"} {
		var stages []string
		last := map[string]float64{}
		_, err := Solve(m, Options{Preconditioner: pc, Progress: func(stage string, done float64) {
			if len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
			if done < last[stage] || done < 0 || done > 1 {
				t.Errorf("%s: stage %s: progress %g after %g", pc, stage, done, last[stage])
			}
			last[stage] = done
		}})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(stages, ","); got != "assemble,setup,solve,gradient" {
			t.Errorf("%s: stages %s", pc, got)
		}
		for s, d := range last {
			if d != 1 {
				t.Errorf("%s: stage %s ended at %g", pc, s, d)
			}
		}
	}
}

func TestSolveErrors(t *testing.T) {
	base := func() *tetmesh.Mesh { return jitteredCube(4, 0, 1) } // one Core vertex, at the centre
	tests := []struct {
		name string
		mesh func() *tetmesh.Mesh
		opt  Options
		want string
	}{
		{"no core", func() *tetmesh.Mesh {
			m := base()
			for v, t := range m.Tags {
				if t == tetmesh.Core {
					m.Tags[v] = tetmesh.Interior
				}
			}
			return m
		}, Options{}, "no Core vertex"},
		{"no boundary", func() *tetmesh.Mesh {
			m := base()
			for v, t := range m.Tags {
				if t == tetmesh.Boundary {
					m.Tags[v] = tetmesh.Interior
				}
			}
			return m
		}, Options{}, "no Boundary vertex"},
		{"tag count", func() *tetmesh.Mesh { m := base(); m.Tags = m.Tags[1:]; return m }, Options{}, "tags"},
		{"unknown tag", func() *tetmesh.Mesh { m := base(); m.Tags[5] = 7; return m }, Options{}, "unknown tag"},
		{"inverted tet", func() *tetmesh.Mesh { m := base(); m.Tets[1], m.Tets[2] = m.Tets[2], m.Tets[1]; return m }, Options{}, "tet 0"},
		{"index", func() *tetmesh.Mesh { m := base(); m.Tets[7] = 1000; return m }, Options{}, "tet 1"},
		{"NaN", func() *tetmesh.Mesh { m := base(); m.Positions[4] = math.NaN(); return m }, Options{}, "non-finite"},
		{"isolated part", func() *tetmesh.Mesh {
			m := base()
			// A second tet, disjoint from the cube, with free vertices.
			nv := int32(m.NumVertices())
			m.Positions = append(m.Positions, 5, 5, 5, 6, 5, 5, 5, 6, 5, 5, 5, 6)
			m.Tags = append(m.Tags, 0, 0, 0, 0)
			m.Tets = append(m.Tets, nv, nv+1, nv+2, nv+3)
			return m
		}, Options{}, "no Boundary or Core vertex"},
		{"preconditioner", base, Options{Preconditioner: "ilu"}, "unknown preconditioner"},
		{"tolerance", base, Options{Tolerance: -1}, "tolerance"},
		{"iterations", base, Options{MaxIterations: -3}, "iteration"},
		{"no convergence", func() *tetmesh.Mesh { return jitteredCube(10, 0.3, 1) }, Options{MaxIterations: 2, Preconditioner: "jacobi"}, "CG stopped"},
	}
	for _, tc := range tests {
		_, err := Solve(tc.mesh(), tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

// A mesh with no free vertex needs no solve.
func TestSolveNothingFree(t *testing.T) {
	m := tetgrid.Box([3]int{1, 1, 1}, geom.Vec{0, 0, 0}, geom.Vec{1, 1, 1})
	m.Tags[7] = tetmesh.Core
	f, err := Solve(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Unknowns != 0 || f.Epsilon[7] != 1 || f.Epsilon[0] != 0 {
		t.Errorf("got %+v", f)
	}
}

// SolveSystem on the exported system gives the exact slab field.
func TestSolveSystem(t *testing.T) {
	m, exact := slab(4, 8, 1, 1, 0.25, 3)
	a, b, vertex, err := ReducedSystem(m)
	if err != nil {
		t.Fatal(err)
	}
	f, err := SolveSystem(a, b, Options{Tolerance: 1e-13})
	if err != nil {
		t.Fatal(err)
	}
	for r, v := range vertex {
		if d := math.Abs(f.Epsilon[r] - exact(m.Vertex(v))); d > 1e-9 {
			t.Fatalf("unknown %d: %g, want %g", r, f.Epsilon[r], exact(m.Vertex(v)))
		}
	}
	if f.Unknowns != len(b) || f.Iterations == 0 || f.Gradient != nil {
		t.Errorf("field %+v", f)
	}
}

func TestSolveSystemErrors(t *testing.T) {
	csr := func(r, c int, ptr, ind []int, data []float64) *sparse.CSR { return sparse.NewCSR(r, c, ptr, ind, data) }
	tests := []struct {
		name string
		a    *sparse.CSR
		b    []float64
		want string
	}{
		{"not square", csr(1, 2, []int{0, 1}, []int{0}, []float64{1}), []float64{1}, "not square"},
		{"rhs length", csr(1, 1, []int{0, 1}, []int{0}, []float64{1}), []float64{1, 2}, "right-hand side"},
		{"rhs NaN", csr(1, 1, []int{0, 1}, []int{0}, []float64{1}), []float64{math.NaN()}, "right-hand side"},
		{"unsorted", csr(2, 2, []int{0, 2, 3}, []int{1, 0, 1}, []float64{-1, 2, 2}), []float64{1, 1}, "out of order"},
		{"no diagonal", csr(2, 2, []int{0, 1, 2}, []int{1, 0}, []float64{1, 1}), []float64{1, 1}, "no diagonal"},
		{"negative diagonal", csr(1, 1, []int{0, 1}, []int{0}, []float64{-1}), []float64{1}, "not positive"},
		{"column range", csr(1, 1, []int{0, 1}, []int{3}, []float64{1}), []float64{1}, "outside"},
		{"pointers", csr(2, 2, []int{0, 1}, []int{0}, []float64{1}), []float64{1, 1}, "inconsistent"},
		{"infinite entry", csr(1, 1, []int{0, 1}, []int{0}, []float64{math.Inf(1)}), []float64{1}, "is +Inf"},
		{"asymmetric values", csr(2, 2, []int{0, 2, 4}, []int{0, 1, 0, 1}, []float64{2, -1, -0.5, 2}), []float64{1, 1}, "not symmetric"},
		{"asymmetric pattern", csr(2, 2, []int{0, 2, 3}, []int{0, 1, 1}, []float64{2, -1, 2}), []float64{1, 1}, "not symmetric"},
	}
	for _, tc := range tests {
		_, err := SolveSystem(tc.a, tc.b, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}
