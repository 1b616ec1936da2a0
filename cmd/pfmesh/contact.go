package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/pfmesh/pfmesh/contact"
	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/atomicfile"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/render"
	"github.com/urfave/cli/v2"
)

func contactCommand() *cli.Command {
	return &cli.Command{
		Name:      "contact",
		Usage:     "evaluate hydroelastic contact between two bodies at given poses",
		ArgsUsage: "A.pfm B",
		Description: `A is a compliant body (.pfm). B is another .pfm (compliant–compliant contact), a
closed surface file (a rigid body: STL, OBJ, OFF, PLY, in metres) or the word
halfspace (the rigid half-space z ≤ 0 of B's frame).

Poses are "x y z roll pitch yaw" in metres and radians (or "x y z"), placing each
body's frame in the world; velocities are "vx vy vz wx wy wz" (m/s, rad/s) of each
body's origin. Prints the wrench on A and on B about the world origin and about
the surface centroid, the contact area, and the largest and mean pressure.

Examples:
   pfmesh contact fixtures/icosphere.pfm halfspace --pose-a "0 0 0.9 0 0 0"
   pfmesh contact fixtures/icosphere.pfm fixtures/icosphere.pfm --pose-b "0 0 1.8 0 0 0" --json
   pfmesh contact fixtures/icosphere.pfm fixtures/cube.stl --pose-b "-0.5 -0.5 0.8 0 0 0" --velocity-b "0 0 -0.1 0 0 0" --surface contact.vtk --png contact.png`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "pose-a", Value: "0 0 0 0 0 0", Usage: "pose of A in the world: x y z roll pitch yaw"},
			&cli.StringFlag{Name: "pose-b", Value: "0 0 0 0 0 0", Usage: "pose of B in the world: x y z roll pitch yaw"},
			&cli.StringFlag{Name: "velocity-a", Value: "0 0 0 0 0 0", Usage: "velocity of A: vx vy vz wx wy wz"},
			&cli.StringFlag{Name: "velocity-b", Value: "0 0 0 0 0 0", Usage: "velocity of B: vx vy vz wx wy wz"},
			&cli.StringFlag{Name: "quadrature", Value: "3point", Usage: "3point (exact for the moment of a linear pressure) or centroid"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
			&cli.StringFlag{Name: "surface", Usage: "write the contact surface with its pressure to this .vtk file"},
			&cli.StringFlag{Name: "png", Usage: "write a pressure map of the contact surface, seen along its mean normal"},
		},
		Action: runContact,
	}
}

