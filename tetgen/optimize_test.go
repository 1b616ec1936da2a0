package tetgen

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/fptest"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// testTets returns n random tets, flatter and flatter in z (heights 1 to
// 1e−5), every 40th with a repeated vertex (flat: sine 0).
func testTets(n int) [][4]geom.Vec {
	rng := rand.New(rand.NewPCG(7, 8))
	point := func(h float64) geom.Vec { return geom.Vec{rng.Float64(), rng.Float64(), h * rng.Float64()} }
	out := make([][4]geom.Vec, n)
	for i := range out {
		h := math.Pow(10, -float64(i%6))
		out[i] = [4]geom.Vec{point(h), point(h), point(h), point(h)}
		if i%40 == 0 {
			out[i][3] = out[i][1]
		}
	}
	return out
}

// minSine against the sines of the dihedral angles tetmesh.Dihedral
// finds by arccosines.
func TestMinSine(t *testing.T) {
	for i, p := range testTets(5000) {
		want := 1.0
		for _, a := range tetmesh.Dihedral(p[0], p[1], p[2], p[3]) {
			want = min(want, math.Sin(a))
		}
		if math.IsNaN(want) {
			want = 0
		}
		got := minSine(p[0], p[1], p[2], p[3])
		// Arccosines near ±1 lose about ε/θ of an angle θ.
		if math.Abs(got-want) > 1e-8 {
			t.Fatalf("tet %d %v: smallest sine %.12g, from the angles %.12g", i, p, got, want)
		}
	}
}

// nearFlat returns positions for vertex k of tet p: where it is, near
// the plane or the line of others (down to 1e−15 off), and on another.
func nearFlat(rng *rand.Rand, p [4]geom.Vec, k int) [4]geom.Vec {
	a, b, c := p[(k+1)%4], p[(k+2)%4], p[(k+3)%4]
	e := math.Pow(10, -15*rng.Float64())
	return [4]geom.Vec{
		p[k],
		geom.Add(geom.Add(a, geom.Scale(rng.Float64(), geom.Sub(b, a))), geom.Add(geom.Scale(rng.Float64(), geom.Sub(c, a)), geom.Vec{0, 0, e})),
		geom.Add(geom.Add(a, geom.Scale(rng.Float64(), geom.Sub(b, a))), geom.Vec{e, -e, e}),
		a,
	}
}

// minSine and tri.idsMinSine (from the mesh's coordinates) give the bits
// of the same formula in geom's vector form, on random tets flat in z,
// with a repeated vertex, and with a vertex near the plane or the line
// of others (down to 1e−15 off) or on another.
func TestIdsMinSine(t *testing.T) {
	if fptest.Fused() {
		t.Skip("this build fuses multiply-adds: the scalar and vector forms may round differently")
	}
	vector := func(p [4]geom.Vec) float64 {
		face := [4][3]int{{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}}
		var n [4]geom.Vec
		for i, f := range face {
			n[i] = geom.Cross(geom.Sub(p[f[1]], p[f[0]]), geom.Sub(p[f[2]], p[f[0]]))
		}
		worst := 1.0
		for i := range 4 {
			for j := i + 1; j < 4; j++ {
				c := geom.Dot(n[i], n[j])
				worst = min(worst, 1-c*c/(geom.Dot(n[i], n[i])*geom.Dot(n[j], n[j])))
			}
		}
		if !(worst > 0) {
			return 0
		}
		return math.Sqrt(worst)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	m := &tri{c: []int32{0, 1, 2, 3, 0, 0, 0, 0}}
	for i, p := range testTets(100000) {
		k := i % 4
		for j, x := range nearFlat(rng, p, k) {
			q := p
			q[k] = x
			m.xyz = m.xyz[:0]
			for _, v := range q {
				m.xyz = append(m.xyz, v[0], v[1], v[2])
			}
			want := vector(q)
			if got := minSine(q[0], q[1], q[2], q[3]); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("tet %d %v (case %d): minSine %v, vector form %v", i, q, j, got, want)
			}
			if got := m.idsMinSine(0, 1, 2, 3); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("tet %d %v (case %d): idsMinSine %v, vector form %v", i, q, j, got, want)
			}
		}
	}
}

