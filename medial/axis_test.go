package medial

import (
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
)

func TestShrinkBall(t *testing.T) {
	plate, _ := newSolid(shapes.Plate(4, 1, 4), "plate")
	b := plate.shrinkBall(geom.Vec{2.1, 1.7, 0}, geom.Vec{0, 0, 1}, 10, 10)
	if b.r != 0.5 || b.c != (geom.Vec{2.1, 1.7, 0.5}) || b.sep != math.Pi {
		t.Errorf("plate: ball %+v, want radius 0.5 centred on the mid-plane, separation π", b)
	}
	// From a face of a cube near an edge: the ball touches the other face.
	cube, _ := newSolid(shapes.Box(1, 1, 1, 2), "cube")
	b = cube.shrinkBall(geom.Vec{0, 0.2, 0.6}, geom.Vec{1, 0, 0}, 0.1, 2)
	if math.Abs(b.r-0.2) > 1e-15 || geom.Dist2(b.c, geom.Vec{0.2, 0.2, 0.6}) > 1e-30 {
		t.Errorf("cube: ball %+v, want radius 0.2 at (0.2, 0.2, 0.6)", b)
	}
	// Contacts within 5% of the radius widen the right angle by at most
	// acos(1/1.05).
	if b.sep < math.Pi/2-1e-12 || b.sep > math.Pi/2+math.Acos(1/(1+contactTol))+1e-12 {
		t.Errorf("cube: separation %v, want π/2 up to the contact tolerance", b.sep)
	}
	// From a vertex of a faceted sphere: the ball of the sphere, not one
	// wedged between facets.
	s := shapes.Icosphere(1, 3)
	sphere, _ := newSolid(s, "sphere")
	v := geom.At(s.Positions, 17)
	b = sphere.shrinkBall(v, geom.Scale(-1, v), 4, 4)
	if b.r < 0.99 || b.r > 1.001 || geom.Norm(b.c) > 0.01 || b.sep < 3 {
		t.Errorf("sphere: ball %+v, want the unit ball", b)
	}
}

// kept returns the indices of the kept balls.
func kept(a *Axis) []int {
	var k []int
	for i, ok := range a.Kept {
		if ok {
			k = append(k, i)
		}
	}
	return k
}

