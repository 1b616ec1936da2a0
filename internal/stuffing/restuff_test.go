package stuffing

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/shapes"
)

// Stuffing again only the runs of lattice tets on vertices whose warp was
// refused gives the draft a full stuffing gives, and checking only those
// runs finds the same inverted tets.
func TestRestuffLocal(t *testing.T) {
	s := shapes.Icosphere(1, 3)
	b, _, L, w, side := firstLattice(s, 1e-2)
	in := b.in
	cuts := findCuts(L, in, w, side)
	nL := len(L.keys)
	keep, changed := make([]bool, nL), make([]bool, nL)
	warp := warpVertices(L, cuts, keep)
	first, runs := stuff(L, in, side, cuts, warp, nil, nil)
	refuse := func(v int32) {
		if int(v) < nL && warp[v] >= 0 {
			keep[v], changed[v] = true, true
		}
	}
	for _, bad := range first.inverted() {
		for _, v := range first.tets[4*bad : 4*bad+4] {
			refuse(v)
		}
	}
	for v := range nL {
		if v%7 == 0 {
			refuse(int32(v))
		}
	}
	if !slices.Contains(changed, true) {
		t.Fatal("no warp refused: the test tests nothing")
	}
	warp = warpVertices(L, cuts, keep)
	got, _ := stuff(L, in, side, cuts, warp, runs, changed)
	want, _ := stuff(L, in, side, cuts, warp, nil, nil)
	if !slices.Equal(got.pos, want.pos) || !slices.Equal(got.tets, want.tets) || !slices.Equal(got.onTri, want.onTri) || !slices.Equal(got.lat, want.lat) {
		t.Fatalf("local restuffing: %d tets, full: %d (or positions/provenance differ)", len(got.tets)/4, len(want.tets)/4)
	}
	redone := 0
	for i := 0; i < len(got.recheck); i += 2 {
		redone += int(got.recheck[i+1] - got.recheck[i])
	}
	if nt := len(got.tets) / 4; redone == 0 || redone == nt {
		t.Fatalf("%d of %d tets stuffed again: the test tests nothing", redone, nt)
	}
	if a, b := got.inverted(), want.inverted(); !slices.Equal(a, b) {
		t.Errorf("checking the restuffed runs finds %d inverted tets, checking all %d", len(a), len(b))
	}
}

// inRanges against a brute-force scan, with empty and adjacent ranges.
func TestInRanges(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		var rs []int32
		at := int32(0)
		for range r.IntN(6) {
			lo := at + int32(r.IntN(3))
			hi := lo + int32(r.IntN(3))
			rs = append(rs, lo, hi)
			at = hi
		}
		for x := int32(0); x <= at+1; x++ {
			want := false
			for i := 0; i < len(rs); i += 2 {
				want = want || rs[i] <= x && x < rs[i+1]
			}
			if got := inRanges(rs, x); got != want {
				t.Fatalf("inRanges(%v, %d) = %v", rs, x, got)
			}
		}
	}
}
