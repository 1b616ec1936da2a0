package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pfmesh/pfmesh"
	"github.com/pfmesh/pfmesh/format"
	"github.com/urfave/cli/v2"
)

func buildCommand() *cli.Command {
	return &cli.Command{
		Name:      "build",
		Usage:     "tetrahedralize surfaces and solve their pressure fields into .pfm files",
		ArgsUsage: "INPUT... (surface files: STL, OBJ, OFF, PLY; or directories of them)",
		Description: `Each input is read, checked, meshed and solved; the result is written as a .pfm
file beside the input (or to -o). Several inputs, or a directory, build in parallel with -j.

Quantities take unit suffixes: pressures Pa, kPa, MPa, GPa (a bare number is Pa);
lengths mm, cm, m, in (a bare number is metres).

Examples:
   pfmesh build fixtures/icosphere.obj -E 1MPa
   pfmesh build fixtures/lbracket.ply --units cm -E 2.5MPa --core-depth 2mm -o bracket.pfm
   pfmesh build fixtures/cube.stl fixtures/inside_out.off -E 1e6 -j 2 --quiet
   pfmesh build fixtures/cube.stl --youngs 500kPa --poisson 0.3 --core-depth 0.2 -o foam.pfm`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file (one input) or directory (several)"},
			&cli.StringFlag{Name: "modulus", Aliases: []string{"E"}, Usage: "modulus E in p0 = E·g(ε), e.g. 1e6, 200kPa, 1MPa"},
			&cli.StringFlag{Name: "youngs", Usage: "Young's modulus Y; with --poisson and --core-depth gives E = (1−ν)Y/((1+ν)(1−2ν))"},
			&cli.Float64Flag{Name: "poisson", Usage: "Poisson's ratio ν, with --youngs"},
			&cli.StringFlag{Name: "pressure", Value: "linear", Usage: "pressure mapping g: linear (p0 = Eε) or log (p0 = −E ln(1−ε), capped)"},
			&cli.StringFlag{Name: "pressure-cap", Usage: "log mapping: the largest pressure (default 100·E)"},
			&cli.Float64Flag{Name: "dissipation", Usage: "default Hunt–Crossley dissipation stored in the file, s/m"},
			&cli.Float64Flag{Name: "friction", Value: 0.5, Usage: "default Coulomb friction coefficient stored in the file"},
			&cli.StringFlag{Name: "core", Value: "medial", Usage: "where ε = 1: medial (a core around the medial axis) or a closed surface FILE inside the part"},
			&cli.StringFlag{Name: "core-depth", Usage: "rigid core: ε = 1 deeper than this length (elastic-foundation layer thickness)"},
			&cli.StringFlag{Name: "units", Value: "m", Usage: "length unit of the input files: m, mm, cm, in"},
			&cli.Float64Flag{Name: "scale", Value: 1, Usage: "extra scale factor for the input, after --units"},
			&cli.BoolFlag{Name: "repair", Usage: "fill small holes, drop tiny components, fix orientation (each change reported)"},
			&cli.StringFlag{Name: "mesher", Value: "auto", Usage: "auto, exact (clean closed surfaces) or robust (any surface)"},
			&cli.Float64Flag{Name: "quality", Value: 2, Usage: "radius-edge ratio bound (1.2 to ∞)"},
			&cli.Float64Flag{Name: "max-volume", Usage: "largest tet volume, m³"},
			&cli.StringFlag{Name: "edge-length", Usage: "largest edge length"},
			&cli.BoolFlag{Name: "coarse", Usage: "fewest tets: surface vertices plus what the field needs"},
			&cli.BoolFlag{Name: "keep-triangles", Usage: "exact mesher: mesh each input triangle as a facet of its own (by default each flat face — coplanar input triangles, exactly or, where needles lie, to an ulp — is one facet, retriangulated, so its needle triangles do not bound the quality)"},
			&cli.IntFlag{Name: "tet-budget", Value: pfmesh.DefaultTetBudget, Usage: "edges no shorter than this many tets over the volume give (-1: no bound)"},
			&cli.StringFlag{Name: "tolerance", Usage: "robust mesher: Hausdorff bound (default 1e-3 of the bounding-box diagonal)"},
			&cli.StringFlag{Name: "scheme", Value: "limited", Usage: "discretization of the Laplace solve: limited (0 ≤ ε ≤ 1, linear fields exact), galerkin (plain P1, faster; stray values clamped) or monotone"},
			&cli.Float64Flag{Name: "solver-tol", Value: 1e-10, Usage: "relative residual of the Laplace solve"},
			&cli.BoolFlag{Name: "float32", Usage: "store coordinates and ε as float32 (smaller file)"},
			&cli.BoolFlag{Name: "no-bvh", Usage: "omit the prebuilt BVH section"},
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: 1, Usage: "inputs to build at once"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress display and no summary"},
			&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "per-stage timings and counts"},
		},
		Action: runBuild,
	}
}