// outOfWindow leaves out of an ascent's window only tets that
// tetmesh.DihedralSineGrads leaves out, which the ascents' sines rely on
// to give the same steps: on random tets flat in z, with a repeated
// vertex, and with a vertex near the plane or the line of others (down
// to 1e−15 off), against limits around each tet's minSine down to its
// last bits, where a margin below minSine's rounding would fail.
func TestOutOfWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	out := 0
	for i, p := range testTets(50000) {
		k := i % 4
		for _, x := range nearFlat(rng, p, k) {
			q := p
			q[k] = x
			s := minSine(q[0], q[1], q[2], q[3])
			for _, limit := range []float64{s - 2e-9, s - 1e-9, s - 1e-12, math.Nextafter(s, 0), s, s + 1e-9, 0.2, 0.5} {
				if !outOfWindow(s, limit) {
					continue
				}
				out++
				var fns [6]ascentFn
				if tetmesh.DihedralSineGrads(&fns, &q, k, limit) {
					sines := tetmesh.DihedralSines(q[0], q[1], q[2], q[3])
					t.Fatalf("tet %d %v: minSine %v out of the window below %v, but the sines %v are not", i, q, s, limit, sines)
				}
			}
		}
	}
	if out < 50000 {
		t.Errorf("only %d tets out of a window", out)
	}
}

// shapeOf against tetmesh.RadiusEdge, the equidistance of its
// circumcentre from the four vertices, the shortest edge by brute force
// and the volume from geom.TetVolume.
func TestShapeOf(t *testing.T) {
	m := &tri{}
	for i, p := range testTets(5000) {
		if i%40 == 0 {
			continue // no circumcentre
		}
		m.xyz, m.c = m.xyz[:0], []int32{0, 1, 2, 3, 0, 0, 0, 0}
		for _, v := range p {
			m.xyz = append(m.xyz, v[0], v[1], v[2])
		}
		s := m.shapeOf(0)
		short := math.Inf(1)
		for _, e := range tetEdges {
			short = min(short, geom.Dist2(p[e[0]], p[e[1]]))
		}
		if !fptest.Same(s.short, short, short) {
			t.Fatalf("tet %d: shortest edge² %g, want %g", i, s.short, short)
		}
		if re, want := math.Sqrt(s.r2/s.short), tetmesh.RadiusEdge(p[0], p[1], p[2], p[3]); math.Abs(re-want) > 1e-9*want {
			t.Fatalf("tet %d: radius-edge %.12g, tetmesh %.12g", i, re, want)
		}
		cc, r2 := m.tetCircumcentre(0)
		for k, v := range p {
			if d := geom.Dist2(cc, v); math.Abs(d-r2) > 1e-6*r2 {
				t.Fatalf("tet %d: vertex %d at squared distance %g from the circumcentre, radius² %g", i, k, d, r2)
			}
		}
		if v := geom.TetVolume(p[0], p[1], p[2], p[3]); math.Abs(s.vol6/6-v) > 1e-12*max(math.Abs(v), 1e-3) {
			t.Fatalf("tet %d: volume %g, want %g", i, s.vol6/6, v)
		}
	}
}

