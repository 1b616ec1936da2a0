package stuffing

import (
	"math/rand/v2"
	"testing"

	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// vectorCosRange is cosRange in vector operations, the form it had before
// it was written out in scalars.
func vectorCosRange(a, b, c, d geom.Vec) (lo, hi float64) {
	p := [4]geom.Vec{a, b, c, d}
	var n [4]geom.Vec
	var l [4]float64
	for k, f := range tetmesh.TetFaces {
		n[k] = geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
		l[k] = geom.Norm(n[k])
		if l[k] == 0 {
			return 2, 2
		}
	}
	lo, hi = 1, -1
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			c := -geom.Dot(n[i], n[j]) / (l[i] * l[j])
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	return lo, hi
}

// A star evaluates each tet as maxCosDihedral does, bit for bit, whichever
// corner is its centre, and both as the vector form: on random tets of
// both orientations, flat ones and ones with the centre on the opposite
// face's plane; and worst is the largest of them, or exceeds the bound it
// stopped at.
func TestStarCos(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pt := func() geom.Vec { return geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()} }
	positive, inverted := 0, 0
	for i := range 5000 {
		q := [4]geom.Vec{pt(), pt(), pt(), pt()}
		if i%5 == 0 { // flat: the last corner on the plane of the first three
			s, r := rng.Float64(), rng.Float64()
			q[3] = geom.Add(q[0], geom.Add(geom.Scale(s, geom.Sub(q[1], q[0])), geom.Scale(r, geom.Sub(q[2], q[0]))))
		}
		st := &star{}
		for s := range 4 {
			st.add(q, s)
		}
		worst := -1.0
		for s := range 4 {
			want := maxCosDihedral(q[0], q[1], q[2], q[3])
			if lo, hi := vectorCosRange(q[0], q[1], q[2], q[3]); fptest.Fused() {
				// The vector form may round differently.
			} else if want <= 1 && hi != want {
				t.Fatalf("tet %v: largest cosine %v, want %v", q, want, hi)
			} else if glo, ghi := cosRange(q[0], q[1], q[2], q[3]); glo != lo || ghi != hi {
				t.Fatalf("tet %v: cosRange %v, %v, want %v, %v", q, glo, ghi, lo, hi)
			}
			if got := st.cos(s, q[s]); got != want {
				t.Fatalf("tet %v, centre %d: cos %v, want %v", q, s, got, want)
			}
			worst = max(worst, want)
			if want > 1 {
				inverted++
			} else {
				positive++
			}
		}
		p := pt() // every tet's centre moved to p
		want := -1.0
		for s := range 4 {
			r := q
			r[s] = p
			want = max(want, maxCosDihedral(r[0], r[1], r[2], r[3]))
		}
		if got := st.worst(p, 3); got != want {
			t.Fatalf("worst at %v: %v, want %v", p, got, want)
		}
		if got := st.worst(p, want-0.5); got <= want-0.5 {
			t.Fatalf("worst at %v under bound %v: %v", p, want-0.5, got)
		}
	}
	if positive == 0 || inverted == 0 {
		t.Errorf("%d positive, %d not: a case not exercised", positive, inverted)
	}
}
