package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/atomicfile"
	"github.com/pfmesh/pfmesh/internal/render"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/laplace"
	"github.com/urfave/cli/v2"
)

func inspectCommand() *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "report a .pfm file's mesh, field and file statistics",
		ArgsUsage: "FILE.pfm",
		Description: `Prints what a .pfm file holds: mesh counts, volume, bounding box and tet quality
(dihedral angles, radius-edge ratios); the field (ε histogram, boundary layer depth
h = 1/|∇ε|, core fraction, Dirichlet counts, solver residual); and the file itself
(version, sections, bytes per tet, CRC status). --json prints the same as JSON
(schema "pfmesh.inspect/2", documented in docs/cli.md). --png draws a cross-section
of ε and pressure.

Examples:
   pfmesh inspect fixtures/icosphere.pfm
   pfmesh inspect fixtures/icosphere.pfm --json
   pfmesh inspect fixtures/icosphere.pfm --png slice.png --axis z --at 0.5`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON instead of text"},
			&cli.StringFlag{Name: "png", Usage: "write a cross-section of ε and pressure to this PNG file"},
			&cli.StringFlag{Name: "axis", Value: "z", Usage: "--png: the axis normal to the section: x, y or z"},
			&cli.StringFlag{Name: "at", Value: "0.5", Usage: "--png: where the section cuts the axis: a fraction of the bounding box (0.5) or a coordinate with a unit (3mm)"},
			&cli.IntFlag{Name: "size", Value: 480, Usage: "--png: side of each panel in pixels"},
		},
		Action: runInspect,
	}
}

// Inspection is the JSON document `pfmesh inspect --json` prints.
type Inspection struct {
	Schema   string          `json:"schema"`
	File     FileStats       `json:"file"`
	Mesh     MeshStats       `json:"mesh"`
	Field    laplace.Stats   `json:"field"`
	Material Material        `json:"material"`
	Build    json.RawMessage `json:"build_report,omitempty"`
	Params   json.RawMessage `json:"build_params,omitempty"`
}

// FileStats describes the file container.
type FileStats struct {
	Path        string        `json:"path"`
	Version     string        `json:"version"`
	SizeBytes   int64         `json:"size_bytes"`
	BytesPerTet float64       `json:"bytes_per_tet"`
	Float32     bool          `json:"float32"`
	CRCOK       bool          `json:"crc_ok"`
	Sections    []SectionStat `json:"sections"`
}

// SectionStat is one entry of the section table.
type SectionStat struct {
	Name   string `json:"name"`
	ID     uint32 `json:"id"`
	Offset uint64 `json:"offset"`
	Length uint64 `json:"length"`
	CRCOK  bool   `json:"crc_ok"`
}

// MeshStats describes the tetrahedral mesh.
type MeshStats struct {
	Vertices          int             `json:"vertices"`
	Tets              int             `json:"tets"`
	BoundaryTriangles int             `json:"boundary_triangles"`
	Volume            float64         `json:"volume_m3"`
	BBox              [6]float64      `json:"bbox"`
	Quality           tetmesh.Quality `json:"quality"`
	// OffCore is the quality of the tets with a vertex off the core, when
	// there is one: ε ≡ 1 on the others, so they carry no field.
	OffCore *tetmesh.Quality `json:"quality_off_core,omitempty"`
}

// Material is the header's contact parameters.
type Material struct {
	Modulus     float64 `json:"modulus_pa"`
	Mapping     string  `json:"mapping"`
	PressureCap float64 `json:"pressure_cap_pa,omitempty"`
	Dissipation float64 `json:"dissipation_s_per_m"`
	Friction    float64 `json:"friction"`
}

func runInspect(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("inspect: want one .pfm file, got %d arguments", c.NArg())
	}
	path := c.Args().First()
	info, err := format.InspectPFM(path)
	if err != nil {
		return err
	}
	p, err := format.ReadPFM(path)
	if err != nil {
		return err
	}
	ins, err := inspect(path, info, p)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if out := c.String("png"); out != "" {
		if err := writeSlicePNG(out, p, c.String("axis"), c.String("at"), c.Int("size")); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(ins)
	}
	ins.writeText(c.App.Writer)
	return nil
}

