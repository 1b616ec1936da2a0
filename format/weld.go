package format

import "math"

// welder assigns one index to each distinct position, in order of first
// appearance: an open-addressing hash table over the positions it has
// collected. Positions are equal when their coordinates compare equal,
// so −0 and +0 are one position; NaN never reaches it (readers reject it).
type welder struct {
	pos   []float64 // xyz of each distinct position, by index
	table []int32   // index+1 of the position hashed to each slot; 0 = empty
}

// newWelder returns a welder expecting about n distinct positions.
func newWelder(n int) *welder {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return &welder{pos: make([]float64, 0, 3*n), table: make([]int32, size)}
}

func hashPos(x, y, z float64) uint64 {
	h := math.Float64bits(x)*0x9e3779b97f4a7c15 ^ math.Float64bits(y)*0xc2b2ae3d27d4eb4f ^ math.Float64bits(z)*0x165667b19e3779f9
	return h ^ h>>31
}

// add returns the index of position (x, y, z), adding it if new.
func (w *welder) add(x, y, z float64) int32 {
	x, y, z = x+0, y+0, z+0 // −0 + 0 = +0, so both zeros hash alike
	mask := uint64(len(w.table) - 1)
	for i := hashPos(x, y, z) & mask; ; i = (i + 1) & mask {
		e := w.table[i]
		if e == 0 {
			n := int32(len(w.pos) / 3)
			w.pos = append(w.pos, x, y, z)
			w.table[i] = n + 1
			if 2*len(w.pos)/3 > len(w.table) {
				w.grow()
			}
			return n
		}
		p := w.pos[3*(e-1):]
		if p[0] == x && p[1] == y && p[2] == z {
			return e - 1
		}
	}
}

// grow doubles the table and reinserts every position.
func (w *welder) grow() {
	w.table = make([]int32, 2*len(w.table))
	mask := uint64(len(w.table) - 1)
	for n := 0; n < len(w.pos)/3; n++ {
		i := hashPos(w.pos[3*n], w.pos[3*n+1], w.pos[3*n+2]) & mask
		for w.table[i] != 0 {
			i = (i + 1) & mask
		}
		w.table[i] = int32(n) + 1
	}
}

// weldExact maps each vertex of positions to the first vertex with the
// same position: remap[i] is the index of vertex i's position among the
// distinct positions, which are returned in order of first appearance.
func weldExact(positions []float64) (remap []int32, unique []float64) {
	n := len(positions) / 3
	w := newWelder(n)
	remap = make([]int32, n)
	for i := range remap {
		remap[i] = w.add(positions[3*i], positions[3*i+1], positions[3*i+2])
	}
	return remap, w.pos
}
