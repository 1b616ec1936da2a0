package stuffing

import (
	"cmp"
	"math"
	"slices"
)

// The flip sweeps end in a local optimum that depends on the order of
// their steps: on the 1.2M-tet benchmark another valid order of the
// incidence lists left a cluster of interior tets at 8.8–9.8° instead of
// none under 10°. lift works on what is left under floorTarget: worst tet
// first, it relocates the vertices of those tets and of their neighbours
// by compass search, the former followed by ascent along the worst
// angles' gradients (which climbs the ridges compass steps stall on),
// then flips, splits or
// removes edges of those still under it, and repeats while the smallest
// angle rises.

// floorTarget is the dihedral angle (degrees) lift aims at: the 10° floor
// with a margin.
const floorTarget = 11

// liftSweeps bounds lift's sweeps and liftBudget the tets they work on
// in all (≈ 3 ms each on the benchmark): where the floor cannot be reached
// the smallest angle still creeps up, by splits that add tets. lift stops
// earlier after liftStall sweeps that did not raise the smallest angle.
const (
	liftSweeps = 12
	liftBudget = 1000
	liftStall  = 3
)

// lift raises the tets of poor (the tets under the flip goal) that are
// under floorTarget.
func (fl *flipper) lift(poor [][4]int32) {
	m, inc := fl.mq.m, fl.mq.inc
	floor := math.Cos(floorTarget * math.Pi / 180)
	best, stall, budget := worstOf(fl, poor), 0, liftBudget
	for range liftSweeps {
		type low struct {
			q [4]int32
			c float64
		}
		var lows []low
		for _, q := range poor {
			if c := tetCosAt(m, q[:]); c > floor {
				lows = append(lows, low{q, c})
			}
		}
		if len(lows) == 0 || stall >= liftStall || budget <= 0 {
			break
		}
		budget -= len(lows)
		// Worst first; ties by vertices, so the order is the mesh's.
		slices.SortFunc(lows, func(a, b low) int {
			if c := cmp.Compare(b.c, a.c); c != 0 {
				return c
			}
			return slices.Compare(a.q[:], b.q[:])
		})
		var vs, own, touched []int32
		for _, l := range lows {
			own = append(own, l.q[:]...)
			for _, v := range l.q {
				for _, t := range inc.tets[v] {
					vs = append(vs, m.Tets[4*t:4*t+4]...)
				}
			}
		}
		for _, q := range poor {
			touched = append(touched, q[:]...)
		}
		slices.Sort(vs)
		vs = slices.DeleteFunc(slices.Compact(vs), func(v int32) bool { return !fl.movable(v) })
		slices.Sort(own)
		fl.mq.ascent = slices.Compact(own)
		fl.mq.relocateAll(vs, fl.slide)
		fl.mq.ascent = nil
		var still [][4]int32
		for _, l := range lows {
			if tetCosAt(m, l.q[:]) > floor {
				still = append(still, l.q)
			}
		}
		touched = append(touched, vs...)
		touched = append(touched, fl.mend(still)...)
		slices.Sort(touched)
		poor, _ = fl.poorNear(slices.Compact(touched))
		if w := worstOf(fl, poor); w < best {
			best, stall = w, 0
		} else {
			stall++
		}
		if debugf != nil {
			debugf("lift sweep: %d under the floor, %d poor left, worst %.3f°", len(lows), len(poor), math.Acos(min(1, best))*180/math.Pi)
		}
	}
}

// worstOf returns the largest dihedral cosine of the tets qs (−1 if none).
func worstOf(fl *flipper, qs [][4]int32) float64 {
	w := -1.0
	for _, q := range qs {
		w = max(w, tetCosAt(fl.mq.m, q[:]))
	}
	return w
}
