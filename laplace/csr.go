package laplace

import (
	"fmt"
	"math"
	"slices"

	"github.com/james-bowman/sparse"
)

// csr is a sparse matrix in compressed sparse row form with 32-bit column
// indices: row i holds col[rowPtr[i]:rowPtr[i+1]] (strictly increasing)
// and the matching val. 32-bit indices make SpMV move 12 bytes per nonzero
// instead of the 16 of sparse.CSR's int indices; the preconditioner keeps
// its matrices in float32 (8 bytes per nonzero).
type csr[T float32 | float64] struct {
	rows, cols int
	rowPtr     []int
	col        []int32
	val        []T
}

func (a *csr[T]) nnz() int { return a.rowPtr[a.rows] }

// row returns the columns and values of row i.
func (a *csr[T]) row(i int) ([]int32, []T) {
	lo, hi := a.rowPtr[i], a.rowPtr[i+1]
	return a.col[lo:hi], a.val[lo:hi]
}

// mulVec sets y = A x.
func (a *csr[T]) mulVec(y, x []float64) {
	forChunks(a.rows, rowChunk, func(lo, hi int) { a.mulRows(y, x, lo, hi) })
}

func (a *csr[T]) mulRows(y, x []float64, lo, hi int) {
	for i := lo; i < hi; i++ {
		cols, vals := a.row(i)
		vals = vals[:len(cols)]
		var s float64
		for k, j := range cols {
			s += float64(vals[k]) * x[j]
		}
		y[i] = s
	}
}

// mulVecDot sets y = A x and returns x·y, summed in chunk order.
func (a *csr[T]) mulVecDot(y, x, partial []float64) float64 {
	return sumChunks(a.rows, partial, func(lo, hi int) float64 {
		a.mulRows(y, x, lo, hi)
		return dotRange(x, y, lo, hi)
	})
}

// residual sets r = b − A x.
func (a *csr[T]) residual(r, b, x []float64) {
	forChunks(a.rows, rowChunk, func(lo, hi int) {
		a.mulRows(r, x, lo, hi)
		for i := lo; i < hi; i++ {
			r[i] = b[i] - r[i]
		}
	})
}

// diagonal returns the diagonal entries (0 where a row has none).
func (a *csr[T]) diagonal() []float64 {
	d := make([]float64, a.rows)
	forChunks(a.rows, rowChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			cols, vals := a.row(i)
			for k, j := range cols {
				if int(j) == i {
					d[i] = float64(vals[k])
				}
			}
		}
	})
	return d
}

// transpose returns Aᵀ. Rows of the result list their entries in
// increasing column order because the source rows are scanned in order.
func (a *csr[T]) transpose() csr[T] {
	t := csr[T]{rows: a.cols, cols: a.rows, rowPtr: make([]int, a.cols+1)}
	for _, j := range a.col[:a.nnz()] {
		t.rowPtr[j+1]++
	}
	for j := 0; j < a.cols; j++ {
		t.rowPtr[j+1] += t.rowPtr[j]
	}
	t.col = make([]int32, a.nnz())
	t.val = make([]T, a.nnz())
	fill := make([]int, a.cols)
	copy(fill, t.rowPtr[:a.cols])
	for i := 0; i < a.rows; i++ {
		cols, vals := a.row(i)
		for k, j := range cols {
			t.col[fill[j]] = int32(i)
			t.val[fill[j]] = vals[k]
			fill[j]++
		}
	}
	return t
}

// float32Values returns A with its values rounded to float32, sharing the
// row pointers and column indices of A.
func float32Values(a *csr[float64]) csr[float32] {
	b := csr[float32]{rows: a.rows, cols: a.cols, rowPtr: a.rowPtr, col: a.col, val: make([]float32, a.nnz())}
	forChunks(a.rows, rowChunk, func(lo, hi int) {
		for k := a.rowPtr[lo]; k < a.rowPtr[hi]; k++ {
			b.val[k] = float32(a.val[k])
		}
	})
	return b
}

// toSparse returns A as a github.com/james-bowman/sparse matrix (which
// stores int indices; the values are copied too).
func (a *csr[T]) toSparse() *sparse.CSR {
	ptr := make([]int, a.rows+1)
	copy(ptr, a.rowPtr)
	ind := make([]int, a.nnz())
	data := make([]float64, a.nnz())
	for k := range ind {
		ind[k] = int(a.col[k])
		data[k] = float64(a.val[k])
	}
	return sparse.NewCSR(a.rows, a.cols, ptr, ind, data)
}

