package pfmesh

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
	"github.com/pfmesh/pfmesh/medial"
	"github.com/pfmesh/pfmesh/tetgen"
)

// Build reads the surface file at path and returns its pressure-field mesh
// and a report of every stage. Nothing is written; see Write.
//
// The stages: read the surface (format.ReadSurface) and diagnose it;
// optionally repair it; clean it (weld, drop degenerate triangles, orient
// outward); pick the mesher (the exact path for closed, manifold surfaces
// without self-intersections, the robust path otherwise, or as forced by
// Options.Mesher); build the 1-set (medial); tetrahedralize; solve for ε
// (laplace); and assemble the file content.
func Build(path string, opt Options) (*format.PFM, *Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	s, err := format.DecodeSurface(data, path, format.ReadOptions{Units: opt.Units, Scale: opt.Scale})
	if err != nil {
		return nil, nil, err
	}
	p, rep, err := BuildSurface(s, opt)
	if err != nil {
		return nil, rep, fmt.Errorf("%s: %w", path, err)
	}
	rep.Input = path
	p.SourceSHA256 = sha256.Sum256(data)
	if p.BuildReport, err = rep.stored(); err != nil {
		return nil, rep, err
	}
	return p, rep, nil
}

// BuildSurface is Build for a surface already in memory, in metres.
func BuildSurface(s *format.Surface, opt Options) (*format.PFM, *Report, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	rep := &Report{Modulus: opt.Modulus, start: time.Now()}
	progress := func(stage string) func(string, float64) {
		if opt.Progress == nil {
			return nil
		}
		return func(sub string, done float64) { opt.Progress(stage+" "+sub, done) }
	}
	report := func(stage string, done float64) {
		if opt.Progress != nil {
			opt.Progress(stage, done)
		}
	}

	report("check", 0)
	if err := geom.CheckExtent(s.Positions); err != nil {
		return nil, rep, fmt.Errorf("surface: %w", err)
	}
	if opt.Repair {
		s, rep.Repairs = format.Repair(s, format.RepairOptions{})
	}
	// The verdict is taken on the cleaned surface: welding, dropping
	// degenerate and duplicate triangles and orienting may be all a
	// surface needs for the exact path.
	clean, cleanRep := format.Clean(s, format.CleanOptions{})
	rep.Clean = cleanRep
	rep.Surface = format.Diagnose(clean)
	verdict := rep.Surface.Verdict
	rep.stage("check", fmt.Sprintf("%d triangles, %s", s.NumTriangles(), verdictLine(verdict)))

	switch {
	case verdict.Path == format.PathRefuse:
		return nil, rep, fmt.Errorf("cannot mesh this surface: %s", strings.Join(verdict.Reasons, "; "))
	case opt.Mesher == MesherExact && verdict.Path != format.PathExact:
		return nil, rep, fmt.Errorf("the exact mesher needs a closed, manifold surface without self-intersections: %s (try --mesher robust or --repair)", strings.Join(verdict.Reasons, "; "))
	case opt.Mesher == MesherRobust || (opt.Mesher == MesherAuto && verdict.Path == format.PathRobust):
		rep.Mesher = MesherRobust
	default:
		rep.Mesher = MesherExact
	}
	rep.MesherReasons = verdict.Reasons

	var coreFile *format.Surface
	if opt.CoreFile != "" {
		if coreFile, err = format.ReadSurface(opt.CoreFile, format.ReadOptions{Units: opt.Units, Scale: opt.Scale}); err != nil {
			return nil, rep, fmt.Errorf("core: %w", err)
		}
		coreFile, _ = format.Clean(coreFile, format.CleanOptions{})
	}

	mesh, field, err := meshAndSolve(s, clean, coreFile, opt, rep, progress)
	if err != nil && rep.Mesher == MesherExact && opt.Mesher == MesherAuto {
		// The robust path takes any surface the exact one takes; an
		// automatic choice falls back to it rather than fail, and says so.
		// The report describes the mesh in the file: none of the exact
		// path's, even where it meshed and the solve failed.
		rep.Mesher, rep.ExactMesh = MesherRobust, nil
		rep.MesherReasons = append(rep.MesherReasons, "the exact path failed: "+err.Error())
		rep.stage("fallback", "exact path failed ("+err.Error()+"); robust path")
		mesh, field, err = meshAndSolve(s, clean, coreFile, opt, rep, progress)
	}
	if err != nil {
		return nil, rep, err
	}

	p, err := assemble(mesh, field, opt)
	if err != nil {
		return nil, rep, err
	}
	detail := fmt.Sprintf("%d boundary triangles, tets reordered", len(p.Boundary)/3)
	if p.BVH != nil {
		detail += ", BVH built"
	}
	rep.stage("assemble", detail)
	if p.BuildParams, err = json.Marshal(opt); err != nil {
		return nil, rep, err
	}
	if p.BuildReport, err = rep.stored(); err != nil {
		return nil, rep, err
	}
	report("done", 1)
	return p, rep, nil
}

