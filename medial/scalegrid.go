package medial

import (
	"math"
	"slices"

	"github.com/pfmesh/pfmesh/internal/geom"
)

// scaleGrid is a hash of points in cells whose size follows each point's
// own scale (the power of two at or below it), for nearest-within-reach
// queries over points of very different scales — medial balls of a thin
// wall and of a thick base side by side.
type scaleGrid struct {
	cells  map[scaleCell][]int32
	pts    []geom.Vec
	level  []int32 // per point
	levels []int32 // distinct levels in use, increasing
}

type scaleCell struct{ level, x, y, z int32 }

func newScaleGrid() *scaleGrid { return &scaleGrid{cells: map[scaleCell][]int32{}} }

// add stores p with the given scale and returns its index.
func (g *scaleGrid) add(p geom.Vec, scale float64) int32 {
	id := int32(len(g.pts))
	lv := int32(math.Floor(math.Log2(max(scale, 1e-300))))
	g.pts = append(g.pts, p)
	g.level = append(g.level, lv)
	size := math.Ldexp(1, int(lv))
	key := scaleCell{lv, int32(math.Floor(p[0] / size)), int32(math.Floor(p[1] / size)), int32(math.Floor(p[2] / size))}
	g.cells[key] = append(g.cells[key], id)
	if i, found := slices.BinarySearch(g.levels, lv); !found {
		g.levels = slices.Insert(g.levels, i, lv)
	}
	return id
}

// nearest returns the stored point nearest p within reach (ties to the
// lowest index), or −1.
func (g *scaleGrid) nearest(p geom.Vec, reach float64) int32 {
	best, bestD2 := int32(-1), reach*reach
	consider := func(id int32) {
		if d2 := geom.Dist2(p, g.pts[id]); d2 < bestD2 || d2 == bestD2 && (best < 0 || id < best) {
			best, bestD2 = id, d2
		}
	}
	for _, lv := range g.levels {
		size := math.Ldexp(1, int(lv))
		if span := 2*reach/size + 1; span*span*span > float64(len(g.pts)+64) {
			// Cells far finer than reach: scanning the points is cheaper.
			for id := range g.pts {
				if g.level[id] == lv {
					consider(int32(id))
				}
			}
			continue
		}
		var lo, hi [3]int32
		for k := range 3 {
			lo[k] = int32(math.Floor((p[k] - reach) / size))
			hi[k] = int32(math.Floor((p[k] + reach) / size))
		}
		for x := lo[0]; x <= hi[0]; x++ {
			for y := lo[1]; y <= hi[1]; y++ {
				for z := lo[2]; z <= hi[2]; z++ {
					for _, id := range g.cells[scaleCell{lv, x, y, z}] {
						consider(id)
					}
				}
			}
		}
	}
	return best
}
