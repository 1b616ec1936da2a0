package tetgen

import (
	"maps"
	"math"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// torusBeforeSlivers returns the torus's mesher run up to (not through)
// stage last; the torus keeps a tet below optTarget after optimization.
func torusBeforeSlivers(t *testing.T, last string) *mesher {
	return meshedBefore(t, shapes.Torus(2, 0.5, 24, 12), Options{Quality: 2}, last)
}

// meshedBefore returns the mesher of s run up to (not through) stage
// last.
func meshedBefore(t *testing.T, s *format.Surface, opt Options, last string) *mesher {
	ms, stages := newMesher(s, opt, false)
	for _, st := range stages {
		if st.name == last {
			break
		}
		if err := st.run(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
	}
	ms.m.stopLog()
	return ms
}

// smallestAngle returns the smallest dihedral angle (radians) of the
// given tets, or of every live tet when ts is nil.
func smallestAngle(m *tri, ts []int32) float64 {
	if ts == nil {
		for t := int32(0); t < int32(m.numTets()); t++ {
			if m.alive(t) {
				ts = append(ts, t)
			}
		}
	}
	w := math.Pi
	for _, t := range ts {
		q := m.tet(t)
		d := tetmesh.Dihedral(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
		w = min(w, slices.Min(d[:]))
	}
	return w
}

// A point inserted in front of a face of a bad tet removes that tet,
// makes only tets whose smallest dihedral sine is above the floor, does
// not lower the mesh's smallest angle, and leaves a valid mesh of the
// same volume without zero-pressure simplices. The bad tets are those
// refinement leaves, before optimization: the torus keeps none below
// optTarget after it.
func TestInsertInFront(t *testing.T) {
	s := shapes.Torus(2, 0.5, 24, 12)
	ms := torusBeforeSlivers(t, "optimize")
	m := ms.m
	bad := m.scanBad(math.Sin(optTarget))
	before := smallestAngle(m, nil)
	mended := 0
	for _, b := range bad {
		key := sortedTet(m.tet(b.t))
		if !m.alive(b.t) || sortedTet(m.tet(b.t)) != key {
			continue
		}
		floor := max(1.1*b.sine, math.Sin(before))
		nv := int32(len(ms.kind))
		if !ms.insertInFront(b.t, floor) {
			continue
		}
		mended++
		if m.alive(b.t) && sortedTet(m.tet(b.t)) == key {
			t.Errorf("tet %v survived the insertion", key)
		}
		star := m.star(nv, nil)
		for _, st := range star {
			q := m.tet(st)
			d := tetmesh.Dihedral(m.pos(q[0]), m.pos(q[1]), m.pos(q[2]), m.pos(q[3]))
			for _, a := range d {
				if math.Sin(a) <= floor {
					t.Errorf("new tet %v has a dihedral angle of %.3g°, sine %.3g not above the floor %.3g",
						q, a*180/math.Pi, math.Sin(a), floor)
				}
			}
		}
	}
	if mended == 0 {
		t.Fatalf("none of %d bad tets mended: the test no longer covers its case", len(bad))
	}
	if after := smallestAngle(m, nil); after < before {
		t.Errorf("smallest angle %.4g° after, %.4g° before", after*180/math.Pi, before*180/math.Pi)
	}
	checkMesh(t, s, ms.output())
}

// insertInFront, with its tries taken on two goroutines, makes the mesh
// the serial loop makes: the tries in order, each by insertForced, until
// one succeeds — the same tets, vertices and random state after every
// call, on the bad tets refinement leaves on the torus.
func TestInsertInFrontSerial(t *testing.T) {
	serial := func(ms *mesher, t int32, floor float64) bool {
		m := ms.m
		var rng uint64
		for i, h := range frontHeights {
			if i == len(frontHeights)-1 {
				rng = m.rng
			}
			for k := int32(0); k < 4; k++ {
				if i == len(frontHeights)-1 && !m.thinSubface(4*t+k) {
					continue
				}
				v := ms.addVertex(m.frontPoint(t, k, h), vVolume, -1, onNone)
				if t0, blocked := m.locate(v, t); blocked >= 0 || ms.insertForced(v, t0, []int32{t}, true, floor) != inserted {
					ms.popVertex()
					continue
				}
				ms.tagSteiner(v)
				return true
			}
		}
		m.rng = rng
		return false
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	want, got := torusBeforeSlivers(t, "optimize"), torusBeforeSlivers(t, "optimize")
	stop := got.startFront()
	defer stop()
	if got.front == nil {
		t.Fatal("no front worker at GOMAXPROCS 2")
	}
	bad := want.m.scanBad(math.Sin(optTarget))
	acute := smallestAngle(want.m, nil)
	var mended, failed int
	for _, b := range bad {
		if want.m.gone(keyedTet{b.sine, b.t, sortedTet(want.m.tet(b.t))}) {
			continue
		}
		floor := max(1.1*b.sine, math.Sin(acute))
		w, g := serial(want, b.t, floor), got.insertInFront(b.t, floor)
		if w != g {
			t.Fatalf("tet %d: inserted %v, the serial loop %v", b.t, g, w)
		}
		if w {
			mended++
		} else {
			failed++
		}
		if got.m.rng != want.m.rng || !slices.Equal(got.m.xyz, want.m.xyz) || !slices.Equal(got.m.c, want.m.c) {
			t.Fatalf("tet %d: not the serial loop's mesh and random state", b.t)
		}
	}
	if mended == 0 || failed == 0 {
		t.Fatalf("%d mended, %d not: the test no longer covers both cases", mended, failed)
	}
	t.Logf("%d bad tets mended, %d not", mended, failed)
	checkTri(t, got.m)
}

// Smoothing raises the smallest dihedral sine of a star but never takes
// the star's smallest angle below where it was (or below optTarget).
func TestSmoothKeepsSmallestAngle(t *testing.T) {
	ms := torusBeforeSlivers(t, "optimize")
	m := ms.m
	moved := 0
	for v := int32(0); v < int32(len(ms.kind)); v++ {
		// A Steiner point that void splitting dropped has no star.
		if !ms.movable(v) || m.vt[v] == noTet {
			continue
		}
		star := slices.Clone(m.star(v, nil))
		a0 := smallestAngle(m, star)
		if !ms.smooth(v) {
			continue
		}
		moved++
		if a1 := smallestAngle(m, star); a1 < min(a0, optTarget) {
			t.Errorf("vertex %d: smallest angle of its star %.4g° → %.4g°", v, a0*180/math.Pi, a1*180/math.Pi)
		}
	}
	if moved == 0 {
		t.Fatal("no vertex moved: the test no longer covers its case")
	}
	checkMesh(t, shapes.Torus(2, 0.5, 24, 12), ms.output())
}

// subfaceConeBelow answers for a forced insertion before its cavity is
// grown: a subface of a tet the cavity must hold stays on the cavity's
// boundary. So when the insertion succeeds (with no floor), the cone
// tets over those subfaces are in the new vertex's star, and
// subfaceConeBelow says a floor fails exactly when one of them is below
// it. The points are insertInFront's, in front of the faces of the
// torus's bad tets that stand on the surface.
func TestSubfaceConeBelow(t *testing.T) {
	ms := torusBeforeSlivers(t, "optimize")
	m := ms.m
	var walls [][4]int32 // bad tets with a subface
	for _, b := range m.scanBad(math.Sin(optTarget)) {
		for k := int32(0); k < 4; k++ {
			if m.across(4*b.t+k) < noTet {
				walls = append(walls, sortedTet(m.tet(b.t)))
				break
			}
		}
	}
	const floor = 0.3 // sin 17.5°: above optTarget, so that some cones fail it
	var made, below int
	for _, key := range walls {
		for _, h := range frontHeights {
			for k := int32(0); k < 4; k++ {
				// An earlier insertion may have removed the tet.
				around := m.star(key[0], nil)
				i := slices.IndexFunc(around, func(st int32) bool { return sortedTet(m.tet(st)) == key })
				if i < 0 {
					break
				}
				w := around[i]
				f := m.faceVerts(4*w + k)
				a, b, c := m.pos(f[0]), m.pos(f[1]), m.pos(f[2])
				n := geom.Cross(geom.Sub(b, a), geom.Sub(c, a))
				l := (math.Sqrt(geom.Dist2(a, b)) + math.Sqrt(geom.Dist2(b, c)) + math.Sqrt(geom.Dist2(c, a))) / 3
				p := geom.Sub(geom.Scale(1.0/3, geom.Add(geom.Add(a, b), c)), geom.Scale(h*l/geom.Norm(n), n))
				v := ms.addVertex(p, vVolume, -1, onNone)
				t0, blocked := m.locate(v, w)
				if blocked >= 0 {
					ms.popVertex()
					continue
				}
				var cones [][4]int32
				for j := int32(0); j < 4; j++ {
					if m.across(4*w+j) < noTet {
						cf := m.faceVerts(4*w + j)
						cones = append(cones, sortedTet([]int32{cf[0], cf[1], cf[2], v}))
					}
				}
				pre := m.subfaceConeBelow(w, v, floor)
				if ms.insertForced(v, t0, []int32{w}, true, 0) != inserted {
					ms.popVertex()
					continue
				}
				made++
				ms.tagSteiner(v)
				star := m.star(v, nil)
				lowest := 1.0
				for _, q := range cones {
					i := slices.IndexFunc(star, func(st int32) bool { return sortedTet(m.tet(st)) == q })
					if i < 0 {
						t.Fatalf("tet %v, point %v: no cone tet %v over its subface", key, p, q)
					}
					lowest = min(lowest, m.tetMinSine(star[i]))
				}
				if pre != (lowest < floor) {
					t.Errorf("tet %v, point %v: subfaceConeBelow says %v, the cone tets' smallest sine is %.3g", key, p, pre, lowest)
				}
				if pre {
					below++
				}
			}
		}
	}
	t.Logf("%d walls: %d insertions, %d of them below the floor at a subface", len(walls), made, below)
	if below == 0 || below == made {
		t.Fatal("the points no longer cover both answers")
	}
	checkMesh(t, shapes.Torus(2, 0.5, 24, 12), ms.output())
}

// A forced insertion either leaves the mesh as it was or replaces a
// star-shaped cavity holding every tet it must remove by the cone from
// the new vertex: a valid mesh (checkTri: every tet positive by the exact
// predicate, links symmetric) of the same volume, whose new tets all hold
// the vertex and pass the floor. The points are random in random tets of
// the torus before the sliver stage, many of them close to a face of
// their tet, so that cavities grow across faces the point does not see;
// the insertions accumulate, so the face-side answers insertForced keeps
// through a call's sweeps are exercised on a changing mesh. A kept answer
// that wrongly says a face is seen makes a tet that is not positive (the
// test fails when the answers are kept across calls); one that wrongly
// says unseen only grows the cavity, which this contract cannot see.
func TestInsertForcedCavity(t *testing.T) {
	ms := torusBeforeSlivers(t, "optimize")
	m := ms.m
	rng := rand.New(rand.NewSource(5))
	live := func() map[[4]int32]bool {
		set := map[[4]int32]bool{}
		for t := int32(0); t < int32(m.numTets()); t++ {
			if m.alive(t) {
				set[sortedTet(m.tet(t))] = true
			}
		}
		return set
	}
	var made, grown, failed int
	for range 600 {
		var t0 int32
		for {
			t0 = int32(rng.Intn(m.numTets()))
			if m.alive(t0) && !m.isGhost(t0) {
				break
			}
		}
		// Barycentric weights, one of them often tiny: a point near a face.
		var w [4]float64
		for k := range w {
			w[k] = rng.Float64()
		}
		if rng.Intn(2) == 0 {
			w[rng.Intn(4)] = 1e-6 * rng.Float64()
		}
		q := m.tet(t0)
		var p geom.Vec
		sum := w[0] + w[1] + w[2] + w[3]
		for k := range 4 {
			p = geom.Add(p, geom.Scale(w[k]/sum, m.pos(q[k])))
		}
		must := []int32{t0}
		for k := int32(0); k < 4; k++ {
			if n := m.across(4*t0 + k); n >= 0 && !m.isGhost(n>>2) && rng.Intn(3) == 0 {
				must = append(must, n>>2)
			}
		}
		keys := make([][4]int32, len(must))
		for i, u := range must {
			keys[i] = sortedTet(m.tet(u))
		}
		floor := []float64{0, 0.1, 0.3}[rng.Intn(3)]
		conflict := rng.Intn(2) == 0
		before, vol := live(), m.finiteVolume()
		v := ms.addVertex(p, vVolume, -1, onNone)
		if ms.insertForced(v, t0, must, conflict, floor) != inserted {
			ms.popVertex()
			failed++
			if after := live(); !maps.Equal(before, after) {
				t.Fatalf("point %v, must %v: a failed insertion changed the mesh (%d → %d tets)", p, keys, len(before), len(after))
			}
			continue
		}
		made++
		ms.tagSteiner(v)
		checkTri(t, m)
		after := live()
		for _, k := range keys {
			if after[k] {
				t.Fatalf("point %v: tet %v it must remove is still there", p, k)
			}
		}
		removed := 0
		for k := range before {
			if !after[k] {
				removed++
			}
		}
		if !conflict && removed > len(must) {
			grown++
		}
		for k := range after {
			if before[k] {
				continue
			}
			if !slices.Contains(k[:], v) {
				t.Fatalf("point %v: new tet %v does not hold the new vertex %d", p, k, v)
			}
			if s := minSine(m.pos(k[0]), m.pos(k[1]), m.pos(k[2]), m.pos(k[3])); s < floor {
				t.Fatalf("point %v: new tet %v has smallest sine %.3g below the floor %.3g", p, k, s, floor)
			}
		}
		if got := m.finiteVolume(); math.Abs(got-vol) > 1e-12*vol {
			t.Fatalf("point %v: volume %.17g → %.17g", p, vol, got)
		}
	}
	t.Logf("%d inserted (%d grown beyond must without conflict), %d failed", made, grown, failed)
	if made == 0 || grown == 0 || failed == 0 {
		t.Fatal("the points no longer cover every case")
	}
	checkMesh(t, shapes.Torus(2, 0.5, 24, 12), ms.output())
}

// thinSubface holds for exactly the subfaces narrower than thinWidth
// times their mean edge length: before refinement the subfaces of a
// 10 × w × 1 prism are its input triangles, and only the caps' are that
// narrow, at w = 0.0198 (2.97e-3 of the mean edge), not at w = 0.0202
// (3.03e-3); faces inside the body are never thin subfaces.
func TestThinSubface(t *testing.T) {
	for _, w := range []float64{0.0198, 0.0202} {
		ms := meshedBefore(t, thinPrism(w), Options{Quality: 2}, "refine")
		m := ms.m
		caps := 0
		for tt := int32(0); tt < int32(m.numTets()); tt++ {
			if !m.alive(tt) {
				continue
			}
			for k := int32(0); k < 4; k++ {
				f := 4*tt + k
				q := m.faceVerts(f)
				onCap := m.across(f) < noTet && m.pos(q[0])[2] == m.pos(q[1])[2] && m.pos(q[1])[2] == m.pos(q[2])[2]
				if onCap {
					caps++
				}
				if got, want := m.thinSubface(f), onCap && w < 0.02; got != want {
					t.Errorf("w %g: face %v: thinSubface %v, want %v", w, q, got, want)
				}
			}
		}
		if caps != 4 {
			t.Fatalf("w %g: %d cap subfaces, want the input's 4", w, caps)
		}
	}
}

// thinPrism is the 10 × w × 1 box.
func thinPrism(w float64) *format.Surface {
	return shapes.Extrude([][2]float64{{0, 0}, {10, 0}, {10, w}, {0, w}}, 1)
}

// A call of insertInFront that makes nothing leaves the random state
// where the walks of the tries before the thin subfaces' leave it: on
// the tets of a thin prism with a cap subface, before refinement, with a
// floor no tet reaches.
func TestInsertInFrontThinFails(t *testing.T) {
	ms := meshedBefore(t, thinPrism(0.0198), Options{Quality: 2}, "refine")
	m := ms.m
	calls := 0
	for tt := int32(0); tt < int32(m.numTets()); tt++ {
		if !m.alive(tt) || !slices.ContainsFunc([]int32{0, 1, 2, 3}, func(k int32) bool { return m.thinSubface(4*tt + k) }) {
			continue
		}
		start := m.rng
		for _, h := range frontHeights[:len(frontHeights)-1] {
			for k := int32(0); k < 4; k++ {
				v := ms.addVertex(m.frontPoint(tt, k, h), vVolume, -1, onNone)
				if t0, blocked := m.locate(v, tt); blocked < 0 {
					m.locateForced(v, t0)
				}
				ms.popVertex()
			}
		}
		want := m.rng
		m.rng = start
		if ms.insertInFront(tt, 2) {
			t.Fatalf("tet %d: a point inserted with floor 2", tt)
		}
		if m.rng != want {
			t.Fatalf("tet %d: random state %#x, want %#x", tt, m.rng, want)
		}
		calls++
	}
	if calls == 0 {
		t.Fatal("no tet on a thin subface: the test no longer covers its case")
	}
	checkTri(t, m)
}
