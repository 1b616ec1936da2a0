package pfmesh

import (
	"errors"
	"strings"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
)

// When the exact path fails, an automatic choice builds on the robust path
// and says why; an explicit --mesher exact reports the failure instead.
// The failure comes after the exact mesher has run (as when the solve
// refuses its mesh): the report then describes the robust mesh alone.
func TestExactFailureFallsBack(t *testing.T) {
	defer func(f func(*format.Surface, *format.Surface, Options, *Report, func(string) func(string, float64)) (*tetmesh.Mesh, error)) {
		meshExact = f
	}(meshExact)
	exact := meshExact
	meshExact = func(s, core *format.Surface, opt Options, rep *Report, progress func(string) func(string, float64)) (*tetmesh.Mesh, error) {
		if _, err := exact(s, core, opt, rep, progress); err != nil {
			return nil, err
		}
		return nil, errors.New("meshing: injected failure")
	}
	s := shapes.Box(1, 1, 1, 1)
	p, rep, err := BuildSurface(s, Options{Modulus: 1e6, Tolerance: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mesher != MesherRobust || !strings.Contains(strings.Join(rep.MesherReasons, "; "), "injected failure") {
		t.Errorf("mesher %s, reasons %v", rep.Mesher, rep.MesherReasons)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
	q := tetmesh.MeasureQuality(&tetmesh.Mesh{Positions: p.Positions, Tets: p.Tets})
	if rep.ExactMesh != nil || rep.Tets != p.NumTets() || rep.MinDihedral != q.MinDihedral {
		t.Errorf("report: exact mesh %v, %d tets, min dihedral %g; the file has %d tets, min dihedral %g",
			rep.ExactMesh != nil, rep.Tets, rep.MinDihedral, p.NumTets(), q.MinDihedral)
	}
	if _, _, err := BuildSurface(s, Options{Modulus: 1e6, Mesher: MesherExact}); err == nil || !strings.Contains(err.Error(), "injected failure") {
		t.Errorf("--mesher exact: error %v, want the exact path's", err)
	}
}

// When the limited scheme's iteration fails, the Galerkin solution is the
// field — clamped onto [0, 1] and reported — and the build says why.
func TestLimitedFailureFallsBack(t *testing.T) {
	defer func(f func(*tetmesh.Mesh, laplace.Options) (*laplace.LimitedField, error)) { solveLimited = f }(solveLimited)
	solveLimited = func(*tetmesh.Mesh, laplace.Options) (*laplace.LimitedField, error) {
		return nil, errors.New("injected stall")
	}
	p, rep, err := BuildSurface(shapes.Box(1, 1, 1, 1), Options{Modulus: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	if sv := rep.Solver; sv.Scheme != SchemeGalerkin || !strings.Contains(sv.Fallback, "injected stall") || sv.Iterations == 0 {
		t.Errorf("solver report %+v, want the Galerkin scheme and the limited one's failure", sv)
	}
	for v, e := range p.Epsilon {
		if e < 0 || e > 1 {
			t.Fatalf("ε = %g at vertex %d", e, v)
		}
	}
}
