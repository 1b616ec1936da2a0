package tetgen

import (
	"fmt"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// checkTri verifies the structure of m: live tets positively oriented,
// ghosts at slot 3, neighbour links symmetric across faces with the same
// three vertices, and every vertex pointing at a live tet that holds it.
func checkTri(tb testing.TB, m *tri) {
	tb.Helper()
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) {
			continue
		}
		q := m.tet(t)
		for s := 0; s < 3; s++ {
			if q[s] == ghost {
				tb.Fatalf("tet %d %v: ghost not at slot 3", t, q)
			}
		}
		if q[3] != ghost && geom.Orient3D(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])) <= 0 {
			tb.Fatalf("tet %d %v not positive", t, q)
		}
		for k := int32(0); k < 4; k++ {
			n := m.across(4*t + k)
			if n < 0 {
				continue
			}
			if !m.alive(n>>2) || m.across(n) != 4*t+k {
				tb.Fatalf("tet %d face %d: link to %d not symmetric", t, k, n)
			}
			if !sameFace(m.faceVerts(4*t+k), m.faceVerts(n)) {
				tb.Fatalf("tet %d face %d %v and neighbour %v differ", t, k, m.faceVerts(4*t+k), m.faceVerts(n))
			}
		}
	}
	for v, t := range m.vt {
		if t == noTet {
			continue
		}
		if !m.alive(t) || !slices.Contains(m.tet(t), int32(v)) {
			tb.Fatalf("vertex %d points at tet %d %v", v, t, m.tet(t))
		}
	}
}

func sameFace(a, b [3]int32) bool {
	slices.Sort(a[:])
	slices.Sort(b[:])
	return a == b
}

// checkDelaunay verifies by brute force that no vertex lies strictly inside
// the circumsphere of any finite tet (the unperturbed empty-sphere test).
func checkDelaunay(tb testing.TB, m *tri) {
	tb.Helper()
	nv := int32(len(m.xyz) / 3)
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) || m.isGhost(t) {
			continue
		}
		q := m.tet(t)
		for v := int32(0); v < nv; v++ {
			if geom.InSphere(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]), m.pos(v)) > 0 {
				tb.Fatalf("vertex %d inside the circumsphere of tet %d %v", v, t, q)
			}
		}
	}
}

// hullVolume sums the finite tets.
func (m *tri) finiteVolume() float64 {
	var vol float64
	for t := int32(0); t < int32(m.numTets()); t++ {
		if m.alive(t) && !m.isGhost(t) {
			q := m.tet(t)
			vol += geom.TetVolume(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
		}
	}
	return vol
}

func TestDelaunayRandom(t *testing.T) {
	for _, n := range []int{4, 5, 10, 100, 1000} {
		xyz := uniformPoints(rand.New(rand.NewSource(int64(n))), n)
		m, _, dup, err := delaunay(xyz)
		if err != nil {
			t.Fatal(err)
		}
		checkTri(t, m)
		checkDelaunay(t, m)
		for v, d := range dup {
			if d >= 0 || m.vt[v] == noTet {
				t.Fatalf("n=%d vertex %d missing (dup %d)", n, v, d)
			}
		}
	}
}

// Lattices are the worst case for ties: every unit cube's eight corners
// are cospherical, and many points are coplanar and collinear.
func TestDelaunayLattice(t *testing.T) {
	for _, n := range []int{2, 3, 5} {
		var xyz []float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					xyz = append(xyz, float64(i), float64(j), float64(k))
				}
			}
		}
		m, _, _, err := delaunay(xyz)
		if err != nil {
			t.Fatal(err)
		}
		checkTri(t, m)
		checkDelaunay(t, m)
		want := float64((n - 1) * (n - 1) * (n - 1))
		if got := m.finiteVolume(); math.Abs(got-want) > 1e-12*want {
			t.Fatalf("n=%d: volume %v, want hull volume %v", n, got, want)
		}
		// The perturbed Delaunay tetrahedralization of a lattice cuts
		// every unit cube into tets: no tet may be larger than a cube.
		for tt := int32(0); tt < int32(m.numTets()); tt++ {
			if m.alive(tt) && !m.isGhost(tt) {
				q := m.tet(tt)
				if v := geom.TetVolume(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3])); v > 1 {
					t.Fatalf("tet of volume %v in a unit lattice", v)
				}
			}
		}
	}
}

