package format

// Surface is an indexed triangle surface. Lengths are in metres.
type Surface struct {
	Positions []float64 // x, y, z per vertex
	Triangles []int32   // three vertex indices per triangle
}

// NumVertices returns the number of vertices.
func (s *Surface) NumVertices() int { return len(s.Positions) / 3 }

// NumTriangles returns the number of triangles.
func (s *Surface) NumTriangles() int { return len(s.Triangles) / 3 }