// meshAndSolve meshes on the path rep.Mesher names and solves for ε.
func meshAndSolve(s, clean, coreFile *format.Surface, opt Options, rep *Report, progress func(string) func(string, float64)) (*tetmesh.Mesh, *laplace.Field, error) {
	var mesh *tetmesh.Mesh
	var err error
	if rep.Mesher == MesherExact {
		mesh, err = meshExact(clean, coreFile, opt, rep, progress)
	} else {
		mesh, err = buildRobust(s, coreFile, opt, rep, progress)
	}
	if err != nil {
		return nil, nil, err
	}
	rep.Vertices, rep.Tets = mesh.NumVertices(), mesh.NumTets()
	var q tetmesh.Quality
	if rep.ExactMesh != nil { // tetgen.Build measured its output already
		q = rep.ExactMesh.Quality
	} else {
		q = tetmesh.MeasureQuality(mesh)
	}
	rep.MinDihedral, rep.MaxDihedral, rep.MaxRadiusEdge = q.MinDihedral, q.MaxDihedral, q.MaxRadiusEdge
	if off := tetmesh.OffCoreTets(mesh.Tets, mesh.Tags); len(off) < len(mesh.Tets) {
		rep.MinDihedralOffCore = tetmesh.MeasureQuality(&tetmesh.Mesh{Positions: mesh.Positions, Tets: off}).MinDihedral
	}

	sopt := laplace.Options{Tolerance: opt.SolverTolerance, Progress: progress("solve")}
	field, sr, err := solve(mesh, opt.Scheme, sopt)
	if err != nil {
		return nil, nil, fmt.Errorf("solving for ε (%s scheme): %w", opt.Scheme, err)
	}
	// The limited and monotone schemes keep [0, 1] up to the solver's
	// tolerance, the Galerkin one only on meshes without obtuse tets.
	sr.Violations, sr.MaxViolation = clamp01(field.Epsilon)
	rep.Solver = sr
	rep.EpsMin, rep.EpsMax = minMax(field.Epsilon)
	detail := fmt.Sprintf("%s scheme: %d unknowns, %d CG iterations, residual %.2g", sr.Scheme, field.Unknowns, field.Iterations, field.Residual)
	if sr.Fallback != "" {
		detail += " (" + sr.Fallback + ")"
	}
	if sr.Scheme == SchemeLimited {
		detail += fmt.Sprintf(" after %d corrections, %d of %d flux edges limited", sr.Corrections, sr.LimitedEdges, sr.FluxEdges)
	}
	if sr.Violations > 0 {
		detail += fmt.Sprintf("; %d values outside [0, 1] by up to %.2g clamped", sr.Violations, sr.MaxViolation)
	}
	rep.stage("solve", detail)
	return mesh, field, nil
}

// solve computes ε on mesh with the named scheme.
func solve(mesh *tetmesh.Mesh, scheme string, opt laplace.Options) (*laplace.Field, SolverReport, error) {
	var f *laplace.Field
	var err error
	sr := SolverReport{Scheme: scheme}
	switch scheme {
	case SchemeLimited:
		lf, lerr := solveLimited(mesh, opt)
		if lerr == nil {
			f = &lf.Field
			sr.Corrections, sr.FluxEdges, sr.LimitedEdges = lf.Corrections, lf.FluxEdges, lf.LimitedEdges
			break
		}
		// The limited equations are nonlinear and their iteration can
		// stall (docs/field.md); the Galerkin solution, clamped and
		// reported, is then the field, and the report says why.
		sr.Scheme, sr.Fallback = SchemeGalerkin, fmt.Sprintf("limited scheme failed: %v", lerr)
		f, err = laplace.Solve(mesh, opt)
	case SchemeMonotone:
		f, err = laplace.SolveMonotone(mesh, opt)
	default:
		f, err = laplace.Solve(mesh, opt)
	}
	if err != nil {
		return nil, sr, err
	}
	sr.Unknowns, sr.Iterations, sr.Residual = f.Unknowns, f.Iterations, f.Residual
	return f, sr, nil
}