func TestDelaunayDegenerate(t *testing.T) {
	one := 1.0
	ulp := geom.Vec{one, one, one}
	ulp[0] = nextUp(one)
	cases := []struct {
		name string
		pts  []geom.Vec
		err  bool
	}{
		{"coplanar", []geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 3, 0}}, true},
		{"collinear", []geom.Vec{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}}, true},
		{"duplicates", []geom.Vec{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 0, 0}, {0.2, 0.2, 0.2}}, false},
		{"one ulp apart", []geom.Vec{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {0, 0, 2}, {1, 1, 1}, ulp}, false},
		{"cospherical octahedron", []geom.Vec{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}, false},
		{"plane plus apex", []geom.Vec{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 1, 0}, {0, 2, 0}, {1, 2, 0}, {2, 2, 0}, {1, 1, 5}}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var xyz []float64
			for _, p := range c.pts {
				xyz = append(xyz, p[:]...)
			}
			m, _, dup, err := delaunay(xyz)
			if (err != nil) != c.err {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				return
			}
			checkTri(t, m)
			checkDelaunay(t, m)
			for v, d := range dup {
				if (d >= 0) != (m.vt[v] == noTet) {
					t.Fatalf("vertex %d: dup %d but vt %d", v, d, m.vt[v])
				}
				if d >= 0 && m.pos(int32(v)) != m.pos(d) {
					t.Fatalf("vertex %d reported as duplicate of %d at another position", v, d)
				}
			}
		})
	}
}

func nextUp(x float64) float64 {
	return x + x*0x1p-52
}