// buildOptions turns the flags into pfmesh.Options.
func buildOptions(c *cli.Context) (pfmesh.Options, error) {
	o := pfmesh.Options{
		Units:           c.String("units"),
		Scale:           c.Float64("scale"),
		Repair:          c.Bool("repair"),
		Poisson:         c.Float64("poisson"),
		Dissipation:     c.Float64("dissipation"),
		Friction:        c.Float64("friction"),
		Mesher:          c.String("mesher"),
		Quality:         c.Float64("quality"),
		MaxVolume:       c.Float64("max-volume"),
		Coarse:          c.Bool("coarse"),
		KeepTriangles:   c.Bool("keep-triangles"),
		TetBudget:       c.Int("tet-budget"),
		Scheme:          c.String("scheme"),
		SolverTolerance: c.Float64("solver-tol"),
		Float32:         c.Bool("float32"),
		NoBVH:           c.Bool("no-bvh"),
	}
	var err error
	quantity := func(flag string, parse func(string) (float64, error), dst *float64) {
		if err != nil || !c.IsSet(flag) {
			return
		}
		if *dst, err = parse(c.String(flag)); err != nil {
			err = usagef("--%s: %v", flag, err)
		}
	}
	quantity("modulus", parsePressure, &o.Modulus)
	quantity("youngs", parsePressure, &o.Youngs)
	quantity("pressure-cap", parsePressure, &o.PressureCap)
	quantity("core-depth", parseLength, &o.CoreDepth)
	quantity("edge-length", parseLength, &o.EdgeLength)
	quantity("tolerance", parseLength, &o.Tolerance)
	if err != nil {
		return o, err
	}
	switch p := c.String("pressure"); p {
	case "linear":
		o.Mapping = format.Linear
	case "log":
		o.Mapping = format.Log
	default:
		return o, usagef("--pressure %q: want linear or log", p)
	}
	if core := c.String("core"); core != "medial" {
		o.CoreFile = core
	}
	if !c.IsSet("modulus") && !c.IsSet("youngs") {
		return o, usagef("the modulus is required: -E VALUE (e.g. -E 1MPa), or --youngs with --poisson and --core-depth")
	}
	if err := o.Validate(); err != nil {
		return o, usageError{err}
	}
	return o, nil
}

var surfaceExts = []string{".stl", ".obj", ".off", ".ply"}

// expandInputs lists the input files: files as given, directories by their
// surface files (sorted, not recursive).
func expandInputs(args []string) ([]string, error) {
	var files []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		n := len(files)
		for _, e := range ents {
			if !e.IsDir() && slices.Contains(surfaceExts, strings.ToLower(filepath.Ext(e.Name()))) {
				files = append(files, filepath.Join(a, e.Name()))
			}
		}
		if len(files) == n {
			return nil, fmt.Errorf("%s: no surface files (%s) in the directory", a, strings.Join(surfaceExts, ", "))
		}
	}
	return files, nil
}

// outputPath is where the .pfm for input goes: -o as a file for a single
// input, -o as a directory for several, else beside the input.
func outputPath(input, output string, several bool) string {
	name := strings.TrimSuffix(filepath.Base(input), filepath.Ext(input)) + ".pfm"
	switch {
	case output == "":
		return filepath.Join(filepath.Dir(input), name)
	case several:
		return filepath.Join(output, name)
	}
	return output
}

func runBuild(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("build: no input files")
	}
	opt, err := buildOptions(c)
	if err != nil {
		return err
	}
	inputs, err := expandInputs(c.Args().Slice())
	if err != nil {
		return err
	}
	out := c.String("output")
	several := len(inputs) > 1
	if several && out != "" {
		if st, err := os.Stat(out); err != nil || !st.IsDir() {
			return usagef("-o %s: with several inputs, -o must be an existing directory", out)
		}
	}
	jobs := c.Int("jobs")
	if jobs < 1 {
		return usagef("-j %d: must be at least 1", jobs)
	}
	jobs = min(jobs, len(inputs), max(1, runtime.NumCPU()))
	quiet, verbose := c.Bool("quiet"), c.Bool("verbose")
	prog := newProgress(c.App.ErrWriter, quiet)

	// Build in parallel, print summaries in input order as they complete.
	type result struct {
		lines []string
		err   error
		done  chan struct{}
	}
	results := make([]*result, len(inputs))
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r := results[i]
				r.lines, r.err = buildOne(inputs[i], outputPath(inputs[i], out, several), opt, prog, verbose)
				close(r.done)
			}
		}()
	}
	go func() {
		for i := range inputs {
			next <- i
		}
		close(next)
	}()
	failed := 0
	var firstErr error
	for _, r := range results {
		<-r.done
		prog.clear()
		if r.err != nil {
			failed++
			if firstErr == nil {
				firstErr = r.err
			}
			if several { // report each failure, then a count at the end
				fmt.Fprintf(c.App.ErrWriter, "pfmesh: %v\n", r.err)
			}
			continue
		}
		if !quiet {
			printLines(c.App.Writer, r.lines)
		}
	}
	wg.Wait()
	switch {
	case failed == 0:
		return nil
	case several:
		return fmt.Errorf("%d of %d builds failed", failed, len(inputs))
	}
	return firstErr
}

func printLines(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// buildOne builds input into output and returns the summary lines.
func buildOne(input, output string, opt pfmesh.Options, prog *progress, verbose bool) ([]string, error) {
	name := filepath.Base(input)
	opt.Progress = prog.callback(name)
	defer prog.finish(name)
	start := time.Now()
	p, rep, err := pfmesh.Build(input, opt)
	if err != nil {
		return nil, err
	}
	wstart := time.Now()
	size, err := pfmesh.Write(output, p, opt)
	if err != nil {
		return nil, err
	}
	rep.AddStage("write", time.Since(wstart), fmt.Sprintf("%s, %.1f bytes/tet", formatBytes(size), float64(size)/float64(len(p.Tets)/4)))
	lines := []string{rep.Summary(output, time.Since(start))}
	if verbose {
		var b strings.Builder
		rep.WriteStages(&b)
		lines = append(lines, strings.TrimRight(b.String(), "\n"))
	}
	return lines, nil
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
