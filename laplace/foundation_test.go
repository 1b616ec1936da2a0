package laplace

import (
	"math"
	"testing"
)

// FoundationModulus is the P-wave modulus λ + 2μ, computed here from the
// Lamé parameters λ = Yν/((1+ν)(1−2ν)) and μ = Y/(2(1+ν)).
func TestFoundationModulus(t *testing.T) {
	for _, tc := range []struct{ y, nu float64 }{{1e6, 0}, {2e9, 0.3}, {5e4, 0.45}, {1, -0.5}, {7e7, 0.499}} {
		lambda := tc.y * tc.nu / ((1 + tc.nu) * (1 - 2*tc.nu))
		mu := tc.y / (2 * (1 + tc.nu))
		got, err := FoundationModulus(tc.y, tc.nu)
		if err != nil {
			t.Fatal(err)
		}
		if want := lambda + 2*mu; math.Abs(got-want) > 1e-12*want {
			t.Errorf("FoundationModulus(%g, %g) = %g, want %g", tc.y, tc.nu, got, want)
		}
	}
	if e, _ := FoundationModulus(3, 0); e != 3 {
		t.Errorf("ν = 0 gives %g, want Y", e)
	}
}

func TestFoundationModulusErrors(t *testing.T) {
	for _, tc := range []struct{ y, nu float64 }{{1, 0.5}, {1, 0.7}, {1, -1}, {0, 0.3}, {-1, 0.3}, {math.NaN(), 0.3}, {1, math.NaN()}, {math.Inf(1), 0.3}} {
		if _, err := FoundationModulus(tc.y, tc.nu); err == nil {
			t.Errorf("FoundationModulus(%g, %g): no error", tc.y, tc.nu)
		}
	}
}