// solveLimited is the limited scheme's solver; tests replace it to
// exercise the fallback to the Galerkin one.
var solveLimited = laplace.SolveLimited

// meshExact is the exact path's mesher; tests replace it to exercise the
// fallback to the robust path.
var meshExact = buildExact

// buildExact meshes a clean closed surface with tetgen.Build, the 1-set
// conformed to.
func buildExact(clean, coreFile *format.Surface, opt Options, rep *Report, progress func(string) func(string, float64)) (*tetmesh.Mesh, error) {
	core, err := buildCore(clean, coreFile, opt, progress)
	if err != nil {
		return nil, err
	}
	rep.Core = core.Stats
	rep.stage("core", coreLine(core))
	mesh, mrep, err := tetgen.Build(clean, tetgen.Options{
		Quality:       opt.Quality,
		MaxVolume:     opt.MaxVolume,
		EdgeLength:    opt.EdgeLength,
		Coarse:        opt.Coarse,
		MergeCoplanar: !opt.KeepTriangles,
		Points:        core.Points,
		PointTags:     coreTags(core.Points),
		CoreSurface:   core.Surface,
		Core:          core.Inside,
		Sizing:        core.Sizing,
		Progress:      progress("mesh"),
	})
	if err != nil {
		return nil, fmt.Errorf("meshing: %w", err)
	}
	rep.ExactMesh = mrep
	rep.stage("mesh", fmt.Sprintf("exact path: %d tets, %d vertices, %d Steiner points", mrep.Tets, mrep.Vertices,
		mrep.SteinerSegment+mrep.SteinerFacet+mrep.SteinerVolume+mrep.VoidSplits))
	return mesh, nil
}

// buildRobust meshes any surface on the robust path. The 1-set needs a
// closed surface, which a dirty input is not, so the solid is meshed once
// to find its boundary, the 1-set is built on that boundary, and the solid
// is meshed again resolving the 1-set.
func buildRobust(s, coreFile *format.Surface, opt Options, rep *Report, progress func(string) func(string, float64)) (*tetmesh.Mesh, error) {
	// The first mesh only gives the core its surface: a coarser tolerance
	// makes it, and the medial axis of its boundary, several times cheaper
	// without moving the core by more than a few tenths of a percent of
	// the part's size.
	tol := opt.Tolerance
	if tol == 0 {
		tol = 1e-3 * rep.Surface.Diagonal
	}
	sopt := tetgen.RobustOptions{Tolerance: 8 * tol, EdgeLength: opt.EdgeLength, MaxVolume: opt.MaxVolume, Progress: progress("mesh (solid)")}
	first, _, err := tetgen.BuildRobust(s, sopt)
	if err != nil {
		return nil, fmt.Errorf("meshing (robust path): %w", err)
	}
	sopt.Tolerance = opt.Tolerance
	nbr, _ := tetmesh.Neighbors(first.Tets, first.NumVertices())
	boundary := &format.Surface{Positions: first.Positions, Triangles: tetmesh.BoundaryFaces(first.Tets, nbr)}
	core, err := buildCore(boundary, coreFile, opt, progress)
	if err != nil {
		return nil, err
	}
	rep.Core = core.Stats
	rep.stage("core", coreLine(core))
	sopt.Core, sopt.Sizing, sopt.Progress = core.Inside, core.Sizing, progress("mesh")
	mesh, mrep, err := tetgen.BuildRobust(s, sopt)
	if err != nil {
		return nil, fmt.Errorf("meshing (robust path): %w", err)
	}
	rep.RobustMesh = mrep
	rep.stage("mesh", fmt.Sprintf("robust path: %d tets, %d vertices, Hausdorff %.3g m (target %.3g m)",
		mrep.Tets, mrep.Vertices, max(mrep.HausdorffIn, mrep.HausdorffOut), mrep.Tolerance))
	return mesh, nil
}

