package contact

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

// Test meshes are built here, independently of the mesher: structured
// grids (Kuhn split of cubes into six tets, conforming) and spheres of
// concentric icosphere shells.

// tetMesh is a tet mesh in flat arrays.
type tetMesh struct {
	pos  []float64
	tets []int32
}

// orient swaps two vertices of every negatively oriented tet.
func (m *tetMesh) orient() {
	for t := 0; t < len(m.tets); t += 4 {
		a, b, c, d := geom.At(m.pos, m.tets[t]), geom.At(m.pos, m.tets[t+1]), geom.At(m.pos, m.tets[t+2]), geom.At(m.pos, m.tets[t+3])
		if geom.Orient3D(a, b, c, d) < 0 {
			m.tets[t+2], m.tets[t+3] = m.tets[t+3], m.tets[t+2]
		}
	}
}

// field returns f at every vertex.
func (m *tetMesh) field(f func(geom.Vec) float64) []float64 {
	out := make([]float64, len(m.pos)/3)
	for i := range out {
		out[i] = f(geom.At(m.pos, int32(i)))
	}
	return out
}

// grid returns the box lo + [0,size] meshed with n[0]×n[1]×n[2] cubes (of
// any aspect), keeping the cells for which keep(i, j, k) is true (all if
// keep is nil).
func grid(lo, size geom.Vec, n [3]int, keep func(i, j, k int) bool) *tetMesh {
	m := &tetMesh{}
	idx := func(i, j, k int) int32 { return int32((k*(n[1]+1)+j)*(n[0]+1) + i) }
	for k := 0; k <= n[2]; k++ {
		for j := 0; j <= n[1]; j++ {
			for i := 0; i <= n[0]; i++ {
				m.pos = append(m.pos,
					lo[0]+size[0]*float64(i)/float64(n[0]),
					lo[1]+size[1]*float64(j)/float64(n[1]),
					lo[2]+size[2]*float64(k)/float64(n[2]))
			}
		}
	}
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				if keep != nil && !keep(i, j, k) {
					continue
				}
				for _, p := range perms {
					c := [3]int{i, j, k}
					t := []int32{idx(c[0], c[1], c[2])}
					for _, ax := range p {
						c[ax]++
						t = append(t, idx(c[0], c[1], c[2]))
					}
					m.tets = append(m.tets, t...)
				}
			}
		}
	}
	m.orient()
	return m
}

// sphere returns a ball of radius r: icosphere shells at radii r·s/shells
// (s = 1 … shells) of the given level, joined prism by prism (three tets
// each, split by vertex index so neighbours agree) and to a centre vertex.
func sphere(r float64, level, shells int) *tetMesh {
	ico := shapes.Icosphere(1, level)
	nv := int32(len(ico.Positions) / 3)
	m := &tetMesh{pos: []float64{0, 0, 0}}
	for s := 1; s <= shells; s++ {
		f := r * float64(s) / float64(shells)
		for _, x := range ico.Positions {
			m.pos = append(m.pos, f*x)
		}
	}
	v := func(s int, i int32) int32 { return 1 + int32(s-1)*nv + i }
	for t := 0; t < len(ico.Triangles); t += 3 {
		tri := [3]int32{ico.Triangles[t], ico.Triangles[t+1], ico.Triangles[t+2]}
		m.tets = append(m.tets, 0, v(1, tri[0]), v(1, tri[1]), v(1, tri[2]))
		// Sort so the prism split depends only on vertex indices.
		if tri[0] > tri[1] {
			tri[0], tri[1] = tri[1], tri[0]
		}
		if tri[1] > tri[2] {
			tri[1], tri[2] = tri[2], tri[1]
		}
		if tri[0] > tri[1] {
			tri[0], tri[1] = tri[1], tri[0]
		}
		for s := 1; s < shells; s++ {
			a, b, c := v(s, tri[0]), v(s, tri[1]), v(s, tri[2])
			a1, b1, c1 := v(s+1, tri[0]), v(s+1, tri[1]), v(s+1, tri[2])
			m.tets = append(m.tets, a, b, c, c1, a, b, b1, c1, a, a1, b1, c1)
		}
	}
	m.orient()
	return m
}

// sphereBody is a compliant sphere of radius r with ε = 1 − |x|/r.
func sphereBody(tb testing.TB, r float64, level, shells int, mat Material) *Body {
	tb.Helper()
	m := sphere(r, level, shells)
	b, err := NewCompliant(m.pos, m.tets, m.field(func(x geom.Vec) float64 { return math.Max(1-geom.Norm(x)/r, 0) }), mat)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// rigidBox is a rigid box [lo, lo+size] with faces split n×n.
func rigidBox(tb testing.TB, lo, size geom.Vec, n int, mat Material) *Body {
	tb.Helper()
	s := shapes.Box(size[0], size[1], size[2], n)
	pos := append([]float64(nil), s.Positions...)
	for i := range pos {
		pos[i] += lo[i%3]
	}
	b, err := NewRigid(pos, s.Triangles, mat)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustHalfSpace(tb testing.TB, mat Material) *Body {
	tb.Helper()
	b, err := NewHalfSpace(mat)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustEval(tb testing.TB, e *Evaluator, a, b *Body, c Config) *Result {
	tb.Helper()
	r, err := e.Evaluate(a, b, c)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// static returns a Config with the given poses and no motion.
func static(XWA, XWB Pose) Config { return Config{X_WA: XWA, X_WB: XWB} }

func relErr(got, want float64) float64 {
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

func vecErr(got, want geom.Vec) float64 { return geom.Norm(geom.Sub(got, want)) }

// Every test mesh must be positively oriented and conforming; the sphere's
// volume must approach 4πr³/3 from below.
func TestTestMeshes(t *testing.T) {
	g := grid(geom.Vec{0, 0, 0}, geom.Vec{2, 3, 4}, [3]int{2, 3, 5}, nil)
	var vol float64
	for i := 0; i < len(g.tets); i += 4 {
		v := geom.TetVolume(geom.At(g.pos, g.tets[i]), geom.At(g.pos, g.tets[i+1]), geom.At(g.pos, g.tets[i+2]), geom.At(g.pos, g.tets[i+3]))
		if v <= 0 {
			t.Fatalf("grid tet %d has volume %g", i/4, v)
		}
		vol += v
	}
	if relErr(vol, 24) > 1e-12 {
		t.Fatalf("grid volume %g, want 24", vol)
	}
	s := sphere(2, 2, 3)
	vol = 0
	for i := 0; i < len(s.tets); i += 4 {
		v := geom.TetVolume(geom.At(s.pos, s.tets[i]), geom.At(s.pos, s.tets[i+1]), geom.At(s.pos, s.tets[i+2]), geom.At(s.pos, s.tets[i+3]))
		if v <= 0 {
			t.Fatalf("sphere tet %d has volume %g", i/4, v)
		}
		vol += v
	}
	if want := 4 * math.Pi * 8 / 3; vol > want || vol < 0.95*want {
		t.Fatalf("sphere volume %g, want a little under %g", vol, want)
	}
}
