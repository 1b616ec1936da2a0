package bvh

import (
	"math"
	"math/rand"
	"testing"
)

// randomRotation returns a uniformly random rotation matrix (row-major)
// from a random unit quaternion.
func randomRotation(r *rand.Rand) [9]float64 {
	q := [4]float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return [9]float64{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

func (f *Frame) apply(p [3]float64) [3]float64 {
	var q [3]float64
	for i := range 3 {
		q[i] = f.R[3*i]*p[0] + f.R[3*i+1]*p[1] + f.R[3*i+2]*p[2] + f.P[i]
	}
	return q
}

func inBox(b []float64, p [3]float64) bool {
	return b[0] <= p[0] && p[0] <= b[3] && b[1] <= p[1] && p[1] <= b[4] && b[2] <= p[2] && p[2] <= b[5]
}

// A point of b (mapped into T) inside a is a witness of overlap, so the
// test must then say "overlap"; with R a signed permutation it must agree
// exactly with the plain box test.
func TestBoxesOverlapNeverMissesWitness(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for trial := 0; trial < 20000; trial++ {
		f := NewFrame(randomRotation(r), [3]float64{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5})
		a, b := randomBoxes(r, 1, 0.3), randomBoxes(r, 1, 0.3)
		for s := 0; s < 20; s++ {
			var p [3]float64
			for k := range 3 {
				p[k] = b[k] + r.Float64()*(b[3+k]-b[k])
			}
			if inBox(a, f.apply(p)) && !f.BoxesOverlap(a, b) {
				t.Fatalf("trial %d: witness point %v in both boxes, test says separate", trial, p)
			}
		}
	}
	perm := [9]float64{0, -1, 0, 0, 0, 1, -1, 0, 0}
	for trial := 0; trial < 20000; trial++ {
		f := NewFrame(perm, [3]float64{r.Float64() - 0.5, r.Float64() - 0.5, r.Float64() - 0.5})
		a, b := randomBoxes(r, 1, 0.3), randomBoxes(r, 1, 0.3)
		// b's image in T is again an axis-aligned box.
		lo, hi := f.apply([3]float64{b[0], b[1], b[2]}), f.apply([3]float64{b[3], b[4], b[5]})
		img := []float64{min(lo[0], hi[0]), min(lo[1], hi[1]), min(lo[2], hi[2]), max(lo[0], hi[0]), max(lo[1], hi[1]), max(lo[2], hi[2])}
		if got, want := f.BoxesOverlap(a, b), boxesMeet(a, img); got != want {
			t.Fatalf("trial %d: permutation frame: got %v, want %v", trial, got, want)
		}
	}
}

// Every item pair whose own boxes pass BoxesOverlap lies in leaves whose
// boxes pass too, so Pairs must report it; brute force over all pairs is
// the reference. Each pair is reported once.
func TestPairsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	for _, leaf := range []int{1, 3, 8} {
		for trial := 0; trial < 5; trial++ {
			ba, bb := randomBoxes(r, 600, 0.03), randomBoxes(r, 500, 0.03)
			// Centre both sets on the origin so the rotated set meets the other.
			for i := range ba {
				ba[i] -= 0.5
			}
			for i := range bb {
				bb[i] -= 0.5
			}
			ta, tb := Build(ba, leaf), Build(bb, leaf)
			f := NewFrame(randomRotation(r), [3]float64{0.2 * r.Float64(), 0.1, -0.1})
			var s PairScratch
			got := map[[2]int32]int{}
			ta.Pairs(tb, &s, func(i, j int32) bool { return f.BoxesOverlap(ta.Bounds[6*i:6*i+6], tb.Bounds[6*j:6*j+6]) }, func(a, b int32) bool {
				got[[2]int32{a, b}]++
				return true
			})
			for k, n := range got {
				if n != 1 {
					t.Fatalf("pair %v reported %d times", k, n)
				}
			}
			want := 0
			for i := range int32(600) {
				for j := range int32(500) {
					if f.BoxesOverlap(ba[6*i:6*i+6], bb[6*j:6*j+6]) {
						want++
						if got[[2]int32{i, j}] == 0 {
							t.Fatalf("leaf %d: overlapping pair (%d, %d) not reported", leaf, i, j)
						}
					}
				}
			}
			if want == 0 {
				t.Fatal("test has no overlapping pairs")
			}
		}
	}
}

func TestPairsStopsAndEmpty(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	ta := Build(randomBoxes(r, 100, 0.2), 2)
	f := NewFrame([9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, [3]float64{})
	var s PairScratch
	n := 0
	ta.Pairs(ta, &s, func(i, j int32) bool { return f.BoxesOverlap(ta.Bounds[6*i:6*i+6], ta.Bounds[6*j:6*j+6]) }, func(a, b int32) bool { n++; return n < 5 })
	if n != 5 {
		t.Fatalf("visit called %d times after returning false at 5", n)
	}
	Build(nil, 1).Pairs(ta, &s, func(i, j int32) bool { return true }, func(a, b int32) bool { t.Fatal("empty tree visited"); return false })
}

func TestPlaneItemsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	boxes := randomBoxes(r, 3000, 0.02)
	tree := Build(boxes, 4)
	var s PairScratch
	for q := 0; q < 100; q++ {
		rot := randomRotation(r)
		n := [3]float64{rot[0], rot[1], rot[2]}
		d := -(n[0] + n[1] + n[2]) * r.Float64()
		got := map[int32]bool{}
		tree.PlaneItems(n, d, &s, func(it int32) bool { got[it] = true; return true })
		for i := range int32(3000) {
			b := boxes[6*i : 6*i+6]
			lo, hi := math.Inf(1), math.Inf(-1)
			for c := range 8 {
				v := d
				for k := range 3 {
					v += n[k] * b[k+3*((c>>k)&1)]
				}
				lo, hi = min(lo, v), max(hi, v)
			}
			if lo <= 0 && 0 <= hi && !got[i] {
				t.Fatalf("query %d: box %d straddles the plane, not reported", q, i)
			}
		}
	}
}
