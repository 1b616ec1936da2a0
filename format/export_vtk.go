package format

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/vtkio"
)

// WriteVTK writes p as a legacy ASCII VTK file (version 3.0, DATASET
// UNSTRUCTURED_GRID) that ParaView opens and Drake's ReadVtkToVolumeMesh
// accepts: POINTS in metres, one CELLS entry and cell type 10 (VTK_TETRA)
// per tet in the .pfm's positive orientation, and point data: SCALARS
// "extent" (ε), VECTORS "extent_gradient" (∇ε, 1/m) and FIELD arrays
// "pressure" (p0, Pa) and "tag". Reals are written in the shortest form
// that reads back to the same float64.
//
// Drake refuses a tet whose volume, computed in floating point as
// (v3−v0)·((v1−v0)×(v2−v0))/6, is not positive; the .pfm guarantees the
// exact sign, so WriteVTK checks the rounded one too and returns an error
// rather than a file Drake would refuse. Like WriteVTU and WriteOBJ, it
// refuses a p that fails Validate (ReadPFM's results pass).
func WriteVTK(w io.Writer, p *PFM) error {
	if err := p.validate(); err != nil {
		return err
	}
	for t := 0; t < p.NumTets(); t++ {
		if v := drakeTetVolume(p.Positions, p.Tets[4*t:4*t+4]); !(v > 0) {
			return fmt.Errorf("%w: tet %d: positive, but its floating-point volume %g is not, and Drake would refuse it", ErrPFMInvalid, t, v)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	nv, nt := p.NumVertices(), p.NumTets()
	fmt.Fprintf(bw, "# vtk DataFile Version 3.0\npfmesh pressure-field mesh, E = %g Pa\nASCII\nDATASET UNSTRUCTURED_GRID\n", p.Modulus)
	fmt.Fprintf(bw, "POINTS %d double\n", nv)
	vtkio.Reals(bw, p.Positions, 3)
	fmt.Fprintf(bw, "CELLS %d %d\n", nt, 5*nt)
	vtkio.Cells(bw, p.Tets, 4)
	fmt.Fprintf(bw, "CELL_TYPES %d\n", nt)
	for range nt {
		bw.WriteString("10\n")
	}
	// VTK's legacy reader takes only the first SCALARS and VECTORS unless
	// told otherwise (ParaView tells it; plain VTK, as in Drake, does
	// not), but always every FIELD array.
	fmt.Fprintf(bw, "POINT_DATA %d\nSCALARS extent double 1\nLOOKUP_TABLE default\n", nv)
	vtkio.Reals(bw, p.Epsilon, 1)
	bw.WriteString("VECTORS extent_gradient double\n")
	vtkio.Reals(bw, p.Gradient, 3)
	fmt.Fprintf(bw, "FIELD FieldData 2\npressure 1 %d double\n", nv)
	vtkio.Reals(bw, exportPressures(p), 1)
	fmt.Fprintf(bw, "tag 1 %d int\n", nv)
	var line []byte
	for _, tag := range p.Tags {
		line = append(strconv.AppendInt(line[:0], int64(tag), 10), '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// drakeTetVolume is the tet's volume as Drake's VolumeMesh computes it,
// operation by operation (the conversions stop Go fusing multiply–adds).
func drakeTetVolume(pos []float64, tet []int32) float64 {
	a, b, c, d := geom.At(pos, tet[0]), geom.At(pos, tet[1]), geom.At(pos, tet[2]), geom.At(pos, tet[3])
	u, v, w := geom.Sub(b, a), geom.Sub(c, a), geom.Sub(d, a)
	x := float64(u[1]*v[2]) - float64(u[2]*v[1])
	y := float64(u[2]*v[0]) - float64(u[0]*v[2])
	z := float64(u[0]*v[1]) - float64(u[1]*v[0])
	return (float64(float64(w[0]*x)+float64(w[1]*y)) + float64(w[2]*z)) / 6
}
