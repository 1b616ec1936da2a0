package tetgen

import (
	"math"
	"testing"

	"github.com/pfmesh/pfmesh/internal/geom"
	"github.com/pfmesh/pfmesh/internal/shapes"
	"github.com/pfmesh/pfmesh/internal/tetmesh"
)

// FuzzBuild meshes closed surfaces made from the fuzzer's bytes, each
// valid by construction (shapes.FromBytes: height fields with exact flat
// faces, creases and steps, as in CAD parts, and thin plates; star-shaped
// icospheres; extruded star polygons with sharp and reflex corners), and
// checks every result as the other tests do (checkMesh,
// checkMergedMesh): Build must neither fail nor panic on them.
//
// The first byte picks the family; the second the options: quality mode
// at the default bound or at √2, coarse mode, flat faces merged or not,
// caller points (some tagged Core) in a box the family keeps strictly
// inside, and a volume bound of a thirtieth of the body's (the high bit,
// which no seed before it had).
func FuzzBuild(f *testing.F) {
	f.Add([]byte{0, 0, 2, 2, 3, 1, 4, 1, 5, 9, 2, 6})
	f.Add([]byte{0, 5, 3, 1, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0xaa, 0x55})
	f.Add([]byte{0, 2, 1, 3, 200, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	f.Add([]byte{1, 1, 10, 200, 30, 250, 40, 90, 255, 0, 128, 77})
	f.Add([]byte{1, 6, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255})
	f.Add([]byte{2, 0, 5, 255, 10, 255, 10, 255, 10, 255, 10})
	f.Add([]byte{2, 9, 0, 0, 0, 0, 40, 90, 140})
	f.Add([]byte{0, 10, 5, 7, 1, 8, 3, 3, 3, 3, 3, 3, 3, 3, 0x0f, 1, 2, 3, 200, 100, 50})
	f.Add([]byte{1, 12, 77, 88, 99, 11, 22, 33, 44, 55, 66, 0, 128, 255, 255, 128, 0})
	f.Add([]byte{2, 0x80, 5, 200, 100, 50, 180, 90})
	f.Add([]byte{0, 0x86, 5, 3, 1, 4, 1, 5, 9, 2, 6, 5, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		kind, opts, data := data[0], data[1], data[2:]
		s, lo, hi := shapes.FromBytes(kind, data)
		opt := Options{Coarse: opts&1 != 0, MergeCoplanar: opts&2 != 0}
		if opts&4 != 0 {
			opt.Quality = math.Sqrt2
		}
		if opts&8 != 0 {
			opt.Points, opt.PointTags = innerPoints(data, lo, hi)
		}
		if opts&128 != 0 {
			opt.MaxVolume = enclosedVolume(s) / 30
		}
		m, _, err := Build(s, opt)
		if err != nil {
			t.Fatalf("Build(%+v) of a valid surface: %v", opt, err)
		}
		if opt.MergeCoplanar {
			checkMergedMesh(t, s, m)
		} else {
			checkMesh(t, s, m)
		}
	})
}

// innerPoints returns up to 8 distinct points of the box lo–hi from the
// last bytes of data, every other one tagged Core.
func innerPoints(data []byte, lo, hi geom.Vec) ([]float64, []tetmesh.Tag) {
	var pts []float64
	var tags []tetmesh.Tag
	seen := map[geom.Vec]bool{}
	for k := len(data) - 3; k >= 0 && len(tags) < 8; k -= 3 {
		var p geom.Vec
		for c := range 3 {
			p[c] = lo[c] + (hi[c]-lo[c])*float64(data[k+c])/255
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		pts = append(pts, p[:]...)
		tags = append(tags, []tetmesh.Tag{tetmesh.Interior, tetmesh.Core}[len(tags)%2])
	}
	return pts, tags
}
