package laplace

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// fuzzMesh decodes a small mesh from arbitrary bytes: a vertex count, then
// per vertex three int8 coordinates and a tag, then tets as byte indices
// taken modulo the vertex count (out-of-range tags and degenerate or
// inverted tets are left for the functions under test to reject).
func fuzzMesh(data []byte) (*tetmesh.Mesh, []float64) {
	if len(data) < 1 {
		return nil, nil
	}
	nv := int(data[0]%16) + 1
	data = data[1:]
	if len(data) < 4*nv {
		return nil, nil
	}
	m := &tetmesh.Mesh{}
	eps := make([]float64, nv)
	for v := 0; v < nv; v++ {
		b := data[4*v : 4*v+4]
		m.Positions = append(m.Positions, float64(int8(b[0])), float64(int8(b[1])), float64(int8(b[2])))
		m.Tags = append(m.Tags, b[3]%4)
		eps[v] = float64(int8(b[3])) / 64
	}
	for _, b := range data[4*nv:] {
		m.Tets = append(m.Tets, int32(b)%int32(nv))
	}
	m.Tets = m.Tets[:len(m.Tets)/4*4]
	return m, eps
}

// Solve and Measure return an error or a well-formed result on any input,
// never panic.
func FuzzSolveMeasure(f *testing.F) {
	seed := []byte{8}
	for v := 0; v < 8; v++ {
		tag := byte(tetmesh.Boundary)
		if v == 7 {
			tag = byte(tetmesh.Core)
		}
		seed = append(seed, byte(v&1*10), byte(v>>1&1*10), byte(v>>2&1*10), tag)
	}
	seed = append(seed, 0, 1, 3, 7, 0, 3, 2, 7)
	f.Add(seed)
	f.Add(binary.LittleEndian.AppendUint32(nil, 0xdeadbeef))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, eps := fuzzMesh(data)
		if m == nil {
			return
		}
		if fld, err := Solve(m, Options{}); err == nil {
			if len(fld.Epsilon) != m.NumVertices() || len(fld.Gradient) != 3*m.NumVertices() {
				t.Fatalf("result sizes %d, %d for %d vertices", len(fld.Epsilon), len(fld.Gradient), m.NumVertices())
			}
			for v, e := range fld.Epsilon {
				if math.IsNaN(e) || math.IsInf(e, 0) {
					t.Fatalf("ε[%d] = %g", v, e)
				}
			}
		}
		if s, err := Measure(m.Positions, m.Tets, m.Tags, eps, nil, 3); err == nil {
			if math.IsNaN(s.FractionAboveHalf) || s.Volume <= 0 {
				t.Fatalf("stats %+v", s)
			}
		}
		if g, err := TetGradients(m.Positions, m.Tets, eps); err == nil && len(g) != 3*len(m.Tets)/4 {
			t.Fatalf("%d gradient components for %d tets", len(g), len(m.Tets)/4)
		}
	})
}
