package format

import (
	"bytes"
	"io"
	"math"
)

// readOFF parses an ASCII Object File Format surface of size bytes: a
// header keyword (OFF, or a variant such as COFF or NOFF whose extra
// per-vertex values are ignored), the counts "nv nf ne", nv vertex lines
// whose first three numbers are x y z, and nf face lines "n i1 … in"
// with 0-based indices, possibly followed by a colour. Faces with more
// than three corners are split into a fan. "#" starts a comment.
func readOFF(r io.Reader, size int64) (*Surface, error) {
	p := offParser{s: newTextScanner(r), size: size}
	if err := p.parse(); err != nil {
		return nil, p.s.lineError("OFF", err)
	}
	return &Surface{Positions: p.pos, Triangles: p.tris}, nil
}

type offParser struct {
	s    *textScanner
	size int64
	pos  []float64
	tris []int32
}

// nextDataLine advances to the next line with content once comments are
// removed.
func (p *offParser) nextDataLine(what string) error {
	for {
		ok, err := p.s.nextLine()
		if err != nil {
			return err
		}
		if !ok {
			return errorf(ErrTruncated, "file ends before %s", what)
		}
		if i := bytes.IndexByte(p.s.rest, '#'); i >= 0 {
			p.s.rest = p.s.rest[:i]
		}
		if len(bytes.TrimSpace(p.s.rest)) > 0 {
			return nil
		}
	}
}

// count parses a non-negative element count that a file of p.size bytes
// could hold at minBytes bytes per element.
func (p *offParser) count(what string, minBytes int64) (int, error) {
	n, err := parseInt(p.s.field())
	if err != nil {
		return 0, err
	}
	if n < 0 || n > math.MaxInt32/3 {
		return 0, errorf(ErrSyntax, "%s count %d out of range", what, n)
	}
	if n*minBytes > p.size {
		return 0, errorf(ErrTruncated, "header says %d %s, more than a %d-byte file can hold", n, what, p.size)
	}
	return int(n), nil
}

func (p *offParser) parse() error {
	if err := p.nextDataLine("the OFF header"); err != nil {
		return err
	}
	kw := p.s.field()
	if !bytes.HasSuffix(kw, []byte("OFF")) {
		return errorf(ErrSyntax, "expected an OFF header keyword, found %q", clip(kw))
	}
	if bytes.Contains(kw, []byte("4")) || bytes.HasPrefix(kw, []byte("n")) {
		return errorf(ErrSyntax, "%s (not three-dimensional) is not supported", kw)
	}
	if len(bytes.TrimSpace(p.s.rest)) == 0 {
		if err := p.nextDataLine("the element counts"); err != nil {
			return err
		}
	}
	if bytes.HasPrefix(bytes.TrimSpace(p.s.rest), []byte("BINARY")) {
		return errorf(ErrSyntax, "binary OFF is not supported")
	}
	nv, err := p.count("vertices", 6)
	if err != nil {
		return err
	}
	nf, err := p.count("faces", 8)
	if err != nil {
		return err
	}
	p.pos = make([]float64, 0, 3*nv)
	for range nv {
		if err := p.nextDataLine("all vertices are read"); err != nil {
			return err
		}
		for range 3 {
			x, err := parseFloat(p.s.field())
			if err != nil {
				return err
			}
			p.pos = append(p.pos, x)
		}
	}
	p.tris = make([]int32, 0, 3*nf)
	for range nf {
		if err := p.nextDataLine("all faces are read"); err != nil {
			return err
		}
		if err := p.face(nv); err != nil {
			return err
		}
	}
	return nil
}

func (p *offParser) face(nv int) error {
	n, err := parseInt(p.s.field())
	if err != nil {
		return err
	}
	if n < 3 || n > int64(len(p.s.rest)) {
		return errorf(ErrSyntax, "face with %d corners", n)
	}
	var first, prev int32
	for k := range n {
		i, err := parseInt(p.s.field())
		if err != nil {
			return err
		}
		if i < 0 || i >= int64(nv) {
			return errorf(ErrBadIndex, "vertex index %d out of range [0, %d)", i, nv)
		}
		switch {
		case k == 0:
			first = int32(i)
		case k >= 2:
			p.tris = append(p.tris, first, prev, int32(i))
		}
		prev = int32(i)
	}
	return nil
}
