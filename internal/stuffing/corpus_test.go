package stuffing

import (
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/bvh"
	"github.com/pfmesh/pfmesh/internal/corpus"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/par"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
	"github.com/pfmesh/pfmesh/internal/winding"
)

var acceptance = flag.Bool("stuffing.acceptance", false,
	"mesh the corpus at the default tolerance (1e-3 of the diagonal) with a finer Monte Carlo volume; minutes, not seconds")

// windingVolume estimates the volume of {w > 1/2} of s by integrating
// along vertical lines, independently of Build's lattice and crossing
// counts: s is oriented as Build orients it (format.Clean, then
// keepUnions); at one jittered (x, y) in each cell of an n×n grid over
// the bounding box the input triangles the line crosses split it into
// segments, and w, evaluated by winding.Tree, counts a segment inside when
// it exceeds 1/2. On closed parts of the input w is constant along a
// segment (it changes only across the surface); where it varies (near
// holes) the midpoint and quarter points disagree and the segment is
// classified in 32 pieces. Outside the bounding box w ≤ 1/2 (the input
// subtends at most a half sphere there). It returns the estimate and a
// standard error from the differences between neighbouring lines.
func windingVolume(s *format.Surface, n int) (vol, stderr float64) {
	clean, _ := format.Clean(s, format.CleanOptions{})
	keepUnions(clean.Positions, clean.Triangles)
	pos, tris := clean.Positions, clean.Triangles
	lo := geom.Vec{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := geom.Scale(-1, lo)
	for i := 0; i < len(pos); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], pos[i+k]), max(hi[k], pos[i+k])
		}
	}
	tree := winding.New(pos, tris)
	boxes := bvh.Build(bvh.TriangleBoxes(pos, tris), 4)
	ext := geom.Sub(hi, lo)
	length := make([]float64, n*n)
	par.For(n, chunk, func(a, b int) {
		var zs []float64
		for i := a; i < b; i++ {
			r := rand.New(rand.NewPCG(uint64(i), 7))
			for j := 0; j < n; j++ {
				x := lo[0] + (float64(i)+r.Float64())*ext[0]/float64(n)
				y := lo[1] + (float64(j)+r.Float64())*ext[1]/float64(n)
				zs = append(zs[:0], lo[2])
				boxes.Query([6]float64{x, y, lo[2], x, y, hi[2]}, func(t int32) bool {
					if z, ok := verticalHit(pos, tris[3*t:3*t+3], x, y); ok {
						zs = append(zs, z)
					}
					return true
				})
				zs = append(zs, hi[2])
				slices.Sort(zs)
				in := func(z float64) bool { return tree.Inside(geom.Vec{x, y, z}) }
				for k := 1; k < len(zs); k++ {
					z0, z1 := zs[k-1], zs[k]
					if z1 == z0 {
						continue
					}
					h := z1 - z0
					m := in(z0 + h/2)
					if m == in(z0+h/4) && m == in(z0+3*h/4) {
						if m {
							length[i*n+j] += h
						}
						continue
					}
					for q := range 32 {
						if in(z0 + (float64(q)+0.5)*h/32) {
							length[i*n+j] += h / 32
						}
					}
				}
			}
		}
	})
	sum, diff2 := 0.0, 0.0
	for c, l := range length {
		sum += l
		if c%2 == 1 {
			diff2 += (l - length[c-1]) * (l - length[c-1])
		}
	}
	cell := ext[0] * ext[1] / float64(n*n)
	return sum * cell, math.Sqrt(diff2) * cell
}

// verticalHit returns the height at which the vertical line through
// (x, y) crosses triangle tri, if it does.
func verticalHit(pos []float64, tri []int32, x, y float64) (float64, bool) {
	a, b, c := geom.At(pos, tri[0]), geom.At(pos, tri[1]), geom.At(pos, tri[2])
	// Signed areas of the projections of the sub-triangles opposite each corner.
	area := func(p, q geom.Vec) float64 { return (p[0]-x)*(q[1]-y) - (p[1]-y)*(q[0]-x) }
	u, v, w := area(b, c), area(c, a), area(a, b)
	if !(u >= 0 && v >= 0 && w >= 0 || u <= 0 && v <= 0 && w <= 0) || u+v+w == 0 {
		return 0, false
	}
	return (u*a[2] + v*b[2] + w*c[2]) / (u + v + w), true
}

// corpusTolerance returns TestCorpus's tolerance relative to the bounding
// box diagonal and its number of reference lines per axis: 1e-2 in the
// plain run (every dirty model and most clean ones, within the CI
// budget; see longOnly),
// 4e-3 with PFMESH_LONG=1 (the measured table of docs/robust-meshing.md)
// and the default 1e-3 with -stuffing.acceptance.
func corpusTolerance() (rel float64, lines int) {
	switch {
	case *acceptance:
		return 1e-3, 200
	case os.Getenv("PFMESH_LONG") != "":
		return 4e-3, 100
	}
	return 1e-2, 100
}

// longOnly lists the corpus models the plain run leaves to PFMESH_LONG=1:
// clean CAD parts (sharp creases, covered in the plain run by the hinge,
// lever and buildplate) that cost the most CPU at 1e-2 (13–14 s each).
// Every dirty model stays in the plain run.
var longOnly = map[string]bool{"openscad_example001.stl": true, "stlmodels_gearwheel.bin.stl": true}

