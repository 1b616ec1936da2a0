package format

import (
	"bytes"
	"io"
	"math"
)

// readOBJ parses Wavefront OBJ geometry: "v x y z" vertices (a w or
// colour after z is ignored) and "f" faces whose corners take any of the
// forms v, v/vt, v//vn, v/vt/vn, with 1-based indices or negative ones
// counting back from the latest vertex. Faces with more than three
// corners are split into a fan from their first corner, which is right
// for the convex polygons exporters write. A line ending in a backslash
// continues on the next. Everything else (comments, vt, vn, g, o, s,
// usemtl, mtllib, lines, points, curves) is ignored.
func readOBJ(r io.Reader) (*Surface, error) {
	p := objParser{s: newTextScanner(r)}
	if err := p.parse(); err != nil {
		return nil, p.s.lineError("OBJ", err)
	}
	if p.maxIndex > int64(len(p.pos)/3) {
		return nil, &ParseError{Format: "OBJ", Line: p.maxLine, Offset: -1, Err: errorf(ErrBadIndex,
			"face refers to vertex %d, but the file has %d vertices", p.maxIndex, len(p.pos)/3)}
	}
	return &Surface{Positions: p.pos, Triangles: p.tris}, nil
}

type objParser struct {
	s        *textScanner
	pos      []float64
	tris     []int32
	corners  []int32 // the current face's vertex indices
	joined   []byte  // a line assembled from backslash continuations
	maxIndex int64   // largest positive index used, checked at the end: a face may precede its vertices
	maxLine  int     // the line where maxIndex was used
}

func (p *objParser) parse() error {
	for {
		ok, err := p.s.nextLine()
		if err != nil || !ok {
			return err
		}
		if err := p.joinContinuations(); err != nil {
			return err
		}
		switch key := p.s.field(); {
		case bytes.Equal(key, []byte("v")):
			if err := p.vertex(); err != nil {
				return err
			}
		case bytes.Equal(key, []byte("f")):
			if err := p.face(); err != nil {
				return err
			}
		}
	}
}

// joinContinuations appends the following lines while the current one
// ends in a backslash.
func (p *objParser) joinContinuations() error {
	line := bytes.TrimRight(p.s.rest, " \t")
	if !bytes.HasSuffix(line, []byte(`\`)) {
		return nil
	}
	p.joined = append(p.joined[:0], line[:len(line)-1]...)
	for {
		ok, err := p.s.nextLine()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		line = bytes.TrimRight(p.s.rest, " \t")
		more := bytes.HasSuffix(line, []byte(`\`))
		if more {
			line = line[:len(line)-1]
		}
		p.joined = append(append(p.joined, ' '), line...)
		if !more {
			break
		}
	}
	p.s.rest = p.joined
	return nil
}

func (p *objParser) vertex() error {
	for range 3 {
		x, err := parseFloat(p.s.field())
		if err != nil {
			return err
		}
		p.pos = append(p.pos, x)
	}
	if len(p.pos)/3 > math.MaxInt32 {
		return errorf(ErrTooLarge, "more than %d vertices", math.MaxInt32)
	}
	return nil
}

func (p *objParser) face() error {
	p.corners = p.corners[:0]
	for f := p.s.field(); f != nil; f = p.s.field() {
		if i := bytes.IndexByte(f, '/'); i >= 0 {
			f = f[:i]
		}
		n, err := parseInt(f)
		if err != nil {
			return err
		}
		nv := int64(len(p.pos) / 3)
		switch {
		case n == 0:
			return errorf(ErrBadIndex, "vertex index 0 (OBJ indices start at 1)")
		case n < 0:
			if -n > nv {
				return errorf(ErrBadIndex, "relative vertex index %d reaches before the first vertex (%d defined so far)", n, nv)
			}
			n += nv
		default:
			if n > math.MaxInt32 {
				return errorf(ErrBadIndex, "vertex index %d out of range", n)
			}
			if n > p.maxIndex {
				p.maxIndex, p.maxLine = n, p.s.line
			}
			n--
		}
		p.corners = append(p.corners, int32(n))
	}
	if len(p.corners) < 3 {
		return errorf(ErrSyntax, "face with %d corners", len(p.corners))
	}
	for i := 1; i+1 < len(p.corners); i++ {
		p.tris = append(p.tris, p.corners[0], p.corners[i], p.corners[i+1])
	}
	return nil
}