func inspect(path string, info *format.PFMInfo, p *format.PFM) (*Inspection, error) {
	ins := &Inspection{
		Schema: "pfmesh.inspect/2",
		File: FileStats{
			Path: path, Version: fmt.Sprintf("%d.%d", info.Major, info.Minor), SizeBytes: info.Size,
			BytesPerTet: info.BytesPerTet, Float32: info.Float32, CRCOK: info.HeaderCRCOK,
		},
		Build:  p.BuildReport,
		Params: p.BuildParams,
	}
	for _, s := range info.Sections {
		ins.File.Sections = append(ins.File.Sections, SectionStat{Name: s.ID.String(), ID: uint32(s.ID), Offset: s.Offset, Length: s.Length, CRCOK: s.CRCOK})
		ins.File.CRCOK = ins.File.CRCOK && s.CRCOK
	}
	m := &tetmesh.Mesh{Positions: p.Positions, Tets: p.Tets, Tags: p.Tags}
	ins.Mesh = MeshStats{
		Vertices: p.NumVertices(), Tets: p.NumTets(), BoundaryTriangles: p.NumBoundary(),
		Volume: m.Volume(), BBox: p.BBox, Quality: tetmesh.MeasureQuality(m),
	}
	if off := tetmesh.OffCoreTets(p.Tets, p.Tags); len(off) < len(p.Tets) {
		q := tetmesh.MeasureQuality(&tetmesh.Mesh{Positions: p.Positions, Tets: off})
		ins.Mesh.OffCore = &q
	}
	var err error
	if ins.Field, err = laplace.Measure(p.Positions, p.Tets, p.Tags, p.Epsilon, p.Gradient, 10); err != nil {
		return nil, err
	}
	ins.Material = Material{Modulus: p.Modulus, Mapping: "linear", Dissipation: p.Dissipation, Friction: p.Friction}
	if p.Mapping == format.Log {
		ins.Material.Mapping, ins.Material.PressureCap = "log", p.PressureCap
	}
	return ins, nil
}

