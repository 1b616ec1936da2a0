package stuffing

import (
	"slices"
	"testing"

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
