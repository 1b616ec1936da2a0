package geom

import (
	"fmt"
	"math"
)

// ExtentMin and ExtentMax bound the size of the point sets the predicates
// are exact on. The exact stage assumes no product it forms underflows or
// overflows; an in-sphere determinant multiplies five coordinate
// differences, so on point sets of extent 1e-64 and below (or 1e70) its
// signs go wrong; between 1e-60 and 1e60 none did. The limits leave a
// margin of 30 orders of magnitude for the meshers' own points;
// TestPredicatesAtExtremeScales checks both.
const (
	ExtentMin = 1e-30
	ExtentMax = 1e30
)

// CheckExtent reports an error unless the points of xyz (x, y, z triples)
// span a bounding box whose diagonal lies in [ExtentMin, ExtentMax] and
// every coordinate is at most ExtentMax in magnitude: the inputs on which
// the predicates, and so the meshers, are exact.
func CheckExtent(xyz []float64) error {
	if len(xyz) < 6 {
		return fmt.Errorf("fewer than two points")
	}
	lo, hi := Vec{math.Inf(1), math.Inf(1), math.Inf(1)}, Vec{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := 0; i+2 < len(xyz); i += 3 {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], xyz[i+k]), max(hi[k], xyz[i+k])
		}
	}
	if m := max(-lo[0], -lo[1], -lo[2], hi[0], hi[1], hi[2]); !(m <= ExtentMax) {
		return fmt.Errorf("a coordinate of magnitude %g exceeds %g, the largest exact geometry supports (rescale the part)", m, ExtentMax)
	}
	if d := Norm(Sub(hi, lo)); !(d >= ExtentMin && d <= ExtentMax) {
		return fmt.Errorf("the bounding box's diagonal is %g, outside [%g, %g], the range exact geometry supports (rescale the part)", d, ExtentMin, ExtentMax)
	}
	return nil
}
