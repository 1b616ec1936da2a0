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