// Removing surface edges on the torus before optimization: each removal
// cuts the quad of its two subfaces along the other diagonal (same four
// corners, same area, same facet), raises the worst tet of the fan by
// 5%, keeps the subfaces' records consistent (neighbours both ways, each
// subface's inner tet face carrying it), and the mesh stays valid with
// every input triangle the union of its subfaces (checkMesh).
func TestRemoveSurfaceEdge(t *testing.T) {
	s := shapes.Torus(2, 0.5, 24, 12)
	ms := torusBeforeSlivers(t, "optimize")
	m, sf := ms.m, &ms.s
	score := func(q [4]int32) float64 { return minSine(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) }
	area := func(f int32) float64 {
		a, b, c := m.pos(sf.sv[3*f]), m.pos(sf.sv[3*f+1]), m.pos(sf.sv[3*f+2])
		return geom.Norm(geom.Cross(geom.Sub(b, a), geom.Sub(c, a))) / 2
	}
	corners := func(f0, f1 int32) []int32 {
		v := slices.Concat(sf.sv[3*f0:3*f0+3], sf.sv[3*f1:3*f1+3])
		slices.Sort(v)
		return slices.Compact(v)
	}
	removed := 0
	for _, b := range m.scanBad(math.Sin(optTarget)) {
		q := m.tet(b.t)
		for _, e := range tetEdges {
			x, y := q[e[0]], q[e[1]]
			if !m.alive(b.t) || !ms.isBoundaryVertex(x) || !ms.isBoundaryVertex(y) {
				continue
			}
			tets, link, f0, f1, ok := ms.surfaceFan(x, y, b.t, nil, nil)
			if !ok {
				continue
			}
			before := 1.0
			for _, u := range tets {
				before = min(before, m.tetMinSine(u))
			}
			a0, c0, facet := area(f0)+area(f1), corners(f0, f1), sf.facet[f0]
			fs := newFlipSines(m, b.t, m.tetMinSine(b.t))
			if !ms.removeSurfaceEdge(x, y, b.t, &fs, score) {
				continue
			}
			removed++
			if a1 := area(f0) + area(f1); math.Abs(a1-a0) > 1e-12*a0 {
				t.Errorf("subfaces %d, %d: area %.17g, was %.17g", f0, f1, a1, a0)
			}
			if c1 := corners(f0, f1); !slices.Equal(c1, c0) || sf.facet[f0] != facet || sf.facet[f1] != facet {
				t.Errorf("subfaces %d, %d: corners %v in facets %d, %d, were %v in %d", f0, f1, c1, sf.facet[f0], sf.facet[f1], c0, facet)
			}
			for _, f := range [2]int32{f0, f1} {
				if slices.Contains(sf.sv[3*f:3*f+3], x) && slices.Contains(sf.sv[3*f:3*f+3], y) {
					t.Errorf("subface %d still has the edge %d–%d", f, x, y)
				}
			}
			// The new tets: those around x and y on the fan's vertices.
			region := append([]int32{x, y}, link...)
			after, n := 1.0, 0
			for _, u := range slices.Concat(m.star(x, nil), m.star(y, nil)) {
				if uq := m.tet(u); !slices.ContainsFunc(uq, func(v int32) bool { return !slices.Contains(region, v) }) {
					after = min(after, m.tetMinSine(u))
					n++
				}
			}
			if n == 0 || !(after > 1.05*before) {
				t.Errorf("edge %d–%d: worst sine of the %d new tets %.4g, the fan's was %.4g", x, y, n, after, before)
			}
			break
		}
	}
	if removed == 0 {
		t.Fatal("no surface edge removed: the test no longer covers its case")
	}
	for f := int32(0); f < sf.num(); f++ {
		for e := int32(0); e < 3; e++ {
			h := sf.adj[3*f+e]
			if h < 0 {
				continue
			}
			a, b := sf.edge(f, e)
			c, d := sf.edge(h/3, h%3)
			if sf.adj[h] != 3*f+e || a != d || b != c {
				t.Fatalf("subface %d edge %d (%d→%d) and its neighbour %d (%d→%d) disagree", f, e, a, b, h, c, d)
			}
		}
		if face := sf.side[2*f]; face >= 0 {
			fv := m.faceVerts(face)
			if !sameOrientation(fv, [3]int32{sf.sv[3*f], sf.sv[3*f+1], sf.sv[3*f+2]}) || m.c[ni(face)] != subfaceRef(f) {
				t.Fatalf("subface %d: its inner tet face %v does not carry it", f, fv)
			}
		}
	}
	t.Logf("%d surface edges removed", removed)
	checkMesh(t, s, ms.output())
}

