package stuffing

// keyMap maps uint64 keys to int32 values by open addressing with linear
// probing. Lattice vertices, octree nodes and edges are looked up millions
// of times per mesh; a flat table avoids the per-entry cost of a Go map and
// its iteration is never needed, so results cannot depend on map order.
type keyMap struct {
	keys []uint64 // emptyKey marks a free slot
	vals []int32
	n    int
	mask uint64
}

// emptyKey is never a valid key: every key packs fields that leave the top
// bit clear.
const emptyKey = ^uint64(0)

func newKeyMap(capacity int) *keyMap {
	size := 16
	for size < 2*capacity {
		size *= 2
	}
	m := &keyMap{keys: make([]uint64, size), vals: make([]int32, size), mask: uint64(size - 1)}
	for i := range m.keys {
		m.keys[i] = emptyKey
	}
	return m
}

func mix(k uint64) uint64 {
	// splitmix64 finaliser: spreads lattice keys, which differ in few bits.
	k ^= k >> 30
	k *= 0xbf58476d1ce4e5b9
	k ^= k >> 27
	k *= 0x94d049bb133111eb
	k ^= k >> 31
	return k
}

// get returns the value stored for k, or −1.
func (m *keyMap) get(k uint64) int32 {
	for i := mix(k) & m.mask; ; i = (i + 1) & m.mask {
		switch m.keys[i] {
		case k:
			return m.vals[i]
		case emptyKey:
			return -1
		}
	}
}

// put stores v for k unless k is present, and returns the stored value and
// whether it was inserted now.
func (m *keyMap) put(k uint64, v int32) (int32, bool) {
	if 2*(m.n+1) > len(m.keys) {
		m.grow()
	}
	for i := mix(k) & m.mask; ; i = (i + 1) & m.mask {
		switch m.keys[i] {
		case k:
			return m.vals[i], false
		case emptyKey:
			m.keys[i], m.vals[i] = k, v
			m.n++
			return v, true
		}
	}
}

// set stores v for k, replacing any earlier value.
func (m *keyMap) set(k uint64, v int32) {
	if 2*(m.n+1) > len(m.keys) {
		m.grow()
	}
	for i := mix(k) & m.mask; ; i = (i + 1) & m.mask {
		switch m.keys[i] {
		case k:
			m.vals[i] = v
			return
		case emptyKey:
			m.keys[i], m.vals[i] = k, v
			m.n++
			return
		}
	}
}

func (m *keyMap) grow() {
	old := *m
	*m = *newKeyMap(len(old.keys))
	for i, k := range old.keys {
		if k != emptyKey {
			m.set(k, old.vals[i])
		}
	}
}
