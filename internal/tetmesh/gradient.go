package tetmesh

// VertexGradients returns ∇ε at every vertex (x, y, z each): the
// volume-weighted mean, over the tets around a vertex, of the constant
// gradient of ε's linear interpolant on each tet — the smoothed gradient
// the pressure field model stores at vertices. A vertex in no tet gets
// zero. Tets must be positively oriented.
//
// The .pfm readers recompute it for files without a gradient section, so
// the arithmetic is specified operation by operation in docs/pfm.md and
// every reader gets the same bits; the explicit float64 conversions keep
// Go from fusing multiply–adds, which would change them.
func VertexGradients(positions []float64, tets []int32, eps []float64) []float64 {
	nv := len(positions) / 3
	g := make([]float64, 3*nv) // Σ 6V·∇ε, then the mean
	w := make([]float64, nv)   // Σ 6V
	for t := 0; t+3 < len(tets); t += 4 {
		i0, i1, i2, i3 := tets[t], tets[t+1], tets[t+2], tets[t+3]
		p0 := positions[3*i0 : 3*i0+3]
		p1 := positions[3*i1 : 3*i1+3]
		p2 := positions[3*i2 : 3*i2+3]
		p3 := positions[3*i3 : 3*i3+3]
		ax, ay, az := p1[0]-p0[0], p1[1]-p0[1], p1[2]-p0[2]
		bx, by, bz := p2[0]-p0[0], p2[1]-p0[1], p2[2]-p0[2]
		cx, cy, cz := p3[0]-p0[0], p3[1]-p0[1], p3[2]-p0[2]
		d1, d2, d3 := eps[i1]-eps[i0], eps[i2]-eps[i0], eps[i3]-eps[i0]
		// b×c, c×a, a×b: 6V times the gradients of the barycentric
		// coordinates of vertices 1, 2, 3.
		bcx, bcy, bcz := float64(by*cz)-float64(bz*cy), float64(bz*cx)-float64(bx*cz), float64(bx*cy)-float64(by*cx)
		cax, cay, caz := float64(cy*az)-float64(cz*ay), float64(cz*ax)-float64(cx*az), float64(cx*ay)-float64(cy*ax)
		abx, aby, abz := float64(ay*bz)-float64(az*by), float64(az*bx)-float64(ax*bz), float64(ax*by)-float64(ay*bx)
		sx := float64(float64(d1*bcx)+float64(d2*cax)) + float64(d3*abx)
		sy := float64(float64(d1*bcy)+float64(d2*cay)) + float64(d3*aby)
		sz := float64(float64(d1*bcz)+float64(d2*caz)) + float64(d3*abz)
		vol6 := float64(float64(ax*bcx)+float64(ay*bcy)) + float64(az*bcz)
		for _, v := range tets[t : t+4] {
			g[3*v] += sx
			g[3*v+1] += sy
			g[3*v+2] += sz
			w[v] += vol6
		}
	}
	for v, wv := range w {
		if wv > 0 {
			g[3*v] /= wv
			g[3*v+1] /= wv
			g[3*v+2] /= wv
		}
	}
	return g
}
