// Package vtkio holds what the legacy ASCII VTK writers of format (meshes)
// and contact (contact surfaces) share.
package vtkio

import (
	"bufio"
	"strconv"
)

// Reals writes v, per values to a line, each in the shortest form that
// reads back to the same float64.
func Reals(bw *bufio.Writer, v []float64, per int) {
	var line []byte
	for i := 0; i < len(v); i += per {
		line = line[:0]
		for k, x := range v[i : i+per] {
			if k > 0 {
				line = append(line, ' ')
			}
			line = strconv.AppendFloat(line, x, 'g', -1, 64)
		}
		bw.Write(append(line, '\n'))
	}
}

// Cells writes the vertex indices idx, per to a cell, one cell a line in
// the legacy CELLS/POLYGONS form: the count per, then the indices.
func Cells(bw *bufio.Writer, idx []int32, per int) {
	var line []byte
	for i := 0; i < len(idx); i += per {
		line = strconv.AppendInt(line[:0], int64(per), 10)
		for _, v := range idx[i : i+per] {
			line = strconv.AppendInt(append(line, ' '), int64(v), 10)
		}
		bw.Write(append(line, '\n'))
	}
}
