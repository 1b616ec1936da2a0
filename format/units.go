package format

import (
	"fmt"
	"math"
	"strings"
)

// ReadOptions says how to interpret the numbers in a surface file.
//
// Surface files carry no units. pfmesh works in metres, and by default
// (Units "" or "m", Scale 0 or 1) takes the file's numbers as metres.
// Most CAD and 3D-printing STL files are in millimetres: read them with
// Units "mm". The file's coordinates are multiplied by the unit's length
// in metres and then by Scale.
type ReadOptions struct {
	Units string  // "m" (default), "cm", "mm" or "in"
	Scale float64 // extra factor applied after the unit; 0 means 1
}

// unitMetres gives the length of each accepted unit in metres.
var unitMetres = map[string]float64{"": 1, "m": 1, "cm": 0.01, "mm": 0.001, "in": 0.0254}

// Factor returns the number the file's coordinates are multiplied by to
// give metres, or an error for an unknown unit or a scale that is not a
// positive finite number.
func (o ReadOptions) Factor() (float64, error) {
	u, ok := unitMetres[strings.ToLower(o.Units)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want m, cm, mm or in)", o.Units)
	}
	s := o.Scale
	if s == 0 {
		s = 1
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("scale %g is not a positive finite number", o.Scale)
	}
	return u * s, nil
}