func (ins *Inspection) writeText(w io.Writer) {
	f, m, fd, mat := ins.File, ins.Mesh, ins.Field, ins.Material
	crc := "CRC ok"
	if !f.CRCOK {
		crc = "CRC MISMATCH in:"
		for _, s := range f.Sections {
			if !s.CRCOK {
				crc += " " + s.Name
			}
		}
	}
	fmt.Fprintln(w, f.Path)
	fmt.Fprintf(w, "file      pfm %s, %s, %.1f bytes/tet without the BVH, %d sections, %s\n",
		f.Version, formatBytes(f.SizeBytes), f.BytesPerTet, len(f.Sections), crc)
	if f.Float32 {
		fmt.Fprintln(w, "          float32 storage: ∇ε recomputed on load")
	}
	fmt.Fprintf(w, "mesh      %d tets, %d vertices (%d boundary, %d interior, %d core), %d boundary triangles\n",
		m.Tets, m.Vertices, fd.BoundaryVertices, fd.InteriorVertices, fd.CoreVertices, m.BoundaryTriangles)
	fmt.Fprintf(w, "          volume %.4g m³, bbox (%.4g, %.4g, %.4g) … (%.4g, %.4g, %.4g) m\n",
		m.Volume, m.BBox[0], m.BBox[1], m.BBox[2], m.BBox[3], m.BBox[4], m.BBox[5])
	q := m.Quality
	fmt.Fprintf(w, "quality   dihedral angles %.1f° … %.1f°", q.MinDihedral, q.MaxDihedral)
	if oc := m.OffCore; oc != nil {
		fmt.Fprintf(w, " (%.1f° … %.1f° without the tets inside the core, where ε ≡ 1)", oc.MinDihedral, oc.MaxDihedral)
	}
	fmt.Fprintf(w, ", radius-edge ratio ≤ %.3g\n", q.MaxRadiusEdge)
	var dh []string
	for i, n := range q.DihedralHist {
		dh = append(dh, fmt.Sprintf("%d–%d°: %d", 10*i, 10*i+10, n))
	}
	fmt.Fprintf(w, "          tets by min dihedral  %s\n", strings.Join(dh, "  "))
	var rh []string
	for i, n := range q.RadiusEdgeHist {
		hi := "∞"
		if i+1 < len(tetmesh.RadiusEdgeBins) {
			hi = strconv.FormatFloat(tetmesh.RadiusEdgeBins[i+1], 'g', -1, 64)
		}
		rh = append(rh, fmt.Sprintf("%g–%s: %d", tetmesh.RadiusEdgeBins[i], hi, n))
	}
	fmt.Fprintf(w, "          tets by radius-edge   %s\n", strings.Join(rh, "  "))
	fmt.Fprintf(w, "field     ε %.3g … %.3g, %d maximum-principle violations; ε > 1/2 in %.1f%% of the volume; core %.1f%% of the volume\n",
		fd.MinEpsilon, fd.MaxEpsilon, fd.Violations, 100*fd.FractionAboveHalf, 100*fd.CoreVolume/m.Volume)
	fmt.Fprintf(w, "          Dirichlet vertices: %d at ε = 0 (boundary), %d at ε = 1 (core)\n", fd.BoundaryVertices, fd.CoreVertices)
	fmt.Fprintf(w, "          vertices by ε  %s\n", histogramLine(fd.Histogram))
	ld := fd.LayerDepth
	fmt.Fprintf(w, "          layer depth h = 1/|∇ε| on the boundary: min %s at (%.4g, %.4g, %.4g), median %s, max %s\n",
		formatSI(ld.Min, "m"), ld.MinAt[0], ld.MinAt[1], ld.MinAt[2], formatSI(ld.Median, "m"), formatSI(ld.Max, "m"))
	fmt.Fprintf(w, "material  E = %s, %s mapping", formatSI(mat.Modulus, "Pa"), mat.Mapping)
	if mat.Mapping == "log" {
		fmt.Fprintf(w, " capped at %s", formatSI(mat.PressureCap, "Pa"))
	}
	fmt.Fprintf(w, ", dissipation %g s/m, friction %g\n", mat.Dissipation, mat.Friction)
	var br struct {
		Mesher    string `json:"mesher"`
		ExactMesh *struct {
			SharpestCrease float64 `json:"sharpest_crease_deg"`
			QualityCapped  bool    `json:"quality_capped"`
		} `json:"exact_mesh"`
		Solver struct {
			Iterations   int     `json:"iterations"`
			Residual     float64 `json:"residual"`
			Scheme       string  `json:"scheme"`
			Fallback     string  `json:"fallback"`
			Corrections  int     `json:"corrections"`
			LimitedEdges int     `json:"limited_edges"`
			Clamped      int     `json:"clamped"`
			MaxClamped   float64 `json:"max_clamped"`
		} `json:"solver"`
	}
	if len(ins.Build) > 0 && json.Unmarshal(ins.Build, &br) == nil {
		sv := br.Solver
		fmt.Fprintf(w, "build     %s mesher", br.Mesher)
		// Files written before the crease was reported read 0 here.
		if em := br.ExactMesh; em != nil && em.SharpestCrease > 0 {
			fmt.Fprintf(w, " (sharpest crease %.1f°", em.SharpestCrease)
			if em.QualityCapped {
				fmt.Fprint(w, "; refinement capped")
			}
			fmt.Fprint(w, ")")
		}
		fmt.Fprint(w, "; solver")
		if sv.Scheme != "" {
			fmt.Fprintf(w, " (%s scheme)", sv.Scheme)
		}
		fmt.Fprintf(w, " %d CG iterations, residual %.2g", sv.Iterations, sv.Residual)
		if sv.Corrections > 0 {
			fmt.Fprintf(w, " after %d corrections, %d flux edges limited", sv.Corrections, sv.LimitedEdges)
		}
		if sv.Fallback != "" {
			fmt.Fprintf(w, " (%s)", sv.Fallback)
		}
		if sv.Clamped > 0 {
			fmt.Fprintf(w, "; %d values outside [0, 1] by up to %.2g clamped", sv.Clamped, sv.MaxClamped)
		}
		fmt.Fprintln(w)
	}
}

func histogramLine(h []int) string {
	var parts []string
	for i, n := range h {
		parts = append(parts, fmt.Sprintf("%.1f–%.1f: %d", float64(i)/float64(len(h)), float64(i+1)/float64(len(h)), n))
	}
	return strings.Join(parts, "  ")
}