func TestStallWatch(t *testing.T) {
	type round struct {
		bad   int
		acute float64
	}
	flat := func(n int) []round {
		r := make([]round, n)
		for i := range r {
			r[i] = round{1000, 0.1}
		}
		return r
	}
	for _, tc := range []struct {
		name     string
		patience int
		share    int
		rounds   []round
		end      int // index of the round before which the work ends, -1 for none
	}{
		{"nothing changes", 3, 50, flat(8), 3},
		{"a fiftieth fewer is progress", 3, 50, []round{{1000, 0.1}, {980, 0.1}, {960, 0.1}, {940, 0.1}, {921, 0.1}, {902, 0.1}}, -1},
		{"less than a fiftieth is not", 3, 50, []round{{1000, 0.1}, {981, 0.1}, {962, 0.1}, {944, 0.1}}, 3},
		{"more bad tets is not", 3, 50, []round{{1000, 0.1}, {1100, 0.1}, {1200, 0.1}, {1300, 0.1}}, 3},
		{"a higher smallest angle is progress", 3, 50, []round{{1000, 0.1}, {1000, 0.11}, {1000, 0.12}, {1000, 0.13}, {1000, 0.14}}, -1},
		{"a lower smallest angle is not", 3, 50, []round{{1000, 0.1}, {1000, 0.09}, {990, 0.08}, {985, 0.07}}, 3},
		{"one idle round with a patience of one", 1, 50, []round{{1000, 0.1}, {900, 0.1}, {900, 0.1}}, 2},
		{"a twenty-fifth fewer is progress with a share of 25", 1, 25, []round{{1000, 0.1}, {960, 0.1}, {921, 0.1}}, -1},
		{"a fiftieth fewer is not with a share of 25", 1, 25, []round{{1000, 0.1}, {980, 0.1}}, 1},
		{"progress restarts the count", 3, 50, []round{{1000, 0.1}, {1000, 0.1}, {1000, 0.1}, {900, 0.1}, {900, 0.1}, {900, 0.1}, {900, 0.1}}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := stallWatch{patience: tc.patience, share: tc.share}
			end := -1
			for i, r := range tc.rounds {
				if w.stalled(r.bad, r.acute) {
					end = i
					break
				}
			}
			if end != tc.end {
				t.Errorf("pass ends before round %d, want %d", end, tc.end)
			}
		})
	}
}

// A tet whose smallest dihedral sine clears guardSine2(guard) has no
// dihedral angle below guard, by the arccosines (tetmesh.Dihedral) and
// by tetmesh.MinDihedralBelow, on random tets and on slivers and
// needles whose sines sit just above the guard's.
func TestGuardSine2(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 35))
	cleared := 0
	for i := range 200000 {
		var p [4]geom.Vec
		for j := range p {
			p[j] = geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}
		}
		if i%2 == 1 { // flatten: slivers, caps and needles
			h := math.Pow(10, -1-4*rng.Float64())
			for j := range p {
				p[j][2] *= h
			}
		}
		guard := rng.Float64() * optTarget
		if i%3 == 0 { // a guard just below the tet's smallest angle
			d := tetmesh.Dihedral(p[0], p[1], p[2], p[3])
			guard = slices.Min(d[:]) * (1 - 1e-7*rng.Float64())
			if guard >= optTarget {
				continue
			}
		}
		s := minSine(p[0], p[1], p[2], p[3])
		if !(s*s > guardSine2(guard)) {
			continue
		}
		cleared++
		d := tetmesh.Dihedral(p[0], p[1], p[2], p[3])
		if slices.Min(d[:]) < guard || tetmesh.MinDihedralBelow(p[0], p[1], p[2], p[3], guard) {
			t.Fatalf("tet %v: smallest sine %.17g clears guard %.17g, but its smallest angle is %.17g", p, s, guard, slices.Min(d[:]))
		}
	}
	if cleared < 50000 {
		t.Errorf("only %d of the tets cleared the bound", cleared)
	}
}

// cappedSine gives cappedDihedral's bits, from the tet's minSine: on
// random tets, on slivers, caps and needles, and on tets whose smallest
// angle is just above or below optTarget, where clearOfTarget's margin
// is all that keeps it right.
func TestCappedSine(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	m := &tri{c: []int32{0, 1, 2, 3, 0, 0, 0, 0}}
	cleared, near := 0, 0
	for i := range 200000 {
		var p [4]geom.Vec
		for j := range p {
			p[j] = geom.Vec{rng.Float64(), rng.Float64(), rng.Float64()}
		}
		if i%2 == 1 { // flatten: slivers, caps and needles
			h := math.Pow(10, -4*rng.Float64())
			for j := range p {
				p[j][2] *= h
			}
		}
		if i%3 == 0 { // flattened in z until the smallest angle is optTarget, give or take 1e-9
			flat := func(f float64) [4]geom.Vec {
				r := p
				for j := range r {
					r[j][2] *= f
				}
				return r
			}
			angle := func(f float64) float64 {
				r := flat(f)
				return tetmesh.MinDihedral(r[0], r[1], r[2], r[3])
			}
			lo, hi := 1e-6, 1.0
			if angle(hi) < optTarget {
				continue
			}
			for range 60 {
				if mid := (lo + hi) / 2; angle(mid) < optTarget*(1+2e-9*(rng.Float64()-0.5)) {
					lo = mid
				} else {
					hi = mid
				}
			}
			p = flat(hi)
		}
		m.xyz = m.xyz[:0]
		for _, v := range p {
			m.xyz = append(m.xyz, v[0], v[1], v[2])
		}
		q := m.tet(0)
		s := m.idsMinSine(0, 1, 2, 3)
		if s*s > clearOfTarget {
			cleared++
		}
		if d := tetmesh.MinDihedral(p[0], p[1], p[2], p[3]); math.Abs(d-optTarget) < 1e-8 {
			near++
		}
		if got, want := m.cappedSine(q, s), m.cappedDihedral(q); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("tet %v: minSine %.17g, cappedSine %.17g, cappedDihedral %.17g", p, s, got, want)
		}
	}
	if cleared < 30000 || near < 10000 {
		t.Errorf("only %d of the tets cleared the bound, %d near optTarget", cleared, near)
	}
}