// TestDelaunayParallel checks the parallel insertion against the serial
// kernel: the same tets (the perturbed Delaunay tetrahedralization is
// unique), in the same arrays for any number of workers, on inputs full of
// ties. Small runs and an early start make the workers meet often.
func TestDelaunayParallel(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	random := func(n int) []float64 { return uniformPoints(r, n) }
	lattice := func(n int) []float64 {
		var xyz []float64
		for i := range n {
			for j := range n {
				for k := range n {
					xyz = append(xyz, float64(i), float64(j), float64(k))
				}
			}
		}
		return xyz
	}
	// Every integer point on the sphere of radius 15 (cospherical by
	// exact arithmetic), plus its centre and a few inside.
	var sphere []float64
	for i := -15; i <= 15; i++ {
		for j := -15; j <= 15; j++ {
			for k := -15; k <= 15; k++ {
				if d := i*i + j*j + k*k; d == 225 || (d < 30 && (i+j+k)%2 == 0) {
					sphere = append(sphere, float64(i), float64(j), float64(k))
				}
			}
		}
	}
	// Duplicates, half of them written with x = −0 against 0, and a flat
	// layer of coplanar points.
	dups := random(3000)
	for i := range 600 {
		j := 3 * r.Intn(3000)
		x := dups[j]
		if i%2 == 0 {
			dups[j], x = 0, math.Copysign(0, -1)
		}
		dups = append(dups, x, dups[j+1], dups[j+2], float64(i%25)/25, float64(i/25)/25, 0.5)
	}
	n := 12
	if testing.Short() {
		n = 5
	}
	// A lattice with coordinates nudged by an ulp: orientation signs that
	// plain floating point (the workers' approach walk) gets wrong.
	nudged := lattice(n + 2)
	for i := range nudged {
		nudged[i] = nudged[i]*(1+0x1p-52*float64(r.Intn(3)-1)) + 0x1p-40*float64(r.Intn(3)-1)
	}
	cases := []struct {
		name string
		xyz  []float64
	}{
		{"random", random(n * 1000)},
		{"lattice", lattice(n + 2)},
		{"nudged lattice", nudged},
		{"cospherical", sphere},
		{"duplicates", dups},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, wantPerm, wantDup, err := delaunayWith(slices.Clone(c.xyz), parConfig{minPoints: math.MaxInt})
			if err != nil {
				t.Fatal(err)
			}
			want.canonicalize()
			checkTri(t, want)
			for _, w := range []int{1, 2, 4, -2} {
				// Few slots to start with: the arrays grow between passes.
				cfg := parConfig{minPoints: 0, serial: 64, minRun: 16, workers: w, slots: 3000}
				if w < 0 {
					// Regions too small: workers run out of slots and
					// defer the rest of their runs.
					cfg.workers, cfg.quota = -w, 3
				}
				m, perm, dup, err := delaunayWith(slices.Clone(c.xyz), cfg)
				if err != nil {
					t.Fatal(err)
				}
				checkTri(t, m)
				if len(c.xyz) <= 3*1000 {
					checkDelaunay(t, m)
				}
				// The same workers on one thread: the same arrays.
				old := runtime.GOMAXPROCS(1)
				one, _, _, err := delaunayWith(slices.Clone(c.xyz), cfg)
				runtime.GOMAXPROCS(old)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(one.c, m.c) || !slices.Equal(one.vt, m.vt) || !slices.Equal(one.free, m.free) {
					t.Fatalf("%d workers: the arrays differ at GOMAXPROCS 1", w)
				}
				m.canonicalize()
				switch {
				case !slices.Equal(m.c, want.c):
					t.Fatalf("%d workers: %d tets, serial kernel %d, or the same number in another order",
						w, m.numTets(), want.numTets())
				case !slices.Equal(perm, wantPerm), !slices.Equal(dup, wantDup), !slices.Equal(m.vt, want.vt):
					t.Fatalf("%d workers: vertex order, duplicates or vertex tets differ", w)
				}
			}
		})
	}
}

// TestDelaunayGOMAXPROCS checks that the default configuration's output
// (parallel here from any size) is the same whatever GOMAXPROCS is.
func TestDelaunayGOMAXPROCS(t *testing.T) {
	if testing.Short() {
		t.Skip("three Delaunay tetrahedralizations of 34k points; TestDelaunayParallel varies the workers")
	}
	n := 1<<15 + 1000
	r := rand.New(rand.NewSource(11))
	xyz := make([]float64, 3*n)
	for i := range xyz {
		xyz[i] = r.NormFloat64()
	}
	var first []int32
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		cfg := defaultPar()
		cfg.minPoints = 0
		m, _, _, err := delaunayWith(slices.Clone(xyz), cfg)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			checkTri(t, m)
			first = m.c
		} else if !slices.Equal(m.c, first) {
			t.Fatalf("GOMAXPROCS %d: tets differ", procs)
		}
	}
}

// uniformPoints returns n points drawn uniformly from the unit cube.
func uniformPoints(r *rand.Rand, n int) []float64 {
	xyz := make([]float64, 3*n)
	for i := range xyz {
		xyz[i] = r.Float64()
	}
	return xyz
}

// indices returns 0, 1, …, n−1.
func indices(n int) []int32 {
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	return idx
}

