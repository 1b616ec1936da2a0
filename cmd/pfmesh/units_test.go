package main

import (
	"math"
	"testing"
)

func TestParseQuantity(t *testing.T) {
	tests := []struct {
		in     string
		length bool
		want   float64
		bad    bool
	}{
		{"1e6", false, 1e6, false},
		{"1MPa", false, 1e6, false},
		{"200 kPa", false, 2e5, false},
		{"2.5GPa", false, 2.5e9, false},
		{"7Pa", false, 7, false},
		{"5mm", true, 0.005, false},
		{"5 cm", true, 0.05, false},
		{"2in", true, 0.0508, false},
		{"0.25m", true, 0.25, false},
		{"5e-3m", true, 0.005, false},
		{"5e-3", true, 0.005, false},
		{"10um", true, 1e-5, false},
		{"abc", false, 0, true},
		{"-3", false, 0, true},
		{"NaN", false, 0, true},
		{"Inf", true, 0, true},
		{"5 furlongs", true, 0, true},
		{"mm", true, 0, true},
	}
	for _, tc := range tests {
		var got float64
		var err error
		if tc.length {
			got, err = parseLength(tc.in)
		} else {
			got, err = parsePressure(tc.in)
		}
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v, want bad=%v", tc.in, err, tc.bad)
			continue
		}
		if !tc.bad && math.Abs(got-tc.want) > 1e-12*tc.want {
			t.Errorf("%q = %g, want %g", tc.in, got, tc.want)
		}
	}
}

func TestFormatSI(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		base string
		want string
	}{{1e6, "Pa", "1 MPa"}, {2.5e3, "Pa", "2.5 kPa"}, {0.005, "m", "5 mm"}, {1.5, "m", "1.5 m"}, {3e-6, "m", "3 µm"}} {
		if got := formatSI(tc.v, tc.base); got != tc.want {
			t.Errorf("formatSI(%g, %s) = %q, want %q", tc.v, tc.base, got, tc.want)
		}
	}
}
