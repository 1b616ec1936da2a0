package tetmesh

import (
	"fmt"
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// The sines agree with the sines of Dihedral's angles, which are known
// in closed form for the regular and the corner tet.
func TestDihedralSines(t *testing.T) {
	regular := math.Sqrt(8.0 / 9) // sin(acos(1/3))
	for _, tc := range []struct {
		name       string
		a, b, c, d geom.Vec
		want       [6]float64
	}{
		{"regular", geom.Vec{1, 1, 1}, geom.Vec{1, -1, -1}, geom.Vec{-1, 1, -1}, geom.Vec{-1, -1, 1},
			[6]float64{regular, regular, regular, regular, regular, regular}},
		// Right angles at the three edges through the origin, acos(1/√3)
		// (sine √(2/3)) at the three of the far face.
		{"corner", geom.Vec{}, geom.Vec{1, 0, 0}, geom.Vec{0, 1, 0}, geom.Vec{0, 0, 1},
			[6]float64{1, 1, 1, math.Sqrt(2.0 / 3), math.Sqrt(2.0 / 3), math.Sqrt(2.0 / 3)}},
		{"flat", geom.Vec{}, geom.Vec{1, 0, 0}, geom.Vec{0, 1, 0}, geom.Vec{1, 1, 0}, [6]float64{}},
	} {
		got := DihedralSines(tc.a, tc.b, tc.c, tc.d)
		ang := Dihedral(tc.a, tc.b, tc.c, tc.d)
		for i := range got {
			if math.Abs(got[i]-tc.want[i]) > 1e-12 || math.Abs(got[i]-math.Sin(ang[i])) > 1e-12 {
				t.Errorf("%s: sine %d = %.15g, want %.15g (sin of Dihedral %.15g)", tc.name, i, got[i], tc.want[i], math.Sin(ang[i]))
			}
		}
	}
}

// sineTets returns n random tets, some of them near flat (slivers, caps,
// needles: a vertex pulled near the plane or the line of others, or onto
// another), and some exactly degenerate.
func sineTets(n int) [][4]geom.Vec {
	r := uint64(7)
	rnd := func() float64 {
		r = r*6364136223846793005 + 1442695040888963407
		return float64(r>>11)/(1<<53)*2 - 1
	}
	tets := make([][4]geom.Vec, n)
	for i := range tets {
		var p [4]geom.Vec
		for j := range p {
			p[j] = geom.Vec{rnd(), rnd(), rnd()}
		}
		e := math.Pow(10, -1-14*(rnd()+1)/2) // 1e-1 … 1e-15
		switch i % 6 {
		case 1: // sliver or cap: d near the plane of abc
			w := [3]float64{rnd(), rnd(), rnd()}
			for ax := range 3 {
				p[3][ax] = p[0][ax] + w[0]*(p[1][ax]-p[0][ax]) + w[1]*(p[2][ax]-p[0][ax]) + e*w[2]
			}
		case 2: // needle or wedge: c near the line ab
			w := rnd()
			for ax := range 3 {
				p[2][ax] = p[0][ax] + w*(p[1][ax]-p[0][ax]) + e*rnd()
			}
		case 3: // exactly flat
			p[3] = geom.Add(p[0], geom.Sub(p[2], p[1]))
		case 4: // two vertices at one point
			p[1] = p[0]
		}
		tets[i] = p
	}
	return tets
}

// DihedralSineGrads gives DihedralSines' bits, and leaves out a tet,
// writing nothing, exactly when all of them are above the limit, on
// random and near-degenerate tets; its gradients match central
// differences of DihedralSines to a part in 10⁶ where those are that
// accurate: on tets with every sine at least 0.1, by steps of 1e-6 of
// an edge (a gradient 1e-5 off fails).
func TestDihedralSineGrads(t *testing.T) {
	checked := 0
	for i, p := range sineTets(200000) {
		k := i % 4
		for _, limit := range []float64{0, 0.2, 0.5, 0.9, 1} {
			out := [6]SineGrad{{F: math.NaN()}}
			ok := DihedralSineGrads(&out, &p, k, limit)
			want := DihedralSines(p[0], p[1], p[2], p[3])
			if keep := min(want[0], want[1], want[2], want[3], want[4], want[5]) <= limit; ok != keep {
				t.Fatalf("tet %d %v, limit %g: ok %v, sines %v", i, p, limit, ok, want)
			}
			if !ok {
				if !math.IsNaN(out[0].F) || out[1] != (SineGrad{}) {
					t.Fatalf("tet %d %v, limit %g: left out but written: %v", i, p, limit, out)
				}
				continue
			}
			for j := range want {
				if out[j].F != want[j] {
					t.Fatalf("tet %d %v: sine %d %v, want %v", i, p, j, out[j].F, want[j])
				}
			}
		}
		var out [6]SineGrad
		if !DihedralSineGrads(&out, &p, k, 1) || min(out[0].F, out[1].F, out[2].F, out[3].F, out[4].F, out[5].F) < 0.1 {
			continue
		}
		size := geom.Norm(geom.Sub(p[0], p[1]))
		h := 1e-6 * size
		for ax := range 3 {
			up, down := p, p
			up[k][ax] += h
			down[k][ax] -= h
			su, sd := DihedralSines(up[0], up[1], up[2], up[3]), DihedralSines(down[0], down[1], down[2], down[3])
			for j := range su {
				d := (su[j] - sd[j]) / (2 * h)
				if math.Abs(out[j].G[ax]-d) > 1e-6*(math.Abs(d)+1/size) {
					t.Fatalf("tet %d %v, vertex %d axis %d, sine %d: gradient %v, central difference %v", i, p, k, ax, j, out[j].G[ax], d)
				}
			}
		}
		checked++
	}
	if checked < 40000 {
		t.Errorf("only %d tets checked against differences", checked)
	}
}

// BenchmarkDihedralSineGrads measures 4096 random and near-degenerate
// tets at two limits: 1, where each gets its gradients, as the tets in
// an ascent's window do, and 0.2, where most are ruled out early.
func BenchmarkDihedralSineGrads(b *testing.B) {
	tets := sineTets(4096)
	for _, limit := range []float64{1, 0.2} {
		b.Run(fmt.Sprint("limit=", limit), func(b *testing.B) {
			var out [6]SineGrad
			for b.Loop() {
				for i := range tets {
					DihedralSineGrads(&out, &tets[i], i%4, limit)
				}
			}
		})
	}
}
