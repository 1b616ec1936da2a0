package tetgen

import (
	"math/rand"
	"testing"
)

// TestEdgeFrom checks surfCavity.edgeFrom and firstFrom against a scan
// of the boundary edges on random edge lists over few vertices, where
// vertices start several edges (a pinched boundary) and the same edge
// recurs, after indexes of other lists (stale stamps and heads).
func TestEdgeFrom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var c surfCavity
	multi := 0
	for round := 0; round < 2000; round++ {
		n := 3 + r.Intn(10)
		c.edges = c.edges[:0]
		starts := map[int32]int{}
		for range 1 + r.Intn(12) {
			a, b := int32(r.Intn(n)), int32(r.Intn(n))
			c.edges = append(c.edges, cavEdge{a: a, b: b})
			if starts[a]++; starts[a] == 2 {
				multi++
			}
		}
		c.indexEdges(n)
		for x := int32(0); x < int32(n); x++ {
			first := int32(-1)
			for i, ce := range c.edges {
				if ce.a == x {
					first = int32(i)
					break
				}
			}
			if got := c.firstFrom(x); got != first {
				t.Fatalf("round %d: firstFrom(%d) = %d, want %d (edges %v)", round, x, got, first, c.edges)
			}
			for y := int32(0); y < int32(n); y++ {
				want := int32(-1)
				for i, ce := range c.edges {
					if ce.a == x && ce.b == y {
						want = int32(i)
						break
					}
				}
				if got := c.edgeFrom(x, y); got != want {
					t.Fatalf("round %d: edgeFrom(%d, %d) = %d, want %d (edges %v)", round, x, y, got, want, c.edges)
				}
			}
		}
	}
	if multi < 1000 {
		t.Fatalf("only %d vertices starting several edges: the test no longer covers its case", multi)
	}
}
