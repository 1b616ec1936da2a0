package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unit tables: suffix → factor to SI. Longest suffixes are tried first so
// "mm" is not read as "m".
var (
	pressureUnits = []unit{{"GPa", 1e9}, {"MPa", 1e6}, {"kPa", 1e3}, {"Pa", 1}}
	lengthUnits   = []unit{{"mm", 1e-3}, {"cm", 1e-2}, {"in", 0.0254}, {"um", 1e-6}, {"µm", 1e-6}, {"m", 1}}
)

type unit struct {
	suffix string
	factor float64
}

// parseQuantity reads a number with an optional unit suffix ("1e6",
// "200kPa", "5 mm"); a bare number is in SI units. It rejects
// non-finite and negative values.
func parseQuantity(s string, units []unit, what string) (float64, error) {
	t := strings.TrimSpace(s)
	factor := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			num := strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			// "5e-3m" must not match "m" after stripping a trailing digit;
			// a suffix only counts after a number.
			if num != "" && strings.ContainsAny(num[len(num)-1:], "0123456789.") {
				t, factor = num, u.factor
				break
			}
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: not a number with a unit (%s)", what, s, suffixes(units))
	}
	v *= factor
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%s %q: must be finite and not negative", what, s)
	}
	return v, nil
}

func suffixes(units []unit) string {
	var s []string
	for _, u := range units {
		s = append(s, u.suffix)
	}
	return strings.Join(s, ", ")
}

func parsePressure(s string) (float64, error) { return parseQuantity(s, pressureUnits, "pressure") }

func parseLength(s string) (float64, error) { return parseQuantity(s, lengthUnits, "length") }

// formatSI prints v with an SI prefix for the given base unit ("Pa", "m").
func formatSI(v float64, base string) string {
	prefixes := []struct {
		p string
		f float64
	}{{"G", 1e9}, {"M", 1e6}, {"k", 1e3}, {"", 1}, {"m", 1e-3}, {"µ", 1e-6}}
	if base == "m" { // no km or Mm for part sizes
		prefixes = prefixes[3:]
	}
	a := math.Abs(v)
	for _, p := range prefixes {
		if a >= p.f {
			return strconv.FormatFloat(v/p.f, 'g', 4, 64) + " " + p.p + base
		}
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " " + base
}
