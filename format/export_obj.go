package format

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteOBJ writes p's boundary surface as a Wavefront OBJ file: the
// vertices on it, in increasing index order, in metres, then one face per
// boundary triangle, counterclockwise seen from outside.
func WriteOBJ(w io.Writer, p *PFM) error {
	if err := p.validate(); err != nil {
		return err
	}
	id := make([]int32, p.NumVertices()) // 1-based OBJ index, 0 if not on the surface
	for _, v := range p.Boundary {
		id[v] = 1
	}
	n := int32(0)
	for v, used := range id {
		if used != 0 {
			n++
			id[v] = n
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "# pfmesh boundary surface: %d vertices, %d triangles, metres\n", n, p.NumBoundary())
	var line []byte
	for v, i := range id {
		if i == 0 {
			continue
		}
		line = append(line[:0], 'v')
		for _, x := range p.Positions[3*v : 3*v+3] {
			line = strconv.AppendFloat(append(line, ' '), x, 'g', -1, 64)
		}
		bw.Write(append(line, '\n'))
	}
	for t := 0; t < len(p.Boundary); t += 3 {
		line = append(line[:0], 'f')
		for _, v := range p.Boundary[t : t+3] {
			line = strconv.AppendInt(append(line, ' '), int64(id[v]), 10)
		}
		bw.Write(append(line, '\n'))
	}
	return bw.Flush()
}
