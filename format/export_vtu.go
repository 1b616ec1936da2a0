package format

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// WriteVTU writes p as a VTK XML unstructured grid (.vtu, file version
// 1.0) with its arrays in raw binary appended data — compact and fast for
// large meshes in ParaView: Points (Float64), connectivity, offsets (Int32)
// and types (UInt8, all 10 = VTK_TETRA) in the .pfm's positive
// orientation, and point data "extent" (ε), "pressure" (p0, Pa),
// "extent_gradient" (∇ε, 1/m) and "tag".
func WriteVTU(w io.Writer, p *PFM) error {
	if err := p.validate(); err != nil {
		return err
	}
	nv, nt := p.NumVertices(), p.NumTets()
	offsets := make([]int32, nt)
	for t := range offsets {
		offsets[t] = int32(4 * (t + 1))
	}
	types := make([]uint8, nt)
	for t := range types {
		types[t] = 10
	}
	type array struct {
		attrs string
		data  []byte
	}
	pointData := []array{
		{`type="Float64" Name="extent"`, pfmLEBytes(p.Epsilon)},
		{`type="Float64" Name="pressure"`, pfmLEBytes(exportPressures(p))},
		{`type="Float64" Name="extent_gradient" NumberOfComponents="3"`, pfmLEBytes(p.Gradient)},
		{`type="UInt8" Name="tag"`, p.Tags},
	}
	points := array{`type="Float64" Name="Points" NumberOfComponents="3"`, pfmLEBytes(p.Positions)}
	cells := []array{
		{`type="Int32" Name="connectivity"`, pfmLEBytes(p.Tets)},
		{`type="Int32" Name="offsets"`, pfmLEBytes(offsets)},
		{`type="UInt8" Name="types"`, types},
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	var off uint64
	decl := func(a array) {
		fmt.Fprintf(bw, "        <DataArray %s format=\"appended\" offset=\"%d\"/>\n", a.attrs, off)
		off += 8 + uint64(len(a.data)) // each block: a UInt64 byte count, then the bytes
	}
	fmt.Fprintf(bw, "<?xml version=\"1.0\"?>\n"+
		"<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"+
		"  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%d\" NumberOfCells=\"%d\">\n"+
		"      <PointData Scalars=\"extent\" Vectors=\"extent_gradient\">\n", nv, nt)
	for _, a := range pointData {
		decl(a)
	}
	bw.WriteString("      </PointData>\n      <Points>\n")
	decl(points)
	bw.WriteString("      </Points>\n      <Cells>\n")
	for _, a := range cells {
		decl(a)
	}
	bw.WriteString("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n  <AppendedData encoding=\"raw\">\n   _")
	for _, a := range append(append(pointData, points), cells...) {
		bw.Write(binary.LittleEndian.AppendUint64(nil, uint64(len(a.data))))
		bw.Write(a.data)
	}
	bw.WriteString("\n  </AppendedData>\n</VTKFile>\n")
	return bw.Flush()
}
