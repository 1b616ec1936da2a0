package contact

import "github.com/pfmesh/pfmesh/internal/geom"

// Surface is a contact surface in world coordinates: convex polygons, each
// stored with its own vertices followed by its area centroid, the fan
// centre of its triangles.
type Surface struct {
	// Vertices holds x, y, z per vertex. Polygon i owns vertices
	// Start[i] … Start[i+1]−1, counterclockwise about its normal, the last
	// one being its centroid.
	Vertices []float64
	// Pressure is the normal pressure p (static pressure with damping) at
	// each vertex, Pa.
	Pressure []float64
	// Start has NumPolygons()+1 entries.
	Start []int32
	// Normals holds the unit normal of each polygon, pointing from B into A.
	Normals []float64
	// Areas holds each polygon's area, m².
	Areas []float64
	// ElementA and ElementB name, per polygon, the tet of A and the tet or
	// triangle of B it came from (−1 for a half-space).
	ElementA, ElementB []int32
}

// NumPolygons returns the number of polygons.
func (s *Surface) NumPolygons() int { return max(len(s.Start)-1, 0) }

// Triangles appends to dst the fan triangles of every polygon as vertex
// index triples (centroid, v_k, v_k+1), counterclockwise about the
// polygon's normal, and returns it: n triangles for an n-gon.
func (s *Surface) Triangles(dst []int32) []int32 {
	for i := range s.NumPolygons() {
		first, c := s.Start[i], s.Start[i+1]-1
		for k := first; k < c; k++ {
			next := k + 1
			if next == c {
				next = first
			}
			dst = append(dst, c, k, next)
		}
	}
	return dst
}

func (s *Surface) reset() {
	s.Vertices = s.Vertices[:0]
	s.Pressure = s.Pressure[:0]
	s.Start = append(s.Start[:0], 0)
	s.Normals = s.Normals[:0]
	s.Areas = s.Areas[:0]
	s.ElementA = s.ElementA[:0]
	s.ElementB = s.ElementB[:0]
}

// vertex returns vertex i.
func (s *Surface) vertex(i int32) geom.Vec { return geom.At(s.Vertices, i) }

// flip turns the surface's orientation over: normals negated, each
// polygon's vertex order reversed, and the element names swapped, for when
// the bodies were evaluated in the other order.
func (s *Surface) flip() {
	for i := range s.Normals {
		s.Normals[i] = -s.Normals[i]
	}
	for i := range s.NumPolygons() {
		lo, hi := int(s.Start[i]), int(s.Start[i+1])-2
		for ; lo < hi; lo, hi = lo+1, hi-1 {
			for k := range 3 {
				s.Vertices[3*lo+k], s.Vertices[3*hi+k] = s.Vertices[3*hi+k], s.Vertices[3*lo+k]
			}
			s.Pressure[lo], s.Pressure[hi] = s.Pressure[hi], s.Pressure[lo]
		}
	}
	s.ElementA, s.ElementB = s.ElementB, s.ElementA
}
