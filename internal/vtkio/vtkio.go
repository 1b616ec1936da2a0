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