func TestMedialAxisShapes(t *testing.T) {
	sheet := Options{}.withDefaults().SheetFraction
	tests := []struct {
		name string
		s    *format.Surface
		// where selects the kept balls to check; check returns what is
		// wrong with one.
		where func(c geom.Vec) bool
		check func(c geom.Vec, r, m, a float64) string
	}{
		{"sphere", shapes.Icosphere(1, 3), func(geom.Vec) bool { return true },
			func(c geom.Vec, r, m, a float64) string {
				if geom.Norm(c) > 0.02 || r < 0.98 || r > 1.01 || m < 2.95 || math.Abs(a-0.5) > 0.005 {
					return "want the unit ball at the centre, codimension 3, α = 1/2"
				}
				return ""
			}},
		{"cylinder", shapes.Cylinder(1, 6, 48, 12), func(c geom.Vec) bool { return c[2] > 1.5 && c[2] < 4.5 },
			func(c geom.Vec, r, m, a float64) string {
				if math.Hypot(c[0], c[1]) > 0.05 || r < 0.97 || r > 1.02 || math.Abs(m-2) > 0.05 || math.Abs(a-1/math.E) > 0.02 {
					return "want a ball of radius 1 on the axis, codimension 2, α = 1/e"
				}
				return ""
			}},
		{"torus", shapes.Torus(2, 0.5, 64, 24), func(geom.Vec) bool { return true },
			func(c geom.Vec, r, m, a float64) string {
				if math.Abs(math.Hypot(c[0], c[1])-2) > 0.02 || math.Abs(c[2]) > 0.02 || math.Abs(r-0.5) > 0.015 || math.Abs(m-2) > 0.25 {
					return "want a ball of radius 0.5 on the core circle, codimension 2"
				}
				return ""
			}},
		{"plate", shapes.Plate(6, 1, 6), func(c geom.Vec) bool { return min(c[0], c[1], 6-c[0], 6-c[1]) > 1.5 },
			func(c geom.Vec, r, m, a float64) string {
				if c[2] != 0.5 || r != 0.5 || m > 1.05 || a != sheet {
					return "want a ball of radius 1/2 on the mid-plane, codimension 1, the sheet fraction"
				}
				return ""
			}},
		// Fins 1.6 thick on an 8×8×8 block: the block's largest ball
		// (R = 4) reaches the fins, where λ = 0.8 < β·R*, so the λ rule
		// alone prunes them; their balls sit between opposite walls.
		{"finned block", finnedBlock(), func(c geom.Vec) bool { return c[1] > 9 && c[1] < 10.5 },
			func(c geom.Vec, r, m, a float64) string {
				if d := min(math.Abs(c[0]-1.6), math.Abs(c[0]-4), math.Abs(c[0]-6.4)); d > 0.02 || math.Abs(r-0.8) > 0.02 {
					return "want a ball of radius 0.8 on a fin's mid-plane"
				}
				return ""
			}},
		{"cube", shapes.Box(1, 1, 1, 3), func(geom.Vec) bool { return true },
			func(c geom.Vec, r, m, a float64) string {
				// Branches into edges and corners are pruned: the core the
				// kept balls make stays a quarter of the side below the
				// surface.
				if (1-a)*r < 0.24 {
					return "want the core at least 1/4 deep"
				}
				return ""
			}},
	}
	for _, tc := range tests {
		ax, err := MedialAxis(tc.s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, i := range kept(ax) {
			c := ax.Centre(i)
			if !tc.where(c) {
				continue
			}
			n++
			if msg := tc.check(c, ax.Radii[i], ax.Codim[i], ax.Alpha[i]); msg != "" {
				t.Errorf("%s: kept ball at %.4f radius %.4f codimension %.3f α %.3f: %s", tc.name, c, ax.Radii[i], ax.Codim[i], ax.Alpha[i], msg)
				break
			}
		}
		if n == 0 {
			t.Errorf("%s: no kept ball where expected", tc.name)
		}
	}
}

// finnedBlock is an 8×8×8 block with three fins 1.6 thick and 3 high on
// its top (y = 8), running the whole depth in z.
func finnedBlock() *format.Surface {
	poly := [][2]float64{{0, 0}, {8, 0}, {8, 8}}
	for _, x := range []float64{7.2, 4.8, 2.4} {
		poly = append(poly, [2]float64{x, 8}, [2]float64{x, 11}, [2]float64{x - 1.6, 11}, [2]float64{x - 1.6, 8})
	}
	return shapes.Extrude(append(poly, [2]float64{0, 8}), 8)
}

// TestMedialAxisNoise: radial noise of 1% on a sphere's vertices makes a
// medial branch towards every bump; the filter removes them all.
func TestMedialAxisNoise(t *testing.T) {
	s := shapes.Icosphere(1, 3)
	r := rand.New(rand.NewSource(4))
	for i := 0; i < len(s.Positions); i += 3 {
		f := 1 + 0.01*(2*r.Float64()-1)
		for k := range 3 {
			s.Positions[i+k] *= f
		}
	}
	ax, err := MedialAxis(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	small := 0
	for i, r := range ax.Radii {
		if r < 0.5 {
			small++
		}
		if ax.Kept[i] && (r < 0.9 || geom.Norm(ax.Centre(i)) > 0.1) {
			t.Errorf("kept ball at %v of radius %v: a noise branch", ax.Centre(i), r)
		}
	}
	if small == 0 {
		t.Error("no small balls: the noise made no branches to filter, the test proves nothing")
	}
}

// TestCoreFraction checks α against the radial field computed
// independently: u” + (m−1)/ρ·u' = 0 on [α, 1], u(α) = 1, u(1) = 0,
// solved by finite differences; the layer depth 1/|u'(1)| must be 1.
func TestCoreFraction(t *testing.T) {
	for _, m := range []float64{1.25, 1.5, 2, 2.5, 3} {
		a := coreFraction(m, 0)
		const n = 20000
		// Flux form: (ρ^(m−1) u')' = 0, so ρ^(m−1)·u' is constant and
		// u(α) − u(1) = q·∫ ρ^(1−m) dρ; the midpoint rule gives q.
		var integral float64
		d := (1 - a) / n
		for i := range n {
			rho := a + (float64(i)+0.5)*d
			integral += math.Pow(rho, 1-m) * d
		}
		if h := integral; math.Abs(h-1) > 1e-6 { // |u'(1)| = q = 1/∫, so h = ∫
			t.Errorf("m = %v: α = %v gives layer depth %v, want 1", m, a, h)
		}
	}
	if a := coreFraction(1, 0.1); a != 0.1 {
		t.Errorf("sheet: α %v, want the floor 0.1", a)
	}
}

func TestMedialDeterministic(t *testing.T) {
	s := shapes.Torus(2, 0.5, 32, 12)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref *Core
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		c, err := Build(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = c
			continue
		}
		if !slices.Equal(c.Points, ref.Points) || !slices.Equal(c.Surface.Positions, ref.Surface.Positions) ||
			!slices.Equal(c.Surface.Triangles, ref.Surface.Triangles) || !slices.Equal(c.Axis.Alpha, ref.Axis.Alpha) {
			t.Fatalf("GOMAXPROCS=%d gives a different core", procs)
		}
	}
}

// A thin shell faceted coarsely along its curve: each arc facet's sag
// tolerance (0.03) is three times the shell's thickness (0.01), so a ball
// grown from the outer face that let the inner face sag as well would
// pass through the shell and end centred outside it (as the propeller's
// thin blades and the hinge's balls did). The facets are parallel chords
// of concentric arcs, so the medial ball there has radius T·cos 10°/2;
// every ball the axis keeps is centred inside the shell.
func TestShrinkBallThinCurvedShell(t *testing.T) {
	const r, th, n, turn = 1.0, 0.01, 4, 80 * math.Pi / 180
	var poly [][2]float64
	for i := 0; i <= n; i++ { // outer arc, counterclockwise
		a := turn * float64(i) / n
		poly = append(poly, [2]float64{(r + th) * math.Cos(a), (r + th) * math.Sin(a)})
	}
	for i := n; i >= 0; i-- { // inner arc, back
		a := turn * float64(i) / n
		poly = append(poly, [2]float64{r * math.Cos(a), r * math.Sin(a)})
	}
	s := shapes.Extrude(poly, 0.3)
	o, err := newSolid(s, "shell")
	if err != nil {
		t.Fatal(err)
	}
	// The middle of the outer face's second facet, 0.15 up.
	a0, a1 := turn/n, 2*turn/n
	p0 := geom.Vec{(r + th) * math.Cos(a0), (r + th) * math.Sin(a0), 0.15}
	p1 := geom.Vec{(r + th) * math.Cos(a1), (r + th) * math.Sin(a1), 0.15}
	x := geom.Scale(0.5, geom.Add(p0, p1))
	m := geom.Scale(-1/geom.Norm(geom.Vec{x[0], x[1], 0}), geom.Vec{x[0], x[1], 0})
	b := o.shrinkBall(x, m, 0.1, o.diag())
	if want := th * math.Cos(turn/n/2) / 2; math.Abs(b.r-want) > 1e-12 {
		t.Errorf("ball from the outer face: radius %v, want %v", b.r, want)
	}
	ax, err := MedialAxis(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ax.NumBalls() {
		if d, _ := o.signedDistance(ax.Centre(i)); ax.Kept[i] && d < 0 {
			t.Fatalf("kept ball %d (radius %v) centred %v outside the shell", i, ax.Radii[i], -d)
		}
	}
}
