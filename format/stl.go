package format

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/hschendel/stl"
)

// STL has no vertex indices: a corner shared by several triangles is
// written once per triangle. Both STL readers weld corners with exactly
// equal coordinates as they read, so the Surface they return is indexed
// and its vertices are distinct.

const (
	stlHeaderSize   = 84 // 80-byte comment, then the triangle count as uint32 LE
	stlTriangleSize = 50 // normal, three corners (12 float32 LE), uint16 attribute
)

// readBinarySTL reads a binary STL of size bytes. It checks the triangle
// count in the header against the size itself — github.com/hschendel/stl
// would take a short file for ASCII and report a misleading parse error —
// and then streams the triangles through that library into a welder.
// Bytes after the last triangle are ignored.
func readBinarySTL(r io.ReaderAt, size int64) (*Surface, error) {
	const format = "binary STL"
	if size < stlHeaderSize {
		return nil, &ParseError{Format: format, Offset: size, Err: errorf(ErrTruncated,
			"binary STL truncated: %d bytes, shorter than the 84-byte header", size)}
	}
	var head [stlHeaderSize]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, &ParseError{Format: format, Offset: 0, Err: err}
	}
	count := int64(binary.LittleEndian.Uint32(head[80:]))
	if held := (size - stlHeaderSize) / stlTriangleSize; count > held {
		return nil, &ParseError{Format: format, Offset: size, Err: errorf(ErrTruncated,
			"binary STL truncated: header says %d triangles, file holds %d", count, held)}
	}
	if count > math.MaxInt32/3 {
		return nil, &ParseError{Format: format, Offset: 80, Err: errorf(ErrTooLarge,
			"%d triangles: more than pfmesh indexes", count)}
	}
	// A closed surface has about half as many vertices as triangles.
	sink := &stlSink{w: newWelder(make([]float64, 0, 3*(count/2+1)), int(count)/2), tris: make([]int32, 0, 3*count)}
	body := io.NewSectionReader(r, 0, stlHeaderSize+stlTriangleSize*count)
	if err := stl.CopyAll(body, sink); err != nil {
		return nil, &ParseError{Format: format, Offset: -1, Err: err}
	}
	if sink.err != nil {
		return nil, &ParseError{Format: format, Offset: stlHeaderSize + stlTriangleSize*int64(sink.bad), Err: sink.err}
	}
	return &Surface{Positions: sink.w.pos, Triangles: sink.tris}, nil
}

// stlSink receives triangles from github.com/hschendel/stl, rejects
// non-finite corners (which that library accepts) and welds the rest.
type stlSink struct {
	w    *welder
	tris []int32
	n    int   // triangles seen
	bad  int   // index of the first bad triangle
	err  error // first problem found; later triangles are ignored
}

func (s *stlSink) SetName(string)          {}
func (s *stlSink) SetBinaryHeader([]byte)  {}
func (s *stlSink) SetASCII(bool)           {}
func (s *stlSink) SetTriangleCount(uint32) {}

func (s *stlSink) AppendTriangle(t stl.Triangle) {
	defer func() { s.n++ }()
	if s.err != nil {
		return
	}
	for _, v := range t.Vertices {
		for _, c := range v {
			if x := float64(c); math.IsNaN(x) || math.IsInf(x, 0) {
				s.bad, s.err = s.n, errorf(ErrNonFinite, "triangle %d has a NaN or infinite coordinate", s.n)
				return
			}
		}
	}
	for _, v := range t.Vertices {
		s.tris = append(s.tris, s.w.add(float64(v[0]), float64(v[1]), float64(v[2])))
	}
}

// readASCIISTL parses ASCII STL: one or more solids, each
//
//	solid [name]
//	  facet normal nx ny nz
//	    outer loop
//	      vertex x y z   (three times)
//	    endloop
//	  endfacet
//	endsolid [name]
//
// Keywords are matched without regard to case, the name may be absent,
// and a UTF-8 byte order mark is skipped — all of which
// github.com/hschendel/stl rejects; its ASCII path is also slow (about
// 13 µs per triangle), hence this parser. Normals are not read: pfmesh
// orients triangles by their corner order. Coordinates must be finite.
func readASCIISTL(r io.Reader) (*Surface, error) {
	p := stlParser{s: newTextScanner(r), w: newWelder(nil, 1024)}
	if err := p.parse(); err != nil {
		return nil, p.s.lineError("ASCII STL", err)
	}
	return &Surface{Positions: p.w.pos, Triangles: p.tris}, nil
}

type stlParser struct {
	s    *textScanner
	w    *welder
	tris []int32
}

// expect reads the next token and checks it is keyword.
func (p *stlParser) expect(keyword string) error {
	t, err := p.s.token()
	if err != nil {
		return err
	}
	if t == nil {
		return errorf(ErrTruncated, "file ends where %q was expected", keyword)
	}
	if !bytes.EqualFold(t, []byte(keyword)) {
		return errorf(ErrSyntax, "expected %q, found %q", keyword, clip(t))
	}
	return nil
}

func (p *stlParser) parse() error {
	if err := p.expect("solid"); err != nil {
		return err
	}
	p.s.rest = nil // the solid's name, if any
	for {
		t, err := p.s.token()
		switch {
		case err != nil:
			return err
		case t == nil:
			return errorf(ErrTruncated, "file ends inside a solid (no endsolid)")
		case bytes.EqualFold(t, []byte("facet")):
			if err := p.facet(); err != nil {
				return err
			}
		case bytes.EqualFold(t, []byte("endsolid")):
			p.s.rest = nil
			t, err := p.s.token()
			if err != nil || t == nil {
				return err
			}
			if !bytes.EqualFold(t, []byte("solid")) {
				return errorf(ErrSyntax, "expected \"solid\" or end of file after endsolid, found %q", clip(t))
			}
			p.s.rest = nil
		default:
			return errorf(ErrSyntax, "expected \"facet\" or \"endsolid\", found %q", clip(t))
		}
	}
}

// facet parses the rest of a facet after its "facet" keyword.
func (p *stlParser) facet() error {
	if err := p.expect("normal"); err != nil {
		return err
	}
	for range 3 {
		if t, err := p.s.token(); err != nil || t == nil {
			return p.orTruncated(err, "normal")
		}
	}
	if err := p.expect("outer"); err != nil {
		return err
	}
	if err := p.expect("loop"); err != nil {
		return err
	}
	for range 3 {
		if err := p.expect("vertex"); err != nil {
			return err
		}
		var c [3]float64
		for k := range c {
			t, err := p.s.token()
			if err != nil || t == nil {
				return p.orTruncated(err, "vertex")
			}
			if c[k], err = parseFloat(t); err != nil {
				return err
			}
		}
		p.tris = append(p.tris, p.w.add(c[0], c[1], c[2]))
	}
	if err := p.expect("endloop"); err != nil {
		return err
	}
	return p.expect("endfacet")
}

func (p *stlParser) orTruncated(err error, what string) error {
	if err != nil {
		return err
	}
	return errorf(ErrTruncated, "file ends inside a %s", what)
}

// clip shortens a token quoted in an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%s…", b[:40])
	}
	return string(b)
}
