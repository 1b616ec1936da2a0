package tetmesh

import (
	"slices"
	"testing"
)

// Both ways of finding neighbours against faces matched through a map: a
// 4×4×4 grid of cubes, six Kuhn tets each, then the same with one tet
// repeated (three tets on each of its faces: not ok, the later tet
// reported).
func TestNeighborsMatchMap(t *testing.T) {
	tets, nv := kuhnGrid(4)
	for _, dup := range []bool{false, true} {
		if dup {
			tets = append(tets, tets[4*100:4*101]...)
		}
		holders := map[[3]int32][]int32{}
		for u := range len(tets) / 4 {
			for _, f := range TetFaces {
				key := [3]int32{tets[4*u+f[0]], tets[4*u+f[1]], tets[4*u+f[2]]}
				slices.Sort(key[:])
				holders[key] = append(holders[key], int32(u))
			}
		}
		wantOK := true
		want := make([]int32, len(tets))
		for u := range len(tets) / 4 {
			for k, f := range TetFaces {
				key := [3]int32{tets[4*u+f[0]], tets[4*u+f[1]], tets[4*u+f[2]]}
				slices.Sort(key[:])
				want[4*u+k] = -1
				others := 0
				for _, w := range holders[key] {
					if int(w) != u {
						want[4*u+k] = w // the last, as Neighbors reports
						others++
					}
				}
				wantOK = wantOK && others <= 1
			}
		}
		for name, find := range map[string]func() ([]int32, bool){
			"sort":   func() ([]int32, bool) { return sortNeighbors(tets) },
			"search": func() ([]int32, bool) { return searchNeighbors(tets, nv) },
		} {
			got, ok := find()
			if ok != wantOK || !slices.Equal(got, want) {
				t.Fatalf("%s, duplicate %v: ok %v (want %v), neighbours differ: %v", name, dup, ok, wantOK, !slices.Equal(got, want))
			}
		}
	}
}

// kuhnGrid returns the tets of an n×n×n grid of unit cubes, six Kuhn tets
// each, and the number of grid vertices.
func kuhnGrid(n int) (tets []int32, nv int) {
	id := func(i, j, k int) int32 { return int32((i*(n+1)+j)*(n+1) + k) }
	for i := range n {
		for j := range n {
			for k := range n {
				c := [8]int32{id(i, j, k), id(i+1, j, k), id(i+1, j+1, k), id(i, j+1, k),
					id(i, j, k+1), id(i+1, j, k+1), id(i+1, j+1, k+1), id(i, j+1, k+1)}
				for _, q := range [6][4]int{{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6}, {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}} {
					tets = append(tets, c[q[0]], c[q[1]], c[q[2]], c[q[3]])
				}
			}
		}
	}
	return tets, (n + 1) * (n + 1) * (n + 1)
}

// BenchmarkNeighbors finds the neighbours of 384 k tets (a 40³ grid of
// cubes), about what a default build's .pfm assembly asks of it, both
// ways. A grid's vertices have at most 24 tets, which favours the search.
func BenchmarkNeighbors(b *testing.B) {
	tets, nv := kuhnGrid(40)
	b.Run("sort", func(b *testing.B) {
		for b.Loop() {
			sortNeighbors(tets)
		}
	})
	b.Run("search", func(b *testing.B) {
		for b.Loop() {
			searchNeighbors(tets, nv)
		}
	})
}

// A tet with a repeated vertex has two faces with the same vertices; it
// must not be reported as its own neighbour across them.
func TestNeighborsNeverSelf(t *testing.T) {
	tets := []int32{0, 0, 1, 2, 1, 2, 3, 4}
	for name, nbr := range map[string][]int32{
		"sort":   first(sortNeighbors(tets)),
		"search": first(searchNeighbors(tets, 5)),
	} {
		for i, u := range nbr {
			if int(u) == i/4 {
				t.Errorf("%s: tet %d is its own neighbour across face %d", name, u, i%4)
			}
		}
	}
}

func first(nbr []int32, _ bool) []int32 { return nbr }
