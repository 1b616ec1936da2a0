// Package unionfind is a disjoint-set forest over 0…n−1 whose
// representative is always the smallest member of its set, so that the
// result does not depend on the order of the unions (and a parallel caller
// that merges in any order stays deterministic).
package unionfind

// Sets holds the forest: Sets[x] is x's parent, x itself at a root.
type Sets []int32

// New returns n singleton sets.
func New(n int) Sets {
	s := make(Sets, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// Find returns the representative of x's set (with path halving).
func (s Sets) Find(x int32) int32 {
	for s[x] != x {
		s[x] = s[s[x]]
		x = s[x]
	}
	return x
}

// Union merges the sets of a and b.
func (s Sets) Union(a, b int32) {
	if ra, rb := s.Find(a), s.Find(b); ra != rb {
		s[max(ra, rb)] = min(ra, rb)
	}
}

// Labels numbers the sets of the members keep accepts 0, 1, … in order of
// their smallest member; other members get −1. It returns the labels and
// the number of sets labelled.
func (s Sets) Labels(keep func(i int) bool) ([]int32, int) {
	lab := make([]int32, len(s))
	n := int32(0)
	for i := range s {
		if !keep(i) {
			lab[i] = -1
			continue
		}
		// The representative is the smallest member, so it was labelled
		// before i unless it is i.
		if r := s.Find(int32(i)); r == int32(i) {
			lab[i] = n
			n++
		} else {
			lab[i] = lab[r]
		}
	}
	return lab, int(n)
}
