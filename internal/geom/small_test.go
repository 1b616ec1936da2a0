package geom

import (
	"math"
	"math/big"
	"math/rand"
	"testing"
)

// smallRows returns four rows of exact floats of one of the shapes the
// fixed-size exact stages meet: small integers (degenerate often), floats
// with float32 mantissas over a wide range of exponents (the longest
// expansions), values 1 ulp apart, and rows made dependent (row 2 = row 0
// + row 1), and lattice points on a sphere through the origin.
func smallRows(r *rand.Rand) (rows [4]Vec) {
	shape := r.Intn(5)
	if shape == 4 {
		// Lattice points, scaled, on a sphere through the origin whose
		// centre c has c_z = 0: |p|² = 2c·p, so both lifted
		// determinants vanish.
		c := Vec{float64(r.Intn(5) - 2), float64(r.Intn(5) - 2), 0}
		var on []Vec
		for x := -4.0; x <= 4; x++ {
			for y := -4.0; y <= 4; y++ {
				for z := -4.0; z <= 4; z++ {
					if p := (Vec{x, y, z}); Dot(p, p) == 2*Dot(c, p) {
						on = append(on, p)
					}
				}
			}
		}
		s := []float64{1, 0x1p-30, 3, 0x1p20}[r.Intn(4)]
		for n := range rows {
			rows[n] = Scale(s, on[r.Intn(len(on))])
		}
		return rows
	}
	for n := range rows {
		for k := range 3 {
			switch shape {
			case 0:
				rows[n][k] = float64(r.Intn(7) - 3)
			case 1:
				m := float64(int64(r.Uint32()>>8) - 1<<23)
				rows[n][k] = math.Ldexp(m, r.Intn(41)-40)
			case 2:
				rows[n][k] = 1 + float64(r.Intn(9)-4)*0x1p-52
			default:
				rows[n][k] = float64(r.Intn(2001)-1000) * 0x1p-10
			}
		}
	}
	if r.Intn(3) == 0 {
		for k := range 3 {
			// Exact for shapes 0 and 3; for the others the test just
			// gets another row.
			rows[2][k] = rows[0][k] + rows[1][k]
		}
	}
	return rows
}

func ratLift(p Vec) *big.Rat {
	l := new(big.Rat)
	for _, x := range p {
		l.Add(l, new(big.Rat).Mul(rat(x), rat(x)))
	}
	return l
}

// refDet4Lift is the determinant of the rows (r_n, |r_n|²) in rationals.
func refDet4Lift(rows [4]Vec) int {
	det := new(big.Rat)
	for skip := range 4 {
		var m [3][3]*big.Rat
		i := 0
		for n := range 4 {
			if n != skip {
				m[i] = [3]*big.Rat{rat(rows[n][0]), rat(rows[n][1]), rat(rows[n][2])}
				i++
			}
		}
		term := new(big.Rat).Mul(ratLift(rows[skip]), ratDet3(m))
		if skip%2 == 0 {
			det.Sub(det, term)
		} else {
			det.Add(det, term)
		}
	}
	return det.Sign()
}

// TestSmallStagesAgainstRational checks the fixed-size exact stages
// (orient3dSmall, liftedSmall, inSphereSmall) against math/big on rows of
// exact floats, and that the predicates take them on points whose
// differences are such rows.
func TestSmallStagesAgainstRational(t *testing.T) {
	r := rand.New(rand.NewSource(51))
	var zeros [3]int
	for it := 0; it < 20000; it++ {
		rows := smallRows(r)
		var m3 [3][3]*big.Rat
		for n := range 3 {
			m3[n] = [3]*big.Rat{rat(rows[n][0]), rat(rows[n][1]), rat(rows[n][2])}
		}
		want := ratDet3(m3).Sign()
		if got := orient3dSmall(rows[0], rows[1], rows[2]); got != want {
			t.Fatalf("orient3dSmall(%v) = %d, want %d", rows, got, want)
		}
		var x, y, z [3]float64
		for n := range 3 {
			x[n], y[n], z[n] = rows[n][0], rows[n][1], rows[n][2]
			m3[n] = [3]*big.Rat{rat(x[n]), rat(y[n]), ratLift(rows[n])}
		}
		if got, want := liftedSmall(x, y, z), ratDet3(m3).Sign(); got != want {
			t.Fatalf("liftedSmall(%v) = %d, want %d", rows, got, want)
		} else if want == 0 {
			zeros[1]++
		}
		want4 := refDet4Lift(rows)
		if got := inSphereSmall(rows); got != want4 {
			t.Fatalf("inSphereSmall(%v) = %d, want %d", rows, got, want4)
		}
		if want == 0 {
			zeros[0]++
		}
		if want4 == 0 {
			zeros[2]++
		}
	}
	t.Logf("exactly zero: orient3d %d, lifted 3×3 %d, 4×4 %d of 20000", zeros[0], zeros[1], zeros[2])
	for i, z := range zeros {
		if z < 1000 {
			t.Fatalf("too few exactly degenerate cases (%d) for stage %d", z, i)
		}
	}
}

// TestLiftedDet3Memo asks liftedDet3 the questions of flat cases in every
// order of t, again after other questions (so answers come from the memo
// of recent ones and after it has moved on), and checks each against
// math/big.
func TestLiftedDet3Memo(t *testing.T) {
	r := rand.New(rand.NewSource(52))
	type question struct {
		t [3]Vec
		e Vec
	}
	var qs []question
	for len(qs) < 2000 {
		p, m := flatCase(r)
		var q question
		for n, k := 0, 0; n < 4; n++ {
			if n != m {
				q.t[k] = p[n]
				k++
			}
		}
		q.e = p[4]
		qs = append(qs, q)
	}
	perms := [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {1, 0, 2}, {0, 2, 1}, {2, 1, 0}}
	zeros := 0
	for n := 0; n < 20000; n++ {
		// Mostly recent questions, sometimes older ones, projected on
		// any pair of axes.
		q := qs[max(0, n/10-r.Intn(12))]
		i := r.Intn(3)
		j := (i + 1) % 3
		var tt [3]Vec
		for k, at := range perms[r.Intn(6)] {
			tt[k] = q.t[at]
		}
		var m3 [3][3]*big.Rat
		for k, p := range tt {
			d := [3]*big.Rat{ratSub(p[0], q.e[0]), ratSub(p[1], q.e[1]), ratSub(p[2], q.e[2])}
			l := new(big.Rat)
			for _, c := range d {
				l.Add(l, new(big.Rat).Mul(c, c))
			}
			m3[k] = [3]*big.Rat{d[i], d[j], l}
		}
		want := ratDet3(m3).Sign()
		if got := liftedDet3(tt, q.e, i, j); got != want {
			t.Fatalf("liftedDet3(%v, %v, %d, %d) = %d, want %d", tt, q.e, i, j, got, want)
		}
		if want == 0 {
			zeros++
		}
	}
	if zeros < 2000 {
		t.Fatalf("only %d cocircular questions", zeros)
	}
}