func BenchmarkDelaunay(b *testing.B) {
	for _, n := range []int{10000, 100000, 1000000} {
		xyz := uniformPoints(rand.New(rand.NewSource(1)), n)
		b.Run(fmt.Sprintf("n=%.0e", float64(n)), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				pts := slices.Clone(xyz)
				if _, _, _, err := delaunay(pts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}

// checkCarved verifies the links between the carved tets and the
// subfaces: each subface side names a live tet face with the subface's
// vertices, whose neighbour slot names the subface back, and every
// subface reference in a tet is such a side.
func checkCarved(tb testing.TB, ms *mesher) {
	tb.Helper()
	m, s := ms.m, &ms.s
	checkTri(tb, m)
	for f := int32(0); f < s.num(); f++ {
		q := s.sv[3*f : 3*f+3]
		for k := int32(0); k < 2; k++ {
			face := s.side[2*f+k]
			if face == noTet {
				continue
			}
			if !m.alive(face>>2) || !sameFace(m.faceVerts(face), [3]int32{q[0], q[1], q[2]}) || m.across(face) != subfaceRef(f) {
				tb.Fatalf("subface %d %v side %d: face %d of tet %v (alive %v) links %d", f, q, k, face, m.tet(face>>2), m.alive(face>>2), m.across(face))
			}
		}
	}
	for t := int32(0); t < int32(m.numTets()); t++ {
		if !m.alive(t) {
			continue
		}
		for k := int32(0); k < 4; k++ {
			n := m.across(4*t + k)
			if n == noTet {
				tb.Fatalf("tet %d face %d has no neighbour", t, k)
			}
			if n < noTet {
				f := refSubface(n)
				if s.side[2*f] != 4*t+k && s.side[2*f+1] != 4*t+k {
					tb.Fatalf("tet %d face %d names subface %d, whose sides are %d %d", t, k, f, s.side[2*f], s.side[2*f+1])
				}
			}
		}
	}
}

// TestConeLinking inserts the centre of exactly cospherical points, whose
// cavity is every finite tet: a cone over the whole hull, linked by the
// cone linker when the hull is small and by the hashing linker when it
// has more vertices than the cone linker takes. Both must give a valid
// Delaunay tetrahedralization.
func TestConeLinking(t *testing.T) {
	for _, r := range []int{1, 2, 7} {
		var xyz []float64
		for u := -r; u <= r; u++ {
			for w := -r; w <= r; w++ {
				fu, fw := float64(u), float64(w)
				den := 1 + fu*fu + fw*fw
				xyz = append(xyz, 2*fu/den, 2*fw/den, (fu*fu+fw*fw-1)/den)
			}
		}
		nv := len(xyz) / 3
		m, _, _, err := delaunay(xyz)
		if err != nil {
			t.Fatal(err)
		}
		v := m.addVertex(geom.Vec{0, 0, 0})
		if d := m.insert(v, m.vt[0]); d != -1 {
			t.Fatalf("%d points: centre not inserted (%d)", nv, d)
		}
		if got := len(m.newTets); got != 2*nv-4 {
			t.Fatalf("%d points: the centre's cone has %d tets, want one per hull face, %d", nv, got, 2*nv-4)
		}
		if nv <= coneVerts-1 != (len(m.newTets) <= coneTets) {
			t.Fatalf("%d points: cone of %d tets, linker limit %d", nv, len(m.newTets), coneTets)
		}
		checkTri(t, m)
		checkDelaunay(t, m)
	}
}

// TestMarkDuplicates checks markDuplicates against a map of positions on
// 300k points with repeats (and −0 for 0): with 32-bit hash keys, such a
// set almost surely has distinct points with equal keys too.
func TestMarkDuplicates(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	n := 300000
	xyz := make([]float64, 0, 3*n)
	for i := 0; i < n; i++ {
		if i > 0 && r.Intn(5) == 0 {
			j := 3 * r.Intn(i)
			xyz = append(xyz, xyz[j:j+3]...)
			continue
		}
		p := [3]float64{r.Float64(), float64(r.Intn(3)), r.Float64()}
		if r.Intn(10) == 0 {
			p[1] = math.Copysign(0, -1)
		}
		xyz = append(xyz, p[:]...)
	}
	dup := make([]int32, n)
	for i := range dup {
		dup[i] = -1
	}
	markDuplicates(xyz, dup)
	first := map[[3]float64]int32{}
	for i := 0; i < n; i++ {
		p := [3]float64{xyz[3*i] + 0, xyz[3*i+1] + 0, xyz[3*i+2] + 0}
		want := int32(-1)
		if f, ok := first[p]; ok {
			want = f
		} else {
			first[p] = int32(i)
		}
		if dup[i] != want {
			t.Fatalf("point %d %v: dup %d, want %d", i, p, dup[i], want)
		}
	}
}

// TestScanForFirstHolder checks scanFor, which skips tets whose bounding
// box misses the point, against the plain scan: the first live finite tet
// none of whose faces sees the point from outside. The points are a
// lattice's (so queries fall on shared vertices, edges and faces, where
// several tets hold them and the first must be found), midpoints, random
// points and points outside the hull.
func TestScanForFirstHolder(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var xyz []float64
	for i := range 5 {
		for j := range 5 {
			for k := range 5 {
				xyz = append(xyz, float64(i), float64(j), float64(k))
			}
		}
	}
	m, _, _, err := delaunay(xyz)
	if err != nil {
		t.Fatal(err)
	}
	holds := func(u, v int32) bool {
		for k := range 4 {
			if m.orientFace(u, k, v) > 0 {
				return false
			}
		}
		return true
	}
	// Every holder, from the last slot down: the one kept is the first.
	plain := func(v int32) int32 {
		first := int32(-1)
		for u := int32(m.numTets()) - 1; u >= 0; u-- {
			if m.alive(u) && !m.isGhost(u) && holds(u, v) {
				first = u
			}
		}
		return first
	}
	var queries []geom.Vec
	for range 300 {
		queries = append(queries,
			geom.Vec{float64(r.Intn(5)), float64(r.Intn(5)), float64(r.Intn(5))},
			geom.Vec{float64(r.Intn(9)) / 2, float64(r.Intn(9)) / 2, float64(r.Intn(9)) / 2},
			geom.Vec{4 * r.Float64(), 4 * r.Float64(), 4 * r.Float64()},
			geom.Vec{6*r.Float64() - 1, 6*r.Float64() - 1, 6*r.Float64() - 1})
	}
	held := 0
	for _, p := range queries {
		v := m.addVertex(p)
		got, want := m.scanFor(v), plain(v)
		if got != want {
			t.Fatalf("point %v: scanFor %d, plain scan %d", p, got, want)
		}
		if got >= 0 {
			held++
		}
		m.xyz = m.xyz[:len(m.xyz)-3]
		m.vt = m.vt[:len(m.vt)-1]
	}
	if held < len(queries)/2 {
		t.Fatalf("only %d of %d points in the mesh", held, len(queries))
	}
}

// Ghost tets keep the ghost at slot 3 (ring and removeEdge look only
// there), and ring gives an edge's tets in cyclic order: on the Delaunay
// tetrahedralization of random points, through insertions inside and
// outside the hull, 2-3 flips and edge removals, checkTri (which checks
// slot 3) after every change, and, every few changes, every ghost tet's
// hull face facing away from the tet across it, and, for every edge
// from every tet holding it, ring against a brute-force search of all
// tets: it fails exactly when a holder is a ghost tet, and otherwise
// lists each holder once, from the tet given, each holding x, y and its
// link pair in positive order (Orient3D) and across a face from the
// next.
func TestGhostSlotAndRings(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	m, _, _, err := delaunay(uniformPoints(rng, 150))
	if err != nil {
		t.Fatal(err)
	}
	var tb, lb []int32
	rings, ghostRings := 0, 0
	checkRings := func(stage string) {
		t.Helper()
		holders := map[[2]int32][]int32{}
		for tt := range int32(m.numTets()) {
			if !m.alive(tt) {
				continue
			}
			q := m.tet(tt)
			if q[3] == ghost {
				o := m.across(4*tt + 3)
				d := m.tet(o >> 2)[o&3]
				if geom.Orient3D(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(d)) >= 0 {
					t.Fatalf("%s: ghost tet %d %v: hull face does not face away from %d", stage, tt, q, d)
				}
			}
			for _, e := range tetEdges {
				x, y := min(q[e[0]], q[e[1]]), max(q[e[0]], q[e[1]])
				if x != ghost {
					holders[[2]int32{x, y}] = append(holders[[2]int32{x, y}], tt)
				}
			}
		}
		for e, hs := range holders {
			x, y := e[0], e[1]
			hasGhost := slices.ContainsFunc(hs, m.isGhost)
			for _, h := range hs {
				tets, link, ok := m.ring(x, y, h, tb, lb)
				tb, lb = tets, link
				if ok == hasGhost {
					t.Fatalf("%s: edge %d-%d from tet %d: ring ok %v, holders %v (ghost among them %v)", stage, x, y, h, ok, hs, hasGhost)
				}
				if !ok {
					ghostRings++
					continue
				}
				rings++
				if len(tets) != len(hs) || len(link) != len(hs) || tets[0] != h {
					t.Fatalf("%s: edge %d-%d from tet %d: ring %v link %v, holders %v", stage, x, y, h, tets, link, hs)
				}
				for i, u := range tets {
					if !slices.Contains(hs, u) || slices.Contains(tets[:i], u) {
						t.Fatalf("%s: edge %d-%d: ring %v, holders %v", stage, x, y, tets, hs)
					}
					p, r := link[i], link[(i+1)%len(link)]
					if sortedTet(m.tet(u)) != sortedTet([]int32{x, y, p, r}) || geom.Orient3D(m.pos(x), m.pos(y), m.pos(p), m.pos(r)) <= 0 {
						t.Fatalf("%s: edge %d-%d: tet %v, link pair %d, %d not in positive order", stage, x, y, m.tet(u), p, r)
					}
					next := tets[(i+1)%len(tets)]
					if !slices.ContainsFunc([]int32{0, 1, 2, 3}, func(k int32) bool { return m.across(4*u+k)>>2 == next }) {
						t.Fatalf("%s: edge %d-%d: ring tets %d and %d not neighbours", stage, x, y, u, next)
					}
				}
			}
		}
	}
	checkTri(t, m)
	checkRings("delaunay")
	live := func() int32 {
		for {
			if u := int32(rng.Intn(m.numTets())); m.alive(u) {
				return u
			}
		}
	}
	inserted, flips, removals := 0, 0, 0
	for step := range 600 {
		var what string
		switch op := rng.Intn(3); {
		case op == 0 || step < 100:
			// Half of them outside the points' cube, many outside the hull.
			p := geom.Vec{1.6*rng.Float64() - 0.3, 1.6*rng.Float64() - 0.3, 1.6*rng.Float64() - 0.3}
			if m.insert(m.addVertex(p), live()) == -1 {
				inserted++
			}
			what = "insertion"
		case op == 1:
			if m.flip23(4*live() + int32(rng.Intn(4))) {
				flips++
			}
			what = "flip"
		default:
			u := live()
			e := tetEdges[rng.Intn(6)]
			if q := m.tet(u); q[e[0]] != ghost && q[e[1]] != ghost && m.removeEdge(q[e[0]], q[e[1]], u, nil, nil) {
				removals++
			}
			what = "edge removal"
		}
		checkTri(t, m)
		if step%25 == 24 {
			checkRings(fmt.Sprintf("after %s %d", what, step))
		}
	}
	t.Logf("%d insertions, %d flips, %d edge removals; %d closed rings, %d refused at a ghost", inserted, flips, removals, rings, ghostRings)
	if inserted < 100 || flips < 30 || removals < 20 || ghostRings == 0 {
		t.Fatalf("too few changes or ghost rings to test")
	}
}
