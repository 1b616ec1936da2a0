package stuffing

import (
	"cmp"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/pfmesh/pfmesh/format"
	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// faceNeighbors must agree with tetmesh.Neighbors, the reference.
func TestFaceNeighborsMatchesTetmesh(t *testing.T) {
	L := newLattice(testOctree(t, 4))
	want, wok := tetmesh.Neighbors(L.tets, len(L.keys))
	got, gok := faceNeighbors(L.tets, len(L.keys))
	if wok != gok || !slices.Equal(got, want) {
		t.Fatalf("faceNeighbors disagrees with tetmesh.Neighbors (ok %v vs %v)", gok, wok)
	}
	// A face in three tets is reported.
	tets := []int32{0, 1, 2, 3, 0, 1, 2, 4, 0, 1, 2, 5}
	if _, ok := faceNeighbors(tets, 6); ok {
		t.Error("a face shared by three tets was not reported")
	}
}

func TestRadixSort(t *testing.T) {
	keys := []uint64{5, 1 << 40, 3, 1<<63 | 7, 3, 0, 1 << 20}
	ids := []int32{0, 1, 2, 3, 4, 5, 6}
	radixSort(keys, ids)
	if !slices.IsSorted(keys) || !slices.Equal(ids, []int32{5, 2, 4, 0, 6, 1, 3}) {
		t.Errorf("got %v %v", keys, ids)
	}
}

// Sorted in blocks at once (more than 1<<16 keys per block), the keys
// and ids come out as a stable sort leaves them, whatever GOMAXPROCS.
func TestRadixSortBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 300_000
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = rng.Uint64() >> (rng.IntN(4) * 20) // many equal high digits
		if i%7 == 0 {
			keys[i] = keys[i/2] // duplicates
		}
	}
	want := make([]int32, n)
	for i := range want {
		want[i] = int32(i)
	}
	slices.SortStableFunc(want, func(a, b int32) int { return cmp.Compare(keys[a], keys[b]) })
	for _, procs := range []int{1, 2, 4} {
		k, ids := slices.Clone(keys), make([]int32, n)
		for i := range ids {
			ids[i] = int32(i)
		}
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			radixSort(k, ids)
		}()
		if !slices.Equal(ids, want) {
			t.Errorf("GOMAXPROCS %d: ids differ from a stable sort", procs)
		}
		for i, id := range ids {
			if k[i] != keys[id] {
				t.Fatalf("GOMAXPROCS %d: key %d is %d, want %d", procs, i, k[i], keys[id])
			}
		}
	}
}

// On stuffed lattices boundaryAmong must return boundaryOf's triangles,
// in the same order: open, nested and touching input included.
func TestBoundaryAmong(t *testing.T) {
	for name, s := range map[string]*format.Surface{
		"sphere":           shapes.Icosphere(1, 2),
		"two shells":       union(shapes.Icosphere(1, 2), translate(shapes.Icosphere(0.5, 2), geom.Vec{2.2, 0, 0})),
		"overlapping cube": union(shapes.Box(1, 1, 1, 2), translate(shapes.Box(1, 1, 1, 2), geom.Vec{0.5, 0.3, 0.2})),
	} {
		_, _, d := stuffFirstLattice(s, 1e-2)
		want, _ := boundaryOf(d.tets, len(d.pos)/3)
		got := boundaryAmong(d.tets, len(d.pos)/3, func(v int32) bool { return d.onTri[v] != notOnSurface })
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: boundaryAmong gives %d triangles, boundaryOf %d", name, len(got)/3, len(want)/3)
		}
	}
}
