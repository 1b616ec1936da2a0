package stuffing

import (
	"cmp"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/unionfind"
	"github.com/pfmesh/pfmesh/internal/winding"
)

// format.Clean turns every closed shell to enclose positive volume, except
// one it judges the wall of a cavity — from a single point of the shell
// inside another closed shell — which it turns inward. Two overlapping
// shells (a sphere half inside another) would then subtract instead of
// unite. keepUnions turns back outward every inward closed shell that
// does not lie wholly inside the others: some of its sampled vertices
// have w < 1/2 for the rest of the surface.
func keepUnions(pos []float64, tris []int32) (flipped int) {
	nt := len(tris) / 3
	type half struct{ a, b, t int32 }
	hs := make([]half, 0, 3*nt)
	for t := 0; t < nt; t++ {
		for k := 0; k < 3; k++ {
			a, b := tris[3*t+k], tris[3*t+(k+1)%3]
			hs = append(hs, half{min(a, b), max(a, b), int32(t)})
		}
	}
	slices.SortFunc(hs, func(x, y half) int { return cmp.Or(cmp.Compare(x.a, y.a), cmp.Compare(x.b, y.b)) })
	sets := unionfind.New(nt)
	open := make([]bool, nt) // triangle has an edge not shared by exactly two
	for i := 0; i < len(hs); {
		j := i
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			j++
		}
		if j-i == 2 {
			sets.Union(hs[i].t, hs[i+1].t)
		} else {
			for _, h := range hs[i:j] {
				open[h.t] = true
			}
		}
		i = j
	}
	comp := map[int32][]int32{}
	closed := map[int32]bool{}
	var roots []int32
	for t := int32(0); t < int32(nt); t++ {
		r := sets.Find(t)
		if _, ok := comp[r]; !ok {
			roots = append(roots, r)
			closed[r] = true
		}
		comp[r] = append(comp[r], t)
		closed[r] = closed[r] && !open[t]
	}
	if len(roots) < 2 {
		return 0
	}
	for _, r := range roots {
		ts := comp[r]
		if !closed[r] {
			continue
		}
		ref := geom.At(pos, tris[3*ts[0]])
		vol := 0.0
		for _, t := range ts {
			vol += geom.TetVolume(ref, geom.At(pos, tris[3*t]), geom.At(pos, tris[3*t+1]), geom.At(pos, tris[3*t+2]))
		}
		if vol >= 0 {
			continue
		}
		var rest []int32
		for t := int32(0); t < int32(nt); t++ {
			if sets.Find(t) != r {
				rest = append(rest, tris[3*t:3*t+3]...)
			}
		}
		w := winding.New(pos, rest)
		step := max(1, len(ts)/64)
		inside := true
		for i := 0; i < len(ts) && inside; i += step {
			t := ts[i]
			c := geom.Scale(1.0/3, geom.Add(geom.At(pos, tris[3*t]), geom.Add(geom.At(pos, tris[3*t+1]), geom.At(pos, tris[3*t+2]))))
			inside = w.Inside(c)
		}
		if !inside {
			for _, t := range ts {
				tris[3*t+1], tris[3*t+2] = tris[3*t+2], tris[3*t+1]
			}
			flipped++
		}
	}
	return flipped
}
