// Package fptest helps tests compare floating-point results that depend on
// whether the compiler fuses a multiplication and an addition into one
// rounding. Go does so on arm64, ppc64le and s390x, and on amd64 from
// GOAMD64=v3; the same expression written out in scalars and through
// vector helpers may then round differently in the last bits, so claims of
// bit-for-bit agreement hold only in builds that do not fuse.
package fptest

import "math"

// Fused reports whether this build fuses x*y + z into one rounding.
func Fused() bool { return fused }

// (1 + 2⁻³⁰)(1 − 2⁻³⁰) − 1 is −2⁻⁶⁰ exactly, 0 with the product rounded.
var fused = mulAdd(1+0x1p-30, 1-0x1p-30, -1) != 0

//go:noinline
func mulAdd(x, y, z float64) float64 { return x*y + z }

// Same reports whether got is want to the bit or, in a build that fuses,
// within 1e-12 of scale.
func Same(got, want, scale float64) bool {
	return math.Float64bits(got) == math.Float64bits(want) || fused && math.Abs(got-want) <= 1e-12*scale
}
