package format

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Export writes p to path in the format its extension names — ".vtk"
// (WriteVTK), ".vtu" (WriteVTU) or ".obj" (WriteOBJ) — through a temporary
// file renamed into place.
func Export(path string, p *PFM) error {
	var write func(io.Writer, *PFM) error
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".vtk":
		write = WriteVTK
	case ".vtu":
		write = WriteVTU
	case ".obj":
		write = WriteOBJ
	default:
		return fmt.Errorf("export %s: unknown extension %q: want .vtk, .vtu or .obj", path, ext)
	}
	return WriteAtomic(path, func(w io.Writer) error { return write(w, p) })
}

// exportPressures returns p0 at every vertex.
func exportPressures(p *PFM) []float64 {
	out := make([]float64, len(p.Epsilon))
	for i, e := range p.Epsilon {
		out[i] = p.Pressure(e)
	}
	return out
}