// bestRing asks keep, the orientations and the scores once per triangle
// of the link polygon, for all the triangulations that share it: its
// choice and the work it charges are those of asking for every
// triangulation, as the reference here does, for every edge of the
// torus's mesh with a ring bestRing takes, one call after another (an
// answer left from an earlier call would show), with the keep and floor
// flipBetter gives it when keepAcute is set, and with no floor.
func TestBestRingShared(t *testing.T) {
	ms := torusBeforeSlivers(t, "slivers")
	m := ms.m
	score := func(q [4]int32) float64 { return minSine(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) }
	seen := map[uint64]bool{}
	calls, chosen := 0, 0
	for tt := int32(0); tt < int32(m.numTets()); tt++ {
		if !m.alive(tt) {
			continue
		}
		q := m.tet(tt)
		for _, e := range tetEdges {
			x, y := q[e[0]], q[e[1]]
			if seen[edgeKey(min(x, y), max(x, y))] {
				continue
			}
			seen[edgeKey(min(x, y), max(x, y))] = true
			tets, link, ok := m.ring(x, y, tt, nil, nil)
			if !ok || len(link) < 3 || len(link) > maxRemovalRing {
				continue
			}
			before := 1.0
			var sines []float64
			for _, u := range tets {
				sines = append(sines, score([4]int32(m.tet(u))))
				before = min(before, sines[len(sines)-1])
			}
			keep := ms.acuteKept(tets, sines, x, y, func(tr [3]int32) bool { return !ms.voidTriangle(tr, link) })
			for _, floor := range []float64{1.05 * before, math.Inf(-1)} {
				// The reference: every triangulation, every triangle.
				var want [][4]int32
				wantScore, wantSines := math.Inf(-1), 0
				for _, tr := range polygonTriangulations[len(link)] {
					var newq [][4]int32
					kept, positive, worst := true, true, 1e300
					for _, c := range tr {
						a, b, d := link[c[0]], link[c[1]], link[c[2]]
						kept = kept && keep([3]int32{a, b, d})
					}
					if !kept {
						continue
					}
					for _, c := range tr {
						a, b, d := link[c[0]], link[c[1]], link[c[2]]
						up, down := [4]int32{a, b, d, y}, [4]int32{a, d, b, x}
						if geom.Orient3D(m.pos(a), m.pos(b), m.pos(d), m.pos(y)) <= 0 || geom.Orient3D(m.pos(a), m.pos(d), m.pos(b), m.pos(x)) <= 0 {
							positive = false
							break
						}
						wantSines += 2
						newq = append(newq, up, down)
						worst = min(worst, score(up), score(down))
					}
					if positive && worst > wantScore {
						want, wantScore = newq, worst
					}
				}
				if !(wantScore > floor) {
					want = nil
				}
				var buf ringBuf
				s0 := m.sines
				got := m.bestRing(&buf, x, y, link, nil, keep, score, floor)
				calls++
				if !slices.Equal(got, want) {
					t.Fatalf("edge %d–%d, link %v, floor %.3g: bestRing chose %v, every triangulation %v", x, y, link, floor, got, want)
				}
				if m.sines-s0 != wantSines {
					t.Fatalf("edge %d–%d, link %v: bestRing charged %d evaluations, every triangulation %d", x, y, link, m.sines-s0, wantSines)
				}
				if got != nil {
					chosen++
				}
			}
		}
	}
	t.Logf("%d calls, %d with a choice", calls, chosen)
	if chosen == 0 || chosen == calls {
		t.Fatal("the rings no longer cover both answers")
	}
}

