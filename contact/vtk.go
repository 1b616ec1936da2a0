package contact

import (
	"bufio"
	"fmt"
	"io"

	"github.com/pfmesh/pfmesh/internal/atomicfile"
	"github.com/pfmesh/pfmesh/internal/vtkio"
)

// WriteVTK writes the surface as a legacy ASCII VTK file (version 3.0,
// DATASET POLYDATA) that ParaView opens: POINTS in metres, the fan
// triangles as POLYGONS (n per n-gon, counterclockwise about the normal),
// point data SCALARS "pressure" (Pa) and cell data NORMALS "normal" (unit,
// from B into A). Reals are written in the shortest form that reads back
// to the same float64.
func WriteVTK(w io.Writer, s *Surface) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	tris := s.Triangles(nil)
	nv, nt := len(s.Vertices)/3, len(tris)/3
	fmt.Fprintf(bw, "# vtk DataFile Version 3.0\npfmesh contact surface\nASCII\nDATASET POLYDATA\nPOINTS %d double\n", nv)
	vtkio.Reals(bw, s.Vertices, 3)
	fmt.Fprintf(bw, "POLYGONS %d %d\n", nt, 4*nt)
	vtkio.Cells(bw, tris, 3)
	fmt.Fprintf(bw, "POINT_DATA %d\nSCALARS pressure double 1\nLOOKUP_TABLE default\n", nv)
	vtkio.Reals(bw, s.Pressure, 1)
	fmt.Fprintf(bw, "CELL_DATA %d\nNORMALS normal double\n", nt)
	for i := range s.NumPolygons() {
		for range s.Start[i+1] - 1 - s.Start[i] {
			vtkio.Reals(bw, s.Normals[3*i:3*i+3], 3)
		}
	}
	return bw.Flush()
}

// WriteVTKFile writes the surface to path as WriteVTK does, through
// internal/atomicfile, so path never holds a partial file.
func WriteVTKFile(path string, s *Surface) error {
	if err := atomicfile.Write(path, func(w io.Writer) error { return WriteVTK(w, s) }); err != nil {
		return fmt.Errorf("contact: write %w", err)
	}
	return nil
}