// Every corpus file, dirty ones included, builds, validates, keeps within
// its Hausdorff tolerance and has the volume of the input's winding-number
// solid within 1%.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus meshing is not short")
	}
	dir := corpus.Dir(t)
	rel, mc := corpusTolerance()
	for _, e := range corpus.Manifest(t, dir) {
		t.Run(e["file"], func(t *testing.T) {
			if longOnly[e["file"]] && !*acceptance && os.Getenv("PFMESH_LONG") == "" {
				t.Skip("clean CAD model: PFMESH_LONG=1 or -stuffing.acceptance meshes it")
			}
			t.Parallel() // Build's serial stages leave the second core idle
			s, err := format.ReadSurface(e.Path(dir), format.ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tol := rel * bboxDiagonal(s.Positions)
			m, rep, err := Build(s, Options{Tolerance: tol})
			if err != nil {
				t.Fatal(err)
			}
			if err := tetmesh.Validate(m); err != nil {
				t.Error(err)
			}
			if rep.HausdorffIn > tol || rep.HausdorffOut > tol {
				t.Errorf("Hausdorff in %.3g out %.3g, tolerance %.3g", rep.HausdorffIn, rep.HausdorffOut, tol)
			}
			want, se := windingVolume(s, mc)
			if d := math.Abs(rep.Volume - want); d > 0.01*want {
				t.Errorf("volume %.6g, winding-number volume %.6g ± %.2g: off by %.2f%%", rep.Volume, want, se, 100*d/want)
			}
			t.Logf("tets %d, rounds %d, Hausdorff %.2f/%.2f of tol, volume %+.3f%% (ref ±%.3f%%, gap %.2f%%), thinnest %.3g, min dihedral %.1f° (sharpest input crease %.1f°), snapped %d+%d, mended %d, crossings %d, notes %v",
				rep.Tets, rep.Rounds, rep.HausdorffIn/tol, rep.HausdorffOut/tol, 100*(rep.Volume-want)/want, 100*se/want, 100*rep.VolumeGap/rep.Volume,
				rep.ThinnestFeature, rep.MinDihedral, sharpestCrease(s), rep.SnappedToEdges, rep.SnappedToCorners, rep.Mended, rep.Crossings, rep.Notes)
		})
	}
}

// The reference itself: on closed polyhedra its estimate matches their
// exact volume, and an inside-out copy is oriented as Build orients it.
func TestWindingVolume(t *testing.T) {
	box := shapes.Box(1, 2, 3, 1)
	flipped := &format.Surface{Positions: box.Positions, Triangles: slices.Clone(box.Triangles)}
	for i := 0; i < len(flipped.Triangles); i += 3 {
		flipped.Triangles[i+1], flipped.Triangles[i+2] = flipped.Triangles[i+2], flipped.Triangles[i+1]
	}
	ring := union(shapes.Icosphere(1, 3), translate(shapes.Icosphere(1, 3), geom.Vec{3, 0, 0}))
	for _, c := range []struct {
		name string
		s    *format.Surface
		want float64
	}{
		{"box", box, 6},
		{"inside-out box", flipped, 6},
		{"two spheres", ring, 2 * shapes.Volume(shapes.Icosphere(1, 3))},
	} {
		got, se := windingVolume(c.s, 60)
		if d := math.Abs(got - c.want); d > 4*se+1e-9*c.want || se > 3e-3*c.want {
			t.Errorf("%s: %.6g ± %.2g, want %.6g", c.name, got, se, c.want)
		}
	}
}

// sharpestCrease returns the smallest interior dihedral angle (degrees)
// at a convex edge of s, oriented as Build orients it: where it is under
// 10° no tet there can reach 10° while the crease is kept.
func sharpestCrease(s *format.Surface) float64 {
	c, _ := format.Clean(s, format.CleanOptions{})
	type side struct{ tri, far int32 }
	edges := make(map[[2]int32][]side)
	for t := range int32(len(c.Triangles) / 3) {
		v := c.Triangles[3*t : 3*t+3]
		for k := range 3 {
			a, b := v[k], v[(k+1)%3]
			edges[[2]int32{min(a, b), max(a, b)}] = append(edges[[2]int32{min(a, b), max(a, b)}], side{t, v[(k+2)%3]})
		}
	}
	normal := func(t int32) geom.Vec {
		v := c.Triangles[3*t : 3*t+3]
		a, b, d := geom.At(c.Positions, v[0]), geom.At(c.Positions, v[1]), geom.At(c.Positions, v[2])
		n := geom.Cross(geom.Sub(b, a), geom.Sub(d, a))
		return geom.Scale(1/geom.Norm(n), n)
	}
	best := 180.0
	for e, s := range edges {
		if len(s) != 2 {
			continue
		}
		n1, n2 := normal(s[0].tri), normal(s[1].tri)
		if geom.Dot(n1, geom.Sub(geom.At(c.Positions, s[1].far), geom.At(c.Positions, e[0]))) >= 0 {
			continue // reflex or flat
		}
		if a := 180 - math.Acos(max(-1, min(1, geom.Dot(n1, n2))))*180/math.Pi; a < best {
			best = a
		}
	}
	return best
}

func TestSharpestCrease(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *format.Surface
		want float64
	}{
		{"box", shapes.Box(1, 2, 3, 2), 90},
		{"wedge 20°", shapes.Wedge(20, 1, 1), 20},
		{"L bracket (reflex edge ignored)", shapes.LBracket(2, 0.5, 1), 90},
	} {
		if got := sharpestCrease(c.s); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %.12g°, want %g°", c.name, got, c.want)
		}
	}
}