// neighbours lists each vertex of a star once, v never, in the order of
// first appearance (centroid sums them in that order), as a search of
// the list built so far gives; asked again of the same star, the same.
func TestNeighbours(t *testing.T) {
	ms := boxBeforeSlivers(t)
	m := ms.m
	checked := 0
	for v := int32(0); v < int32(len(m.vt)); v++ {
		if m.vt[v] < 0 {
			continue
		}
		star := m.star(v, nil)
		var want []int32
		for _, tt := range star {
			for _, u := range m.tet(tt) {
				if u != v && !slices.Contains(want, u) {
					want = append(want, u)
				}
			}
		}
		for range 2 {
			if got := ms.neighbours(v, star); !slices.Equal(got, want) {
				t.Fatalf("vertex %d: neighbours %v, want %v", v, got, want)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d vertices checked", checked)
	}
}

// TestRingOrder checks ring's order against the exact predicate, which
// its parity rule replaces: on the torus's mesh before sliver removal,
// every live tet is positive and, for every edge with a closed ring,
// each ring tet holds x, y and the link pair link[i], link[i+1], in
// positive order as Orient3D says; the buffers passed are reused from
// edge to edge.
func TestRingOrder(t *testing.T) {
	ms := torusBeforeSlivers(t, "slivers")
	m := ms.m
	var tb, lb []int32
	rings := 0
	for tt := int32(0); tt < int32(m.numTets()); tt++ {
		q := m.tet(tt)
		if !m.alive(tt) || slices.Contains(q, ghost) {
			continue
		}
		if geom.Orient3D(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) <= 0 {
			t.Fatalf("tet %d %v not positive", tt, q)
		}
		for _, e := range tetEdges {
			x, y := q[e[0]], q[e[1]]
			tets, link, ok := m.ring(x, y, tt, tb, lb)
			tb, lb = tets, link
			if !ok {
				continue
			}
			rings++
			if len(tets) != len(link) || tets[0] != tt {
				t.Fatalf("edge %d-%d: ring %v link %v from tet %d", x, y, tets, link, tt)
			}
			for i, u := range tets {
				p, r := link[i], link[(i+1)%len(link)]
				if uq := m.tet(u); !slices.Contains(uq, x) || !slices.Contains(uq, y) || !slices.Contains(uq, p) || !slices.Contains(uq, r) {
					t.Fatalf("edge %d-%d: tet %v lacks link pair %d, %d", x, y, uq, p, r)
				}
				if geom.Orient3D(m.pos(x), m.pos(y), m.pos(p), m.pos(r)) <= 0 {
					t.Fatalf("edge %d-%d: (x, y, %d, %d) not positive", x, y, p, r)
				}
			}
		}
	}
	if rings == 0 {
		t.Fatal("no closed rings")
	}
}

// flipSines gives the bits of idsMinSine and charges one evaluation a
// call, for a tet, its neighbours and other tets asked in any order and
// more than once, on the torus's mesh before sliver removal.
func TestFlipSines(t *testing.T) {
	m := torusBeforeSlivers(t, "slivers").m
	rng := rand.New(rand.NewPCG(13, 14))
	var live []int32
	for tt := range int32(m.numTets()) {
		if m.alive(tt) && !slices.Contains(m.tet(tt), ghost) {
			live = append(live, tt)
		}
	}
	for _, tt := range live {
		q := m.tet(tt)
		fs := newFlipSines(m, tt, m.idsMinSine(q[0], q[1], q[2], q[3]))
		ask := []int32{tt}
		for k := range int32(4) {
			if o := m.across(4*tt + k); o >= 0 && !m.isGhost(o>>2) {
				ask = append(ask, o>>2, o>>2)
			}
		}
		ask = append(ask, tt, live[rng.IntN(len(live))])
		rng.Shuffle(len(ask), func(i, j int) { ask[i], ask[j] = ask[j], ask[i] })
		for _, u := range ask {
			uq := m.tet(u)
			want := m.idsMinSine(uq[0], uq[1], uq[2], uq[3])
			n := m.sines
			if got := fs.sine(m, u); math.Float64bits(got) != math.Float64bits(want) || m.sines != n+1 {
				t.Fatalf("tet %d, asked %d: %v (charged %d), idsMinSine %v", tt, u, got, m.sines-n, want)
			}
		}
	}
}
