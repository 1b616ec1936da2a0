package main

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/atomicfile"
	"github.com/urfave/cli/v2"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "convert a .pfm file to VTK, VTU or OBJ",
		ArgsUsage: "FILE.pfm",
		Description: `Writes the mesh in the format the output's extension names:
   .vtk  legacy ASCII VTK UNSTRUCTURED_GRID (tets, positively oriented) with point data
         extent (ε), extent_gradient, pressure and tag — opens in ParaView, loads in Drake as a
         compliant-hydroelastic mesh
   .vtu  VTK XML unstructured grid with raw binary appended data, for large meshes
   .obj  the boundary surface, outward-oriented

Examples:
   pfmesh export fixtures/icosphere.pfm -o icosphere.vtk
   pfmesh export fixtures/icosphere.pfm -o icosphere.vtu
   pfmesh export fixtures/icosphere.pfm -o boundary.obj`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "output file: .vtk, .vtu or .obj (required)"},
		},
		Action: runExport,
	}
}

var exporters = map[string]func(io.Writer, *format.PFM) error{
	".vtk": format.WriteVTK,
	".vtu": format.WriteVTU,
	".obj": format.WriteOBJ,
}

func runExport(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("export: want one .pfm file, got %d arguments", c.NArg())
	}
	out := c.String("output")
	if out == "" {
		return usagef("export: -o FILE is required (.vtk, .vtu or .obj)")
	}
	write, ok := exporters[strings.ToLower(filepath.Ext(out))]
	if !ok {
		return usagef("export: -o %s: the extension must be .vtk, .vtu or .obj", out)
	}
	p, err := format.ReadPFM(c.Args().First())
	if err != nil {
		return err
	}
	return atomicfile.Write(out, func(w io.Writer) error { return write(w, p) })
}