// fromSparse copies a github.com/james-bowman/sparse matrix, checking what
// the solver relies on: square, rows of strictly increasing in-range
// columns, finite values, a positive diagonal.
func fromSparse(s *sparse.CSR) (csr[float64], error) {
	r, c := s.Dims()
	raw := s.RawMatrix()
	switch {
	case r != c:
		return csr[float64]{}, fmt.Errorf("laplace: matrix is %d×%d, not square", r, c)
	case r > math.MaxInt32:
		return csr[float64]{}, fmt.Errorf("laplace: %d rows exceed the 32-bit index range", r)
	case len(raw.Indptr) != r+1 || raw.Indptr[0] != 0 || raw.Indptr[r] != len(raw.Ind) || len(raw.Ind) != len(raw.Data):
		return csr[float64]{}, fmt.Errorf("laplace: matrix has inconsistent CSR arrays (%d row pointers, %d columns, %d values)", len(raw.Indptr), len(raw.Ind), len(raw.Data))
	}
	a := csr[float64]{rows: r, cols: c, rowPtr: make([]int, r+1), col: make([]int32, len(raw.Ind)), val: make([]float64, len(raw.Data))}
	for i := 0; i < r; i++ {
		lo, hi := raw.Indptr[i], raw.Indptr[i+1]
		if lo > hi || hi > len(raw.Ind) {
			return csr[float64]{}, fmt.Errorf("laplace: matrix row %d has pointers %d..%d", i, lo, hi)
		}
		diag := false
		for k := lo; k < hi; k++ {
			j, v := raw.Ind[k], raw.Data[k]
			switch {
			case j < 0 || j >= c:
				return csr[float64]{}, fmt.Errorf("laplace: matrix row %d has column %d outside [0, %d)", i, j, c)
			case k > lo && j <= raw.Ind[k-1]:
				return csr[float64]{}, fmt.Errorf("laplace: matrix row %d has columns out of order or repeated (%d after %d)", i, j, raw.Ind[k-1])
			case math.IsNaN(v) || math.IsInf(v, 0):
				return csr[float64]{}, fmt.Errorf("laplace: matrix entry (%d, %d) is %g", i, j, v)
			case j == i && !(v > 0):
				return csr[float64]{}, fmt.Errorf("laplace: matrix diagonal entry %d is %g, not positive", i, v)
			}
			diag = diag || j == i
			a.col[k], a.val[k] = int32(j), v
		}
		if !diag {
			return csr[float64]{}, fmt.Errorf("laplace: matrix row %d has no diagonal entry", i)
		}
		a.rowPtr[i+1] = hi
	}
	return a, nil
}

// buildCSR builds a rows×cols matrix in two parallel passes over fixed row
// chunks: count(s, i) returns the number of entries of row i, then
// fill(s, i, col, val) writes them, sorted by column, into slices of that
// length. s is per-goroutine scratch made by init.
func buildCSR[S any](rows, cols int, init func() S, count func(s S, i int) int, fill func(s S, i int, col []int32, val []float64)) csr[float64] {
	a := csr[float64]{rows: rows, cols: cols, rowPtr: make([]int, rows+1)}
	forChunksWith(rows, rowChunk, init, func(s S, lo, hi int) {
		for i := lo; i < hi; i++ {
			a.rowPtr[i+1] = count(s, i)
		}
	})
	for i := 0; i < rows; i++ {
		a.rowPtr[i+1] += a.rowPtr[i]
	}
	a.col = make([]int32, a.rowPtr[rows])
	a.val = make([]float64, a.rowPtr[rows])
	forChunksWith(rows, rowChunk, init, func(s S, lo, hi int) {
		for i := lo; i < hi; i++ {
			k0, k1 := a.rowPtr[i], a.rowPtr[i+1]
			fill(s, i, a.col[k0:k1:k1], a.val[k0:k1:k1])
		}
	})
	return a
}

// buildCSROnePass builds a rows×cols matrix in one parallel pass when
// counting a row costs nearly as much as computing it: row(s, i, out)
// appends row i's entries, sorted by column, to out. Each chunk of rows
// fills its own buffers, which are then copied into place in row order.
func buildCSROnePass[S any, T float32 | float64](rows, cols int, init func() S, row func(s S, i int, out *rowSink[T])) csr[T] {
	parts := make([]rowSink[T], numChunks(rows))
	a := csr[T]{rows: rows, cols: cols, rowPtr: make([]int, rows+1)}
	forChunksWith(rows, rowChunk, init, func(s S, lo, hi int) {
		out := &parts[lo/rowChunk]
		for i := lo; i < hi; i++ {
			row(s, i, out)
			a.rowPtr[i+1] = len(out.col)
		}
	})
	// rowPtr holds each row's end within its chunk; shift by the chunk's
	// start.
	offset := 0
	for lo := 0; lo < rows; lo += rowChunk {
		hi := min(lo+rowChunk, rows)
		for i := lo + 1; i <= hi; i++ {
			a.rowPtr[i] += offset
		}
		offset = a.rowPtr[hi]
	}
	a.col = make([]int32, offset)
	a.val = make([]T, offset)
	forChunks(rows, rowChunk, func(lo, hi int) {
		p := &parts[lo/rowChunk]
		copy(a.col[a.rowPtr[lo]:], p.col)
		copy(a.val[a.rowPtr[lo]:], p.val)
		*p = rowSink[T]{}
	})
	return a
}

// rowSink collects the entries of consecutive rows.
type rowSink[T float32 | float64] struct {
	col []int32
	val []T
}

// sortSmall sorts a short slice of column indices (insertion sort: rows
// have tens of entries, where it beats a general sort).
func sortSmall(c []int32) {
	if len(c) > 64 {
		slices.Sort(c)
		return
	}
	for i := 1; i < len(c); i++ {
		v := c[i]
		j := i
		for ; j > 0 && c[j-1] > v; j-- {
			c[j] = c[j-1]
		}
		c[j] = v
	}
}

// marker tracks which columns of the current row have been seen, and
// where each sits in the row: a dense scratch row, reset in O(row length).
type marker struct {
	row []int32 // row[j] = the row being built when column j was last seen
	pos []int32 // pos[j] = index of column j in that row
}

func newMarker(cols int) *marker {
	m := &marker{row: make([]int32, cols), pos: make([]int32, cols)}
	for j := range m.row {
		m.row[j] = -1
	}
	return m
}