func buildCore(body, coreFile *format.Surface, opt Options, progress func(string) func(string, float64)) (*medial.Core, error) {
	mopt := medial.Options{Mode: medial.Medial, TetBudget: opt.TetBudget, Progress: progress("core")}
	switch {
	case coreFile != nil:
		mopt.Mode, mopt.CoreFile = medial.File, coreFile
	case opt.CoreDepth > 0:
		mopt.Mode, mopt.Depth = medial.Depth, opt.CoreDepth
	}
	core, err := medial.Build(body, mopt)
	if err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	return core, nil
}

func coreTags(points []float64) []tetmesh.Tag {
	tags := make([]tetmesh.Tag, len(points)/3)
	for i := range tags {
		tags[i] = tetmesh.Core
	}
	return tags
}

// assemble gathers the mesh and field into the file content, renumbered
// so that neighbours in space are neighbours in memory (format.Reorder).
func assemble(m *tetmesh.Mesh, f *laplace.Field, opt Options) (*format.PFM, error) {
	nbr, _ := tetmesh.Neighbors(m.Tets, m.NumVertices())
	p := &format.PFM{
		Header: format.Header{
			Modulus:     opt.Modulus,
			Mapping:     opt.Mapping,
			PressureCap: opt.PressureCap,
			Dissipation: opt.Dissipation,
			Friction:    opt.Friction,
		},
		Positions: m.Positions,
		Tets:      m.Tets,
		Epsilon:   f.Epsilon,
		Gradient:  f.Gradient,
		Tags:      m.Tags,
		Boundary:  tetmesh.BoundaryFaces(m.Tets, nbr),
	}
	if !opt.NoBVH {
		p.BVH = format.NewBVH(m.Positions, m.Tets, bvhLeafSize)
	}
	if err := p.Reorder(); err != nil {
		return nil, fmt.Errorf("assembling the file: %w", err)
	}
	return p, nil
}

// bvhLeafSize is the most tets per BVH leaf: 8 keeps the stored tree near
// 21 bytes per tet (docs/pfm.md) at little cost to queries.
const bvhLeafSize = 8