func runContact(c *cli.Context) error {
	if c.NArg() != 2 {
		return usagef("contact: want two bodies (A.pfm B), got %d arguments", c.NArg())
	}
	var cfg contact.Config
	var err error
	for _, f := range []struct {
		flag string
		dst  *contact.Pose
	}{{"pose-a", &cfg.X_WA}, {"pose-b", &cfg.X_WB}} {
		if *f.dst, err = contact.ParsePose(c.String(f.flag)); err != nil {
			return usagef("--%s: %v", f.flag, err)
		}
	}
	for _, f := range []struct {
		flag string
		dst  *contact.SpatialVelocity
	}{{"velocity-a", &cfg.V_WA}, {"velocity-b", &cfg.V_WB}} {
		if *f.dst, err = contact.ParseVelocity(c.String(f.flag)); err != nil {
			return usagef("--%s: %v", f.flag, err)
		}
	}
	var opts contact.Options
	switch q := c.String("quadrature"); q {
	case "3point":
		opts.Quadrature = contact.ThreePoint
	case "centroid":
		opts.Quadrature = contact.Centroid
	default:
		return usagef("--quadrature %q: want 3point or centroid", q)
	}
	a, err := loadCompliant(c.Args().Get(0))
	if err != nil {
		return err
	}
	b, err := loadBody(c.Args().Get(1), a)
	if err != nil {
		return err
	}
	res, err := contact.Evaluate(a, b, cfg, opts)
	if err != nil {
		return err
	}
	if out := c.String("surface"); out != "" {
		if err := atomicfile.Write(out, func(w io.Writer) error { return contact.WriteVTK(w, res.Surface) }); err != nil {
			return err
		}
	}
	if out := c.String("png"); out != "" {
		if err := writeContactPNG(out, res); err != nil {
			return err
		}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	writeContactText(c.App.Writer, res)
	return nil
}

func loadCompliant(path string) (*contact.Body, error) {
	p, err := format.ReadPFM(path)
	if err != nil {
		return nil, err
	}
	b, err := contact.FromPFM(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// loadBody reads body B: a .pfm, the word "halfspace", or a rigid surface.
// A rigid body takes its dissipation and friction from A's file.
func loadBody(arg string, a *contact.Body) (*contact.Body, error) {
	switch {
	case arg == "halfspace":
		return contact.NewHalfSpace(contact.Material{Dissipation: a.Material.Dissipation, Friction: a.Material.Friction})
	case strings.EqualFold(filepath.Ext(arg), ".pfm"):
		return loadCompliant(arg)
	}
	s, err := format.ReadSurface(arg, format.ReadOptions{})
	if err != nil {
		return nil, err
	}
	s, _ = format.Clean(s, format.CleanOptions{})
	b, err := contact.NewRigid(s.Positions, s.Triangles, contact.Material{Dissipation: a.Material.Dissipation, Friction: a.Material.Friction})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return b, nil
}

func writeContactText(w io.Writer, r *contact.Result) {
	if r.Polygons == 0 {
		fmt.Fprintln(w, "no contact")
		return
	}
	vec := func(v geom.Vec) string { return fmt.Sprintf("(%.6g, %.6g, %.6g)", v[0], v[1], v[2]) }
	fmt.Fprintf(w, "contact   %d polygons, area %.6g m², pressure max %s, mean %s\n", r.Polygons, r.Area, formatSI(r.MaxPressure, "Pa"), formatSI(r.MeanPressure, "Pa"))
	fmt.Fprintf(w, "surface   centroid %s m, mean normal (B into A) %s\n", vec(r.Centroid), vec(r.MeanNormal))
	fmt.Fprintf(w, "on A      force %s N, moment about the origin %s N·m, about the centroid %s N·m\n", vec(r.OnA.Force), vec(r.OnA.Torque), vec(r.OnAAtCentroid.Torque))
	fmt.Fprintf(w, "on B      force %s N, moment about the origin %s N·m, about the centroid %s N·m\n", vec(r.OnB.Force), vec(r.OnB.Torque), vec(r.OnBAtCentroid.Torque))
}

// writeContactPNG draws the contact surface's pressure seen along its mean
// normal: the fan triangles projected onto the plane through the centroid
// normal to it.
func writeContactPNG(path string, r *contact.Result) error {
	if r.Polygons == 0 {
		return fmt.Errorf("--png %s: no contact surface to draw", path)
	}
	n := r.MeanNormal
	// An in-plane basis (e1, e2) with e1 × e2 = n, so the view is from the
	// side n points to.
	helper := geom.Vec{1, 0, 0}
	if math.Abs(n[0]) > 0.9 {
		helper = geom.Vec{0, 1, 0}
	}
	e1 := geom.Cross(helper, n)
	e1 = geom.Scale(1/geom.Norm(e1), e1)
	e2 := geom.Cross(n, e1)
	s := r.Surface
	tris := s.Triangles(nil)
	xy := make([]float64, 0, 2*len(tris))
	vals := make([]float64, 0, len(tris))
	for _, v := range tris {
		d := geom.Sub(geom.At(s.Vertices, v), r.Centroid)
		xy = append(xy, geom.Dot(d, e1), geom.Dot(d, e2))
		vals = append(vals, s.Pressure[v])
	}
	panel := render.Panel{Title: "contact pressure", XY: xy, Values: vals, Unit: "Pa"}
	return atomicfile.Write(path, func(w io.Writer) error { return render.PNG(w, []render.Panel{panel}, render.Options{}) })
}
