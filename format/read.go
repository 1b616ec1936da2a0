package format

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
)

// ReadSurface reads the triangle surface in the file at path — binary or
// ASCII STL, OBJ, OFF or PLY, told apart by content (DetectFormat) — and
// returns it in metres as opt says (see ReadOptions; by default the
// file's numbers are metres).
//
// STL corners with equal coordinates become one vertex; the indexed
// formats keep their vertices as written. Nothing else is changed: use
// Diagnose to see what is wrong with the surface and Clean to fix what
// can be fixed. A file that cannot be read, or holds no triangles, gives
// a *ParseError naming the file, the place and the problem.
func ReadSurface(path string, opt ReadOptions) (*Surface, error) {
	f, size, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decode(f, size, path, opt)
}

// DecodeSurface is ReadSurface for a file's contents already in memory;
// name is used in error messages and, when the content is ambiguous, for
// its extension.
func DecodeSurface(data []byte, name string, opt ReadOptions) (*Surface, error) {
	return decode(bytes.NewReader(data), int64(len(data)), name, opt)
}

func decode(r io.ReaderAt, size int64, name string, opt ReadOptions) (*Surface, error) {
	factor, err := opt.Factor()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if size == 0 {
		return nil, &ParseError{Name: name, Offset: -1, Err: ErrEmpty}
	}
	head := make([]byte, min(size, detectHead))
	if _, err := r.ReadAt(head, 0); err != nil {
		return nil, &ParseError{Name: name, Offset: 0, Err: err}
	}
	format := DetectFormat(head, size, name)
	stream := io.NewSectionReader(r, 0, size)
	var s *Surface
	switch format {
	case BinarySTL:
		s, err = readBinarySTL(r, size)
	case ASCIISTL:
		s, err = readASCIISTL(stream)
	case OBJ:
		s, err = readOBJ(stream)
	case OFF:
		s, err = readOFF(stream, size)
	case PLY:
		s, err = readPLY(stream, size)
	default:
		return nil, &ParseError{Name: name, Offset: -1, Err: ErrUnknownFormat}
	}
	if err != nil {
		if pe, ok := err.(*ParseError); ok {
			pe.Name = name
			return nil, pe
		}
		return nil, &ParseError{Name: name, Format: format.String(), Offset: -1, Err: err}
	}
	if len(s.Triangles) == 0 {
		return nil, &ParseError{Name: name, Format: format.String(), Offset: -1, Err: ErrNoTriangles}
	}
	if len(s.Positions)/3 > math.MaxInt32 {
		return nil, &ParseError{Name: name, Format: format.String(), Offset: -1, Err: errorf(ErrTooLarge, "more than %d vertices", math.MaxInt32)}
	}
	if factor != 1 {
		for i := range s.Positions {
			s.Positions[i] *= factor
			if math.IsInf(s.Positions[i], 0) {
				return nil, fmt.Errorf("%s: scaling by %g overflows a coordinate", name, factor)
			}
		}
	}
	return s, nil
}

// openRegular opens path for reading and returns its size, refusing
// anything but a regular file (a directory or a device would make the
// readers wait or fail obscurely).
func openRegular(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: not a regular file", path)
	}
	return f, st.Size(), nil
}