// writeSlicePNG renders the section of the mesh by the plane normal to
// axis at the given position, coloured by ε and by pressure p0.
func writeSlicePNG(path string, p *format.PFM, axis, at string, size int) error {
	ax := strings.Index("xyz", strings.ToLower(axis))
	if len(axis) != 1 || ax < 0 {
		return usagef("--axis %q: want x, y or z", axis)
	}
	lo, hi := p.BBox[ax], p.BBox[3+ax]
	var c float64
	if f, err := strconv.ParseFloat(at, 64); err == nil {
		if f < 0 || f > 1 {
			return usagef("--at %s: a bare number is a fraction of the bounding box, in [0, 1]; give a coordinate with a unit (e.g. 3mm)", at)
		}
		c = lo + f*(hi-lo)
	} else {
		v, err := parseQuantity(strings.TrimPrefix(at, "-"), lengthUnits, "--at")
		if err != nil {
			return usageError{err}
		}
		if strings.HasPrefix(at, "-") {
			v = -v
		}
		c = v
	}
	pressure := make([]float64, len(p.Epsilon))
	for i, e := range p.Epsilon {
		pressure[i] = p.Pressure(e)
	}
	xy, eps, pr := sliceTets(p.Positions, p.Tets, ax, c, p.Epsilon, pressure)
	if len(eps) == 0 {
		return fmt.Errorf("--at %s: the plane %s = %.4g m misses the mesh (bounding box %.4g … %.4g m)", at, axis, c, lo, hi)
	}
	name := strings.ToUpper(axis)
	panels := []render.Panel{
		{Title: fmt.Sprintf("eps, %s = %.3g m", name, c), XY: xy, Values: eps, Min: 0, Max: 1},
		{Title: fmt.Sprintf("pressure, %s = %.3g m", name, c), XY: xy, Values: pr, Unit: "Pa"},
	}
	return atomicfile.Write(path, func(w io.Writer) error { return render.PNG(w, panels, render.Options{Size: size}) })
}

// sliceTets cuts every tet by the plane x[axis] = c. Each section is a
// triangle or a quadrilateral (fanned into two triangles); it returns the
// triangles' in-plane coordinates and the linearly interpolated values of
// the two per-vertex fields at their corners. Vertices on the plane count
// as above it, so a face lying in the plane is cut once, not twice.
func sliceTets(pos []float64, tets []int32, axis int, c float64, f, g []float64) (xy, fv, gv []float64) {
	u, v := (axis+1)%3, (axis+2)%3
	type pt struct{ x, y, f, g float64 }
	for t := 0; t < len(tets); t += 4 {
		var d [4]float64
		below := 0
		for k := 0; k < 4; k++ {
			d[k] = pos[3*tets[t+k]+int32(axis)] - c
			if d[k] < 0 {
				below++
			}
		}
		if below == 0 || below == 4 {
			continue
		}
		var poly [4]pt
		n := 0
		for _, e := range tetmesh.TetEdges {
			a, b := tets[t+e[0]], tets[t+e[1]]
			da, db := d[e[0]], d[e[1]]
			if (da < 0) == (db < 0) {
				continue
			}
			s := da / (da - db)
			lerp := func(arr []float64, stride, k int32) float64 {
				return arr[stride*a+k] + s*(arr[stride*b+k]-arr[stride*a+k])
			}
			poly[n] = pt{lerp(pos, 3, int32(u)), lerp(pos, 3, int32(v)), lerp(f, 1, 0), lerp(g, 1, 0)}
			n++
		}
		if n == 4 { // order the quadrilateral's corners around its centre
			cx, cy := (poly[0].x+poly[1].x+poly[2].x+poly[3].x)/4, (poly[0].y+poly[1].y+poly[2].y+poly[3].y)/4
			ang := func(q pt) float64 { return math.Atan2(q.y-cy, q.x-cx) }
			for i := 1; i < 4; i++ {
				for j := i; j > 0 && ang(poly[j]) < ang(poly[j-1]); j-- {
					poly[j], poly[j-1] = poly[j-1], poly[j]
				}
			}
		}
		for k := 1; k+1 < n; k++ {
			for _, q := range []pt{poly[0], poly[k], poly[k+1]} {
				xy = append(xy, q.x, q.y)
				fv = append(fv, q.f)
				gv = append(gv, q.g)
			}
		}
	}
	return xy, fv, gv
}
