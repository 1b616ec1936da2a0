package unionfind

import (
	"math/rand/v2"
	"testing"
)

// Against a brute-force labelling: after random unions, two elements share
// a representative exactly when relabelling says they are connected, and
// the representative is the smallest member.
func TestAgainstRelabelling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + rng.IntN(60)
		s := New(n)
		label := make([]int, n)
		for i := range label {
			label[i] = i
		}
		for range rng.IntN(2 * n) {
			a, b := rng.IntN(n), rng.IntN(n)
			s.Union(int32(a), int32(b))
			from, to := label[a], label[b]
			for i := range label {
				if label[i] == from {
					label[i] = to
				}
			}
		}
		for i := range n {
			smallest := i
			for j := range n {
				if label[j] == label[i] {
					smallest = min(smallest, j)
				}
				if (s.Find(int32(i)) == s.Find(int32(j))) != (label[i] == label[j]) {
					t.Fatalf("trial %d: %d and %d disagree with the relabelling", trial, i, j)
				}
			}
			if s.Find(int32(i)) != int32(smallest) {
				t.Fatalf("trial %d: representative of %d is %d, want the smallest member %d", trial, i, s.Find(int32(i)), smallest)
			}
		}
	}
}

// Labels numbers the kept sets by their smallest kept-or-not member, from
// 0 without gaps, and gives −1 to members it is told to drop.
func TestLabels(t *testing.T) {
	s := New(7)
	s.Union(5, 1)
	s.Union(3, 6)
	s.Union(6, 0)
	// Sets: {0, 3, 6}, {1, 5}, {2}, {4}; member 4 dropped.
	lab, n := s.Labels(func(i int) bool { return i != 4 })
	want := []int32{0, 1, 2, 0, -1, 1, 0}
	if n != 3 {
		t.Errorf("%d sets labelled, want 3", n)
	}
	for i := range want {
		if lab[i] != want[i] {
			t.Fatalf("labels %v, want %v", lab, want)
		}
	}
}
