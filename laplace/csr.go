package laplace

import (
	"fmt"
	"math"
	"slices"

	"github.com/james-bowman/sparse"
	"github.com/pfmesh/pfmesh/internal/par"
)

// csr is a sparse matrix in compressed sparse row form with 32-bit column
// indices: row i holds col[rowPtr[i]:rowPtr[i+1]] (strictly increasing)
// and the matching val. The AMG prolongators are csr (in float32), and so
// are the intermediate products of its setup.
type csr[T float32 | float64] struct {
	rows, cols int
	rowPtr     []int32 // at most math.MaxInt32 entries: see setupLevel
	col        []int32
	val        []T
}

func (a *csr[T]) nnz() int { return int(a.rowPtr[a.rows]) }

func (a *csr[T]) numRows() int { return a.rows }

// row returns the columns and values of row i.
func (a *csr[T]) row(i int) ([]int32, []T) {
	lo, hi := a.rowPtr[i], a.rowPtr[i+1]
	return a.col[lo:hi], a.val[lo:hi]
}

// mulVec sets y = A x.
func (a *csr[T]) mulVec(y, x []float64) {
	par.For(a.rows, rowChunk, func(lo, hi int) { a.mulRows(y, x, lo, hi) })
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

// transpose returns Aᵀ. Rows of the result list their entries in
// increasing column order because the source rows are scanned in order.
func (a *csr[T]) transpose() csr[T] {
	t := csr[T]{rows: a.cols, cols: a.rows, rowPtr: make([]int32, a.cols+1)}
	for _, j := range a.col[:a.nnz()] {
		t.rowPtr[j+1]++
	}
	for j := 0; j < a.cols; j++ {
		t.rowPtr[j+1] += t.rowPtr[j]
	}
	t.col = make([]int32, a.nnz())
	t.val = make([]T, a.nnz())
	fill := make([]int32, a.cols)
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

// toSparse returns A as a github.com/james-bowman/sparse matrix (which
// stores int indices).
func (a *symMatrix[T]) toSparse() *sparse.CSR {
	ptr := make([]int, a.n+1)
	ind := make([]int, 0, a.nnz())
	data := make([]float64, 0, a.nnz())
	var buf rowBuf
	for i := 0; i < a.n; i++ {
		a.row(i, &buf)
		for _, j := range buf.col {
			ind = append(ind, int(j))
		}
		data = append(data, buf.val...)
		ptr[i+1] = len(ind)
	}
	return sparse.NewCSR(a.n, a.n, ptr, ind, data)
}

// fromSparse copies a github.com/james-bowman/sparse matrix, checking what
// the solver relies on: square, rows of strictly increasing in-range
// columns, finite values, a positive diagonal, and exact symmetry.
func fromSparse(s *sparse.CSR) (symMatrix[float64], error) {
	r, c := s.Dims()
	raw := s.RawMatrix()
	switch {
	case r != c:
		return symMatrix[float64]{}, fmt.Errorf("laplace: matrix is %d×%d, not square", r, c)
	case r > math.MaxInt32:
		return symMatrix[float64]{}, fmt.Errorf("laplace: %d rows exceed the 32-bit index range", r)
	case len(raw.Indptr) != r+1 || raw.Indptr[0] != 0 || raw.Indptr[r] != len(raw.Ind) || len(raw.Ind) != len(raw.Data):
		return symMatrix[float64]{}, fmt.Errorf("laplace: matrix has inconsistent CSR arrays (%d row pointers, %d columns, %d values)", len(raw.Indptr), len(raw.Ind), len(raw.Data))
	}
	for i := 0; i < r; i++ {
		lo, hi := raw.Indptr[i], raw.Indptr[i+1]
		if lo > hi || hi > len(raw.Ind) {
			return symMatrix[float64]{}, fmt.Errorf("laplace: matrix row %d has pointers %d..%d", i, lo, hi)
		}
		diag := false
		for k := lo; k < hi; k++ {
			j, v := raw.Ind[k], raw.Data[k]
			switch {
			case j < 0 || j >= c:
				return symMatrix[float64]{}, fmt.Errorf("laplace: matrix row %d has column %d outside [0, %d)", i, j, c)
			case k > lo && j <= raw.Ind[k-1]:
				return symMatrix[float64]{}, fmt.Errorf("laplace: matrix row %d has columns out of order or repeated (%d after %d)", i, j, raw.Ind[k-1])
			case math.IsNaN(v) || math.IsInf(v, 0):
				return symMatrix[float64]{}, fmt.Errorf("laplace: matrix entry (%d, %d) is %g", i, j, v)
			case j == i && !(v > 0):
				return symMatrix[float64]{}, fmt.Errorf("laplace: matrix diagonal entry %d is %g, not positive", i, v)
			}
			diag = diag || j == i
		}
		if !diag {
			return symMatrix[float64]{}, fmt.Errorf("laplace: matrix row %d has no diagonal entry", i)
		}
	}
	// Rows are sorted, so the mirror of (i, j) is found by binary search.
	for i := 0; i < r; i++ {
		for k := raw.Indptr[i]; k < raw.Indptr[i+1]; k++ {
			j := raw.Ind[k]
			row := raw.Ind[raw.Indptr[j]:raw.Indptr[j+1]]
			m, found := slices.BinarySearch(row, i)
			if !found {
				return symMatrix[float64]{}, fmt.Errorf("laplace: matrix is not symmetric: entry (%d, %d) is %g but (%d, %d) is absent", i, j, raw.Data[k], j, i)
			}
			if v := raw.Data[raw.Indptr[j]+m]; v != raw.Data[k] {
				return symMatrix[float64]{}, fmt.Errorf("laplace: matrix is not symmetric: entry (%d, %d) is %g but (%d, %d) is %g", i, j, raw.Data[k], j, i, v)
			}
		}
	}
	type scratch struct{ col []int32 }
	row := func(s *scratch, i int) ([]int32, []float64) {
		s.col = s.col[:0]
		for _, j := range raw.Ind[raw.Indptr[i]:raw.Indptr[i+1]] {
			s.col = append(s.col, int32(j))
		}
		return s.col, raw.Data[raw.Indptr[i]:raw.Indptr[i+1]]
	}
	return buildSym[*scratch, float64](r, func() *scratch { return &scratch{} }, func(s *scratch, i int) (int, int) {
		cols, _ := row(s, i)
		return splitCounts(cols, i, r)
	}, row)
}

// buildCSROnePass builds a rows×cols matrix in one parallel pass when
// counting a row costs nearly as much as computing it: row(s, i, out)
// appends row i's entries, sorted by column, to out. Each chunk of rows
// fills its own buffers, which are then copied into place in row order.
func buildCSROnePass[S any, T float32 | float64](rows, cols int, init func() S, row func(s S, i int, out *rowSink[T])) csr[T] {
	c := buildRowChunks(rows, init, row)
	a := csr[T]{rows: rows, cols: cols, rowPtr: make([]int32, rows+1)}
	// Each row's end within its chunk, shifted by the chunk's start.
	offset := 0
	for lo := 0; lo < rows; lo += rowChunk {
		hi := min(lo+rowChunk, rows)
		for i := lo; i < hi; i++ {
			a.rowPtr[i+1] = int32(offset + c.end[i])
		}
		offset = int(a.rowPtr[hi])
	}
	a.col = make([]int32, offset)
	a.val = make([]T, offset)
	par.For(rows, rowChunk, func(lo, hi int) {
		p := &c.parts[lo/rowChunk]
		copy(a.col[a.rowPtr[lo]:], p.col)
		copy(a.val[a.rowPtr[lo]:], p.val)
		*p = rowSink[T]{}
	})
	return a
}

// rowChunks holds the rows of a matrix as built, chunk by chunk
// (rowChunk rows each): row i is the entries of parts[i/rowChunk] from the
// previous row's end to end[i]. Read in place, it spares the copy into one
// CSR, which would hold the matrix twice at once.
type rowChunks[T float32 | float64] struct {
	parts []rowSink[T]
	end   []int
}

// buildRowChunks builds rows in one parallel pass, as buildCSROnePass.
func buildRowChunks[S any, T float32 | float64](rows int, init func() S, row func(s S, i int, out *rowSink[T])) rowChunks[T] {
	c := rowChunks[T]{parts: make([]rowSink[T], numChunks(rows)), end: make([]int, rows)}
	par.ForWith(rows, rowChunk, init, func(s S, lo, hi int) {
		out := &c.parts[lo/rowChunk]
		for i := lo; i < hi; i++ {
			row(s, i, out)
			c.end[i] = len(out.col)
		}
	})
	return c
}

func (c *rowChunks[T]) numRows() int { return len(c.end) }

func (c *rowChunks[T]) row(i int) ([]int32, []T) {
	start := 0
	if i%rowChunk != 0 {
		start = c.end[i-1]
	}
	p := &c.parts[i/rowChunk]
	return p.col[start:c.end[i]], p.val[start:c.end[i]]
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
