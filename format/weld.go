package format

import "math"

// welder finds equal positions: an open-addressing hash table of indices
// into pos. Positions are equal when their coordinates compare equal, so
// −0 and +0 are one position; NaN never reaches it (readers reject it).
type welder struct {
	pos   []float64 // xyz per position; the table indexes into it
	table []int32   // index+1 of the position hashed to each slot; 0 = empty
	n     int       // positions in the table
}

// newWelder returns a welder over pos expecting about n distinct
// positions. The table is kept at most a quarter full, so probes stay
// short.
func newWelder(pos []float64, n int) *welder {
	size := 16
	for size < 4*n {
		size *= 2
	}
	return &welder{pos: pos, table: make([]int32, size)}
}

func hashPos(x, y, z float64) uint64 {
	x, y, z = x+0, y+0, z+0 // −0 + 0 = +0, so both zeros hash alike
	h := math.Float64bits(x)*0x9e3779b97f4a7c15 ^ math.Float64bits(y)*0xc2b2ae3d27d4eb4f ^ math.Float64bits(z)*0x165667b19e3779f9
	return h ^ h>>31
}

// find returns the index of the tabled position equal to (x, y, z), or
// the slot where it would go as −1−slot.
func (w *welder) find(x, y, z float64) int {
	mask := uint64(len(w.table) - 1)
	for i := hashPos(x, y, z) & mask; ; i = (i + 1) & mask {
		e := w.table[i]
		if e == 0 {
			return -1 - int(i)
		}
		if p := w.pos[3*(e-1):]; p[0] == x && p[1] == y && p[2] == z {
			return int(e - 1)
		}
	}
}

// insert puts position index k into the empty slot find reported,
// doubling the table when it gets a quarter full.
func (w *welder) insert(slot, k int) {
	w.table[-1-slot] = int32(k) + 1
	w.n++
	if 4*w.n <= len(w.table) {
		return
	}
	old := w.table
	w.table = make([]int32, 2*len(old))
	mask := uint64(len(w.table) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		p := w.pos[3*(e-1):]
		i := hashPos(p[0], p[1], p[2]) & mask
		for w.table[i] != 0 {
			i = (i + 1) & mask
		}
		w.table[i] = e
	}
}

// add returns the index of position (x, y, z) in pos, appending it if new.
func (w *welder) add(x, y, z float64) int32 {
	slot := w.find(x, y, z)
	if slot >= 0 {
		return int32(slot)
	}
	k := len(w.pos) / 3
	w.pos = append(w.pos, x+0, y+0, z+0)
	w.insert(slot, k)
	return int32(k)
}

// weldExact maps each vertex of positions to the distinct positions in
// order of first appearance: remap[i] is the new index of vertex i. When
// all positions are distinct, remap is the identity and unique is
// positions itself, not a copy.
func weldExact(positions []float64) (remap []int32, unique []float64) {
	n := len(positions) / 3
	w := newWelder(positions, n)
	remap = make([]int32, n)
	next := int32(0)
	for i := range remap {
		if j := w.find(positions[3*i], positions[3*i+1], positions[3*i+2]); j >= 0 {
			remap[i] = remap[j]
		} else {
			w.insert(j, i)
			remap[i] = next
			next++
		}
	}
	if int(next) == n {
		return remap, positions
	}
	unique = make([]float64, 3*next)
	for i, r := range remap {
		copy(unique[3*r:3*r+3], positions[3*i:3*i+3])
	}
	return remap, unique
}
