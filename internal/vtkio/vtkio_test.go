package vtkio

import (
	"bufio"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestRealsRoundTrip(t *testing.T) {
	v := []float64{0, -1.5, math.Pi, 1e-300, math.MaxFloat64, 0.1, 2.0 / 3}
	var b strings.Builder
	bw := bufio.NewWriter(&b)
	Reals(bw, v[:6], 3)
	Reals(bw, v[6:], 1)
	bw.Flush()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3", len(lines))
	}
	var got []float64
	for _, l := range lines {
		for _, f := range strings.Fields(l) {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, x)
		}
	}
	for i := range v {
		if got[i] != v[i] {
			t.Errorf("value %d: %v reads back as %v", i, v[i], got[i])
		}
	}
}

func TestCells(t *testing.T) {
	for _, c := range []struct {
		idx  []int32
		per  int
		want string
	}{
		{nil, 3, ""},
		{[]int32{0, 1, 2, 2, 1, 3}, 3, "3 0 1 2\n3 2 1 3\n"},
		{[]int32{7, 0, 123456789, 2147483647}, 4, "4 7 0 123456789 2147483647\n"},
	} {
		var b strings.Builder
		bw := bufio.NewWriter(&b)
		Cells(bw, c.idx, c.per)
		bw.Flush()
		if b.String() != c.want {
			t.Errorf("Cells(%v, %d) = %q, want %q", c.idx, c.per, b.String(), c.want)
		}
	}
}
