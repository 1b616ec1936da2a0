package format

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// shuffled returns p with its vertices and tets in random order (indices
// remapped), the BVH rebuilt.
func shuffled(p *PFM, seed uint64) *PFM {
	rng := rand.New(rand.NewPCG(seed, 1))
	vperm := rng.Perm(p.NumVertices())
	q := *p
	order := make([]int32, len(vperm))
	newID := make([]int32, len(vperm))
	for i, v := range vperm {
		order[i], newID[v] = int32(v), int32(i)
	}
	q.Positions = pfmPermute(p.Positions, order, 3)
	q.Epsilon = pfmPermute(p.Epsilon, order, 1)
	q.Gradient = pfmPermute(p.Gradient, order, 3)
	q.Tags = pfmPermute(p.Tags, order, 1)
	tperm := rng.Perm(p.NumTets())
	q.Tets = make([]int32, len(p.Tets))
	for i, t := range tperm {
		for k := range 4 {
			q.Tets[4*i+k] = newID[p.Tets[4*t+k]]
		}
	}
	q.Boundary = make([]int32, len(p.Boundary))
	for i, v := range p.Boundary {
		q.Boundary[i] = newID[v]
	}
	q.BVH = NewBVH(q.Positions, q.Tets, 4)
	return &q
}

// content describes a mesh without its numbering: every tet and boundary
// triangle as its vertices' positions in order, every vertex's data by
// position, sorted.
func content(p *PFM) []string {
	var out []string
	pos := func(v int32) string { return fmt.Sprint(p.Positions[3*v : 3*v+3]) }
	for t := 0; t < len(p.Tets); t += 4 {
		out = append(out, "tet "+pos(p.Tets[t])+pos(p.Tets[t+1])+pos(p.Tets[t+2])+pos(p.Tets[t+3]))
	}
	for t := 0; t < len(p.Boundary); t += 3 {
		out = append(out, "tri "+pos(p.Boundary[t])+pos(p.Boundary[t+1])+pos(p.Boundary[t+2]))
	}
	for v := range int32(p.NumVertices()) {
		out = append(out, fmt.Sprint("v ", pos(v), p.Epsilon[v], p.Gradient[3*v:3*v+3], p.Tags[v]))
	}
	slices.Sort(out)
	return out
}

func TestReorder(t *testing.T) {
	p := shuffled(gridPFM(5, 0.2), 7)
	want := content(p)
	q := shuffled(gridPFM(5, 0.2), 7)
	if err := q.Reorder(); err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(); err != nil {
		t.Fatalf("reordered mesh invalid: %v", err)
	}
	if !slices.Equal(content(q), want) {
		t.Error("reordering changed the mesh")
	}
	for i, it := range q.BVH.Items {
		if it != int32(i) {
			t.Fatalf("BVH item %d is tet %d, want the tets in leaf order", i, it)
		}
	}
	// Neighbours in memory are neighbours in space: consecutive vertices
	// are, on average, much closer than in the shuffled mesh.
	step := func(p *PFM) float64 {
		s := 0.0
		for v := 3; v < len(p.Positions); v += 3 {
			s += math.Sqrt(math.Pow(p.Positions[v]-p.Positions[v-3], 2) + math.Pow(p.Positions[v+1]-p.Positions[v-2], 2) +
				math.Pow(p.Positions[v+2]-p.Positions[v-1], 2))
		}
		return s / float64(p.NumVertices()-1)
	}
	if a, b := step(p), step(q); b > a/2 {
		t.Errorf("mean step between consecutive vertices %.3f, shuffled %.3f: not local", b, a)
	}
	// The same input gives the same output.
	r := shuffled(gridPFM(5, 0.2), 7)
	r.Reorder()
	if !slices.Equal(r.Tets, q.Tets) || !slices.Equal(r.Positions, q.Positions) || !slices.Equal(r.Boundary, q.Boundary) {
		t.Error("Reorder is not deterministic")
	}
	// Without a BVH, and refusing an invalid mesh.
	s := shuffled(gridPFM(3, 1), 9)
	s.BVH = nil
	want = content(s)
	if err := s.Reorder(); err != nil || !slices.Equal(content(s), want) {
		t.Errorf("without BVH: err %v, content kept %v", err, slices.Equal(content(s), want))
	}
	s.Epsilon[0] = -1
	if err := s.Reorder(); err == nil {
		t.Error("reordered an invalid mesh")
	}
}
