package laplace

import (
	"fmt"
	"math"
)

// FoundationModulus returns the elastic-foundation modulus
// E = (1−ν)·Y/((1+ν)(1−2ν)) of a layer of material with Young's modulus Y
// and Poisson's ratio ν: the stiffness of a thin layer compressed without
// lateral expansion (the P-wave modulus λ + 2μ). With the layer thickness
// h (the --core-depth), a penetration d gives pressure E·d/h, which is
// the linear pressure field p0 = E·ε when ε = d/h. It is infinite for an
// incompressible material, so ν must lie in (−1, 1/2); Y must be positive
// and finite.
func FoundationModulus(youngs, poisson float64) (float64, error) {
	if !(youngs > 0) || math.IsInf(youngs, 1) {
		return 0, fmt.Errorf("laplace: Young's modulus %g Pa is not positive and finite", youngs)
	}
	if !(poisson > -1 && poisson < 0.5) {
		return 0, fmt.Errorf("laplace: Poisson's ratio %g is outside (−1, 1/2)", poisson)
	}
	e := (1 - poisson) * youngs / ((1 + poisson) * (1 - 2*poisson))
	if math.IsInf(e, 0) {
		return 0, fmt.Errorf("laplace: foundation modulus of Y = %g Pa, ν = %g overflows", youngs, poisson)
	}
	return e, nil
}
