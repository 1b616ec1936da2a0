package bvh

// TriangleBoxes returns the bounding boxes (min xyz, max xyz; six values
// per triangle) of the triangles (three vertex indices each) over
// positions (xyz per vertex), the input Build takes for a triangle tree.
func TriangleBoxes(positions []float64, triangles []int32) []float64 {
	n := len(triangles) / 3
	boxes := make([]float64, 6*n)
	for t := range n {
		b := boxes[6*t : 6*t+6 : 6*t+6]
		a := 3 * int(triangles[3*t])
		b[0], b[1], b[2] = positions[a], positions[a+1], positions[a+2]
		b[3], b[4], b[5] = b[0], b[1], b[2]
		for j := 1; j < 3; j++ {
			v := 3 * int(triangles[3*t+j])
			for k := range 3 {
				x := positions[v+k]
				b[k], b[3+k] = min(b[k], x), max(b[3+k], x)
			}
		}
	}
	return boxes
}
