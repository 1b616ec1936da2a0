package format

import "math"

// Pressure returns the undeformed pressure p0 = E·g(ε) in pascals at
// extent eps, for ε in [0, 1]; docs/pfm.md defines g for every mapping.
//
// Linear: p0 = E·ε.
//
// Log: p0 = −E·ln(1 − ε) up to the knee ε* where that curve's tangent line
// reaches PressureCap at ε = 1, and that tangent line beyond it:
//
//	q* = exp(1 − PressureCap/E)                 (q* = 1 − ε*)
//	p0 = −E·ln(1 − ε)                           if 1 − ε > q*
//	p0 = PressureCap − E·(1 − ε)/q*             otherwise
//
// so p0 is continuous with a continuous, strictly positive slope and
// p0(1) = PressureCap. A flat cap instead would leave a plateau where two
// bodies' pressures are equal on a whole volume and the contact surface
// (where they are equal) is undefined.
func (h *Header) Pressure(eps float64) float64 {
	if h.Mapping != Log {
		return h.Modulus * eps
	}
	e, pmax := h.Modulus, h.PressureCap
	r := 1 - eps
	q := math.Exp(1 - pmax/e)
	if r > q {
		return -e * math.Log1p(-eps)
	}
	if q == 0 { // the knee underflowed: only ε ≥ 1 is past it
		return pmax
	}
	return pmax - e*r/q
}