// Write writes p to path atomically (complete or not at all) as Build's
// options ask (float32 storage), and returns the file size.
func Write(path string, p *format.PFM, opt Options) (int64, error) {
	if err := format.WritePFM(path, p, format.WriteOptions{Float32: opt.Float32}); err != nil {
		return 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// clamp01 clamps the values outside [0, 1] onto it, returning how many
// there were and the largest distance moved.
func clamp01(x []float64) (n int, worst float64) {
	for i, v := range x {
		if c := min(max(v, 0), 1); c != v {
			n++
			worst = max(worst, math.Abs(c-v))
			x[i] = c
		}
	}
	return n, worst
}

func minMax(x []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// Report says what Build did, stage by stage. It is stored as JSON in the
// .pfm file's build report; the field names are stable.
type Report struct {
	Input         string               `json:"input,omitempty"`
	Surface       *format.Report       `json:"surface"`
	Clean         *format.CleanReport  `json:"clean"`
	Repairs       []format.Change      `json:"repairs,omitempty"`
	Mesher        string               `json:"mesher"`
	MesherReasons []string             `json:"mesher_reasons,omitempty"`
	Core          medial.Stats         `json:"core"`
	ExactMesh     *tetgen.Report       `json:"exact_mesh,omitempty"`
	RobustMesh    *tetgen.RobustReport `json:"robust_mesh,omitempty"`
	Vertices      int                  `json:"vertices"`
	Tets          int                  `json:"tets"`
	MinDihedral   float64              `json:"min_dihedral_deg"`
	MaxDihedral   float64              `json:"max_dihedral_deg"`
	MaxRadiusEdge float64              `json:"max_radius_edge"`
	Solver        SolverReport         `json:"solver"`
	EpsMin        float64              `json:"eps_min"`
	EpsMax        float64              `json:"eps_max"`
	Modulus       float64              `json:"modulus_pa"`
	Stages        []Stage              `json:"stages"`
	// MinDihedralOffCore is the smallest dihedral angle of the tets with
	// a vertex off the core, where ε varies; 0 when every tet has one.
	MinDihedralOffCore float64 `json:"min_dihedral_off_core_deg,omitempty"`

	start, last time.Time
}

// SolverReport is the outcome of the Laplace solve.
type SolverReport struct {
	Unknowns   int     `json:"unknowns"`
	Iterations int     `json:"iterations"`
	Residual   float64 `json:"residual"`
	// Scheme is the discretization (Options.Scheme); for the limited one
	// Corrections counts its nonlinear iterations (Iterations the CG
	// iterations of all of them), FluxEdges the edges whose positive
	// coupling carries a flux and LimitedEdges those the limiter cut.
	Scheme       string `json:"scheme"`
	Fallback     string `json:"fallback,omitempty"` // why Scheme is not the one asked for
	Corrections  int    `json:"corrections,omitempty"`
	FluxEdges    int    `json:"flux_edges,omitempty"`
	LimitedEdges int    `json:"limited_edges,omitempty"`
	// Violations counts the vertices whose ε left [0, 1] (by at most
	// MaxViolation) and were clamped onto it: with the Galerkin scheme,
	// where obtuse tets break the discrete maximum principle; with the
	// others, by no more than the solver's tolerance. See docs/field.md.
	Violations   int     `json:"clamped,omitempty"`
	MaxViolation float64 `json:"max_clamped,omitempty"`
}

// Stage is one step of a build with its wall time.
type Stage struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds,omitempty"`
	Detail  string  `json:"detail"`
}

// stored is the report as the .pfm file keeps it: without wall times, so
// that the same input and options give the same bytes.
func (r *Report) stored() ([]byte, error) {
	c := *r
	c.Stages = make([]Stage, len(r.Stages))
	for i, st := range r.Stages {
		c.Stages[i] = Stage{Name: st.Name, Detail: st.Detail}
	}
	if r.ExactMesh != nil {
		m := *r.ExactMesh
		m.Timings = nil
		c.ExactMesh = &m
	}
	return json.Marshal(&c)
}

// stage records that the named stage has just finished.
func (r *Report) stage(name, detail string) {
	now := time.Now()
	from := r.last
	if from.IsZero() {
		from = r.start
	}
	r.last = now
	r.Stages = append(r.Stages, Stage{Name: name, Seconds: now.Sub(from).Seconds(), Detail: detail})
}

// AddStage records a stage run outside Build, such as writing the file.
func (r *Report) AddStage(name string, d time.Duration, detail string) {
	r.Stages = append(r.Stages, Stage{Name: name, Seconds: d.Seconds(), Detail: detail})
}

// Summary is the one-line result the CLI prints for a build.
// Where the smallest dihedral angle is that of a tet inside the core, and
// the others' prints otherwise, it leads with the others', where ε
// varies: a tet in which ε ≡ 1 changes neither the field nor the
// pressure, whatever its shape.
func (r *Report) Summary(output string, wall time.Duration) string {
	angle := fmt.Sprintf("%.1f°", r.MinDihedral)
	if off := fmt.Sprintf("%.1f°", r.MinDihedralOffCore); r.MinDihedralOffCore > r.MinDihedral && off != angle {
		angle = off + " (" + angle + " in the core, where ε ≡ 1)"
	}
	return fmt.Sprintf("%s: %d tets, %d vertices, ε %.3g…%.3g, min dihedral %s, %d CG iterations (residual %.1e), %.2f s",
		output, r.Tets, r.Vertices, r.EpsMin, r.EpsMax, angle, r.Solver.Iterations, r.Solver.Residual, wall.Seconds())
}

// WriteStages prints one line per stage: name, time and what it did;
// under the exact mesher's line, the mesher's own stages, which say where
// a slow build spends its time.
func (r *Report) WriteStages(w io.Writer) {
	for _, s := range r.Stages {
		fmt.Fprintf(w, "  %-8s %7.3f s  %s\n", s.Name, s.Seconds, s.Detail)
		if s.Name == "mesh" && r.ExactMesh != nil {
			for _, t := range r.ExactMesh.Timings {
				fmt.Fprintf(w, "           %7.3f s    %s\n", t.Seconds, t.Stage)
			}
		}
	}
}

func verdictLine(v format.Verdict) string {
	line := string(v.Path) + " path"
	if len(v.Reasons) > 0 {
		line += ": " + strings.Join(v.Reasons, "; ")
	}
	return line
}

func coreLine(c *medial.Core) string {
	return fmt.Sprintf("%s core: %d core points", c.Mode, c.Stats.Points)
}
